"""End-to-end checks of the CUDA backend from Python, on a machine with an NVIDIA GPU and a CUDA
build of PyTorch (run by tests/gpu/run_python_gpu.sh; not part of `make test`, which has no GPU):

1. the train pipeline (mixed decode -> gpu resize -> gpu crop_mirror_normalize) hands PyTorch CUDA
   tensors through the iterator, and matches the CPU pipeline with the same seed;
   the same holds when the consumer runs on a side stream (the tensors arrive ordered on the
   consumer's current stream, with no host synchronization);
2. GPU memory is flat across 10 epochs;
3. images/s, side by side: CPU decode + GPU augment, mixed decode + GPU augment, CPU-only (then
   .cuda()), and torchvision's DataLoader (then .cuda()), with per-operator times.
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
def train(data, decoder, augment):
    jpegs, labels = fn.readers.file(file_root=data, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device=decoder, output_type=types.RGB)
    if decoder == "cpu" and augment == "gpu":
        images = images.gpu()
    images = fn.resize(images, resize_x=224, resize_y=224)  # device follows the input, as in DALI
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224), mean=MEAN,
                                      std=STD, mirror=mirror)
    return images, labels


def make(data, decoder, augment, threads, batch, seed=7):
    dev = 0 if (decoder != "cpu" or augment != "cpu") else None
    return train(data, decoder, augment, batch_size=batch, num_threads=threads, device_id=dev, seed=seed)


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
    it = epoch_batches(make(data, "mixed", "gpu", threads, batch))
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


def bench_sluice(data, decoder, augment, threads, batch, epochs=2):
    pipe = make(data, decoder, augment, threads, batch)
    it = epoch_batches(pipe)
    n = 0
    t0 = None
    for e in range(epochs):
        for b in it:
            x = b[0]["data"]
            if not x.is_cuda:
                x = x.cuda(non_blocking=True)
            if t0 is None:
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                continue
            n += x.shape[0]
        it.reset()
    torch.cuda.synchronize()
    rate = n / (time.perf_counter() - t0)
    stats = pipe.executor_statistics()
    per_op = {k: round(v.get("mean_batch_ms", v.get("time_per_batch_ms", 0.0)), 2) for k, v in stats.items()
              if isinstance(v, dict)}
    q = pipe.queue_statistics()
    per_op["(cpu stage)"] = round(q["cpu_stage_ms"], 2)
    per_op["(device stage)"] = round(q["device_stage_ms"], 2)
    return rate, per_op


def bench_torchvision(data, threads, batch, epochs=2):
    from torchvision import datasets, transforms

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                             transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])
    loader = torch.utils.data.DataLoader(datasets.ImageFolder(data, tf), batch_size=batch, shuffle=True,
                                         num_workers=threads, pin_memory=True)
    n, t0 = 0, None
    for _ in range(epochs):
        for x, _y in loader:
            x = x.cuda(non_blocking=True)
            if t0 is None:
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                continue
            n += x.shape[0]
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    assert torch.cuda.is_available(), "no CUDA device"
    print("sluice", sluice.__version__, "cuda_built", sluice.cuda_built(), "cuda_available", sluice.cuda_available())
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    results = {}
    results["max_abs_diff"] = check_equivalence(a.data, a.threads, a.batch)
    results["side_stream_max_abs_diff"] = check_side_stream(a.data, a.threads, a.batch)
    results["memory_drift_mib"] = check_memory(a.data, a.threads, a.batch)
    rows = []
    for label, dec, aug in [("cpu decode + gpu augment", "cpu", "gpu"), ("mixed decode + gpu augment", "mixed", "gpu"),
                            ("cpu only, then .cuda()", "cpu", "cpu")]:
        rate, per_op = bench_sluice(a.data, dec, aug, a.threads, a.batch)
        rows.append((label, rate, per_op))
    tv = bench_torchvision(a.data, a.threads, a.batch)
    rows.append(("torchvision DataLoader, then .cuda()", tv, {}))
    print(f"\nimages/s, {a.threads} threads, batch {a.batch}:")
    for label, rate, per_op in rows:
        print(f"  {label:<38} {rate:8.0f}  ({rate / tv:.2f}x torchvision)")
        if per_op:
            print("      ms/batch per operator:", per_op)
    results["bench"] = [{"pipeline": l, "images_per_s": r, "ms_per_batch": p} for l, r, p in rows]
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=2)
    ok = results["max_abs_diff"] < 1e-3 and results["side_stream_max_abs_diff"] < 1e-3 and results["memory_drift_mib"] < 16
    print("GPU python checks:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
