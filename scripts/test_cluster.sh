#!/usr/bin/env bash
# The Ray cluster tests (pytest marker `cluster`, tests/test_cluster.py) in a network namespace of
# their own that has nothing but loopback: Ray listens on every interface and rewrites 127.0.0.1 to
# the machine's address, so the two-node cluster may only run where 127.0.0.1 is the only address.
# Needs root (or user namespaces) for `unshare --net`; scripts/test.sh calls it. Extra arguments go
# to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v unshare > /dev/null || ! command -v ip > /dev/null; then
    echo "test_cluster.sh: needs unshare (util-linux) and ip (iproute2) to make a loopback-only network namespace" >&2
    exit 1
fi
exec unshare --net bash -c 'ip link set lo up && exec "$0" -m pytest -q -p no:cacheprovider -m cluster tests/test_cluster.py "$@"' \
    .venv/bin/python "$@"
