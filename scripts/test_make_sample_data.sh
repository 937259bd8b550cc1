#!/usr/bin/env bash
# test_make_sample_data.sh - quick self-check of scripts/make_sample_data.{sh,py}.
#
# Usage: scripts/test_make_sample_data.sh [DATASET_DIR...]
#
# Builds the --small set (4 classes x 16, 20 per shard) twice into temporary folders, with
# --jobs 1 and --jobs 2, and checks that the two are byte-identical (fingerprint and every
# file); that a second run without --force refuses; that missing photo packages give a
# clear error. It then verifies the small set, and every DATASET_DIR given (e.g. the
# default set in sample_data/ that make demo builds), file by file:
#   - manifest.tsv matches the files (bytes, sha256, size, mode, subsampling, progressive),
#     every JPEG decodes fully with Pillow and with djpeg (libjpeg-turbo) when installed;
#   - file_list.txt lists every image with its label; the class folders hold nothing else;
#   - the shards read with tarfile, hold every sample once as KEY.jpg + KEY.cls with the
#     right bytes and class, with fixed headers (mtime 0, uid/gid 0, no names, 0644);
#   - each .idx is wds2idx v1.2 and its offsets point at the members' data in the tar;
#   - the mix: grayscale, CMYK and progressive present; for sets of 500 images or more,
#     4-5 bits per pixel, mean size near 400x350, 70-90% of RGB files 4:4:4.
# Also builds one --hires image twice (--jobs 1 and 2) and checks they are identical 12 MP JPEGs.
# Takes about 30 s (plus ~5 s per 1000 images of each DATASET_DIR). Exit 0 = all passed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
GEN="$HERE/make_sample_data.sh"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sluice_sample_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

fingerprint_of() { sed -n 's/^fingerprint: //p' "$1"; }

echo "== build --small with --jobs 1 and --jobs 2"
"$GEN" --small --jobs 1 "$TMP/a" >"$TMP/a.log"
"$GEN" --small --jobs 2 "$TMP/b" >"$TMP/b.log"
cat "$TMP/b.log"
fa=$(fingerprint_of "$TMP/a.log")
fb=$(fingerprint_of "$TMP/b.log")
[ ${#fa} -eq 64 ] || fail "no fingerprint printed"
[ "$fa" = "$fb" ] || fail "fingerprints differ between --jobs 1 ($fa) and --jobs 2 ($fb)"
diff -r "$TMP/a" "$TMP/b" >/dev/null || fail "outputs differ between --jobs 1 and --jobs 2"
echo "ok: --jobs 1 and --jobs 2 give byte-identical trees, fingerprint $fa"

echo "== refusals"
if "$GEN" --small "$TMP/a" >/dev/null 2>"$TMP/refuse.err"; then
  fail "a second run into the same folder without --force did not refuse"
fi
grep -q -- "--force" "$TMP/refuse.err" || fail "refusal does not mention --force: $(cat "$TMP/refuse.err")"
echo "ok: refuses to overwrite without --force"
if "$PY" - "$HERE" >"$TMP/missing.out" 2>&1 <<'EOF'; then
import sys
sys.path.insert(0, sys.argv[1])
import make_sample_data as m
m.PHOTOS = [("no-such-photo-package", "/nonexistent/photo.jpg", "00")]
m.check_photos()
EOF
  fail "a missing photo package was not reported"
fi
grep -q "no-such-photo-package are not installed" "$TMP/missing.out" ||
  fail "unclear message for a missing package: $(cat "$TMP/missing.out")"
echo "ok: a missing photo package fails with: $(head -1 "$TMP/missing.out")"

verify() {
  "$PY" - "$1" <<'EOF'
import collections, glob, hashlib, io, os, shutil, subprocess, sys, tarfile
from PIL import Image, JpegImagePlugin

root = sys.argv[1]
errors = []

def check(cond, msg):
    if not cond:
        errors.append(msg)
        if len(errors) > 20:
            sys.exit("FAIL: %s:\n  %s" % (root, "\n  ".join(errors)))

with open(os.path.join(root, "manifest.tsv")) as f:
    lines = f.read().splitlines()
header = "path class width height mode subsampling quality progressive bytes sha256".split()
check(lines[0].split("\t") == header, "manifest header %r" % lines[0])
rows = [dict(zip(header, l.split("\t"))) for l in lines[1:]]
n = len(rows)
by_path = {r["path"]: r for r in rows}
check(len(by_path) == n, "duplicate paths in manifest")

# Files against the manifest; full decodes.
djpeg = shutil.which("djpeg")
pixels = nbytes = 0
for r in rows:
    path = os.path.join(root, r["path"])
    with open(path, "rb") as f:
        data = f.read()
    w, h = int(r["width"]), int(r["height"])
    check(len(data) == int(r["bytes"]), "%s: size" % r["path"])
    check(hashlib.sha256(data).hexdigest() == r["sha256"], "%s: sha256" % r["path"])
    check(r["path"] == "train/c%03d/%s" % (int(r["class"]), os.path.basename(r["path"])),
          "%s: folder does not match class %s" % (r["path"], r["class"]))
    im = Image.open(io.BytesIO(data))
    check(im.format == "JPEG", "%s: not a JPEG" % r["path"])
    check(im.size == (w, h) and im.mode == r["mode"], "%s: size/mode" % r["path"])
    sub = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(JpegImagePlugin.get_sampling(im), "-")
    check(sub == r["subsampling"], "%s: subsampling %s" % (r["path"], sub))
    check(int(bool(im.info.get("progressive"))) == int(r["progressive"]), "%s: progressive" % r["path"])
    im.load()
    check(150 <= max(w, h) and max(w, h) <= 800 and min(w, h) >= 100, "%s: size %dx%d" % (r["path"], w, h))
    if djpeg:
        p = subprocess.run([djpeg, "-outfile", os.devnull], input=data, capture_output=True)
        check(p.returncode == 0 and not p.stderr, "%s: djpeg: %s" % (r["path"], p.stderr.decode()))
    pixels += w * h
    nbytes += len(data)
on_disk = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "train", "*", "*")))
check(on_disk == sorted(by_path), "train/ holds files the manifest does not list (or lacks some)")

# file_list.txt
with open(os.path.join(root, "file_list.txt")) as f:
    fl = f.read().splitlines()
check(fl == ["%s %s" % (r["path"], r["class"]) for r in rows], "file_list.txt does not match the manifest")

# Shards and indexes.
tars = sorted(glob.glob(os.path.join(root, "wds", "shard-*.tar")))
check(tars and [os.path.basename(t) for t in tars] == ["shard-%05d.tar" % i for i in range(len(tars))],
      "shard names not contiguous")
seen, order, sizes = collections.Counter(), [], []
for t in tars:
    with open(t, "rb") as f:
        raw = f.read()
    payload = {}
    with tarfile.open(t) as tf:
        members = tf.getmembers()
        for m in members:
            payload[m.name] = tf.extractfile(m).read()
            check(m.isreg() and m.mtime == 0 and m.uid == 0 and m.gid == 0 and m.uname == ""
                  and m.gname == "" and m.mode == 0o644, "%s: %s header" % (t, m.name))
        check(len(members) % 2 == 0, "%s: odd member count" % t)
        for jm, cm in zip(members[0::2], members[1::2]):
            key = jm.name[:-4]
            check(jm.name.endswith(".jpg") and cm.name == key + ".cls", "%s: pair %s %s" % (t, jm.name, cm.name))
            rel = "train/%s.jpg" % key.replace("_", "/", 1)
            r = by_path.get(rel)
            check(r is not None, "%s: unknown sample %s" % (t, key))
            if r is None:
                continue
            check(hashlib.sha256(payload[jm.name]).hexdigest() == r["sha256"], "%s: %s bytes" % (t, jm.name))
            check(payload[cm.name] == r["class"].encode(), "%s: %s content" % (t, cm.name))
            seen[rel] += 1
            order.append(rel)
    sizes.append(len(members) // 2)
    # The .idx beside it.
    with open(t[:-4] + ".idx") as f:
        idx = f.read().splitlines()
    check(idx[0] == "v1.2 %d" % (len(members) // 2), "%s: idx header %r" % (t, idx[0]))
    check(len(idx) == 1 + len(members) // 2, "%s: idx line count" % t)
    mi = iter(members)
    for line in idx[1:]:
        tok = line.split(" ")
        check(len(tok) == 8, "%s: idx line %r" % (t, line))
        for ext, off, size, name in zip(tok[0::4], tok[1::4], tok[2::4], tok[3::4]):
            m = next(mi)
            off, size = int(off), int(size)
            check(off % 512 == 0, "%s: offset %d not a multiple of 512" % (t, off))
            check(name == m.name and ext == name.split(".", 1)[1] and off == m.offset_data
                  and size == m.size, "%s: idx entry %s %d %d %s" % (t, ext, off, size, name))
            check(raw[off:off + size] == payload[m.name], "%s: idx offset of %s points at other bytes" % (t, name))
check(set(seen) == set(by_path) and max(seen.values()) == 1, "shards do not hold every sample exactly once")
check(all(s == sizes[0] for s in sizes[:-1]) and sizes[-1] <= sizes[0], "shard sizes %s" % sizes)
check(n < 3 or order != sorted(order), "shard order is not shuffled")

# The mix.
kinds = collections.Counter(r["mode"] for r in rows)
prog = sum(r["progressive"] == "1" for r in rows)
odd = kinds["L"] + kinds["CMYK"] + prog
if n >= 16:
    check(kinds["L"] and kinds["CMYK"] and prog, "missing grayscale/CMYK/progressive files")
rgb = [r for r in rows if r["mode"] == "RGB"]
s444 = sum(r["subsampling"] == "4:4:4" for r in rgb) / len(rgb)
bpp = 8.0 * nbytes / pixels
mw = sum(int(r["width"]) for r in rows) / n
mh = sum(int(r["height"]) for r in rows) / n
if n >= 500:
    check(4.0 <= bpp <= 5.0, "%.2f bits/pixel, not in 4..5" % bpp)
    check(360 <= mw <= 450 and 310 <= mh <= 400, "mean size %.0fx%.0f" % (mw, mh))
    check(0.7 <= s444 <= 0.9, "%.0f%% of RGB files 4:4:4" % (100 * s444))
    check(0.03 <= odd / n <= 0.05, "%.1f%% odd files" % (100.0 * odd / n))
if errors:
    sys.exit("FAIL: %s:\n  %s" % (root, "\n  ".join(errors)))
print("ok: %s: %d images decode (Pillow%s), manifest/file_list/%d shards/idx consistent; "
      "%.2f bits/pixel, mean %.0fx%.0f, %.0f%% 4:4:4, %d gray %d CMYK %d progressive"
      % (root, n, " + djpeg" if djpeg else "", len(tars), bpp, mw, mh, 100 * s444,
         kinds["L"], kinds["CMYK"], prog))
EOF
}

echo "== --hires (one 12 MP image, --jobs 1 and --jobs 2)"
"$GEN" --hires --classes 1 --per-class 1 --jobs 1 "$TMP/h1" >"$TMP/h1.log"
"$GEN" --hires --classes 1 --per-class 1 --jobs 2 "$TMP/h2" >"$TMP/h2.log"
[ "$(fingerprint_of "$TMP/h1.log")" = "$(fingerprint_of "$TMP/h2.log")" ] || fail "--hires: fingerprints differ"
diff -r "$TMP/h1" "$TMP/h2" >/dev/null || fail "--hires: outputs differ between --jobs 1 and --jobs 2"
"$PY" - "$TMP/h1" <<'EOF' || fail "--hires: bad image"
import hashlib, os, sys
from PIL import Image
root = sys.argv[1]
rows = [l.split("\t") for l in open(os.path.join(root, "manifest.tsv")).read().splitlines()[1:]]
assert len(rows) == 1, rows
path, cls, w, h, mode, sub, q, prog, nbytes, sha = rows[0]
data = open(os.path.join(root, path), "rb").read()
assert hashlib.sha256(data).hexdigest() == sha
im = Image.open(os.path.join(root, path))
im.load()
assert im.size == (int(w), int(h)) and (int(w), int(h)) in ((4000, 3000), (3000, 4000)), im.size
assert mode == "RGB" and prog == "0" and 90 <= int(q) <= 94, rows[0]
EOF
echo "ok: --hires gives the same 12 MP image with --jobs 1 and 2, fingerprint $(fingerprint_of "$TMP/h1.log")"

echo "== verify"
verify "$TMP/a"
for d in "$@"; do verify "$d"; done
echo "PASS"
