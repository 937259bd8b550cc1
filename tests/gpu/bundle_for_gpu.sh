#!/bin/bash
# Packs what one run on a GPU machine needs into DEST (default .gpu, which the device tool carries:
# 64 MiB with the working tree, so everything but the JPEGs is compressed):
#   DEST/bundle.tar.xz  bin/   the GPU tests and bench_gpu_pipeline of a CUDA build
#                       lib/   their shared libraries and the Python module's that are not part of every
#                              system (libjpeg-turbo, libspng, libwebp, Highway, libsndfile, libcurl, ...),
#                              and nvJPEG (libnvjpeg.so.13, from .venv's nvidia wheel or $NVJPEG_LIB)
#                       static/ the layer libraries and CUDA's static runtime the Python module links
#                       nanobind/ nanobind's sources (the module is compiled there, for that Python)
#                       include/ the generated public headers
#   DEST/data/train     PER_CLASS JPEGs of each class of sample_data/train, plus up to ODD of each odd
#                       kind (grayscale, CMYK, progressive: they take other nvJPEG routes), listed
#                       in DEST/data/odd.txt
#
#   tests/gpu/bundle_for_gpu.sh [BIN_DIR] [DEST] [PER_CLASS] [ODD]   (defaults build/release .gpu 16 8)
# Then, on the device: tests/gpu/device_run.sh DEST "$OUT"
# libstdc++ stays out of lib/: the GPU machine's is newer, and the Python module links it statically.
set -euo pipefail
BIN=${1:-build/release}
DEST=${2:-.gpu}
PER_CLASS=${3:-16}
ODD=${4:-8}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,lib,static,include} "$DEST"

module=$(ls python/sluice/_sluice.cpython-*.so | head -1)
for exe in sluice_gpu_tests bench_gpu_pipeline; do
  [ -x "$BIN/$exe" ] || { echo "missing $BIN/$exe (build with SLUICE_WITH_CUDA=ON, tests and benchmarks)" >&2; exit 1; }
  cp "$BIN/$exe" "$STAGE/bin/"
done
for obj in "$STAGE"/bin/* "$module"; do
  ldd "$obj" | awk '$3 ~ /^\// {print $3}' | while read -r so; do
    case "$(basename "$so")" in
      libc.so.*|libm.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|ld-linux*|libstdc++.so.*) ;;
      *) cp -Lu "$so" "$STAGE/lib/" ;;
    esac
  done
done
nvjpeg=${NVJPEG_LIB:-$(ls .venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvjpeg.so.13 2>/dev/null | head -1)}
[ -n "$nvjpeg" ] || { echo "no libnvjpeg.so.13 (pip install nvidia-nvjpeg into .venv, or set NVJPEG_LIB)" >&2; exit 1; }
cp -L "$nvjpeg" "$STAGE/lib/"

cp "$BIN"/libsluice*.a "$STAGE/static/"
cp /usr/local/cuda/lib64/libcudart_static.a "$STAGE/static/"
cp -rL "$BIN/layer_include/api/sluice" "$STAGE/include/"
nb=$(.venv/bin/python -c "import nanobind, os; print(os.path.dirname(nanobind.__file__))")
mkdir -p "$STAGE/nanobind/ext"
cp -r "$nb/include" "$nb/src" "$STAGE/nanobind/"
cp -r "$nb/ext/robin_map" "$STAGE/nanobind/ext/"
rm -f "$DEST"/bundle.tar.*
tar -C "$STAGE" -cf - . | xz -6 -T2 > "$DEST/bundle.tar.xz"

# The data: the first PER_CLASS files of each class plus up to ODD files of each odd kind.
rm -rf "$DEST/data"
for d in sample_data/train/c*/; do
  c=$(basename "$d")
  mkdir -p "$DEST/data/train/$c"
  ls "$d" | head -n "$PER_CLASS" | while read -r f; do cp "$d/$f" "$DEST/data/train/$c/"; done
done
awk -F'\t' -v odd="$ODD" 'NR > 1 { k = $5 != "RGB" ? $5 : ($8 == "1" ? "progressive" : "") }
  k != "" && n[k]++ < odd {print $1}' sample_data/manifest.tsv | while read -r p; do
  cp -n "sample_data/$p" "$DEST/data/$p"
done
# odd.txt: every odd file in the set (the benchmarks leave them out).
awk -F'\t' 'NR > 1 && ($5 != "RGB" || $8 == "1") {print $1}' sample_data/manifest.tsv | while read -r p; do
  if [ -f "$DEST/data/$p" ]; then echo "$p"; fi
done > "$DEST/data/odd.txt"
echo "bundle: $(du -h "$DEST/bundle.tar.xz" | cut -f1), data: $(ls "$DEST"/data/train/*/* | wc -l) files $(du -sh "$DEST/data" | cut -f1)"
du -sh "$DEST"
