"""Parallel external_source throughput with py_num_workers 1 vs 2 on a CPU-heavy callback.

    PYTHONPATH=python .venv/bin/python benchmarks/parallel_external_source.py [--data sample_data/train]
        [--batch 16] [--iters 20] [--repeat 3] [--workers 1,2] [--method fork] [--callback jpeg|numpy]

The callback (``batch=False``, a SampleInfo-indexed callable, so the samples of a batch are split
across the workers) is Python-process work, the case the parallel source exists for: with
``--callback jpeg`` (the default) it decodes one JPEG of the sample set with Pillow, resizes it to
224x224 and returns the HWC uint8 array (~3 ms, 150 KB out); with ``--callback numpy`` it runs
~15 ms of single-threaded elementwise NumPy math and returns 64 floats (compute only, almost no
data to move). The pipeline holds only the external source, so the time per batch is the workers'.
Each configuration is built fresh for each of --repeat runs; a run takes 2 warm-up batches, then
times --iters batches. Printed: samples/s per run, the medians, and the ratio of the medians (2
workers over 1); with --json, the same as JSON. The serial (parallel=False) rate is printed too,
as the reference for what one process does.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
try:
    import sluice
except ImportError:  # a source checkout without PYTHONPATH
    sys.path.insert(0, os.path.join(REPO, "python"))
    import sluice
import numpy as np  # noqa: E402

from sluice import fn  # noqa: E402


class DecodeJpeg:
    """Decodes file idx_in_epoch % len(files) with Pillow and resizes it (picklable for spawn)."""

    def __init__(self, files, size=224):
        self.files = files
        self.size = size

    def __call__(self, info):
        from PIL import Image
        with Image.open(self.files[info.idx_in_epoch % len(self.files)]) as im:
            im = im.convert("RGB").resize((self.size, self.size), Image.BILINEAR)
            return np.asarray(im, dtype=np.uint8)


def numpy_work(info):
    """~15 ms of single-threaded elementwise NumPy work (no BLAS, whose own threads would blur 1 vs 2)."""
    a = np.random.default_rng(info.idx_in_epoch).standard_normal(60_000)
    for _ in range(8):
        a = np.sin(a) * np.cos(a) + np.sqrt(np.abs(a))
    return a[:64].astype(np.float32)


def list_jpegs(root):
    out = []
    for d, _, names in sorted(os.walk(root)):
        out.extend(os.path.join(d, n) for n in sorted(names) if n.lower().endswith((".jpg", ".jpeg")))
    if not out:
        raise SystemExit(f"no JPEGs under {root} (build them with: bash scripts/make_sample_data.sh sample_data)")
    return out


def one_run(callback, workers, parallel, batch, iters, method):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=1, seed=0, py_num_workers=workers,
                           py_start_method=method, prefetch_queue_depth=2)
    with pipe:
        pipe.set_outputs(fn.external_source(source=callback, batch=False, parallel=parallel,
                                            prefetch_queue_depth=2))
    pipe.build()
    for _ in range(2):
        pipe.run()
    t0 = time.perf_counter()
    for _ in range(iters):
        out, = pipe.run()
    rate = iters * batch / (time.perf_counter() - t0)
    assert len(out) == batch
    del pipe
    return rate


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("SLUICE_DATA", os.path.join(REPO, "sample_data", "train")))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--method", default="fork", choices=["fork", "spawn"])
    ap.add_argument("--callback", default="jpeg", choices=["jpeg", "numpy"])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    files = list_jpegs(a.data) if a.callback == "jpeg" else []
    callback = DecodeJpeg(files) if a.callback == "jpeg" else numpy_work
    workers = [int(w) for w in a.workers.split(",")]
    runs = {"serial": [one_run(callback, 1, False, a.batch, a.iters, a.method) for _ in range(a.repeat)]}
    for w in workers:
        runs[w] = [one_run(callback, w, True, a.batch, a.iters, a.method) for _ in range(a.repeat)]
    medians = {k: statistics.median(v) for k, v in runs.items()}
    result = {"callback": a.callback, "cpu_count": os.cpu_count(), "batch": a.batch, "iters": a.iters, "repeat": a.repeat,
              "method": a.method, "files": len(files),
              "runs_samples_per_s": {str(k): [round(x, 1) for x in v] for k, v in runs.items()},
              "median_samples_per_s": {str(k): round(v, 1) for k, v in medians.items()}}
    if len(workers) >= 2:
        result["ratio"] = round(medians[workers[-1]] / medians[workers[0]], 3)
    if a.json:
        print(json.dumps(result, indent=2))
        return
    what = "Pillow JPEG decode + resize to 224x224" if a.callback == "jpeg" else "~15 ms of NumPy math"
    print(f"parallel external_source, {what} per sample, batch {a.batch}, "
          f"{a.iters} timed batches, {a.repeat} runs each, {os.cpu_count()} CPUs, py_start_method={a.method}")
    for k, v in runs.items():
        label = "parallel=False (main process)" if k == "serial" else f"py_num_workers={k}"
        print(f"  {label:32s} runs {', '.join(f'{x:.0f}' for x in v)} samples/s; median {medians[k]:.0f}")
    if "ratio" in result:
        print(f"  ratio of medians, {workers[-1]} workers / {workers[0]} worker: x{result['ratio']:.2f}")


if __name__ == "__main__":
    main()
