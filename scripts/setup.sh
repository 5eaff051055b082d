#!/usr/bin/env bash
# Idempotent setup: a virtual environment in .venv with kardinal-env and its extras installed editable.
# Installs torch==2.13.0 first where no torch is present (a CPU build lies on this machine kind's disk;
# an unpinned torch could pull a multi-GB CUDA build). Quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
EXTRAS=${KARDINAL_EXTRAS:-train,dev}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.kardinal-setup
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1) $EXTRAS"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
        .venv/bin/python -m pip install -q torch==2.13.0
    fi
    .venv/bin/python -m pip install -q -e ".[$EXTRAS]"
    echo "$want" > "$stamp"
fi
