"""`sluice prepare`: re-encodes an image dataset into WebDataset shards that decode fast.

    sluice prepare INPUT... -o OUT [--max-side 512] [--quality 90] [--shard-size 1000] [--workers N]
    python -m sluice.tools.prepare INPUT... -o OUT ...

INPUT is one of
  * a folder of class subfolders of images (ImageNet layout), or a folder holding `train/` laid out
    so: class indices are the sorted class folder names' positions (as readers.file labels them),
    images are found recursively in each class folder (.jpg .jpeg .png .bmp .webp .tif .tiff .ppm,
    any case; hidden files skipped); a folder with no subfolders is one class (index 0);
  * WebDataset shards: *.tar files, or a folder of them (an .idx beside them is not needed: the
    tar headers are scanned). Samples are members with the same key (the name up to the first dot
    of its base name), in tar order, as readers.webdataset groups them.

OUT gets `shard-%06d.tar` + `shard-%06d.idx` (DALI wds2idx v1.2, written by sluice._sluice.wds_index,
so readers.webdataset reads them with or without `index_paths`) and `prepare.json` (the options, the
class names and a fingerprint of the plan; a rerun with other options or input is refused unless
--overwrite).

Each image is decoded with Pillow, turned upright (EXIF orientation, PIL.ImageOps.exif_transpose),
converted to RGB (grayscale stays L), its longer side capped at --max-side (never upscaled) with
Image.LANCZOS, and written as a baseline JPEG, 4:2:0, optimized Huffman tables, at --quality, with
no metadata (EXIF, ICC, comments dropped: training decoders ignore them). LANCZOS rather than
BICUBIC: both are area-aware (antialiased) when Pillow downscales, and this is a one-time offline
cost, so the sharper 3-lobe filter keeps the most detail the training-time resize can use.

Folder input: each sample is `<key>.jpg` + `<key>.cls` (class index in ASCII), key = the path under
the class root without extension, '/', '.' and whitespace replaced by '_' (c003/0042.jpg ->
c003_0042), as scripts/make_sample_data.py names them. Samples are shuffled by a seeded hash of the
key (--shuffle-seed, default 0; --no-shuffle keeps sorted order), because readers.webdataset reads
shards sequentially and shuffles in a bounded buffer: class-sorted shards would give batches of one
class. WebDataset input: sample order is kept; image components (jpg/jpeg/png/bmp/webp/tif/tiff/ppm)
are re-encoded (a non-JPEG one is renamed <key>.jpg, as its bytes are JPEG now), every other
component is copied byte for byte.

Deterministic: the plan (which input sample goes to which shard) is fixed before any image is
decoded, shard s holds planned samples [s*N, (s+1)*N), tar headers are fixed (GNU format, mtime 0,
uid/gid 0, mode 0644, no user names), so the bytes are the same on every run and for any --workers.
Resumable: a shard is written to a temporary name and renamed when complete, its index last; on a
rerun a shard whose .tar and .idx exist and whose .idx equals the index of the .tar (and names
planned keys only) is kept as it is.

Unreadable or corrupt images are reported (path and reason) and skipped, and counted in the summary;
the default is to skip because one bad file among a million should not stop a multi-hour job (and
the training reader would have to skip it anyway), while nothing goes unnoticed. --strict makes the
first bad image an error (exit status 1; the shards finished so far are kept).
"""
import argparse
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import time

PROG = "sluice prepare"
IMAGE_EXTS = ("jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff", "ppm")
PLAN_VERSION = 1


class PrepareError(Exception):
    pass


# ------------------------------------------------------------------ planning

def _key_of(rel):
    stem = rel.rsplit(".", 1)[0] if "." in os.path.basename(rel) else rel
    return re.sub(r"[\s./\\]", "_", stem)


def _wds_key_ext(name):
    slash = name.rfind("/") + 1
    dot = name.find(".", slash)
    if dot < 0 or dot == slash:
        return None, None
    return name[:dot], name[dot + 1:]


def _is_image(name):
    return os.path.splitext(name)[1][1:].lower() in IMAGE_EXTS


def plan_folder(root):
    """Returns (classes, samples, input_bytes); a sample is ("file", path, key, label)."""
    if os.path.isdir(os.path.join(root, "train")):
        root = os.path.join(root, "train")
    entries = sorted(os.listdir(root))
    classes = [d for d in entries if not d.startswith(".") and os.path.isdir(os.path.join(root, d))]
    files = []  # (rel path under root, label)
    if classes:
        for label, c in enumerate(classes):
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, c)):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for f in sorted(filenames):
                    if not f.startswith(".") and _is_image(f):
                        files.append((os.path.relpath(os.path.join(dirpath, f), root), label))
    else:
        classes = [os.path.basename(os.path.abspath(root))]
        files = [(f, 0) for f in entries if not f.startswith(".") and _is_image(f)
                 and os.path.isfile(os.path.join(root, f))]
    samples, used, nbytes = [], set(), 0
    for rel, label in files:
        key = base = _key_of(rel)
        n = 1
        while key in used:  # a.jpg and a.png, or 'a b.jpg' and 'a_b.jpg': deterministic suffix
            n += 1
            key = f"{base}_{n}"
        used.add(key)
        path = os.path.join(root, rel)
        nbytes += os.path.getsize(path)
        samples.append(("file", path, key, label))
    return classes, samples, nbytes


def plan_wds(tars):
    """Returns samples ("wds", tar, key, [(name, offset, size)...]) in tar order, and input bytes."""
    samples, nbytes = [], 0
    for tar in tars:
        nbytes += os.path.getsize(tar)
        last = None
        try:
            with tarfile.open(tar, "r:") as tf:
                for m in tf:
                    if not m.isreg():
                        continue
                    key, ext = _wds_key_ext(m.name)
                    if key is None:
                        continue
                    if key != last:
                        samples.append(["wds", tar, key, []])
                        last = key
                    samples[-1][3].append((m.name, m.offset_data, m.size))
        except (tarfile.TarError, OSError) as e:
            raise PrepareError(f"{tar}: cannot read the archive: {e}") from e
    return [tuple(s) for s in samples], nbytes


def _input_tars(inputs):
    tars = []
    for p in inputs:
        if os.path.isfile(p) and p.endswith(".tar"):
            tars.append(p)
        elif os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".tar"))
            subdirs = [f for f in os.listdir(p) if os.path.isdir(os.path.join(p, f)) and not f.startswith(".")]
            if not found or subdirs:
                return None
            tars += found
        else:
            return None
    return tars


def _order(samples, seed):
    return sorted(samples, key=lambda s: hashlib.sha256(f"sluice-prepare:{seed}:{s[2]}".encode()).digest())


# ------------------------------------------------------------------ one image, one shard

def reencode(data, max_side, quality):
    """Bytes of an image file -> bytes of the prepared JPEG (raises on an unreadable image)."""
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data)) as im:
        im.load()
        im = ImageOps.exif_transpose(im)
        if im.mode in ("L", "1", "LA", "I", "I;16", "I;16B", "I;16L", "F"):
            im = im.convert("L") if im.mode in ("1", "LA") else (im if im.mode == "L" else _to_l(im))
        elif im.mode != "RGB":
            im = im.convert("RGB")
        w, h = im.size
        long_side = max(w, h)
        if long_side > max_side:
            s = max_side / long_side
            size = (max_side, max(1, round(h * s))) if w >= h else (max(1, round(w * s)), max_side)
            im = im.resize(size, Image.LANCZOS)
        out = io.BytesIO()
        im.save(out, "JPEG", quality=quality, subsampling=2, optimize=True, progressive=False)
        return out.getvalue()


def _to_l(im):
    # 16-bit / float grayscale: scale to 8 bits by the type's range, as Pillow does not.
    import numpy as np
    from PIL import Image

    a = np.asarray(im)
    if a.dtype.kind == "f":
        a = np.clip(a, 0, 1) * 255 if a.max(initial=0) <= 1.0 else np.clip(a, 0, 255)
    elif a.dtype.itemsize > 1:
        a = a.astype(np.float64) / 257.0 if a.max(initial=0) > 255 else a
    return Image.fromarray(np.rint(a).astype(np.uint8), "L")


def _member(name, size):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mtime, ti.mode = size, 0, 0o644
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    ti.type = tarfile.REGTYPE
    return ti


def shard_paths(out, s):
    base = os.path.join(out, "shard-%06d" % s)
    return base + ".tar", base + ".idx"


def _tick(n):
    if _progress_queue is not None:
        _progress_queue.put(n)


_progress_queue = None


def _init_worker(q):
    global _progress_queue
    _progress_queue = q


def write_shard(job):
    """Writes shard `s` from its planned samples; returns (s, images, errors, bytes). Errors are
    (path, reason); with strict, the first one raises PrepareError (no shard is left behind)."""
    s, samples, out, max_side, quality, strict = job
    from .. import _sluice

    tar_path, idx_path = shard_paths(out, s)
    tmp_tar, tmp_idx = tar_path + ".tmp", idx_path + ".tmp"
    errors, images = [], 0
    try:
        with tarfile.open(tmp_tar, "w", format=tarfile.GNU_FORMAT) as tf:
            fh, fh_path = None, None
            for sample in samples:
                kind, src, key = sample[0], sample[1], sample[2]
                members, failed = [], None
                if kind == "file":
                    try:
                        with open(src, "rb") as f:
                            data = f.read()
                        members = [(key + ".jpg", reencode(data, max_side, quality)),
                                   (key + ".cls", str(sample[3]).encode())]
                    except Exception as e:  # OSError, PIL.UnidentifiedImageError, DecompressionBombError...
                        failed = (src, _reason(e))
                else:
                    if fh_path != src:
                        if fh:
                            fh.close()
                        fh, fh_path = open(src, "rb"), src
                    names = {m[0] for m in sample[3]}
                    for name, offset, size in sample[3]:
                        fh.seek(offset)
                        data = fh.read(size)
                        k, ext = _wds_key_ext(name)
                        last = ext.rsplit(".", 1)[-1].lower()  # 'png' of 'left.png' too
                        if last in IMAGE_EXTS:
                            try:
                                data = reencode(data, max_side, quality)
                            except Exception as e:
                                failed = (f"{src}:{name}", _reason(e))
                                break
                            if last not in ("jpg", "jpeg"):
                                renamed = name[:len(name) - len(last)] + "jpg"
                                if renamed not in names:  # a sample with both x.png and x.jpg keeps x.png
                                    name = renamed
                        members.append((name, data))
                _tick(1)
                if failed:
                    if strict:
                        raise PrepareError(f"{failed[0]}: {failed[1]}")
                    errors.append(failed)
                    continue
                images += 1
                for name, data in members:
                    tf.addfile(_member(name, len(data)), io.BytesIO(data))
            if fh:
                fh.close()
        index = _sluice.wds_index(tmp_tar)
        with open(tmp_idx, "wb") as f:
            f.write(index)
        os.replace(tmp_tar, tar_path)
        os.replace(tmp_idx, idx_path)  # last: a finished shard is one whose .idx exists
    except BaseException:
        for p in (tmp_tar, tmp_idx):
            if os.path.exists(p):
                os.remove(p)
        raise
    return s, images, errors, os.path.getsize(tar_path) + os.path.getsize(idx_path)


def _reason(e):
    msg = str(e) or type(e).__name__
    return f"{type(e).__name__}: {msg}" if type(e).__name__ not in msg else msg


def shard_is_complete(out, s, planned_keys):
    """True when shard s's .tar and .idx exist, the .idx is the tar's index and names planned keys."""
    from .. import _sluice

    tar_path, idx_path = shard_paths(out, s)
    if not (os.path.isfile(tar_path) and os.path.isfile(idx_path)):
        return False
    try:
        with open(idx_path, "rb") as f:
            idx = f.read()
        if _sluice.wds_index(tar_path) != idx:
            return False
    except Exception:
        return False
    lines = idx.decode("utf-8", "replace").splitlines()[1:]
    keys = set()
    for line in lines:
        parts = line.split(" ")
        if len(parts) >= 4:
            keys.add(_wds_key_ext(parts[3])[0])
    return keys <= set(planned_keys)


# ------------------------------------------------------------------ driver

def _size(n):
    for u in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or u == "TiB":
            return f"{n} B" if u == "B" else f"{n:.1f} {u}"
        n /= 1024


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Re-encodes a folder of class subfolders of images (or WebDataset shards) into "
                    "WebDataset shards with index files: longer side capped at --max-side, baseline 4:2:0 "
                    "JPEG with optimized Huffman tables at --quality, labels and other components kept. "
                    "Parallel, resumable (finished shards are kept on a rerun), deterministic.")
    ap.add_argument("input", nargs="+", help="a folder of class folders (or holding train/), or WebDataset *.tar "
                                             "files / a folder of them")
    ap.add_argument("-o", "--output", required=True, help="the output folder (shard-NNNNNN.tar + .idx)")
    ap.add_argument("--max-side", type=int, default=512, help="cap on the longer side in pixels (default 512)")
    ap.add_argument("--quality", type=int, default=90, help="JPEG quality 1..100 (default 90)")
    ap.add_argument("--shard-size", type=int, default=1000, help="samples per shard (default 1000)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="worker processes, one shard each at a time (default: the CPU count)")
    ap.add_argument("--shuffle-seed", type=int, default=0,
                    help="folder input: the seed of the deterministic sample order (default 0)")
    ap.add_argument("--no-shuffle", action="store_true", help="folder input: keep sorted (class-major) order")
    ap.add_argument("--strict", action="store_true", help="fail on the first unreadable image instead of skipping it")
    ap.add_argument("--overwrite", action="store_true",
                    help="rewrite every shard, also when OUT was prepared with other options")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar (shown on a terminal after 1 s)")
    args = ap.parse_args(argv)
    if args.max_side < 1:
        ap.error("--max-side must be >= 1")
    if not 1 <= args.quality <= 100:
        ap.error("--quality must be in 1..100")
    if args.shard_size < 1:
        ap.error("--shard-size must be >= 1")
    if args.workers < 1:
        ap.error("--workers must be >= 1")
    try:
        return _run(args)
    except PrepareError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (finished shards are kept; rerun to resume)", file=sys.stderr)
        return 130


def _run(args):
    from .progress import ProgressBar

    t0 = time.perf_counter()
    for p in args.input:
        if not os.path.exists(p):
            raise PrepareError(f"{p}: no such file or folder")
    tars = _input_tars(args.input)
    if tars is not None:
        kind, classes = "webdataset", None
        samples, in_bytes = plan_wds(tars)
    else:
        if len(args.input) != 1 or not os.path.isdir(args.input[0]):
            raise PrepareError("give one folder of class folders, or WebDataset .tar files / a folder of them")
        kind = "folder"
        classes, samples, in_bytes = plan_folder(args.input[0])
        if not args.no_shuffle:
            samples = _order(samples, args.shuffle_seed)
    if not samples:
        raise PrepareError("no images found in " + " ".join(args.input))

    n = args.shard_size
    shards = [samples[i:i + n] for i in range(0, len(samples), n)]
    fingerprint = hashlib.sha256()
    for s in samples:
        # Where the input lies is left out (a moved dataset resumes); what each shard holds is in.
        what = s[3] if kind == "folder" else " ".join(m[0] for m in s[3])
        fingerprint.update(f"{os.path.basename(s[1])}\0{s[2]}\0{what}\n".encode())
    plan = {"version": PLAN_VERSION, "input": kind, "max_side": args.max_side, "quality": args.quality,
            "shard_size": n, "shuffle": None if kind != "folder" or args.no_shuffle else args.shuffle_seed,
            "samples": len(samples), "shards": len(shards), "classes": classes,
            "plan_sha256": fingerprint.hexdigest()}
    out = args.output
    os.makedirs(out, exist_ok=True)
    plan_path = os.path.join(out, "prepare.json")
    plan_text = json.dumps(plan, indent=1, sort_keys=True) + "\n"
    if os.path.exists(plan_path) and not args.overwrite:
        with open(plan_path) as f:
            old = f.read()
        if old != plan_text:
            raise PrepareError(f"{out} was prepared with other options or input (see {plan_path}); "
                               "give a new folder or --overwrite")
    with open(plan_path + ".tmp", "w") as f:
        f.write(plan_text)
    os.replace(plan_path + ".tmp", plan_path)

    pending, kept_bytes, kept_images = [], 0, 0
    for s, shard in enumerate(shards):
        if not args.overwrite and shard_is_complete(out, s, [x[2] for x in shard]):
            tar_path, idx_path = shard_paths(out, s)
            kept_bytes += os.path.getsize(tar_path) + os.path.getsize(idx_path)
            with open(idx_path, "rb") as f:
                kept_images += int(f.readline().split()[1])
        else:
            pending.append((s, shard, out, args.max_side, args.quality, args.strict))
    todo = sum(len(j[1]) for j in pending)
    print(f"{PROG}: {len(samples)} samples ({kind}"
          + (f", {len(classes)} classes" if classes else "") + f") -> {len(shards)} shards in {out}"
          + (f"; {len(shards) - len(pending)} finished shards kept" if len(pending) < len(shards) else ""),
          file=sys.stderr)

    bar = ProgressBar("preparing", todo, enabled=False if args.no_progress else None)
    results = []
    workers = min(args.workers, len(pending))
    try:
        if workers <= 1:
            global _progress_queue
            _progress_queue = _BarQueue(bar)
            try:
                for job in pending:
                    r = write_shard(job)
                    _report(r, bar)
                    results.append(r)
            finally:
                _progress_queue = None
        else:
            results = _run_pool(pending, workers, bar)
        bar.update(done=todo)
    finally:
        bar.close()
        for f in os.listdir(out):  # left by workers terminated mid-shard (--strict, Ctrl-C)
            if f.startswith("shard-") and f.endswith(".tmp"):
                os.remove(os.path.join(out, f))

    images = kept_images + sum(r[1] for r in results)
    errors = [e for r in sorted(results) for e in r[2]]
    out_bytes = kept_bytes + sum(r[3] for r in results)
    dt = time.perf_counter() - t0
    ratio = out_bytes / in_bytes if in_bytes else float("nan")
    print(f"{PROG}: {images} images in {len(shards)} shards ({len(pending)} written, "
          f"{len(shards) - len(pending)} kept), {len(errors)} skipped as unreadable, {dt:.1f} s", file=sys.stderr)
    print(f"{PROG}: size before {in_bytes} bytes ({_size(in_bytes)}), after {out_bytes} bytes "
          f"({_size(out_bytes)}), ratio {ratio:.3f}", file=sys.stderr)
    return 0


class _BarQueue:
    def __init__(self, bar):
        self.bar = bar

    def put(self, n):
        self.bar.update(advance=n)


def _report(result, bar=None):
    for path, reason in result[2]:
        print(f"{chr(10) if bar is not None and bar.drawn else ''}{PROG}: skipped {path}: {reason}", file=sys.stderr)


def _run_pool(pending, workers, bar):
    import multiprocessing as mp
    import queue as queue_mod

    # spawn, not fork: the caller may hold threads (a running pipeline's executor).
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    results = []
    with ctx.Pool(workers, initializer=_init_worker, initargs=(q,)) as pool:
        asyncs = [pool.apply_async(write_shard, (job,)) for job in pending]
        remaining = list(asyncs)
        while remaining:
            try:
                bar.update(advance=q.get(timeout=0.1))
                continue
            except queue_mod.Empty:
                pass
            still = []
            for a in remaining:
                if a.ready():
                    r = a.get()  # re-raises the worker's PrepareError (--strict)
                    _report(r, bar)
                    results.append(r)
                else:
                    still.append(a)
            remaining = still
        pool.close()
        pool.join()
    return results


if __name__ == "__main__":
    sys.exit(main())
