#!/bin/bash
# Compiles the Python module sluice._sluice on a GPU machine for ITS Python (one whose version the
# build machine lacks, e.g. 3.12 beside a CUDA PyTorch), from what tests/gpu/bundle_for_gpu.sh packed:
# only the bindings (python/src) and nanobind are compiled there; the layer libraries come prebuilt
# (static/), and the shared libraries they need are found through an RPATH to the bundle's lib/
# (DT_RPATH, so that their own dependencies resolve there too, without LD_LIBRARY_PATH leaking into
# PyTorch). libstdc++ is linked statically: the machine's compiler and PyTorch's process may disagree.
#
#   tests/gpu/build_python_module.sh BUNDLE_DIR [PYTHON]     (run from the repository root)
# Writes python/sluice/_sluice<EXT_SUFFIX>; prints the seconds it took.
set -euo pipefail
B=$(cd "$1" && pwd)
PY=${2:-python3}
CXX=${CXX:-g++}
inc=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$("$PY" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
[ -f "$inc/Python.h" ] || { echo "build_python_module: no Python.h in $inc for $PY" >&2; exit 2; }
obj=$(mktemp -d)
start=$(date +%s)
nb=$B/nanobind
# nanobind-static's flags, then the module's (python/CMakeLists.txt: nanobind_add_module(NB_STATIC)).
nb_flags=(-std=c++20 -O3 -DNDEBUG -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections -fno-strict-aliasing
          -fno-stack-protector -DNB_BUILD -DNB_COMPACT_ASSERTIONS -I"$inc" -I"$nb/include" -isystem "$nb/ext/robin_map/include")
mod_flags=(-std=c++20 -Os -DNDEBUG -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections -fno-stack-protector
           -DSLUICE_WITH_CUDA=1 -DSLUICE_WITH_NVJPEG=1
           -I"$B/include" -Isrc -I"$inc" -I"$nb/include" -Iinclude -isystem /usr/local/cuda/include)
pids=()
for f in common error implicit nb_datetime nb_enum nb_func nb_internals nb_ndarray nb_static_property nb_type trampoline; do
  "$CXX" "${nb_flags[@]}" -c "$nb/src/$f.cpp" -o "$obj/nb_$f.o" & pids+=($!)
done
for f in python/src/*.cc; do
  "$CXX" "${mod_flags[@]}" -c "$f" -o "$obj/$(basename "$f" .cc).o" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
S=$B/static
libs=()
for so in "$B"/lib/lib{jpeg.so.62,spng.so.0,webp.so.7,hwy.so.1,sndfile.so.1,curl.so.4,crypto.so.3,simdjson.so.*,lz4.so.1,lmdb.so.0,cfitsio.so.10,z.so.1}; do libs+=("$so"); done
out=python/sluice/_sluice$suffix
"$CXX" -shared -o "$out" "$obj"/*.o -Wl,--gc-sections -Wl,-s \
  "$S/libsluice.a" -Wl,--whole-archive "$S/libsluice_testing_ops.a" -Wl,--no-whole-archive "$S/libsluice.a" "$S/libsluice_pipeline.a" \
  -Wl,--whole-archive "$S/libsluice_readers.a" "$S/libsluice_operators.a" -Wl,--no-whole-archive \
  "$S/libsluice_kernels.a" "$S/libsluice_core.a" "$S/libcudart_static.a" "${libs[@]}" -ldl -lrt -lpthread \
  -static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL -Wl,--disable-new-dtags,-rpath,"$B/lib"
rm -rf "$obj"
echo "build_python_module: $out for $("$PY" --version 2>&1) in $(( $(date +%s) - start )) s"
