#!/usr/bin/env bash
# Regenerate framework_pb2.py from framework.proto.
#
# Generated with grpcio-tools 1.62.3 (protoc 25.1): its output needs protobuf>=4.25 at run time and
# carries no runtime-version check, so newer runtimes load it as well. Usage:
#   python -m venv /tmp/pbgen && /tmp/pbgen/bin/pip install grpcio-tools==1.62.3
#   PYTHON=/tmp/pbgen/bin/python bash torchpaddle/static/serialization/regen.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
"${PYTHON:-python}" -m grpc_tools.protoc --proto_path=. --python_out=. \
    torchpaddle/static/serialization/framework.proto
