#!/usr/bin/env python3
"""Pillow's time for the resize benchmarked in bench_kernels_resize.cc (same image, same sizes).

Usage: /usr/bin/python3 benchmarks/resize_pillow_reference.py [image]   (1 thread, best of 7 runs,
process CPU time like the "CPU" column of Google Benchmark, robust on a shared machine)
"""
import os
import sys
import time
import timeit

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "SLUICE_BENCH_IMAGE", os.path.join(ROOT, "tests/data/images/photo_500x375.jpg"))
im = Image.open(path).convert("RGB")
im.load()
print(f"Pillow {Image.__version__}, {im.size[0]}x{im.size[1]} -> 224x224")
cases = [("BILINEAR (antialiased) = LINEAR/TRIANGULAR", Image.BILINEAR, (224, 224)),
         ("BICUBIC", Image.BICUBIC, (224, 224)),
         ("LANCZOS", Image.LANCZOS, (224, 224)),
         ("NEAREST", Image.NEAREST, (224, 224)),
         ("BILINEAR upscale -> 1000x750", Image.BILINEAR, (1000, 750))]
for name, f, size in cases:
    n = 200
    best = min(timeit.repeat(lambda: im.resize(size, f), number=n, repeat=7, timer=time.process_time)) / n
    print(f"{name:45s} {best * 1e6:9.1f} us")
