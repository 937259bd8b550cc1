#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, seeded from the test data, JOBS targets
# at a time (each fuzzer is one process on one core). A crash, a sanitizer report or a timeout fails
# the run (libFuzzer exits non-zero); every failing target's log tail is printed.
# Usage: run_fuzzers.sh BUILD_DIR [SECONDS] [JOBS]
set -euo pipefail
build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS] [JOBS]}
seconds=${2:-30}
jobs=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seed corpora: real images for the decoders, small tars and index files for the readers,
# fuzz/checkpoint_seeds/ for the checkpoint parser, fuzz/npy_seeds/ for the .npy header parser, fuzz/tfrecord_seeds/ for TFRecord framing, tf.Example and index parsing,
# fuzz/audio_seeds/ for the audio decoder, fuzz/nemo_seeds/ for NeMo manifests, fuzz/video_seeds/ for
# the video decoder, fuzz/coco_seeds/ for COCO annotation files, fuzz/s3_seeds/ for S3 listings,
# fuzz/lz4_seeds/ for LZ4 blocks, fuzz/recordio_seeds/ for MXNet RecordIO files and indices,
# fuzz/caffe_seeds/ for Caffe/Caffe2 messages, fuzz/fits_seeds/ for FITS files (CFITSIO),
# fuzz/video_list_seeds/ for the video readers' file_list,
# tests/data/readers/fuzz_lmdb/ for LMDB data files (written by PyPI's lmdb).
mkdir -p "$work/images" "$work/tars" "$work/index" "$work/checkpoints" "$work/npy" "$work/tfrecord" "$work/audio" "$work/nemo" \
  "$work/video" "$work/coco" "$work/s3" "$work/lz4" "$work/recordio" "$work/caffe" "$work/fits" "$work/lmdb" "$work/video_list"
cp "$root"/tests/data/images/*.{jpg,png,bmp,pgm,ppm,webp} "$work/images/" 2>/dev/null || true
( cd "$work" && printf 'x' > a.jpg && printf '1' > a.cls && tar --format=gnu -cf tars/gnu.tar a.jpg a.cls \
  && tar --format=posix -cf tars/pax.tar a.jpg a.cls && tar --format=ustar -cf tars/ustar.tar a.jpg a.cls )
printf 'v1.2 1\njpg 512 1 a.jpg cls 1536 1 a.cls\n' > "$work/index/v12.idx"
printf 'v1.1 1\njpg 512 1\n' > "$work/index/v11.idx"
cp "$root"/fuzz/checkpoint_seeds/*.ckpt "$work/checkpoints/"
cp "$root"/fuzz/npy_seeds/* "$work/npy/"
cp "$root"/fuzz/tfrecord_seeds/* "$work/tfrecord/"
cp "$root"/fuzz/audio_seeds/* "$work/audio/"
cp "$root"/fuzz/nemo_seeds/* "$work/nemo/"
cp "$root"/fuzz/coco_seeds/* "$work/coco/"
cp "$root"/fuzz/video_seeds/* "$work/video/"
cp "$root"/fuzz/s3_seeds/* "$work/s3/"
cp "$root"/fuzz/lz4_seeds/* "$work/lz4/"
cp "$root"/fuzz/recordio_seeds/* "$work/recordio/"
cp "$root"/fuzz/caffe_seeds/* "$work/caffe/"
cp "$root"/fuzz/fits_seeds/* "$work/fits/"
cp "$root"/fuzz/video_list_seeds/* "$work/video_list/"
cp "$root"/tests/data/readers/fuzz_lmdb/*.mdb "$work/lmdb/"

# Leaks inside third-party decoders, reported upstream (the file says which and why).
export LSAN_OPTIONS="suppressions=$root/scripts/lsan_suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# A failing input is kept in the build folder (libFuzzer writes it to the working directory otherwise).
artifacts="$build/fuzz_artifacts"

# One target: its corpus by name, its log and its verdict in $work (read back after every job ends).
run_one() {
  local fuzzer=$1 name corpus
  name=$(basename "$fuzzer")
  case "$name" in
    fuzz_decode_audio*) corpus="$work/audio" ;;
    fuzz_decode_video*) corpus="$work/video" ;;
    fuzz_decode_*) corpus="$work/images" ;;
    fuzz_tar*) corpus="$work/tars" ;;
    fuzz_wds_index*) corpus="$work/index" ;;
    fuzz_checkpoint*) corpus="$work/checkpoints" ;;
    fuzz_npy*) corpus="$work/npy" ;;
    fuzz_tfrecord*) corpus="$work/tfrecord" ;;
    fuzz_nemo*) corpus="$work/nemo" ;;
    fuzz_coco*) corpus="$work/coco" ;;
    fuzz_s3*) corpus="$work/s3" ;;
    fuzz_inflate*) corpus="$work/lz4" ;;
    fuzz_recordio*) corpus="$work/recordio" ;;
    fuzz_caffe*) corpus="$work/caffe" ;;
    fuzz_fits*) corpus="$work/fits" ;;
    fuzz_lmdb*) corpus="$work/lmdb" ;;
    fuzz_video_file_list*) corpus="$work/video_list" ;;
    *) corpus="$work/images" ;;
  esac
  mkdir -p "$work/out_$name" "$artifacts"
  if "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$artifacts/$name-" \
      -print_final_stats=1 "$work/out_$name" "$corpus" > "$work/$name.log" 2>&1; then
    echo ok > "$work/$name.status"
  else
    echo failed > "$work/$name.status"
  fi
}

fuzzers=()
for fuzzer in "$build"/fuzz_*; do
  [ -x "$fuzzer" ] && [ -f "$fuzzer" ] && fuzzers+=("$fuzzer")
done
[ ${#fuzzers[@]} -gt 0 ] || { echo "fuzz: no fuzz_* targets in $build" >&2; exit 1; }
echo "fuzz: ${#fuzzers[@]} targets, ${seconds}s each, $jobs at a time"
for fuzzer in "${fuzzers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$fuzzer" &
done
wait

status=0
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  if [ "$(cat "$work/$name.status" 2>/dev/null)" = ok ]; then
    echo "fuzz: $name ok: $(grep -hoE 'stat::number_of_executed_units: [0-9]+' "$work/$name.log" | sed 's/.*: //') runs"
  else
    echo "fuzz: $name FAILED"; tail -40 "$work/$name.log"; status=1
  fi
done
exit $status
