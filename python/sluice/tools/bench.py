"""sluice bench: the ImageNet training and validation input pipelines, Sluice against PyTorch's
DataLoader with torchvision transforms, side by side in one run.

Each measurement runs in its own subprocess (clean peak RSS and CPU accounting); every pipeline is
run --repeat times and the median is reported. Run `python -m sluice.tools.bench --help`.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

SLUICE_PIPELINES = ["train", "val", "train-wds", "decode-only", "train-randaug"]
BASELINE_PIPELINES = ["torchvision-train", "torchvision-val", "torchvision-train-randaug"]
ALL_PIPELINES = SLUICE_PIPELINES + BASELINE_PIPELINES
BASELINE_OF = {"train": "torchvision-train", "train-wds": "torchvision-train", "val": "torchvision-val",
               "decode-only": None, "train-randaug": "torchvision-train-randaug"}


# --------------------------------------------------------------------------- measurement helpers
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


class Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, label: str, total: int, enabled: bool):
        self.label, self.total, self.enabled = label, total, enabled and sys.stderr.isatty()
        self.done = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, n: int):
        self.done += n
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.2 and self.done < self.total):
            return
        self.last = now
        frac = min(1.0, self.done / max(1, self.total))
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        rate = self.done / max(1e-9, now - self.t0)
        sys.stderr.write(f"\r  {self.label:<18} [{bar}] {self.done}/{self.total} images {rate:7.0f} img/s")
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\r" + " " * 90 + "\r")
            sys.stderr.flush()


# --------------------------------------------------------------------------- the pipelines
def _dataset_size(train_dir: str) -> int:
    return sum(len(files) for _, _, files in os.walk(train_dir))


def prepared_shards(data: str):
    """The shards of a dataset written by `sluice prepare` (a folder with prepare.json), else None."""
    if not os.path.exists(os.path.join(data, "prepare.json")):
        return None
    return sorted(glob.glob(os.path.join(data, "shard-*.tar")))


def dataset_images(data: str) -> int:
    shards = prepared_shards(data)
    if shards is None:
        return _dataset_size(os.path.join(data, "train"))
    total = 0
    for t in shards:
        with open(t[:-4] + ".idx", encoding="ascii") as f:
            total += int(f.readline().split()[1])
    return total


def dataset_bytes(data: str) -> int:
    """Bytes of the images the pipelines read: the image files, or the prepared shards."""
    shards = prepared_shards(data)
    if shards is not None:
        return sum(os.path.getsize(t) for t in shards)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(os.path.join(data, "train")) for f in files)


class TarJpegDataset:
    """The torchvision baseline's dataset over prepared shards: (PIL image, label) per sample, read
    through the shards' index files (member offsets), as a map-style dataset for DataLoader."""

    def __init__(self, shards, transform):
        self.transform = transform
        self.items = []  # (tar path, jpg offset, jpg size, (cls offset, cls size))
        for t in shards:
            with open(t[:-4] + ".idx", encoding="ascii") as f:
                f.readline()
                for line in f:
                    fields = line.split()
                    comps = {fields[k]: (int(fields[k + 1]), int(fields[k + 2])) for k in range(0, len(fields), 4)}
                    self.items.append((t, *comps["jpg"], comps.get("cls")))
        self._files = {}

    def __len__(self):
        return len(self.items)

    def _read(self, path, offset, size):
        f = self._files.get(path)
        if f is None:
            f = self._files[path] = open(path, "rb")
        f.seek(offset)
        return f.read(size)

    def __getitem__(self, i):
        import io

        from PIL import Image
        path, off, size, cls = self.items[i]
        img = Image.open(io.BytesIO(self._read(path, off, size))).convert("RGB")
        label = int(self._read(path, *cls)) if cls else 0
        return self.transform(img), label


def sluice_pipeline(kind: str, data: str, batch_size: int, threads: int, seed: int):
    import sluice
    from sluice import fn, types

    @sluice.pipeline_def(batch_size=batch_size, num_threads=threads, seed=seed, device_id=None)
    def pipe():
        shards = prepared_shards(data)
        if shards is not None:  # a `sluice prepare` output: every pipeline reads its shards
            jpegs, labels = fn.readers.webdataset(paths=shards, index_paths=[t[:-4] + ".idx" for t in shards],
                                                  ext=["jpg", "cls"], random_shuffle=kind.startswith("train"),
                                                  name="Reader")
        elif kind == "train-wds":
            tars = sorted(glob.glob(os.path.join(data, "wds", "*.tar")))
            idx = [t[:-4] + ".idx" for t in tars]
            jpegs, labels = fn.readers.webdataset(paths=tars, index_paths=idx, ext=["jpg", "cls"],
                                                  random_shuffle=True, name="Reader")
        else:
            jpegs, labels = fn.readers.file(file_root=os.path.join(data, "train"),
                                            random_shuffle=kind.startswith("train"), name="Reader")
        if kind == "decode-only":
            return fn.decoders.image(jpegs, output_type=types.RGB), labels
        if kind == "train-randaug":
            # DALI's EfficientNet recipe: crop, resize, flip, RandAugment(n=2, m=9), normalize.
            from sluice.auto_aug import rand_augment
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_x=224, resize_y=224)
            images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
            # Nearest-neighbour geometry, as torchvision's RandAugment does by default.
            images = rand_augment.rand_augment(images, n=2, m=9, interp_type=types.INTERP_NN)
            mirror = 0
        elif kind in ("train", "train-wds"):
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_x=224, resize_y=224)
            mirror = fn.random.coin_flip(probability=0.5)
        else:
            images = fn.decoders.image(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_shorter=256)
            mirror = 0
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224),
                                          mean=MEAN, std=STD, mirror=mirror)
        return images, labels

    return pipe()


def torchvision_loader(kind: str, data: str, batch_size: int, threads: int):
    import torch
    from torchvision import datasets, transforms

    normalize = transforms.Normalize(mean=[m / 255 for m in MEAN], std=[s / 255 for s in STD])
    if kind == "torchvision-train":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.ToTensor(), normalize])
    elif kind == "torchvision-train-randaug":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.RandAugment(num_ops=2, magnitude=9), transforms.ToTensor(), normalize])
    else:
        tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize])
    shards = prepared_shards(data)
    ds = TarJpegDataset(shards, tf) if shards is not None else datasets.ImageFolder(os.path.join(data, "train"), tf)
    return torch.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=kind.startswith("torchvision-train"),
                                       num_workers=threads, persistent_workers=False)


def epochs_of(kind: str, data: str, batch_size: int, threads: int, seed: int, built: dict | None = None):
    """Yields, once per epoch, an iterable of the batch sizes of that epoch (building the pipeline or
    loader on the first step, so that its cost counts towards the first-batch latency). A Sluice
    pipeline, once built, is put in `built["pipe"]` (for its statistics)."""
    built = {} if built is None else built
    if kind in BASELINE_PIPELINES:
        loader = torchvision_loader(kind, data, batch_size, threads)
        while True:
            yield (x.shape[0] for x, _y in loader)
    elif kind == "decode-only":
        # Variable-size images: read the batches directly (no dense tensor for the iterator).
        pipe = sluice_pipeline(kind, data, batch_size, threads, seed)
        pipe.build()
        built["pipe"] = pipe
        iters = -(-pipe.epoch_size("Reader") // batch_size)
        while True:
            yield (len(pipe.run()[0]) for _ in range(iters))
    else:
        from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

        built["pipe"] = sluice_pipeline(kind, data, batch_size, threads, seed)
        it = DALIClassificationIterator(built["pipe"], reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
        while True:
            yield (b[0]["data"].shape[0] for b in it)


def measure(kind: str, data: str, batch_size: int, threads: int, epochs: int, seed: int, progress: bool) -> dict:
    """Runs one pipeline for `epochs` epochs in this process and returns its figures."""
    n = dataset_images(data)
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    first_batch_s = None
    images = 0
    rss_per_epoch = []
    bar = Progress(kind, n * epochs, progress)
    built = {}
    with PeakRss() as peak:
        source = epochs_of(kind, data, batch_size, threads, seed, built)
        for _ in range(epochs):
            for k in next(source):
                if first_batch_s is None:
                    # Steady-state throughput is counted from the end of the first batch.
                    first_batch_s = time.perf_counter() - t0
                    t_steady, img_steady = time.perf_counter(), images + k
                images += k
                bar.update(k)
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
    }


# A fused resize + crop_mirror_normalize (Pipeline(fuse_operators=True)) counts as "resize+normalize",
# a column shown only when a pipeline has one.
FUSED_STAGE = "resize+normalize"
STAGES = (("reader", ("readers.",)), ("decode", ("decoders.",)),
          ("resize+normalize", ("_fused.resize_crop_mirror_normalize",)), ("resize", ("resize", "random_resized_crop")),
          ("normalize", ("crop_mirror_normalize", "normalize")))


def stage_times(pipe) -> dict:
    """Mean time per batch of each stage (reader, decode, resize, normalize, other), in ms, from the
    pipeline's executor_statistics(): the time of the operators of that kind, summed. Operators run
    one after another within a batch, each over all threads, so the stages add up to the batch."""
    out = {name: 0.0 for name, _ in STAGES if name != FUSED_STAGE}
    out["other"] = 0.0
    for st in pipe.executor_statistics().values():
        op = st["op"]
        stage = next((name for name, prefixes in STAGES if op.startswith(prefixes)), "other")
        out[stage] = out.get(stage, 0.0) + st["mean_batch_ms"]
    return {k: round(v, 3) for k, v in out.items()}


def format_stages(results: dict[str, dict]) -> str:
    """Per-stage ms per batch of the Sluice pipelines (a table, one row per pipeline)."""
    fused = any(FUSED_STAGE in (r.get("stage_ms_per_batch") or {}) for r in results.values())
    names = [name for name, _ in STAGES if fused or name != FUSED_STAGE] + ["other"]
    rows = [("ms per batch", *names, "total")]
    for kind, r in results.items():
        st = r.get("stage_ms_per_batch") or {}
        if st:
            rows.append((kind, *(f"{st.get(n, 0.0):.2f}" for n in names), f"{sum(st.values()):.2f}"))
    if len(rows) == 1:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows)


# --------------------------------------------------------------------------- orchestration
def run_in_subprocess(kind: str, args) -> dict:
    cmd = [sys.executable, "-m", "sluice.tools.bench", "--worker", kind, "--data", args.data, "--threads", str(args.threads),
           "--batch-size", str(args.batch_size), "--epochs", str(args.epochs), "--seed", str(args.seed)]
    if args.no_progress:
        cmd.append("--no-progress")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"sluice bench: pipeline '{kind}' failed (exit code {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_result(runs: list[dict]) -> dict:
    out = dict(runs[0])
    for key in ("images_per_s", "cpu_s_per_image", "peak_rss_mb", "first_batch_s"):
        out[key] = statistics.median(r[key] for r in runs)
    out["runs"] = [r["images_per_s"] for r in runs]
    stages = [r.get("stage_ms_per_batch") or {} for r in runs]
    if stages and stages[0]:
        out["stage_ms_per_batch"] = {k: statistics.median(st.get(k, 0.0) for st in stages) for k in stages[0]}
    return out


def format_table(results: dict[str, dict]) -> str:
    rows = [("pipeline", "images/s", "CPU s/image", "peak RSS MB", "1st batch s", "vs baseline")]
    for name, r in results.items():
        base = BASELINE_OF.get(name)
        ratio = ""
        if base and base in results:
            ratio = f"{r['images_per_s'] / results[base]['images_per_s']:.2f}x {base}"
        elif name == "train" and "decode-only" in results:
            ratio = ""
        rows.append((name, f"{r['images_per_s']:.0f}", f"{r['cpu_s_per_image'] * 1000:.2f} ms", f"{r['peak_rss_mb']:.0f}",
                     f"{r['first_batch_s']:.2f}", ratio))
    if "train" in results and "decode-only" in results:
        rows.append(("train / decode-only", f"{results['train']['images_per_s'] / results['decode-only']['images_per_s']:.2f}x",
                     "", "", "", "(the libjpeg-turbo floor)"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def plot(results: dict[str, dict], path: str, title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    values = [results[n]["images_per_s"] for n in names]
    colors = ["#999999" if n.startswith("torchvision") else "#1f77b4" for n in names]
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar(names, values, color=colors)
    for b, n in zip(bars, names):
        label = f"{b.get_height():.0f}"
        base = BASELINE_OF.get(n)
        if base and base in results:
            label += f"\n{b.get_height() / results[base]['images_per_s']:.1f}x"
        ax.annotate(label, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=9)
    ax.set_ylabel("images/s (median)")
    ax.set_title(title)
    ax.margins(y=0.2)
    plt.xticks(rotation=20, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def ensure_data(data: str):
    if os.path.isdir(os.path.join(data, "train")) or prepared_shards(data):
        return
    script = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "make_sample_data.sh")
    if not os.path.exists(script):
        raise SystemExit(f"sluice bench: no dataset at {data} (expected {data}/train/<class>/*.jpg); "
                         "build one with scripts/make_sample_data.sh DIR")
    print(f"sluice bench: building the sample dataset in {data} ...", file=sys.stderr)
    subprocess.run(["bash", script, data], check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="sluice bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get("SLUICE_DATA", "sample_data"),
                    help="dataset folder with train/<class>/*.jpg and wds/*.tar (default: sample_data, built if "
                         "missing), or a `sluice prepare` output (every pipeline, the baselines too, reads its shards)")
    ap.add_argument("--threads", type=int, default=2, help="Sluice num_threads and DataLoader num_workers")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="runs per pipeline; the median is reported")
    ap.add_argument("--pipelines", default="train,val,train-wds,decode-only,torchvision-train,torchvision-val",
                    help="comma-separated: " + ", ".join(ALL_PIPELINES))
    ap.add_argument("--decode-only", action="store_true", help="measure only the full-decode floor")
    ap.add_argument("--scaling", action="store_true", help="also run the train pipeline with 1 thread and report the 1->N speed-up")
    ap.add_argument("--soak", action="store_true", help="memory soak: RSS after every epoch of the train pipeline")
    ap.add_argument("--soak-limit", type=float, default=0.02, help="allowed RSS growth after the second epoch (fraction)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON ('-' for stdout)")
    ap.add_argument("--plot", metavar="PNG", help="write a bar chart")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        r = measure(args.worker, args.data, args.batch_size, args.threads, args.epochs, args.seed, not args.no_progress)
        print(json.dumps(r))
        return 0

    ensure_data(args.data)
    if args.soak:
        r = measure("train", args.data, args.batch_size, args.threads, max(3, args.epochs), args.seed, not args.no_progress)
        rss = r["rss_per_epoch_mb"]
        growth = (max(rss[1:]) - rss[1]) / rss[1]
        for i, v in enumerate(rss):
            print(f"epoch {i + 1}: RSS {v:.1f} MB")
        verdict = "PASS" if growth <= args.soak_limit else "FAIL"
        print(f"soak: RSS growth after epoch 2: {growth * 100:+.2f}% (limit {args.soak_limit * 100:.1f}%): {verdict}")
        if args.json:
            _write_json(args.json, {"soak": r, "growth": growth, "pass": verdict == "PASS"})
        return 0 if verdict == "PASS" else 1

    kinds = ["decode-only"] if args.decode_only else [k.strip() for k in args.pipelines.split(",") if k.strip()]
    for k in kinds:
        if k not in ALL_PIPELINES:
            raise SystemExit(f"sluice bench: unknown pipeline '{k}' (choose from {', '.join(ALL_PIPELINES)})")
    if prepared_shards(args.data) is not None:
        kinds = [k for k in kinds if k != "train-wds"]  # every pipeline reads the shards already
    elif "train-wds" in kinds and not glob.glob(os.path.join(args.data, "wds", "*.tar")):
        print("sluice bench: no WebDataset shards in data/wds; skipping train-wds", file=sys.stderr)
        kinds.remove("train-wds")
    print(f"sluice bench: {dataset_images(args.data)} images ({dataset_bytes(args.data) / 2**20:.1f} MiB"
          f"{' in prepared shards' if prepared_shards(args.data) is not None else ''}) in {args.data}, "
          f"{args.threads} threads, batch {args.batch_size}, {args.epochs} epoch(s), median of {args.repeat}", file=sys.stderr)
    results = {}
    for k in kinds:
        results[k] = median_result([run_in_subprocess(k, args) for _ in range(args.repeat)])
    if args.scaling and "train" in results:
        one = argparse.Namespace(**{**vars(args), "threads": 1})
        r1 = median_result([run_in_subprocess("train", one) for _ in range(args.repeat)])
        results["train-1thread"] = r1
    print(format_table(results))
    stages = format_stages(results)
    if stages:
        print("where the time goes (executor_statistics, median over runs):")
        print(stages)
    if "train-1thread" in results:
        print(f"scaling 1 -> {args.threads} threads (train): "
              f"{results['train']['images_per_s'] / results['train-1thread']['images_per_s']:.2f}x")
    machine = f"{os.cpu_count()} CPUs"
    if args.json:
        _write_json(args.json, {"machine": machine, "results": results})
    if args.plot:
        plot(results, args.plot, f"Sluice vs torchvision DataLoader ({args.threads} threads, {machine})")
        print(f"plot: {args.plot}", file=sys.stderr)
    return 0


def _write_json(path: str, obj):
    text = json.dumps(obj, indent=2)
    if path == "-":
        print(text)
    else:
        with open(path, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
