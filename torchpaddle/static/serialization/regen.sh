#!/usr/bin/env bash
# Regenerate framework_pb2.py from framework.proto.
#
# Generated with grpcio-tools 1.62.3 (protoc 25.1). Its output has no runtime-version check and loads on
# protobuf 4.21 through 7.x (checked: 4.21, 4.25, 5.29, 6.33, 7.36), hence "protobuf>=4.21,<8". Usage:
#   python -m venv /tmp/pbgen && /tmp/pbgen/bin/pip install grpcio-tools==1.62.3
#   PYTHON=/tmp/pbgen/bin/python bash torchpaddle/static/serialization/regen.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
"${PYTHON:-python}" -m grpc_tools.protoc --proto_path=. --python_out=. \
    torchpaddle/static/serialization/framework.proto
