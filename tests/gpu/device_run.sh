#!/bin/bash
# Everything issue 29 needs from a GPU machine, in one run (GPU time comes in short slices):
#   1. unpack the bundle tests/gpu/bundle_for_gpu.sh made; compile the Python module for the
#      machine's Python, in the background (tests/gpu/build_python_module.sh);
#   2. the C++ GPU tests, nvJPEG's routes and compute-sanitizer (tests/gpu/run_gpu_checks.sh);
#   3. once nothing else runs: the C++ benchmark, then tests/gpu/torch_cuda_check.py (correctness,
#      memory over 10 epochs, nvJPEG's pixels, images/s of (a)-(f) at each thread count).
#
#   tests/gpu/device_run.sh BUNDLE_DIR OUT_DIR [THREADS_LIST] [BENCH_IMAGES]   (from the repository root)
# STEPS (default "cxx bench python") picks the steps of 2 and 3 to run, e.g. STEPS=python for a rerun.
# The benchmarks read BUNDLE_DIR/data/train without its grayscale, CMYK and progressive files (an
# ImageNet-like mix: torchvision's GPU decode rejects CMYK); the correctness checks read all of them.
set -u
STEPS=" ${STEPS:-cxx bench python} "
G=$(cd "$1" && pwd)
OUTDIR=$2
THREADS=${3:-2,4,8,16}
IMAGES=${4:-1024}
mkdir -p "$OUTDIR"
B=/tmp/sluice_bundle
rm -rf "$B" && mkdir -p "$B" && tar -C "$B" -xJf "$G/bundle.tar.xz" || exit 1
export SLUICE_NVJPEG_LIBRARY=$B/lib/libnvjpeg.so.13 PYTHONUNBUFFERED=1
# The C++ tests find tests/data through the source path compiled into them.
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
DATA=$G/data/train
BENCH=/tmp/sluice_bench/train
rm -rf /tmp/sluice_bench && mkdir -p /tmp/sluice_bench && cp -rs "$DATA" /tmp/sluice_bench/
(cd "$G/data" && cat odd.txt) | while read -r p; do rm -f "/tmp/sluice_bench/$p"; done
echo "data: $(find "$DATA" -name '*.jpg' | wc -l) files; benchmark data: $(find "$BENCH" -name '*.jpg' | wc -l)"

(timeout 300 bash tests/gpu/build_python_module.sh "$B" python3 > "$OUTDIR/pybuild.log" 2>&1; echo "exit status: $?" >> "$OUTDIR/pybuild.log") &
pybuild=$!
[[ $STEPS == *" cxx "* ]] && bash tests/gpu/run_gpu_checks.sh "$B/bin" "$DATA" "$OUTDIR"
wait $pybuild
tail -3 "$OUTDIR/pybuild.log"

[[ $STEPS == *" bench "* ]] && {
  echo "=== benchmark (C++ API, no Python): $BENCH, batch 64, threads $THREADS ($(date -u +%H:%M:%S))"
  LD_LIBRARY_PATH=$B/lib timeout 100 "$B/bin/bench_gpu_pipeline" "$BENCH" 64 "$THREADS" 20
  echo "exit status: $?"
} 2>&1 | tee "$OUTDIR/bench_cxx.log"

[[ $STEPS == *" python "* ]] || exit 0
echo "=== Python tests that need a GPU ($(date -u +%H:%M:%S))"
PYTHONPATH=python timeout 60 python3 -m pytest -q -p no:cacheprovider python/tests/test_tensor_as_cpu.py 2>&1 | tail -5
echo "=== Python checks ($(date -u +%H:%M:%S))"
PYTHONPATH=python timeout 240 python3 tests/gpu/torch_cuda_check.py --data "$DATA" --bench-data "$BENCH" \
  --threads-list "$THREADS" --bench-images "$IMAGES" --out "$OUTDIR/python.json" 2>&1 | tee "$OUTDIR/python.log"
echo "python exit status: ${PIPESTATUS[0]} ($(date -u +%H:%M:%S))"
