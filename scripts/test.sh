#!/usr/bin/env bash
# Command (2) of the README quick start: set up .venv (all extras, so the RL-library integration
# tests and the documentation site's build run too), then the checks CI runs:
#   ruff check · ruff format --check · mypy (kardinal_env, settings in pyproject.toml) ·
#   mkdocs build --strict (the site, into the git-ignored site/) · pytest (pytest-xdist, a worker per
#   core) · the tests marked `backends` (both games' engine and environment tests) again on the Python
#   engines, `pytest --backend python` (skipped when extra pytest arguments are given), and beside it
#   the Ray cluster tests in a loopback-only network namespace (scripts/test_cluster.sh; skipped
#   when extra pytest arguments are given)
# Every check runs even when an earlier one fails; the script exits non-zero when any failed and
# names them. pytest collecting no test (its exit code 5) counts as a failure. Extra arguments go to
# pytest (e.g. `bash scripts/test.sh -m slow`, `bash scripts/test.sh -m integration`).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
bash scripts/setup.sh train,dev,integrations,docs || exit 1
echo "== setup: $((SECONDS - start)) s" >&2
# setup.sh builds the compiled core into .venv: here its lockstep tests must run, not skip.
export KARDINAL_REQUIRE_CORE=1
# pytest-xdist workers: one per core (KARDINAL_TEST_WORKERS=0 runs in one process, e.g. to debug).
WORKERS=${KARDINAL_TEST_WORKERS:-auto}

LINTED=(kardinal_env agents scripts tests configs docs/hooks)
failed=()
run() {  # run NAME COMMAND...: run a check, print how long it took, remember it when it fails
    local name=$1 start=$SECONDS
    shift
    echo "== $name" >&2
    "$@"
    local rc=$?
    echo "== $name: exit $rc after $((SECONDS - start)) s" >&2
    if [ "$rc" -ne 0 ]; then
        failed+=("$name (exit $rc)")
    fi
    return 0
}

# mypy (one thread) in the background beside ruff and the docs build (one thread); its output follows theirs.
mypy_log=$(mktemp)
(
    start=$SECONDS
    .venv/bin/mypy
    rc=$?
    echo "(mypy ran $((SECONDS - start)) s)"
    exit "$rc"
) >"$mypy_log" 2>&1 &
mypy_pid=$!
run "ruff check" .venv/bin/ruff check "${LINTED[@]}"
run "ruff format --check" .venv/bin/ruff format --check "${LINTED[@]}"
# Strict: a warning, a dead internal link or anchor, a page missing from the navigation or a broken
# cross-reference of the API reference fails the build (mkdocs.yml). Never --quiet: it drops the
# warnings before strict mode counts them.
run "mkdocs build --strict" env NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --clean --site-dir site
finish_mypy() {  # the background mypy's output, then its exit status
    wait "$mypy_pid"
    local rc=$?
    cat "$mypy_log"
    rm -f "$mypy_log"
    return "$rc"
}
run "mypy" finish_mypy
echo "== pytest" >&2
start=$SECONDS
.venv/bin/python -m pytest -q -n "$WORKERS" "$@"
rc=$?
echo "== pytest: exit $rc after $((SECONDS - start)) s" >&2
if [ "$rc" -eq 5 ]; then
    failed+=("pytest (exit 5: no test was collected)")
elif [ "$rc" -ne 0 ]; then
    failed+=("pytest (exit $rc)")
fi

if [ "$#" -eq 0 ]; then
    # The Ray cluster tests, in a loopback-only network namespace of their own, in the background: they
    # mostly wait for Ray to start, while the run below keeps the cores busy. Their log follows that run's.
    echo "== pytest -m cluster (scripts/test_cluster.sh), in the background" >&2
    cluster_log=$(mktemp)
    cluster_start=$SECONDS
    bash scripts/test_cluster.sh >"$cluster_log" 2>&1 &
    cluster_pid=$!

    # The engine and environment tests once more on the Python engine: the run above plays both games
    # on the core-backed Game (setup.sh builds the core, and KARDINAL_ENV_BACKEND is unset); the tests
    # marked `backends` again with --backend python (tests/conftest.py sets KARDINAL_ENV_BACKEND=python),
    # so the Python reference engines pass every engine, record, knowledge, golden, playthrough and
    # environment test too.
    echo "== pytest --backend python (the tests marked backends)" >&2
    start=$SECONDS
    .venv/bin/python -m pytest -q -p no:cacheprovider -n "$WORKERS" --backend python
    rc=$?
    echo "== pytest --backend python: exit $rc after $((SECONDS - start)) s" >&2
    if [ "$rc" -eq 5 ]; then
        failed+=("pytest on the python backend (exit 5: no test was collected)")
    elif [ "$rc" -ne 0 ]; then
        failed+=("pytest on the python backend (exit $rc)")
    fi

    wait "$cluster_pid"
    rc=$?
    echo "== pytest -m cluster: exit $rc, done $((SECONDS - cluster_start)) s after its start" >&2
    echo "== pytest -m cluster (scripts/test_cluster.sh): its output" >&2
    cat "$cluster_log" >&2
    rm -f "$cluster_log"
    if [ "$rc" -eq 5 ]; then
        failed+=("cluster tests (exit 5: no test was collected)")
    elif [ "$rc" -ne 0 ]; then
        failed+=("cluster tests (exit $rc)")
    fi
fi

if [ "${#failed[@]}" -ne 0 ]; then
    printf 'test.sh: FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "test.sh: all checks passed" >&2
