#!/usr/bin/env bash
# The cp312-abi3 wheel on the CPython versions this machine does not have (make test-wheel-matrix).
#
#   scripts/test_wheel_matrix.sh [DIST]        (DIST: where the abi3 wheel is; default dist/)
#
# For each entry of $MATRIX (default "trixie:python3.13 sid:python3.14 sid:python3.15"): makes or
# reuses the suite's chroot (scripts/debian_chroot.sh, cached under /var/cache/sluice-chroots), and
# in it, under that Python,
#   1. scripts/smoke_test_wheel.sh (a fresh venv: decode -> resize -> crop_mirror_normalize, the
#      vendored libcurl, the `sluice` commands, the ldd check);
#   2. a fresh venv that sees the suite's Debian packages (numpy, pytest, python3-torch and
#      torchvision where Debian builds them for that Python: trixie's 3.13 has torch 2.6, sid's 3.14
#      torch 2.14, 3.15 none), the wheel installed into it, and the Python tests that need no build
#      tree ($TESTS: iterators, DALI goldens, example ports; with torch also $TORCH_TESTS: the
#      PyTorch plugin and examples/ddp_train.py under torchrun) run from /mnt/sluice/python/tests,
#      the checkout mounted read-only, importing the installed sluice.
# Prints the matrix (suite, Python, arch -> installed, smoke test, tests passed/failed/skipped,
# wheel size, seconds) and writes it to build/wheel_matrix.md. Exits non-zero when any cell failed.
# Needs root; the first run downloads the chroots (about 1.5 GB with trixie's torch).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=$(realpath "${1:-$root/dist}")
whl=$(ls "$dist"/sluice-*-cp312-abi3-manylinux_*_x86_64.whl 2> /dev/null | head -1)
[ -n "$whl" ] || { echo "test_wheel_matrix.sh: no cp312-abi3 wheel in $dist (make wheels)" >&2; exit 1; }
source "$root/scripts/debian_chroot.sh"

MATRIX=${MATRIX:-"trixie:python3.13 sid:python3.14 sid:python3.15"}
# Python tests that run from an installed wheel: no fn.testing operators (a wheel has none; the few
# tests that use them are skipped by conftest's requires_testing_ops), no build tree, no host-only
# tools. Paths under python/tests.
# Beyond those: the Python surfaces newer interpreters change under the package (the AST rewriting of
# conditionals, python_function's GIL and finalization, the fork/spawn workers of the parallel
# external_source: 3.14 changed multiprocessing's default start method).
TESTS=(test_iterator_matrix.py test_dali_goldens_image.py test_dali_goldens_detection.py
       test_dali_goldens_tensor.py test_dali_goldens_audio.py test_dali_goldens_plugins.py
       test_randaugment_port.py test_mixup_cutmix_port.py test_resnet50_example.py
       test_conditionals.py test_python_function.py test_parallel_external_source.py test_external_source.py)
# With torch (trixie's python3-torch 2.6, python3-torchvision): the PyTorch plugin, the examples and
# DDP under torchrun.
TORCH_TESTS=(test_iterator_table.py test_plugin_pytorch_function.py test_plugin_pytorch_ragged.py
             test_example.py test_ddp_train.py)

mkdir -p "$root/build"
table=$root/build/wheel_matrix.md
size=$(du -k "$whl" | cut -f1)
rows=()
failed=0
# The DDP test's data set: cut on this machine (its Debian 12 photo packages and Pillow), copied in.
ddp_data=$root/build/matrix_ddp_data
if [ ! -f "$ddp_data/.complete" ]; then
  bash "$root/scripts/make_sample_data.sh" --force --classes 3 --per-class 15 --shard-size 16 "$ddp_data" > /dev/null
  touch "$ddp_data/.complete"
fi

for entry in $MATRIX; do
  suite=${entry%%:*}
  py=${entry#*:}
  t0=$SECONDS
  # Debian builds python3-torch for the suite's default Python only (trixie: 3.13, torch 2.6; sid:
  # 3.14, torch 2.14): the torch tests run where `import torch` works under $py.
  pkgs=(python3 python3-venv python3-pytest python3-numpy python3-pil python3-torch python3-torchvision
        "$py" "$py-venv")
  dir=$(chroot_ensure "$suite" "${pkgs[@]}")
  tests=("${TESTS[@]}")
  torch=""
  # (torch's UCX may print a line of its own first: the version is the last line.)
  if torch_version=$(chroot "$dir" "$py" -c "import torch; print(torch.__version__)" 2> /dev/null | tail -1) &&
     [ -n "$torch_version" ]; then
    tests+=("${TORCH_TESTS[@]}")
    torch=" (torch $torch_version)"
  fi
  prep=$((SECONDS - t0))
  rm -rf "$dir/tmp/matrix"
  mkdir -p "$dir/tmp/matrix/wheels"
  cp "$whl" "$dir/tmp/matrix/wheels/"
  cp -a "$ddp_data" "$dir/tmp/matrix/ddp_data"
  log=$root/build/wheel_matrix.$suite.$py.log
  cat > "$dir/tmp/matrix/run.sh" <<EOF
set -u
py=/usr/bin/$py
whl=/tmp/matrix/wheels/$(basename "$whl")
cd /tmp/matrix
# numpy from Debian where the suite builds it for this Python, else from PyPI (isolated venvs).
if \$py -c "import numpy" 2> /dev/null; then iso=0; venv_args=--system-site-packages; else iso=1; venv_args=; fi
echo "== smoke test"
if SMOKE_PYTHON=\$py SMOKE_ISOLATED=\$iso bash /mnt/sluice/scripts/smoke_test_wheel.sh "\$whl"; then
  echo "MATRIX smoke=pass"
else
  echo "MATRIX smoke=FAIL"
fi
echo "== venv and pytest"
\$py -m venv \$venv_args venv
if venv/bin/pip install -q --disable-pip-version-check "\$whl" && venv/bin/python -c "import sluice"; then
  echo "MATRIX installed=yes"
else
  echo "MATRIX installed=NO"
  exit 0
fi
venv/bin/python -c "import pytest" 2> /dev/null || venv/bin/pip install -q --disable-pip-version-check pytest
mkdir work && cd work
SLUICE_DDP_DATA=/tmp/matrix/ddp_data PYTHONDONTWRITEBYTECODE=1 \
  /tmp/matrix/venv/bin/python -m pytest -q -p no:cacheprovider --rootdir /mnt/sluice \
  $(printf '/mnt/sluice/python/tests/%s ' "${tests[@]}") 2>&1 | tee /tmp/matrix/pytest.log
EOF
  echo "== $suite $py: ${#tests[@]} test files" >&2
  CHROOT_SRC=$root chroot_run "$dir" bash /tmp/matrix/run.sh > "$log" 2>&1 || true
  secs=$((SECONDS - t0))
  smoke=$(sed -n 's/^MATRIX smoke=//p' "$log" | tail -1)
  installed=$(sed -n 's/^MATRIX installed=//p' "$log" | tail -1)
  version=$(chroot "$dir" "$py" -c "import sys; print(sys.version.split()[0])" 2> /dev/null || echo "?")
  # pytest's closing line ("548 passed, 6 skipped, ... in 116.35s"), whatever it counted first.
  summary=$(grep -E "[0-9]+ (passed|failed|skipped|errors?|xfailed)\b.* in [0-9.]+s" "$log" | tail -1 |
            sed 's/=//g; s/^ *//; s/ *$//' || true)
  passed=$(grep -oE "[0-9]+ passed" <<< "$summary" | cut -d' ' -f1 || true)
  nfailed=$(grep -oE "[0-9]+ failed" <<< "$summary" | cut -d' ' -f1 || true)
  errors=$(grep -oE "[0-9]+ errors?" <<< "$summary" | cut -d' ' -f1 || true)
  skipped=$(grep -oE "[0-9]+ skipped" <<< "$summary" | cut -d' ' -f1 || true)
  xfailed=$(grep -oE "[0-9]+ xfailed" <<< "$summary" | cut -d' ' -f1 || true)
  rows+=("| $suite | CPython $version$torch | x86_64 | ${installed:-NO} | ${smoke:-FAIL} | ${passed:-0} | $((${nfailed:-0} + ${errors:-0})) | ${skipped:-0} | ${xfailed:-0} | $((size / 1024)).$(((size % 1024) * 10 / 1024)) MB | $secs s ($prep s chroot) |")
  if [ "${installed:-}" != yes ] || [ "${smoke:-}" != pass ] || [ -z "${passed:-}" ] || [ $((${nfailed:-0} + ${errors:-0})) -ne 0 ]; then
    failed=1
    echo "== $suite $py failed: see $log" >&2
  fi
done

{
  echo "Wheel: $(basename "$whl")"
  echo
  echo "| suite | interpreter | arch | installed | smoke test | tests passed | failed | skipped | xfailed | wheel | time |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} | tee "$table"
exit $failed
