#!/usr/bin/env bash
# Command (2) of the README quick start: set up (all extras, so the RL-library integration tests
# run too), then run the default test suite. Extra arguments go to pytest
# (e.g. `bash scripts/test.sh -m slow`, `bash scripts/test.sh -m integration`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,dev,integrations
exec .venv/bin/python -m pytest -q "$@"
