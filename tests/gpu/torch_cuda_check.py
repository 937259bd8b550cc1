"""End-to-end checks of the CUDA backend from Python, on a machine with an NVIDIA GPU and a CUDA
build of PyTorch (run by tests/gpu/device_run.sh; not part of `make test`, which has no GPU):

1. the train pipeline (mixed decode -> gpu resize -> gpu crop_mirror_normalize) hands PyTorch CUDA
   tensors through the iterator, and matches the CPU pipeline with the same seed;
   the same holds when the consumer runs on a side stream (the tensors arrive ordered on the
   consumer's current stream, with no host synchronization);
2. GPU memory is flat across 20 epochs;
3. nvJPEG (decoders with device="mixed", the default) against the CPU decoder on the data set:
   same shapes, mean |diff| <= 1.0 per image, the worst difference reported;
4. images/s, CPU cores busy and GPU memory, side by side (issue 18's table): (a) CPU decode + GPU
   augment, (b) host decode in the mixed stage, (c) nvJPEG hybrid only, (d) nvJPEG hardware +
   hybrid at hw_decoder_load 0.65 and 1.0, (e) torchvision's decode_jpeg(device="cuda") on batches
   + transforms.v2 on the GPU, (f) torchvision's CPU DataLoader, then .cuda(); at each thread count
   of --threads-list, --bench-images images timed per row after one warm-up batch.
The bit-exact checks (1, 2) use the host decode path (nvjpeg=False); 3 covers nvJPEG's pixels.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torchvision

import sluice
from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def train(data, decoder, augment, decoder_args):
    jpegs, labels = fn.readers.file(file_root=data, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device=decoder, output_type=types.RGB, **decoder_args)
    if decoder == "cpu" and augment == "gpu":
        images = images.gpu()
    images = fn.resize(images, resize_x=224, resize_y=224)  # device follows the input, as in DALI
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224), mean=MEAN,
                                      std=STD, mirror=mirror)
    return images, labels


HOST = {"nvjpeg": False}  # the mixed decoder's host path: bit-exact with the CPU decoder


def make(data, decoder, augment, threads, batch, seed=7, decoder_args=None):
    dev = 0 if (decoder != "cpu" or augment != "cpu") else None
    if decoder_args is None:
        decoder_args = HOST if decoder == "mixed" else {}
    return train(data, decoder, augment, decoder_args, batch_size=batch, num_threads=threads, device_id=dev, seed=seed)


@pipeline_def
def decode_only(data, device, nvjpeg_args):
    jpegs, _ = fn.readers.file(file_root=data, name="Reader")
    return fn.decoders.image(jpegs, device=device, **nvjpeg_args), jpegs


def check_nvjpeg_pixels(data, threads, batch, hw_decoder_load):
    """nvJPEG's pixels against the CPU decoder's, image by image over one epoch."""
    gpu = decode_only(data, "mixed", {"hw_decoder_load": hw_decoder_load}, batch_size=batch, num_threads=threads,
                      device_id=0, seed=1)
    cpu = decode_only(data, "cpu", {}, batch_size=batch, num_threads=threads, device_id=None, seed=1)
    gpu.build()
    cpu.build()
    n = 0
    worst_mean, worst_max = 0.0, 0
    for _ in range((gpu.epoch_size("Reader") + batch - 1) // batch):
        (g, _), (c, _) = gpu.run(), cpu.run()
        for i in range(len(c)):
            x = torch.as_tensor(g.as_cpu().at(i)).int()
            y = torch.as_tensor(c.at(i)).int()
            assert x.shape == y.shape, (x.shape, y.shape)
            d = (x - y).abs()
            worst_mean = max(worst_mean, d.float().mean().item())
            worst_max = max(worst_max, d.max().item())
            n += 1
    print(f"nvJPEG pixels (hw_decoder_load {hw_decoder_load}): {n} images, worst mean |diff| {worst_mean:.3f}, "
          f"worst max |diff| {worst_max}")
    return worst_mean, worst_max


def epoch_batches(pipe):
    it = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    return it


def check_equivalence(data, threads, batch):
    gpu = epoch_batches(make(data, "mixed", "gpu", threads, batch))
    cpu = epoch_batches(make(data, "cpu", "cpu", threads, batch))
    worst = 0.0
    n = 0
    for g, c in zip(gpu, cpu):
        x, y = g[0]["data"], c[0]["data"]
        assert x.is_cuda and x.device.index == 0, x.device
        assert x.dtype == torch.float32 and tuple(x.shape[1:]) == (3, 224, 224), (x.dtype, x.shape)
        worst = max(worst, (x.cpu() - y).abs().max().item())
        assert torch.equal(g[0]["label"].cpu(), c[0]["label"].cpu())
        n += x.shape[0]
    print(f"equivalence: {n} images, mixed+gpu vs cpu pipeline: max |diff| = {worst:.3g}")
    return worst


def check_side_stream(data, threads, batch):
    """The consumer on its own stream, with a slow kernel queued ahead of every read: the reads must
    still see finished batches, and the pipeline must not overwrite buffers the stream still reads."""
    gpu = epoch_batches(make(data, "mixed", "gpu", threads, batch))
    cpu = epoch_batches(make(data, "cpu", "cpu", threads, batch))
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    worst = 0.0
    with torch.cuda.stream(side):
        copies = []
        for g, c in zip(gpu, cpu):
            big = (big @ big).tanh()  # keeps the side stream busy
            copies.append((g[0]["data"] * 1.0, c[0]["data"]))  # read on the side stream
        torch.cuda.current_stream().synchronize()
    for x, y in copies:
        worst = max(worst, (x.cpu() - y).abs().max().item())
    print(f"side stream: {len(copies)} batches, max |diff| = {worst:.3g}")
    return worst


def check_memory(data, threads, batch, epochs=20):
    """Device memory in use (whole device: nvJPEG's and PyTorch's included) after each epoch. nvJPEG
    resizes its buffers to the largest image of a batch, so single epochs move by a few MiB either
    way: the drift is the median of the last five epochs against the median of epochs 2-6."""
    # nvJPEG's own buffers included (decoder_args={}: nvJPEG on, hw_decoder_load at its default).
    it = epoch_batches(make(data, "mixed", "gpu", threads, batch, decoder_args={}))
    used = []
    for _ in range(epochs):
        for b in it:
            b[0]["data"].sum()  # consume on the GPU
        it.reset()
        torch.cuda.synchronize()
        used.append(_gpu_mib())
    drift = statistics.median(used[-5:]) - statistics.median(used[1:6])
    print("memory: GPU MiB in use after each epoch:", [round(u) for u in used],
          f"drift (median of the last 5 - median of epochs 2-6): {drift:.1f} MiB")
    return drift


def _cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _gpu_mib():
    free, total = torch.cuda.mem_get_info()
    return (total - free) / 2**20


class Timer:
    """Counts the images of the batches after the first (the warm-up) until `images` are timed."""

    def __init__(self, images):
        self.images, self.n, self.t0, self.c0 = images, 0, None, None

    def add(self, batch_size):
        """Returns True when enough images are timed."""
        if self.t0 is None:
            torch.cuda.synchronize()
            self.t0, self.c0 = time.perf_counter(), _cpu_seconds()
            return False
        self.n += batch_size
        return self.n >= self.images

    def result(self):
        torch.cuda.synchronize()
        wall = time.perf_counter() - self.t0
        return self.n / wall, (_cpu_seconds() - self.c0) / wall


def bench_sluice(data, decoder, augment, threads, batch, images, decoder_args=None):
    pipe = make(data, decoder, augment, threads, batch, decoder_args=decoder_args)
    it = epoch_batches(pipe)
    timer = Timer(images)
    while True:
        for b in it:
            x = b[0]["data"]
            if not x.is_cuda:
                x = x.cuda(non_blocking=True)
            if timer.add(x.shape[0]):
                break
        else:  # the epoch ended first
            it.reset()
            continue
        break
    rate, cores = timer.result()
    stats = pipe.executor_statistics()
    per_op = {k: round(v.get("mean_batch_ms", v.get("time_per_batch_ms", 0.0)), 2) for k, v in stats.items()
              if isinstance(v, dict)}
    q = pipe.queue_statistics()
    per_op["(cpu stage)"] = round(q["cpu_stage_ms"], 2)
    per_op["(device stage)"] = round(q["device_stage_ms"], 2)
    return rate, cores, _gpu_mib(), per_op


def _loader(dataset, batch, threads, **kw):
    # file_system: the default file-descriptor sharing of worker tensors fails in some VMs ("Bad file
    # descriptor" in the worker, then a hang); timeout turns any other stall into an error.
    torch.multiprocessing.set_sharing_strategy("file_system")
    return torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=True, num_workers=threads,
                                       persistent_workers=threads > 0, timeout=60, **kw)


def bench_torchvision_gpu_decode(data, threads, batch, images):
    """(e): file bytes from a DataLoader, decode_jpeg(device="cuda") on the batch, transforms.v2 on the GPU."""
    from torchvision import datasets
    from torchvision.io import decode_jpeg, read_file
    from torchvision.transforms import v2

    class Bytes(datasets.DatasetFolder):
        def __init__(self, root):
            super().__init__(root, loader=read_file, extensions=(".jpg", ".jpeg", ".JPEG"))

    loader = _loader(Bytes(data), batch, threads, collate_fn=lambda items: [x for x, _ in items])
    aug = v2.Compose([v2.RandomResizedCrop(224, antialias=True), v2.RandomHorizontalFlip()])
    norm = v2.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])
    timer = Timer(images)
    while True:
        for raw in loader:
            imgs = decode_jpeg(raw, device="cuda", mode=torchvision.io.ImageReadMode.RGB)
            x = torch.stack([aug(im) for im in imgs]).float().div_(255)
            x = norm(x)
            if timer.add(x.shape[0]):
                rate, cores = timer.result()
                return rate, cores, _gpu_mib()


def bench_torchvision(data, threads, batch, images):
    """(f): torchvision's CPU DataLoader (PIL decode, RandomResizedCrop, flip, ToTensor, Normalize), then .cuda()."""
    from torchvision import datasets, transforms

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                             transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])
    loader = _loader(datasets.ImageFolder(data, tf), batch, threads, pin_memory=True)
    timer = Timer(images)
    while True:
        for x, _y in loader:
            x = x.cuda(non_blocking=True)
            if timer.add(x.shape[0]):
                rate, cores = timer.result()
                return rate, cores, _gpu_mib()


VARIANTS = [("(a) cpu decode + gpu augment", "cpu", "gpu", None),
            ("(b) mixed host decode + gpu augment", "mixed", "gpu", HOST),
            ("(c) nvJPEG hybrid + gpu augment", "mixed", "gpu", {"hw_decoder_load": 0.0}),
            ("(d) nvJPEG hw 0.65 + gpu augment", "mixed", "gpu", {"hw_decoder_load": 0.65}),
            ("(d) nvJPEG hw 1.0 + gpu augment", "mixed", "gpu", {"hw_decoder_load": 1.0}),
            ("cpu only, then .cuda()", "cpu", "cpu", None)]


def bench_all(data, threads, batch, images):
    """Every variant at one thread count: Sluice's six, then (e) and (f). Rows: (label, threads, img/s,
    cores busy, GPU MiB, per-operator ms)."""
    rows = []
    for label, dec, aug, args in VARIANTS:
        rate, cores, mib, per_op = bench_sluice(data, dec, aug, threads, batch, images, decoder_args=args)
        rows.append((label, threads, rate, cores, mib, per_op))
        print(f"  {label:<46} {threads:2d} thr {rate:8.0f} img/s  {cores:5.2f} cores", flush=True)
    for label, bench in (("(e) torchvision decode_jpeg(cuda) + v2 on GPU", bench_torchvision_gpu_decode),
                         ("(f) torchvision DataLoader, then .cuda()", bench_torchvision)):
        try:
            rate, cores, mib = bench(data, threads, batch, images)
        except Exception as e:  # noqa: BLE001 - an older torchvision: report and go on
            print(f"{label} failed: {e!r}")
            continue
        rows.append((label, threads, rate, cores, mib, {}))
        print(f"  {label:<46} {threads:2d} thr {rate:8.0f} img/s  {cores:5.2f} cores", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--bench-data", default=None, help="file root of the benchmarks (default: --data)")
    ap.add_argument("--threads", type=int, default=8, help="threads of the correctness checks")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--out", default=None)
    ap.add_argument("--threads-list", default="", help="e.g. 2,4,8,16: every variant at each thread count "
                    "(default: --threads)")
    ap.add_argument("--bench-images", type=int, default=2048, help="images timed per benchmark row")
    ap.add_argument("--skip-bench", action="store_true")
    a = ap.parse_args()
    assert torch.cuda.is_available(), "no CUDA device"
    print("sluice", sluice.__version__, "cuda_built", sluice.cuda_built(), "cuda_available", sluice.cuda_available())
    print("torch", torch.__version__, "torchvision", torchvision.__version__, torch.cuda.get_device_name(0), flush=True)
    results = {}
    results["max_abs_diff"] = check_equivalence(a.data, a.threads, a.batch)
    results["side_stream_max_abs_diff"] = check_side_stream(a.data, a.threads, a.batch)
    results["memory_drift_mib"] = check_memory(a.data, a.threads, a.batch)
    results["nvjpeg_pixels"] = {str(load): check_nvjpeg_pixels(a.data, a.threads, a.batch, load)
                                for load in (0.0, 0.65, 1.0)}
    rows = []
    if not a.skip_bench:
        for t in [int(x) for x in a.threads_list.split(",") if x] or [a.threads]:
            print(f"benchmark, {t} threads:", flush=True)
            rows += bench_all(a.bench_data or a.data, t, a.batch, a.bench_images)
    print(f"\nimages/s, batch {a.batch}, {a.bench_images} images timed per row:")
    for label, t, rate, cores, mib, per_op in rows:
        f = next((r for l, tt, r, *_ in rows if tt == t and l.startswith("(f)")), None)
        ratio = f"{rate / f:.2f}x (f)" if f else ""
        print(f"  {label:<46} {t:2d} thr {rate:8.0f} img/s ({ratio})  {cores:5.2f} cores  {mib:7.0f} MiB GPU")
        if per_op:
            print("      ms/batch per operator:", per_op)
    results["bench"] = [{"pipeline": l, "threads": t, "images_per_s": r, "cores_busy": c, "gpu_mib": m, "ms_per_batch": p}
                        for l, t, r, c, m, p in rows]
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=2)
    ok = results["max_abs_diff"] < 1e-3 and results["side_stream_max_abs_diff"] < 1e-3 and results["memory_drift_mib"] < 16
    ok = ok and all(mean <= 1.0 for mean, _ in results["nvjpeg_pixels"].values())
    print("GPU python checks:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
