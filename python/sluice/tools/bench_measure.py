"""What sluice bench measures of one pipeline run: throughput after the first batch, CPU time per
image, peak and per-epoch resident memory of the process tree, and the time per batch of each stage."""
from __future__ import annotations

import os
import resource
import threading
import time

from .bench_data import dataset_images
from .bench_pipelines import batch_signature, epochs_of
from .progress import ProgressBar


def _tree_rss_bytes(pid: int) -> int:
    """Resident memory of a process and all its descendants (Linux /proc)."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def soak_verdict(rss_per_epoch, limit):
    """(passed, median growth per epoch after the second, growth in all after the second), fractions of
    the second epoch's RSS. A leak grows every epoch; the allocator's high-water mark steps once (one
    more batch buffer when a consumer held a batch late) and stays. So the median growth per epoch
    must be at most limit / 4 and the growth in all at most 4 * limit; needs 4 epochs or more."""
    rss = list(rss_per_epoch)
    if len(rss) < 4:
        raise ValueError("a soak needs at least 4 epochs")
    steps = sorted(b - a for a, b in zip(rss[1:], rss[2:]))
    mid = len(steps) // 2
    per_epoch = (steps[mid] if len(steps) % 2 else (steps[mid - 1] + steps[mid]) / 2) / rss[1]
    growth = (max(rss[1:]) - rss[1]) / rss[1]
    return per_epoch <= limit / 4 and growth <= 4 * limit, per_epoch, growth


def rss_bytes() -> int:
    return _tree_rss_bytes(os.getpid())


class PeakRss:
    """Samples the RSS of this process tree (DataLoader workers included) ten times a second."""

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_bytes())
            self._stop.wait(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have exited (DataLoader workers)."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


# A fused resize + crop_mirror_normalize (Pipeline(fuse_operators=True)) counts as "resize+normalize",
# a column shown only when a pipeline has one.
FUSED_STAGE = "resize+normalize"
# The per-sample switch of sluice.auto_aug (_select.split and _select.merge), also shown only when a
# pipeline has one.
SELECT_STAGE = "split+merge"
OPTIONAL_STAGES = (FUSED_STAGE, SELECT_STAGE)
# Stage -> the registry-name prefixes of its operators; the first match counts, others are "other".
STAGES = (("reader", ("readers.",)), ("decode", ("decoders.",)),
          ("resize+normalize", ("_fused.resize_crop_mirror_normalize",)), ("resize", ("resize", "random_resized_crop")),
          ("normalize", ("crop_mirror_normalize", "normalize")), (SELECT_STAGE, ("_select.split", "_select.merge")))


def stage_times(pipe) -> dict:
    """Mean time per batch of each stage (reader, decode, resize, normalize, other), in ms, from the
    pipeline's executor_statistics(): the time of the operators of that kind, summed. Operators run
    one after another within a batch, each over all threads, so the stages add up to the batch."""
    out = {name: 0.0 for name, _ in STAGES if name not in OPTIONAL_STAGES}
    out["other"] = 0.0
    for st in pipe.executor_statistics().values():
        if "op" not in st:
            continue  # "autotune" (num_threads/prefetch_queue_depth "auto", memory_budget)
        op = st["op"]
        stage = next((name for name, prefixes in STAGES if op.startswith(prefixes)), "other")
        out[stage] = out.get(stage, 0.0) + st["mean_batch_ms"]
    return {k: round(v, 3) for k, v in out.items()}


def measure(kind: str, data: str, batch_size: int, threads: int, epochs: int, seed: int, progress: bool) -> dict:
    """Runs one pipeline for `epochs` epochs in this process and returns its figures."""
    n = dataset_images(data)
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    first_batch_s = None
    images = 0
    rss_per_epoch = []
    bar = ProgressBar(kind, n * epochs, unit="images", enabled=None if progress else False, keep=False)
    built = {}
    with PeakRss() as peak:
        source = epochs_of(kind, data, batch_size, threads, seed, built)
        for _ in range(epochs):
            for batch_images, batch_labels in next(source):
                k = len(batch_images)
                if first_batch_s is None:
                    # Steady-state throughput is counted from the end of the first batch.
                    first_batch_s = time.perf_counter() - t0
                    t_steady, img_steady = time.perf_counter(), images + k
                    signature = batch_signature(batch_images, batch_labels)
                images += k
                bar.update(advance=k)
            rss_per_epoch.append(rss_bytes())
        elapsed = time.perf_counter() - t_steady
    bar.close()
    cpu = cpu_seconds() - cpu0
    steady_images = images - img_steady
    return {
        "pipeline": kind, "threads": threads, "batch_size": batch_size, "epochs": epochs, "images": images,
        "images_per_s": steady_images / elapsed if elapsed > 0 else float("nan"),
        "cpu_s_per_image": cpu / max(1, images),
        "peak_rss_mb": peak.peak / 2**20,
        "first_batch_s": first_batch_s,
        "rss_per_epoch_mb": [r / 2**20 for r in rss_per_epoch],
        "stage_ms_per_batch": stage_times(built["pipe"]) if "pipe" in built else {},
        "batch": signature,  # the first batch's shapes and element types (peers must match Sluice)
    }
