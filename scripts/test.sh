#!/usr/bin/env bash
# Sets up both virtualenvs and runs the whole test suite (slow, multi-process and conformance tiers included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup_paddle_ref.sh
bash scripts/setup_fluid_ref.sh
export PADDLE_REF_PYTHON="$PWD/.paddle_venv/bin/python" FLUID_REF_PYTHON="$PWD/.fluid_venv/bin/python"
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-2}" -q -p no:cacheprovider "$@"
