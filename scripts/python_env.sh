#!/usr/bin/env bash
# Creates .venv for building and testing Sluice's Python package. Idempotent and quiet.
#
# The venv sees Debian's site packages (python3-torch, numpy, pytest come from Debian); only the
# build tools that Debian 12 lacks (nanobind, scikit-build-core) come from PyPI.
# Usage: scripts/python_env.sh [VENV_DIR]   (default: .venv in the repository root)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-$root/.venv}
py=/usr/bin/python3

if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv --system-site-packages "$venv"
fi

missing=()
"$venv/bin/python" -c "import nanobind" 2>/dev/null || missing+=("nanobind>=2.0")
"$venv/bin/python" -c "import scikit_build_core" 2>/dev/null || missing+=("scikit-build-core>=0.8")
if [ ${#missing[@]} -gt 0 ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
fi
echo "$venv"
