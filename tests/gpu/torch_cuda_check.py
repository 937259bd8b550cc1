"""End-to-end checks of the CUDA backend from Python, on a machine with an NVIDIA GPU and a CUDA
build of PyTorch (run by tests/gpu/run_python_gpu.sh; not part of `make test`, which has no GPU):

1. the train pipeline (mixed decode -> gpu resize -> gpu crop_mirror_normalize) hands PyTorch CUDA
   tensors through the iterator, and matches the CPU pipeline with the same seed;
   the same holds when the consumer runs on a side stream (the tensors arrive ordered on the
   consumer's current stream, with no host synchronization);
2. GPU memory is flat across 10 epochs;
3. nvJPEG (decoders with device="mixed", the default) against the CPU decoder on the data set:
   same shapes, mean |diff| <= 1.0 per image, the worst difference reported;
4. images/s, CPU cores busy and GPU memory, side by side (issue 18's table): (a) CPU decode + GPU
   augment, (b) host decode in the mixed stage, (c) nvJPEG hybrid only, (d) nvJPEG hardware +
   hybrid at hw_decoder_load 0.65 and 1.0, (e) torchvision's decode_jpeg(device="cuda") on batches
   + transforms.v2 on the GPU, (f) torchvision's CPU DataLoader, then .cuda(); with --threads-list,
   (a) and (d) again at each thread count.
The bit-exact checks (1, 2) use the host decode path (nvjpeg=False); 3 covers nvJPEG's pixels.
"""
import argparse
import json
import os
import sys
import time

import torch

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


def check_memory(data, threads, batch, epochs=10):
    # nvJPEG's own buffers included (decoder_args={}: nvJPEG on, hw_decoder_load at its default).
    it = epoch_batches(make(data, "mixed", "gpu", threads, batch, decoder_args={}))
    free = []
    for _ in range(epochs):
        for b in it:
            b[0]["data"].sum()  # consume on the GPU
        it.reset()
        torch.cuda.synchronize()
        free.append(torch.cuda.mem_get_info()[0])
    drift = (max(free[1:]) - min(free[1:])) / 2**20
    print("memory: free GPU MiB after each epoch:", [round(f / 2**20) for f in free], f"drift after epoch 1: {drift:.1f} MiB")
    return drift


def _cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _gpu_mib():
    free, total = torch.cuda.mem_get_info()
    return (total - free) / 2**20


def bench_sluice(data, decoder, augment, threads, batch, epochs=2, decoder_args=None):
    pipe = make(data, decoder, augment, threads, batch, decoder_args=decoder_args)
    it = epoch_batches(pipe)
    n = 0
    t0 = c0 = None
    for e in range(epochs):
        for b in it:
            x = b[0]["data"]
            if not x.is_cuda:
                x = x.cuda(non_blocking=True)
            if t0 is None:
                torch.cuda.synchronize()
                t0, c0 = time.perf_counter(), _cpu_seconds()
                continue
            n += x.shape[0]
        it.reset()
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    rate, cores = n / wall, (_cpu_seconds() - c0) / wall
    stats = pipe.executor_statistics()
    per_op = {k: round(v.get("mean_batch_ms", v.get("time_per_batch_ms", 0.0)), 2) for k, v in stats.items()
              if isinstance(v, dict)}
    q = pipe.queue_statistics()
    per_op["(cpu stage)"] = round(q["cpu_stage_ms"], 2)
    per_op["(device stage)"] = round(q["device_stage_ms"], 2)
    return rate, cores, _gpu_mib(), per_op


def bench_torchvision_gpu_decode(data, threads, batch, epochs=2):
    """(e): file bytes from a DataLoader, decode_jpeg(device="cuda") on the batch, transforms.v2 on the GPU."""
    import torchvision
    from torchvision import datasets
    from torchvision.io import decode_jpeg, read_file
    from torchvision.transforms import v2

    class Bytes(datasets.DatasetFolder):
        def __init__(self, root):
            super().__init__(root, loader=read_file, extensions=(".jpg", ".jpeg", ".JPEG"))

    loader = torch.utils.data.DataLoader(Bytes(data), batch_size=batch, shuffle=True, num_workers=threads,
                                         collate_fn=lambda items: [x for x, _ in items])
    aug = v2.Compose([v2.RandomResizedCrop(224, antialias=True), v2.RandomHorizontalFlip()])
    norm = v2.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])
    n, t0, c0 = 0, None, None
    for _ in range(epochs):
        for raw in loader:
            imgs = decode_jpeg(raw, device="cuda")
            x = torch.stack([aug(im) for im in imgs]).float().div_(255)
            x = norm(x)
            if t0 is None:
                torch.cuda.synchronize()
                t0, c0 = time.perf_counter(), _cpu_seconds()
                continue
            n += x.shape[0]
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    print("torchvision", torchvision.__version__)
    return n / wall, (_cpu_seconds() - c0) / wall, _gpu_mib()


def bench_torchvision(data, threads, batch, epochs=2):
    from torchvision import datasets, transforms

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                             transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])
    loader = torch.utils.data.DataLoader(datasets.ImageFolder(data, tf), batch_size=batch, shuffle=True,
                                         num_workers=threads, pin_memory=True)
    n, t0, c0 = 0, None, None
    for _ in range(epochs):
        for x, _y in loader:
            x = x.cuda(non_blocking=True)
            if t0 is None:
                torch.cuda.synchronize()
                t0, c0 = time.perf_counter(), _cpu_seconds()
                continue
            n += x.shape[0]
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    return n / wall, (_cpu_seconds() - c0) / wall, _gpu_mib()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--out", default=None)
    ap.add_argument("--threads-list", default="", help="e.g. 2,4,8,16: (a) and (d) at each thread count")
    a = ap.parse_args()
    assert torch.cuda.is_available(), "no CUDA device"
    print("sluice", sluice.__version__, "cuda_built", sluice.cuda_built(), "cuda_available", sluice.cuda_available())
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    results = {}
    results["max_abs_diff"] = check_equivalence(a.data, a.threads, a.batch)
    results["side_stream_max_abs_diff"] = check_side_stream(a.data, a.threads, a.batch)
    results["memory_drift_mib"] = check_memory(a.data, a.threads, a.batch)
    results["nvjpeg_pixels"] = {str(load): check_nvjpeg_pixels(a.data, a.threads, a.batch, load) for load in (0.0, 0.65)}
    variants = [("(a) cpu decode + gpu augment", "cpu", "gpu", None),
                ("(b) mixed host decode + gpu augment", "mixed", "gpu", HOST),
                ("(c) nvJPEG hybrid + gpu augment", "mixed", "gpu", {"hw_decoder_load": 0.0}),
                ("(d) nvJPEG hw 0.65 + gpu augment", "mixed", "gpu", {"hw_decoder_load": 0.65}),
                ("(d) nvJPEG hw 1.0 + gpu augment", "mixed", "gpu", {"hw_decoder_load": 1.0}),
                ("cpu only, then .cuda()", "cpu", "cpu", None)]
    rows = []
    for label, dec, aug, args in variants:
        rate, cores, mib, per_op = bench_sluice(a.data, dec, aug, a.threads, a.batch, decoder_args=args)
        rows.append((label, a.threads, rate, cores, mib, per_op))
    try:
        rate, cores, mib = bench_torchvision_gpu_decode(a.data, a.threads, a.batch)
        rows.append(("(e) torchvision decode_jpeg(cuda) + v2 on GPU", a.threads, rate, cores, mib, {}))
    except Exception as e:  # an older torchvision: no batched GPU decode or no transforms.v2
        print("(e) skipped:", repr(e))
    tv, cores, mib = bench_torchvision(a.data, a.threads, a.batch)
    rows.append(("(f) torchvision DataLoader, then .cuda()", a.threads, tv, cores, mib, {}))
    for t in [int(x) for x in a.threads_list.split(",") if x] if a.threads_list else []:
        for label, dec, aug, args in (variants[0], variants[3]):
            rate, cores, mib, per_op = bench_sluice(a.data, dec, aug, t, a.batch, decoder_args=args)
            rows.append((label, t, rate, cores, mib, per_op))
    print(f"\nimages/s, batch {a.batch}:")
    for label, t, rate, cores, mib, per_op in rows:
        print(f"  {label:<46} {t:2d} thr {rate:8.0f} img/s ({rate / tv:.2f}x (f))  {cores:5.2f} cores  {mib:7.0f} MiB GPU")
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
