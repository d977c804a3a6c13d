#!/usr/bin/env bash
# Creates .fluid_venv with real PaddlePaddle 1.8.5 on Python 3.8: the reference for legacy paddle.fluid code
# (the fluid conformance tests compare with it). It is never imported by torchpaddle itself.
set -euo pipefail
cd "$(dirname "$0")/.."
# (pyenv's shim for python3.8 exists but fails unless 3.8 is selected: take the interpreter itself)
PY38=${PYTHON38:-}
if [ -z "$PY38" ] && command -v pyenv >/dev/null; then
  PY38="$(pyenv root)/versions/$(pyenv versions --bare | grep '^3\.8' | tail -1)/bin/python"
fi
PY38=${PY38:-python3.8}
if ! .fluid_venv/bin/python -c "import paddle; assert paddle.__version__ == '1.8.5'" 2>/dev/null; then
  rm -rf .fluid_venv
  "$PY38" -m venv .fluid_venv
  .fluid_venv/bin/pip install -q --disable-pip-version-check paddlepaddle==1.8.5 "numpy<1.20" "protobuf<3.21"
fi
