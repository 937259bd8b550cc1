#!/bin/bash
# Prepares a CUDA build folder to be carried to a GPU machine (the device tool's `carry`, 64 MiB):
# copies the GPU test and benchmark binaries' shared libraries that are not part of every system
# (libjpeg-turbo, libspng, libwebp, Highway, zlib, libstdc++) and nvJPEG (libnvjpeg.so.13, from
# .venv's nvidia-nvjpeg wheel, or $NVJPEG_LIB) into BIN_DIR/lib, which run_gpu_checks.sh puts on
# LD_LIBRARY_PATH, and prints the size to carry.
#
#   tests/gpu/bundle_for_gpu.sh [BIN_DIR]      (default build/release)
# Then, on the device: tests/gpu/run_gpu_checks.sh BIN_DIR sample_data/train "$OUT"
set -euo pipefail
BIN=${1:-build/release}
LIB=$BIN/lib
mkdir -p "$LIB"
for exe in sluice_gpu_tests sluice_pipeline_tests bench_gpu_pipeline; do
  [ -x "$BIN/$exe" ] || { echo "missing $BIN/$exe (build with SLUICE_WITH_CUDA=ON, tests and benchmarks)" >&2; exit 1; }
  ldd "$BIN/$exe" | awk '$3 ~ /^\// {print $3}' | while read -r so; do
    case "$(basename "$so")" in
      libc.so.*|libm.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;  # the system's own
      *) cp -Lu "$so" "$LIB/" ;;
    esac
  done
done
nvjpeg=${NVJPEG_LIB:-$(ls .venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvjpeg.so.13 2>/dev/null | head -1)}
if [ -n "$nvjpeg" ]; then cp -Lu "$nvjpeg" "$LIB/"; else echo "warning: no libnvjpeg.so.13 found; nvJPEG tests will skip or fail" >&2; fi
ls "$LIB"
du -ch "$BIN/sluice_gpu_tests" "$BIN/sluice_pipeline_tests" "$BIN/bench_gpu_pipeline" "$LIB" | tail -1
