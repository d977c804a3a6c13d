#!/usr/bin/env bash
# Creates .paddle_venv with real PaddlePaddle 3.3.1 (CPU), the reference the conformance tests compare with.
# It is never imported by torchpaddle itself.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! .paddle_venv/bin/python -c "import paddle; assert paddle.__version__ == '3.3.1'" 2>/dev/null; then
  rm -rf .paddle_venv
  "$PY" -m venv .paddle_venv
  .paddle_venv/bin/pip install -q --disable-pip-version-check paddlepaddle==3.3.1 numpy
fi
# OpenCV for the reference's NumPy-image transforms (tests/vision compares them with ours)
.paddle_venv/bin/python -c "import cv2" 2>/dev/null \
  || .paddle_venv/bin/pip install -q --disable-pip-version-check "opencv-python-headless>=4.5,<5"
