"""sluice bench's train and val pipelines with operator fusion on and off (Pipeline(fuse_operators=...):
resize + crop_mirror_normalize as one step per sample), side by side in one run.

    PYTHONPATH=python .venv/bin/python benchmarks/operator_fusion.py [--data sample_data] [--threads 2]
        [--batch 64] [--repeat 3] [--epochs 2]

Each repeat runs every (pipeline, fusion) pair in a fresh process, the pairs alternating; each
process takes the first batch untimed, then `--epochs` epochs. Reported, medians over repeats:
wall and process CPU time per batch, each operator's mean time per batch (executor_statistics; the
fused operator is "resize+cmn"), and the process's peak RSS. The fused and unfused runs' outputs are
checked equal (a digest of every batch of the first epoch).
"""
import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def worker(kind, fuse, data, threads, batch, epochs):
    import numpy as np

    import sluice
    from sluice import fn, types
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=3, device_id=None, fuse_operators=fuse)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=os.path.join(data, "train"), random_shuffle=kind == "train",
                                        name="Reader")
        if kind == "train":
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB, name="decode")
            images = fn.resize(images, resize_x=224, resize_y=224, name="resize")
            mirror = fn.random.coin_flip(probability=0.5)
        else:
            images = fn.decoders.image(jpegs, output_type=types.RGB, name="decode")
            images = fn.resize(images, resize_shorter=256, name="resize")
            mirror = 0
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224), mean=MEAN,
                                          std=STD, mirror=mirror, name="cmn")
        pipe.set_outputs(images, labels)
    pipe.build()
    iters = -(-pipe.epoch_size("Reader") // batch)
    digest = hashlib.sha256()
    (first, _) = pipe.run()
    digest.update(np.asarray(first.as_tensor()).tobytes())  # 224x224 crops: always one dense tensor
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for e in range(epochs):
        for i in range(iters - (1 if e == 0 else 0)):
            (out, _) = pipe.run()
            if e == 0:
                digest.update(np.asarray(out.as_tensor()).tobytes())
            n += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    ops = {k: v["mean_batch_ms"] for k, v in pipe.executor_statistics().items() if isinstance(v, dict)}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall_ms": 1000 * wall / n, "cpu_ms": 1000 * cpu / n, "ops": ops, "peak_rss_mb": rss,
                      "digest": digest.hexdigest()}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="sample_data")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--worker", nargs=2, metavar=("KIND", "FUSE"))
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], a.worker[1] == "1", a.data, a.threads, a.batch, a.epochs)
        return 0
    runs = {}
    for _ in range(a.repeat):
        for kind in ("train", "val"):
            for fuse in (False, True):
                cmd = [sys.executable, __file__, "--data", a.data, "--threads", str(a.threads), "--batch", str(a.batch),
                       "--epochs", str(a.epochs), "--worker", kind, "1" if fuse else "0"]
                out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
                runs.setdefault((kind, fuse), []).append(json.loads(out.strip().splitlines()[-1]))
    ok = True
    print(f"operator fusion, {a.threads} threads, batch {a.batch}, medians of {a.repeat} runs of {a.epochs} epochs:")
    for kind in ("train", "val"):
        off, on = runs[(kind, False)], runs[(kind, True)]
        same = {r["digest"] for r in off} == {r["digest"] for r in on} and len({r["digest"] for r in off}) == 1
        ok = ok and same
        med = lambda rs, k: statistics.median(r[k] for r in rs)
        print(f"  {kind}: outputs identical: {same}")
        for label, rs in (("unfused", off), ("fused", on)):
            ops = {k: statistics.median(r["ops"].get(k, 0.0) for r in rs) for k in rs[0]["ops"]}
            per_op = ", ".join(f"{k} {v:.2f}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1]) if v >= 0.05)
            print(f"    {label:8} wall {med(rs, 'wall_ms'):7.1f} ms/batch  cpu {med(rs, 'cpu_ms'):7.1f} ms/batch  "
                  f"peak RSS {med(rs, 'peak_rss_mb'):6.0f} MB   per operator (ms/batch): {per_op}")
        print(f"    unfused/fused: wall {med(off, 'wall_ms') / med(on, 'wall_ms'):.3f}x  cpu "
              f"{med(off, 'cpu_ms') / med(on, 'cpu_ms'):.3f}x  peak RSS {med(off, 'peak_rss_mb') - med(on, 'peak_rss_mb'):+.0f} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
