#!/usr/bin/env bash
# Install what the tests marked `browser` (tests/test_browser.py) need, where it is missing:
#   - Debian's `chromium` package (/usr/bin/chromium), with apt-get (as root, or through sudo);
#   - Playwright for Python in the virtualenv (.venv, or $PYTHON), with pip.
# Playwright drives that system Chromium (executable_path="/usr/bin/chromium"); its own browser
# download (`playwright install`) is not used. Safe to run again: it only installs what is missing.
#
#   bash scripts/setup_browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
CHROMIUM=/usr/bin/chromium

if [ ! -x "$PY" ]; then
    echo "setup_browser: no Python at $PY (run scripts/setup.sh first, or set PYTHON)" >&2
    exit 1
fi

if [ ! -x "$CHROMIUM" ]; then
    if ! command -v apt-get > /dev/null; then
        echo "setup_browser: $CHROMIUM is missing and there is no apt-get to install Debian's chromium" >&2
        exit 1
    fi
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo > /dev/null; then
            echo "setup_browser: installing chromium needs root (or sudo): apt-get install chromium" >&2
            exit 1
        fi
        SUDO=(sudo)
    fi
    echo "setup_browser: installing Debian's chromium (apt-get)" >&2
    "${SUDO[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends chromium
fi

if ! "$PY" -c "import playwright.sync_api" 2> /dev/null; then
    echo "setup_browser: installing playwright into $PY (pip)" >&2
    "$PY" -m pip install -q "playwright>=1.40"
fi

echo "setup_browser: $("$CHROMIUM" --version 2> /dev/null || echo "$CHROMIUM"), playwright $("$PY" -c \
    'from importlib.metadata import version; print(version("playwright"))')" >&2
