#!/usr/bin/env bash
# make_sample_data.sh - build Sluice's deterministic ImageNet-like sample dataset.
#
# Usage: scripts/make_sample_data.sh [options] DIR      (--help lists the options)
#   scripts/make_sample_data.sh sample_data                   # 10 classes x 200 images (make demo)
#   scripts/make_sample_data.sh --small --force /tmp/sluice_small   # 4 x 16, for tests
#   scripts/make_sample_data.sh --hires sample_data_hires     # 4 x 16 photographs of 12 MP
#
# Installs what is missing with apt-get (root or sudo, --no-install-recommends):
# python3-pil, python3-numpy and the Debian photo packages the images are cut from
# (lomiri-wallpapers-16.04, lxqt-themes, mate-backgrounds, about 90 MB), then runs
# scripts/make_sample_data.py with /usr/bin/python3 (Debian's Pillow on libjpeg-turbo,
# which the byte-identical output depends on). Downloads nothing but Debian packages.
# SLUICE_SAMPLE_DATA_NO_APT=1 skips the installation step (the Python script then
# names whatever is missing).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
SCRIPT="$HERE/make_sample_data.py"

die() { echo "make_sample_data: error: $*" >&2; exit 1; }

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# apt_install PKG...: installs the packages that are missing; a clear error when it cannot.
apt_install() {
  local missing=() p
  command -v dpkg-query >/dev/null || die "not a Debian system (no dpkg-query); install by hand: $*"
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to install: ${missing[*]}"
    sudo=(sudo)
  fi
  echo "make_sample_data: installing Debian packages: ${missing[*]}" >&2
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends)
  if ! "${apt[@]}" "${missing[@]}" >&2; then
    "${sudo[@]}" apt-get update -q >&2 || true
    "${apt[@]}" "${missing[@]}" >&2 || die "could not install the Debian packages ${missing[*]}
(no network, or no Debian package source?). The sample dataset is cut only from
photographs these packages ship, and nothing else is downloaded; install them by hand:
  apt-get install --no-install-recommends ${missing[*]}"
  fi
}

want_help=0
for a in "$@"; do
  case "$a" in -h|--help) want_help=1 ;; esac
done

if [ "${SLUICE_SAMPLE_DATA_NO_APT:-0}" != 1 ]; then
  [ -x "$PY" ] || apt_install python3
  if [ "$want_help" = 0 ]; then
    # The photo packages are named by the Python script (one list, kept there).
    pkgs=$("$PY" "$SCRIPT" --print-packages) || die "$SCRIPT --print-packages failed"
    read -r -a photo_pkgs <<<"$pkgs"
    apt_install python3-pil python3-numpy "${photo_pkgs[@]}"
  fi
fi
[ -x "$PY" ] || die "$PY is missing (apt-get install python3)"
exec "$PY" "$SCRIPT" "$@"
