#!/usr/bin/env bash
# The compiled core built with AddressSanitizer and UndefinedBehaviorSanitizer, and the lockstep, fuzz,
# batch and golden tests run on it (the core lane `sanitize` of .ci/run; not in the default lanes: the
# build takes about 3 minutes and the tests about 7 on 2 cores).
#
#   bash scripts/sanitize.sh [PYTEST ARGS]
#
# The instrumented module goes to .venv-sanitize/ (git-ignored; its own build folder, so the regular
# build in cpp/build is untouched) and is put first on PYTHONPATH; libasan and libstdc++ are preloaded
# into the interpreter (which is not instrumented). Any sanitizer report ends the process with a
# non-zero status, and the reports are written to .venv-sanitize/reports.*; the script fails if any
# report was written, even when pytest passed (a report from a subprocess of a test).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,dev || exit 1
out=.venv-sanitize
mkdir -p "$out"
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if ! .venv/bin/python -m pip install -q --upgrade --target "$out/site" -Cbuild-dir="$out/build" \
    "-Ccmake.define.CMAKE_CXX_FLAGS=$flags" -Ccmake.build-type=RelWithDebInfo ./cpp >"$out/build.log" 2>&1; then
    echo "sanitize: the instrumented core did not build (log: $out/build.log)" >&2
    exit 1
fi
rm -f "$out"/reports.*
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
export ASAN_OPTIONS="detect_leaks=0:log_path=$PWD/$out/reports"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$PWD/$out/reports"
export PYTHONPATH="$PWD/$out/site" KARDINAL_REQUIRE_CORE=1
tests=(tests/test_core_kardinal.py tests/test_core_koenig.py tests/test_core_game.py tests/test_core_koenig_game.py
       tests/test_core_mcts.py tests/test_core_observation.py tests/test_core_koenig_observation.py
       tests/test_core_koenig_rollouts.py tests/test_core_koenig_heuristic.py tests/test_vector.py
       tests/test_core_fuzz.py tests/test_boundary.py tests/test_golden.py tests/test_playthroughs.py)
.venv/bin/python -c 'import kardinal_core, sys; assert ".venv-sanitize" in kardinal_core.__file__, kardinal_core.__file__'
.venv/bin/python -m pytest -q -p no:cacheprovider "${tests[@]}" "$@"
rc=$?
if compgen -G "$out/reports.*" >/dev/null; then
    echo "sanitize: sanitizer reports were written:" >&2
    head -n 40 "$out"/reports.* >&2
    exit 1
fi
exit "$rc"
