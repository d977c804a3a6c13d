#!/usr/bin/env bash
# Creates .venv with torchpaddle installed (editable) and its test tools. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
.venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . 2>/dev/null \
  || .venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
