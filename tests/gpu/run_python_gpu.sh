#!/usr/bin/env bash
# On a GPU machine with PyTorch but without Sluice's C libraries: builds the Python extension with
# the CUDA backend against Debian's libraries carried in DEPS (dpkg -x of libturbojpeg0-dev,
# libjpeg62-turbo-dev, libspng-dev, libwebp-dev, libhwy-dev, pkgconf and their runtime packages),
# then runs tests/gpu/torch_cuda_check.py. Usage: run_python_gpu.sh DEPS DATA OUT_DIR [THREADS_LIST]
# NVJPEG_ROOT (optional): a folder with include/nvjpeg.h and lib/libnvjpeg.so.13, e.g. a copy of
# .venv/lib/python3.11/site-packages/nvidia/cu13 from the build machine, for a GPU machine whose
# CUDA has no nvJPEG and that cannot reach PyPI.
set -euo pipefail
deps=$(cd "$1" && pwd); data=$2; out=$3; threads_list=${4:-}
nvjpeg_flag=()
if [ -n "${NVJPEG_ROOT:-}" ]; then
  NVJPEG_ROOT=$(cd "$NVJPEG_ROOT" && pwd)
  nvjpeg_flag=(-DSLUICE_NVJPEG_ROOT="$NVJPEG_ROOT")
  export SLUICE_NVJPEG_LIBRARY=$NVJPEG_ROOT/lib/libnvjpeg.so.13
fi
lib=$deps/usr/lib/x86_64-linux-gnu
sed -i -E "s@^(prefix|exec_prefix|libdir|includedir)=/usr@\1=$deps/usr@" "$lib"/pkgconfig/*.pc
export PATH=$deps/usr/bin:$PATH PKG_CONFIG_PATH=$lib/pkgconfig LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-}
export PKG_CONFIG_LIBDIR=$lib/pkgconfig
# The image has its own libjpeg 8 jconfig.h in the multiarch include dir, which the compiler would
# find before the carried one: put the carried headers first.
export CPLUS_INCLUDE_PATH=$deps/usr/include/x86_64-linux-gnu:$deps/usr/include C_INCLUDE_PATH=$deps/usr/include/x86_64-linux-gnu:$deps/usr/include
py=$(command -v python3)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# The image's compilers and PyTorch's process disagree on libstdc++ (a crash in locale code once
# both are loaded): keep a private libstdc++ inside the module.
export CC=/usr/bin/gcc CXX=/usr/bin/g++
rm -rf /tmp/sluice-gpu-py
cmake -S . -B /tmp/sluice-gpu-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++ -DSLUICE_WITH_CUDA=ON -DSLUICE_BUILD_PYTHON=ON \
  -DSLUICE_BUILD_TESTS=OFF -DSLUICE_BUILD_BENCHMARKS=OFF -DSLUICE_BUILD_TOOLS=OFF -DPython_EXECUTABLE="$py" \
  -DPKG_CONFIG_EXECUTABLE=$deps/usr/bin/pkgconf "${nvjpeg_flag[@]}" \
  "-DCMAKE_MODULE_LINKER_FLAGS=-static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build /tmp/sluice-gpu-py -j"$(nproc)" --target _sluice > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
# The image also has a libjpeg 8 at run time; make sure the jpeg_* symbols bind to the carried 62 ABI.
LD_PRELOAD="$lib/libjpeg.so.62 $lib/libturbojpeg.so.0" PYTHONPATH=python PYTHONUNBUFFERED=1 "$py" tests/gpu/torch_cuda_check.py --data "$data" --out "$out/gpu_python.json" --threads-list "$threads_list" 2>&1 | tee "$out/gpu_python.log"
