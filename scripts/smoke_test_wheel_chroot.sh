#!/usr/bin/env bash
# scripts/smoke_test_wheel.sh inside a Debian chroot (scripts/debian_chroot.sh): the abi3 wheel under
# a Python this machine does not have.
#
#   scripts/smoke_test_wheel_chroot.sh SUITE WHEEL [PYTHON]     e.g. trixie dist/sluice-*-abi3-*.whl
#
# PYTHON (default python3, the suite's own) must be a Debian package of the suite (python3.14, ...);
# the venv sees the suite's python3-numpy where it is built for that Python, else SMOKE_ISOLATED=1
# takes numpy from PyPI. The checkout is mounted read-only at /mnt/sluice (the test images).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=$1
whl=$(realpath "$2")
python=${3:-python3}
source "$root/scripts/debian_chroot.sh"
pkgs=(python3 python3-venv python3-numpy)
[ "$python" = python3 ] || pkgs+=("$python" "$python-venv")
dir=$(chroot_ensure "$suite" "${pkgs[@]}")
mkdir -p "$dir/tmp/wheels"
cp "$whl" "$dir/tmp/wheels/"
isolated=${SMOKE_ISOLATED:-0}
chroot "$dir" "$python" -c "import numpy" 2> /dev/null || isolated=1
CHROOT_SRC=$root chroot_run "$dir" env SMOKE_PYTHON="/usr/bin/$python" SMOKE_ISOLATED=$isolated \
  bash /mnt/sluice/scripts/smoke_test_wheel.sh "/tmp/wheels/$(basename "$whl")"
