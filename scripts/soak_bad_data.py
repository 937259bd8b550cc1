"""Soak with bad data: epochs of the training pipeline over a copy of a dataset in which about 2% of
the files are corrupt, with on_error="replace" (issue 13).

Passes when no exception is raised, resident memory after the second epoch stays within
soak_verdict's bounds (sluice/tools/bench_measure.py: a leak's rate per epoch, and in all), and the
error log names exactly the corrupt files, each once per epoch, with no corrupt file's label in any
batch.

Usage: python scripts/soak_bad_data.py --data DIR [--epochs 8] [--fraction 0.02] [--batch-size 32]
DIR holds train/<class>/*.jpg (scripts/make_sample_data.sh). The copy goes to a temporary folder
(hard links for the good files).
"""
import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

import sluice
from sluice import fn, types
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
from sluice.tools.bench_measure import soak_verdict


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def corrupt_copy(src_root, dst_root, fraction):
    """Copies src_root/<class>/* to dst_root (hard links), replacing every 1/fraction-th file by a
    corrupt one (truncated, empty, garbage after the header, in turn). Returns the corrupt paths."""
    files = sorted(os.path.join(c, f) for c in sorted(os.listdir(src_root))
                   for f in sorted(os.listdir(os.path.join(src_root, c))))
    step = max(1, round(1 / fraction))
    bad = []
    for i, rel in enumerate(files):
        src, dst = os.path.join(src_root, rel), os.path.join(dst_root, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if i % step != step // 2:
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
            continue
        with open(src, "rb") as f:
            data = f.read()
        kind = len(bad) % 3
        if kind == 0:
            data = data[: len(data) // 3]
        elif kind == 1:
            data = b""
        else:
            sos = data.index(b"\xff\xda")
            data = data[: sos + 14] + bytes(np.random.default_rng(len(bad)).integers(0, 256, len(data) - sos - 14,
                                                                                     dtype=np.uint8))
        with open(dst, "wb") as f:
            f.write(data)
        bad.append(dst)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--fraction", type=float, default=0.02)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=float, default=0.02, help="allowed RSS growth after the second epoch")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="sluice_soak_bad_") as tmp:
        root = os.path.join(tmp, "train")
        bad = corrupt_copy(os.path.join(args.data, "train"), root, args.fraction)
        classes = sorted(os.listdir(root))
        bad_labels = {b: classes.index(os.path.basename(os.path.dirname(b))) for b in bad}

        pipe = sluice.Pipeline(batch_size=args.batch_size, num_threads=args.threads, device_id=None, seed=7)
        with pipe:
            jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
            images = fn.decoders.image_random_crop(jpegs, on_error="replace", name="decoder")
            images = fn.resize(images, size=(160, 160))
            flip = fn.random.coin_flip()
            images = fn.crop_mirror_normalize(images, mirror=flip, dtype=types.FLOAT, output_layout="CHW",
                                              mean=[124.0, 116.0, 104.0], std=[58.0, 57.0, 57.0])
            pipe.set_outputs(images, labels, flip)
        pipe.build()
        it = DALIGenericIterator(pipe, ["images", "labels", "flip"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
        rss = []
        seen_per_epoch = []
        for epoch in range(args.epochs):
            before = len(it.error_log())
            n = 0
            for batch in it:
                n += batch[0]["labels"].shape[0]
            log = it.error_log()[before:]
            seen_per_epoch.append(sorted(r.path for r in log))
            rss.append(rss_mb())
            print(f"epoch {epoch + 1}: {n} samples, {len(log)} replaced, RSS {rss[-1]:.1f} MB", flush=True)

        ok = True
        passed, per_epoch, growth = soak_verdict(rss, args.limit)
        print(f"soak (bad data): {len(bad)} of {sum(len(f) for _, _, f in os.walk(root))} files corrupt "
              f"({args.fraction * 100:.0f}%); RSS growth after epoch 2: {per_epoch * 100:+.2f}% per epoch "
              f"(median; limit {args.limit * 25:.2f}%), {growth * 100:+.2f}% in all (limit {args.limit * 400:.0f}%)")
        if not passed:
            print("FAIL: memory grows", file=sys.stderr)
            ok = False
        # The iterator prefetches the next epoch's first batch: records are counted in the epoch
        # whose batches were taken from the pipeline, so check the union over all epochs too.
        everything = sorted(r.path for r in it.error_log())
        if sorted(set(everything)) != sorted(bad):
            print(f"FAIL: the error log names {sorted(set(everything))}, the corrupt files are {sorted(bad)}",
                  file=sys.stderr)
            ok = False
        if len(everything) not in (len(bad) * args.epochs, len(bad) * (args.epochs + 1)) or \
                any(everything.count(b) not in (args.epochs, args.epochs + 1) for b in bad):
            print(f"FAIL: each corrupt file should be logged once per epoch: {everything}", file=sys.stderr)
            ok = False
        stats = pipe.executor_statistics()
        if stats["decoder"]["replaced_samples"] != len(everything):
            print(f"FAIL: statistics count {stats['decoder']['replaced_samples']} replacements, the log {len(everything)}",
                  file=sys.stderr)
            ok = False
        print("soak (bad data): " + ("PASS" if ok else "FAIL"))
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
