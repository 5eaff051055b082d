#!/usr/bin/env bash
# Idempotent setup: a virtual environment in .venv with kardinal-env installed editable plus extras.
#
#   bash scripts/setup.sh [EXTRAS]     EXTRAS: comma-separated, default "train,dev"
#
# Installs torch==2.13.0 first where no torch is present (a CPU build lies on this machine kind's
# disk; an unpinned torch could pull a multi-GB CUDA build). Records what it installed in
# .venv/.kardinal-setup and does nothing when pyproject.toml is unchanged and the requested extras
# are already installed, so it is quick when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
REQUESTED=${1:-train,dev}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.kardinal-setup
project_hash=$(sha256sum pyproject.toml | cut -d' ' -f1)
installed=""
if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$project_hash" ]; then
    installed=$(sed -n 2p "$stamp")
fi
missing=""
for extra in ${REQUESTED//,/ }; do
    case ",$installed," in *",$extra,"*) ;; *) missing="$missing $extra" ;; esac
done
if [ -n "$missing" ]; then
    wanted=$(echo "$installed,$REQUESTED" | tr ',' '\n' | sed '/^$/d' | sort -u | paste -sd, -)
    echo "setup: installing kardinal-env[$wanted] into .venv" >&2
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
        .venv/bin/python -m pip install -q torch==2.13.0
    fi
    .venv/bin/python -m pip install -q -e ".[$wanted]"
    printf '%s\n%s\n' "$project_hash" "$wanted" > "$stamp"
fi
