#!/usr/bin/env bash
# Installs what Sluice needs on Debian 12, only what is missing. Idempotent; run as root (or with sudo).
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake pkg-config
  libturbojpeg0-dev libjpeg62-turbo-dev libspng-dev libpng-dev libwebp-dev libhwy-dev
  libsndfile1-dev libsimdjson-dev liblz4-dev python3-lz4
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg python3-av
  libcurl4-openssl-dev libssl-dev
  liblmdb-dev libcfitsio-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  python3 python3-dev python3-venv python3-pip python3-numpy python3-pil python3-pytest
  python3-torch python3-torchvision python3-torchaudio python3-soundfile python3-matplotlib python3-opencv
  sound-theme-freedesktop
  tar
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install_deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "install_deps: installing Debian packages: ${missing[*]}"
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi
