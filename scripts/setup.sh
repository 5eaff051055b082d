#!/usr/bin/env bash
# Idempotent setup of the project's virtual environments.
#
#   bash scripts/setup.sh [EXTRAS]     .venv: kardinal-env installed editable with EXTRAS
#                                      (comma-separated, default "train,dev")
#   bash scripts/setup.sh core [WHEELS]
#                                      .venv-core: kardinal-env installed from a wheel with no extras
#                                      (only the core dependencies of pyproject.toml) and without the
#                                      compiled core, plus pytest and pytest-timeout: the core lane of
#                                      .ci/run, which then adds the core wheel. WHEELS: a folder made by
#                                      scripts/wheels.sh whose main wheel is installed; without it the
#                                      wheel is built here from a copy of the sources
#
# .venv: installs torch==2.13.0 first where no torch is present (a CPU build lies on this machine
# kind's disk; an unpinned torch could pull a multi-GB CUDA build). Records what it installed in
# .venv/.kardinal-setup and does nothing when pyproject.toml is unchanged and the requested extras
# are already installed, so it is quick when already done.
# .venv also gets the compiled core (cpp/: the distribution kardinal-env-core, module kardinal_core;
# C++17 with nanobind, built by scikit-build-core, which takes cmake/ninja from PyPI where the machine
# lacks them): rebuilt only when a hash of cpp/'s sources differs from .venv/.kardinal-core or the
# module does not import. A failed build prints one warning and goes on: the Python engine remains.
# .venv-core: never gets torch or any extra; the project itself is rebuilt (or taken from WHEELS) and
# reinstalled on every call (a wheel, not editable, so the core lane tests what a user installs; an
# installed kardinal-env-core is removed first), its dependencies only when missing; pip's download
# cache makes a fresh one cheap.
set -euo pipefail
WHEELS=${2:+$(cd "$2" && pwd)}  # before the cd below: WHEELS may be relative to the caller's folder
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
REQUESTED=${1:-train,dev}

if [ "$REQUESTED" = core ]; then
    if [ ! -x .venv-core/bin/python ]; then
        "$PYTHON" -m venv .venv-core
        .venv-core/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    fi
    echo "setup: installing kardinal-env (no extras, no compiled core) into .venv-core" >&2
    .venv-core/bin/python -m pip install -q "pytest>=8" "pytest-timeout>=2" "pytest-xdist>=3"
    # Same version every time: uninstall first, so the wheel of this call is the one installed.
    .venv-core/bin/python -m pip uninstall -q -y kardinal-env kardinal-env-core >/dev/null 2>&1 || true
    if [ -n "$WHEELS" ]; then
        wheels=("$WHEELS"/kardinal_env-*-py3-none-any.whl)
        if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
            echo "setup: expected one kardinal_env wheel in $WHEELS (bash scripts/wheels.sh $WHEELS)" >&2
            exit 1
        fi
        .venv-core/bin/python -m pip install -q "${wheels[0]}"
        exit 0
    fi
    # Built from a copy of the sources: an in-tree build would reuse build/, where a module deleted
    # since the last build would still lie and slip into the wheel.
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    cp -r pyproject.toml README.md LICENSE kardinal_env agents configs "$src"/
    find "$src" -name __pycache__ -prune -exec rm -rf {} +
    .venv-core/bin/python -m pip install -q "$src"
    exit 0
fi

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

# The compiled core (see the header): rebuilt when cpp/'s sources change or it does not import.
core_stamp=.venv/.kardinal-core
core_hash=$(find cpp -path cpp/build -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ ! -f "$core_stamp" ] || [ "$(cat "$core_stamp")" != "$core_hash" ] \
    || ! .venv/bin/python -c "import kardinal_core" >/dev/null 2>&1; then
    echo "setup: building the compiled core (cpp/, kardinal-env-core) into .venv" >&2
    if .venv/bin/python -m pip install -q ./cpp >.venv/.kardinal-core.log 2>&1 \
        && .venv/bin/python -c "import kardinal_core" >/dev/null 2>&1; then
        echo "$core_hash" > "$core_stamp"
    else
        rm -f "$core_stamp"
        echo "setup: WARNING: the compiled core (cpp/) did not build; the Python engines remain" \
            "(log: .venv/.kardinal-core.log; needs a C++17 compiler)" >&2
    fi
fi
