#!/bin/bash
# Runs the GPU checks on a machine with a CUDA device: the GPU tests (nvJPEG's included), the
# pipeline tests of a CUDA build, compute-sanitizer (memcheck, racecheck, synccheck) over the GPU
# tests, the routing of the data set's files between nvJPEG's backends, and the end-to-end
# benchmark at several thread counts.
#
#   tests/gpu/run_gpu_checks.sh BIN_DIR [DATA_ROOT] [OUT_DIR]
# BIN_DIR holds sluice_gpu_tests, sluice_pipeline_tests and bench_gpu_pipeline (a build with
# SLUICE_WITH_CUDA=ON); a lib/ folder beside them, if present, is put on LD_LIBRARY_PATH (for
# binaries built on another machine: tests/gpu/bundle_for_gpu.sh fills it, libnvjpeg.so.13 from
# .venv's nvidia-nvjpeg wheel included). The tests read tests/data through the source path compiled
# into them; run from the repository root.
set -u
BIN=${1:?usage: run_gpu_checks.sh BIN_DIR [DATA_ROOT] [OUT_DIR]}
DATA=${2:-sample_data/train}
OUTDIR=${3:-${OUT:-/tmp/sluice_gpu_checks}}
mkdir -p "$OUTDIR"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"

section() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

{
  section "machine"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  nvcc --version | tail -2
  compute-sanitizer --version | head -2
  ls /usr/local/cuda/include/nvjpeg.h /usr/local/cuda/lib64/libnvjpeg.so* 2>&1
  "$BIN/sluice_gpu_tests" --gtest_filter='Nvjpeg.Library*' 2>&1 | grep "info\|FAIL\|Skipped" 
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1 | tail -1
  nproc

  section "GPU tests"
  timeout 300 "$BIN/sluice_gpu_tests" 2>&1 | grep -v "^\[       OK \]\|^\[ RUN      \]"
  echo "exit status: ${PIPESTATUS[0]}"

  section "pipeline tests (CUDA build, GPU present)"
  timeout 200 "$BIN/sluice_pipeline_tests" 2>&1 | tail -4
  echo "exit status: ${PIPESTATUS[0]}"

  for tool in memcheck racecheck synccheck; do
    section "compute-sanitizer $tool"
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    # racecheck is slow: the nvJPEG and GPU operator tests only.
    filter="*"; [ $tool = racecheck ] && filter="Nvjpeg.*:GpuOps*"
    timeout 360 compute-sanitizer --tool $tool $extra --error-exitcode 3 "$BIN/sluice_gpu_tests" --gtest_filter="$filter" \
      2>&1 | grep -v "^\[       OK \]\|^\[ RUN      \]\|^\[ info \]" | tail -25
    echo "exit status: ${PIPESTATUS[0]}"
  done

  section "nvJPEG routes over $DATA (train and val pipelines, variants (c) and (d) together)"
  SLUICE_NVJPEG_ROUTES=1 timeout 200 "$BIN/bench_gpu_pipeline" "$DATA" 64 4 1 2>&1 | grep "route " \
    | sed -E 's/.*: (hardware|gpu_hybrid|hybrid|host) \((.*)\)$/\1: \2/' | sort | uniq -c | sort -rn | head -20

  section "benchmark"
  timeout 540 "$BIN/bench_gpu_pipeline" "$DATA" 128 4,8,16 25
  echo "exit status: $?"
} 2>&1 | tee "$OUTDIR/log"
