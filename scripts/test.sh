#!/usr/bin/env bash
# Command (2) of the README quick start: set up (all extras, so the RL-library integration tests
# run too), lint with ruff, then run the default test suite. Extra arguments go to pytest
# (e.g. `bash scripts/test.sh -m slow`, `bash scripts/test.sh -m integration`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,dev,integrations
.venv/bin/ruff check kardinal_env agents scripts tests
exec .venv/bin/python -m pytest -q "$@"
