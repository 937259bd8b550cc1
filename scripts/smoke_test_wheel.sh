#!/usr/bin/env bash
# Installs a Sluice wheel into a fresh venv in a temporary directory outside the source tree and
# runs a decode -> resize -> crop_mirror_normalize pipeline on the sample set there (tests/data/images
# without one), plus the
# installed `sluice` command (ops, wds2idx). Checks that the extension loads nothing from the
# system beyond the manylinux policy's libraries and no CUDA library.
#
#   scripts/smoke_test_wheel.sh dist/sluice-*.whl
#
# The venv sees Debian's site packages (numpy) but not the source tree; SMOKE_ISOLATED=1 makes it
# without --system-site-packages (numpy then comes from PyPI). SMOKE_PYTHON: the interpreter
# (default /usr/bin/python3; scripts/smoke_test_wheel_chroot.sh runs this script in a chroot).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
whl=$(realpath "$1")
work=$(mktemp -d /tmp/sluice-wheel-smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
python=${SMOKE_PYTHON:-/usr/bin/python3}
if [ "${SMOKE_ISOLATED:-0}" = 1 ]; then
  "$python" -m venv venv
  venv/bin/pip install -q --disable-pip-version-check "$whl"
else
  "$python" -m venv --system-site-packages venv
  venv/bin/pip install -q --disable-pip-version-check --no-deps "$whl"
fi
# The sample set where there is one ($SLUICE_DATA, the checkout's sample_data/ from `make demo`, or
# make test's build/soak_data): 8 images of each of its first 4 classes. Else the test images.
sample=""
for d in "${SLUICE_DATA:-}" "$root/sample_data" "$root/build/soak_data"; do
  if [ -n "$d" ] && [ -d "$d/train" ]; then sample="$d/train"; break; fi
done
if [ -n "$sample" ]; then
  for c in $(ls "$sample" | head -4); do
    mkdir -p "data/images/$c"
    ls "$sample/$c" | head -8 | while read -r f; do cp "$sample/$c/$f" "data/images/$c/"; done
  done
  echo "smoke test: images from $sample" >&2
else
  mkdir -p data/images/a data/images/b
  cp "$root"/tests/data/images/photo_500x375.jpg "$root"/tests/data/images/progressive.jpg data/images/a/
  cp "$root"/tests/data/images/orient_1.jpg "$root"/tests/data/images/gray.png data/images/b/
fi

env -u PYTHONPATH venv/bin/python - <<'PY'
import os, pathlib, subprocess, sys
import numpy as np
import sluice
from sluice import fn, types

mod = pathlib.Path(sluice._sluice.__file__)
assert "site-packages" in str(mod), mod
assert not sluice._sluice.cuda_built, "the CPU wheel must not be built with CUDA"
assert not any(n.startswith("testing.") for n in sluice._sluice.list_operators())
out = subprocess.run(["ldd", str(mod)], capture_output=True, text=True, check=True).stdout
print(out, end="")
for line in out.splitlines():
    lib = line.split()[0]
    assert "cuda" not in lib.lower(), line
    if "=>" in line and "sluice.libs" not in line:
        # The manylinux policy's libraries (auditwheel's policy.json "lib_whitelist") that can appear.
        assert lib.split(".so")[0] in {"libstdc++", "libm", "libgcc_s", "libc", "libpthread", "libdl", "librt",
                                       "libz", "libexpat", "libgomp", "libresolv"}, f"outside the policy: {line}"

@sluice.pipeline_def(batch_size=2, num_threads=2, device_id=None, seed=1)
def pipe():
    jpegs, labels = fn.readers.file(file_root="data/images", name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_shorter=64)
    images = fn.crop_mirror_normalize(images, crop=(48, 48), mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255], dtype=types.FLOAT)
    return images, labels

p = pipe()
p.build()
n = p.epoch_size("Reader")
for _ in range(max(2, n // 2)):
    images, labels = p.run()
    arr = np.array(images.as_tensor())
    assert arr.shape == (2, 3, 48, 48) and arr.dtype == np.float32, (arr.shape, arr.dtype)
    assert np.isfinite(arr).all()
# The vendored libcurl: a WebDataset read over HTTP from Python's http.server (sluice.libs/libcurl*).
import http.server, tarfile, threading
with tarfile.open("h.tar", "w") as t:
    t.add(sorted(pathlib.Path("data/images").glob("*/*"))[0], arcname="000.jpg")
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/h.tar"
assert sluice._sluice.storage_read(url) == pathlib.Path("h.tar").read_bytes()
hp = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None, seed=1)
with hp:
    hp.set_outputs(fn.readers.webdataset(paths=[url], ext=["jpg"]))
hp.build()
assert bytes(np.array(hp.run()[0].at(0))) == sorted(pathlib.Path("data/images").glob("*/*"))[0].read_bytes()
srv.shutdown()
print("pipeline ok:", arr.shape, np.array(labels.as_tensor()).ravel().tolist(), "numpy", np.__version__, "from", os.path.dirname(np.__file__))

# FFmpeg is opened at run time (src/kernels/video/ffmpeg_library.h): the wheel neither links nor
# vendors it; where the system has it, the video decoder runs.
assert "libav" not in out and "libswscale" not in out, out
assert not any(p.name.startswith(("libav", "libswscale")) for p in (mod.parent.parent / "sluice.libs").glob("*"))
import shutil
if shutil.which("ffmpeg"):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10", "-frames:v", "5",
                    "-c:v", "mpeg4", "clip.avi"], check=True)
    data = np.fromfile("clip.avi", np.uint8)
    vp = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
    with vp:
        vp.set_outputs(fn.experimental.decoders.video(fn.external_source(source=lambda: [data], batch=True),
                                                      sequence_length=4))
    vp.build()
    clip = np.array(vp.run()[0][0])
    assert clip.shape == (4, 48, 64, 3), clip.shape
    print("video ok:", clip.shape)
PY
env -u PYTHONPATH venv/bin/sluice ops | grep -q "^decoders.image "
env -u PYTHONPATH venv/bin/sluice ops resize | grep -q "nvidia.dali.fn.resize"
# Every module of sluice.tools is in the wheel (bench and prepare import theirs at start).
env -u PYTHONPATH venv/bin/sluice bench --help | grep -q "sluice bench"
env -u PYTHONPATH venv/bin/sluice prepare --help | grep -q "sluice prepare"
env -u PYTHONPATH venv/bin/python -c "
import tarfile
with tarfile.open('s.tar', 'w') as t:
    import glob
    t.add(sorted(glob.glob('data/images/*/*'))[0], arcname='000.jpg')
"
env -u PYTHONPATH venv/bin/sluice wds2idx s.tar s.idx --no-progress
head -c 4 s.idx | grep -q "v1.2"
# DALI's command names for the index writers: the same bytes.
env -u PYTHONPATH venv/bin/wds2idx s.tar s2.idx --no-progress
cmp s.idx s2.idx
env -u PYTHONPATH venv/bin/tfrecord2idx --help | grep -q "tfrecord2idx"
echo "smoke test passed: $(basename "$whl") in $work" >&2
