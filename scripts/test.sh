#!/usr/bin/env bash
# Command (2) of the README quick start: set up .venv (all extras, so the RL-library integration
# tests and the documentation site's build run too), then the checks CI runs:
#   ruff check · ruff format --check · mypy (kardinal_env, settings in pyproject.toml) ·
#   mkdocs build --strict (the site, into the git-ignored site/) · pytest · both games' engine and
#   environment tests again with KARDINAL_ENV_BACKEND=python (skipped when extra pytest arguments are given) ·
#   the Ray cluster tests in a loopback-only network namespace (scripts/test_cluster.sh; skipped
#   when extra pytest arguments are given)
# Every check runs even when an earlier one fails; the script exits non-zero when any failed and
# names them. pytest collecting no test (its exit code 5) counts as a failure. Extra arguments go to
# pytest (e.g. `bash scripts/test.sh -m slow`, `bash scripts/test.sh -m integration`).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,dev,integrations,docs || exit 1
# setup.sh builds the compiled core into .venv: here its lockstep tests must run, not skip.
export KARDINAL_REQUIRE_CORE=1

LINTED=(kardinal_env agents scripts tests configs docs/hooks)
# Run a second time on the Python engine (KARDINAL_ENV_BACKEND=python; the default run is core-backed).
PYTHON_BACKEND_TESTS=(
    tests/test_rules_engine.py
    tests/test_notation.py
    tests/test_record.py
    tests/test_env.py
    tests/test_env_edges.py
    tests/test_window_bound.py
    tests/test_golden.py
    tests/test_playthroughs.py
    tests/test_replay_html.py
    tests/test_kardinal_protocol.py
    tests/test_registry.py
    tests/test_properties.py
    tests/test_koenig_rules.py
    tests/test_koenig_record.py
    tests/test_koenig_runout.py
    tests/test_koenig_knowledge.py
    tests/test_koenig_protocol.py
    tests/test_koenig_properties.py
    tests/test_koenig_scoring.py
    tests/test_koenig_replay_html.py
    tests/test_kardinal_koenig_env.py
    tests/test_ismcts.py
)
failed=()
run() {  # run NAME COMMAND...: run a check, remember it when it fails
    local name=$1
    shift
    echo "== $name" >&2
    "$@"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        failed+=("$name (exit $rc)")
    fi
    return 0
}

run "ruff check" .venv/bin/ruff check "${LINTED[@]}"
run "ruff format --check" .venv/bin/ruff format --check "${LINTED[@]}"
run "mypy" .venv/bin/mypy
# Strict: a warning, a dead internal link or anchor, a page missing from the navigation or a broken
# cross-reference of the API reference fails the build (mkdocs.yml). Never --quiet: it drops the
# warnings before strict mode counts them.
run "mkdocs build --strict" env NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --clean --site-dir site
echo "== pytest" >&2
.venv/bin/python -m pytest -q "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    failed+=("pytest (exit 5: no test was collected)")
elif [ "$rc" -ne 0 ]; then
    failed+=("pytest (exit $rc)")
fi

if [ "$#" -eq 0 ]; then  # the engine and environment tests once more on the Python engine
    # The run above plays both games on the core-backed Game (setup.sh builds the core, and
    # KARDINAL_ENV_BACKEND is unset); these files again with KARDINAL_ENV_BACKEND=python, so the Python
    # reference engines pass every engine, record, knowledge, golden, playthrough and environment test too.
    echo "== pytest, KARDINAL_ENV_BACKEND=python (engine and environment tests)" >&2
    KARDINAL_ENV_BACKEND=python .venv/bin/python -m pytest -q -p no:cacheprovider "${PYTHON_BACKEND_TESTS[@]}"
    rc=$?
    if [ "$rc" -eq 5 ]; then
        failed+=("pytest on the python backend (exit 5: no test was collected)")
    elif [ "$rc" -ne 0 ]; then
        failed+=("pytest on the python backend (exit $rc)")
    fi
fi

if [ "$#" -eq 0 ]; then  # the Ray cluster tests, in a loopback-only network namespace of their own
    echo "== pytest -m cluster (scripts/test_cluster.sh)" >&2
    bash scripts/test_cluster.sh
    rc=$?
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
