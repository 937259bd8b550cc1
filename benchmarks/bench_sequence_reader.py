#!/usr/bin/env python3
"""Frame-sequence loading, side by side in one run: Sluice's readers.sequence against the usual way
without DALI, a torch DataLoader whose Dataset opens each sequence's frame files with Pillow.

The data: --streams folders of --frames JPEG frames each (320x240, quality 90), panning over the
repository's photograph tests/data/images/photo_500x375.jpg, written once into --data.
  Sluice:  readers.sequence(sequence_length=8, random_shuffle=True), num_threads=N, batch B.
  Pillow:  Dataset.__getitem__ decodes the 8 files (Image.open(...).convert("RGB")) and stacks
           them; DataLoader(num_workers=N, batch_size=B, shuffle=True).
Reports frames/s (median of --repeats timed epochs, the two alternating, after a warm-up) and the
ratio Sluice / Pillow.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_sequence_reader.py [--threads 2]
"""
import argparse
import os
import statistics
import time

import numpy as np
import torch
from PIL import Image

import sluice
from sluice import fn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEQ, H, W = 8, 240, 320


def make_data(folder, streams, frames):
    photo = np.asarray(Image.open(os.path.join(ROOT, "tests", "data", "images", "photo_500x375.jpg")).convert("RGB"))
    big = np.asarray(Image.fromarray(photo).resize((photo.shape[1] * 2, photo.shape[0] * 2), Image.BILINEAR))
    for s in range(streams):
        d = os.path.join(folder, f"{s:03d}")
        os.makedirs(d, exist_ok=True)
        for k in range(frames):
            p = os.path.join(d, f"{k:05d}.jpg")
            if not os.path.exists(p):
                y = (s * 37 + k * 3) % (big.shape[0] - H)
                x = (s * 53 + k * 5) % (big.shape[1] - W)
                Image.fromarray(big[y:y + H, x:x + W]).save(p, quality=90)


class PillowSequences(torch.utils.data.Dataset):
    def __init__(self, folder):
        self.seqs = []
        for s in sorted(os.listdir(folder)):
            files = sorted(os.path.join(folder, s, f) for f in os.listdir(os.path.join(folder, s)))
            self.seqs += [files[i:i + SEQ] for i in range(0, len(files) - SEQ + 1)]

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return torch.from_numpy(np.stack([np.asarray(Image.open(p).convert("RGB")) for p in self.seqs[i]]))


def sluice_epoch(folder, threads, batch):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=1)
    with pipe:
        pipe.set_outputs(fn.readers.sequence(file_root=folder, sequence_length=SEQ, random_shuffle=True,
                                             name="Reader"))
    n = pipe.epoch_size("Reader") // batch
    t0 = time.perf_counter()
    for _ in range(n):
        (out,) = pipe.run()
        torch.from_numpy(np.asarray(out.as_tensor()))
    return n * batch * SEQ / (time.perf_counter() - t0)


def pillow_epoch(loader):
    t0, frames = time.perf_counter(), 0
    for b in loader:
        frames += b.shape[0] * b.shape[1]
    return frames / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "bench_sequence_data"))
    a = ap.parse_args()
    make_data(a.data, a.streams, a.frames)
    loader = torch.utils.data.DataLoader(PillowSequences(a.data), batch_size=a.batch, shuffle=True,
                                         num_workers=a.threads, drop_last=True, persistent_workers=True)
    sluice_epoch(a.data, a.threads, a.batch)  # warm-up (page cache, workers)
    pillow_epoch(loader)
    s, p = [], []
    for _ in range(a.repeats):
        s.append(sluice_epoch(a.data, a.threads, a.batch))
        p.append(pillow_epoch(loader))
    ms, mp = statistics.median(s), statistics.median(p)
    print(f"{a.streams} streams x {a.frames} frames ({W}x{H} JPEG), sequence_length {SEQ}, batch {a.batch}, "
          f"{a.threads} threads, median of {a.repeats}")
    print(f"  sluice readers.sequence   {ms:9.0f} frames/s   (runs: {', '.join(f'{x:.0f}' for x in s)})")
    print(f"  Pillow Dataset+DataLoader {mp:9.0f} frames/s   (runs: {', '.join(f'{x:.0f}' for x in p)})")
    print(f"  ratio sluice / Pillow     {ms / mp:9.2f}x")


if __name__ == "__main__":
    main()
