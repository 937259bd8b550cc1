#!/bin/bash
# The C++ GPU checks on a machine with a CUDA device: the GPU tests (nvJPEG's included), then
# compute-sanitizer's memcheck, racecheck and synccheck over them (the three at once: they are slow
# and independent), and the routing of the data set's files between nvJPEG's backends. Each step
# has its own time cap, so that one hang cannot eat the others' time. (The benchmarks are run by
# tests/gpu/device_run.sh, after everything else on the machine has finished.)
#
#   tests/gpu/run_gpu_checks.sh BIN_DIR DATA_ROOT OUT_DIR
# BIN_DIR holds sluice_gpu_tests and bench_gpu_pipeline of a build with SLUICE_WITH_CUDA=ON; a lib/
# folder beside BIN_DIR (tests/gpu/bundle_for_gpu.sh fills it, libnvjpeg.so.13 included) goes on
# LD_LIBRARY_PATH. The tests read tests/data through the source path compiled into them.
# Writes OUT_DIR/{cxx.log,routes.log,sanitizers.log}.
set -u
BIN=$(cd "$1" && pwd)
DATA=$2
OUTDIR=$3
mkdir -p "$OUTDIR"
[ -d "$BIN/../lib" ] && export LD_LIBRARY_PATH="$BIN/../lib:${LD_LIBRARY_PATH:-}"
[ -f "$BIN/../lib/libnvjpeg.so.13" ] && export SLUICE_NVJPEG_LIBRARY="$BIN/../lib/libnvjpeg.so.13"

section() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
quiet() { grep -v "^\[       OK \]\|^\[ RUN      \]"; }

{
  section "machine"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -2
  compute-sanitizer --version | head -2
  nproc

  section "GPU tests"
  timeout 120 "$BIN/sluice_gpu_tests" 2>&1 | quiet
  echo "exit status: ${PIPESTATUS[0]}"

  section "nvJPEG routes over $DATA (every file, train and val pipelines, variants (c) and (d))"
  # Every file's route, once per decoder configuration, into routes.log; the summary here.
  SLUICE_NVJPEG_ROUTES=1 timeout 60 "$BIN/bench_gpu_pipeline" "$DATA" 64 4 3 2>&1 | grep "route " | sort -u \
    > "$OUTDIR/routes.log"
  sed -E 's/.*: (hardware|gpu_hybrid|hybrid|host) \((.*)\)$/\1: \2/' "$OUTDIR/routes.log" | sort | uniq -c | sort -rn | head -20
} 2>&1 | tee "$OUTDIR/cxx.log"

# The sanitizers at once, each over the tests that do not measure the whole device's free memory
# (the other two processes allocate beside them); racecheck, the slowest, over the GPU operators
# and one whole pipeline (nvJPEG's own kernels are not ours to race-check).
for tool in memcheck racecheck synccheck; do
  extra=(); [ $tool = memcheck ] && extra=(--leak-check full)
  filter="-*MemoryIsFlat*"; [ $tool = racecheck ] && filter="GpuOps*:GpuPipeline.DecodeResizeNormalizeMatchesCpu"
  (timeout 150 compute-sanitizer --tool $tool "${extra[@]}" --error-exitcode 3 "$BIN/sluice_gpu_tests" \
     --gtest_filter="$filter" > "$OUTDIR/san_$tool.raw" 2>&1; echo "exit status: $?" >> "$OUTDIR/san_$tool.raw") &
done
wait
for tool in memcheck racecheck synccheck; do
  echo "=== compute-sanitizer $tool"
  quiet < "$OUTDIR/san_$tool.raw" | grep -v "^\[ info \]" | tail -30
done > "$OUTDIR/sanitizers.log"
rm -f "$OUTDIR"/san_*.raw
cat "$OUTDIR/sanitizers.log"

