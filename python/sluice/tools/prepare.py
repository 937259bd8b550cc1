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
import json
import os
import sys
import time

from .prepare_plan import PrepareError, plan_input, plan_record
from .prepare_pool import write_shards
from .prepare_shards import shard_is_complete, shard_paths
from .progress import ProgressBar

PROG = "sluice prepare"


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
    t0 = time.perf_counter()
    shuffle_seed = None if args.no_shuffle else args.shuffle_seed
    kind, classes, samples, in_bytes = plan_input(args.input, shuffle_seed)
    n = args.shard_size
    shards = [samples[i:i + n] for i in range(0, len(samples), n)]
    plan = plan_record(kind, classes, samples, len(shards), max_side=args.max_side, quality=args.quality,
                       shard_size=n, shuffle_seed=shuffle_seed)
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

    bar = ProgressBar("preparing", todo, unit="samples", enabled=False if args.no_progress else None)
    try:
        results = write_shards(pending, args.workers, bar, lambda r: _report(r, bar))
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


def _report(result, bar):
    """Names the images a finished shard skipped (on a line of their own below a drawn bar)."""
    for path, reason in result[2]:
        print(f"{chr(10) if bar.drawn else ''}{PROG}: skipped {path}: {reason}", file=sys.stderr)


def _size(n):
    """A byte count with a binary prefix ("68.8 MiB")."""
    for u in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or u == "TiB":
            return f"{n} B" if u == "B" else f"{n:.1f} {u}"
        n /= 1024


if __name__ == "__main__":
    sys.exit(main())
