#!/usr/bin/env python3
"""NumPy reference timing for bench_kernels_cmn.cc: crop 224x224 + mirror + normalize + HWC->CHW,
uint8 -> float32, ImageNet mean/std. Usage: /usr/bin/python3 benchmarks/cmn_numpy_reference.py
"""
import time
import timeit

import numpy as np

mean = np.array([0.485, 0.456, 0.406], np.float32) * 255
std = np.array([0.229, 0.224, 0.225], np.float32) * 255
rng = np.random.default_rng(1)


def cmn(img, y, x, mirror):
    crop = img[y:y + 224, x:x + 224]
    if mirror:
        crop = crop[:, ::-1]
    out = (crop.astype(np.float32) - mean) * (1.0 / std)
    return np.ascontiguousarray(out.transpose(2, 0, 1))


for name, hw, mirror in [("224 CHW f32", 224, False), ("224 CHW f32 mirror", 224, True),
                         ("256 crop 224 CHW f32", 256, False)]:
    img = rng.integers(0, 256, (hw, hw, 3), dtype=np.uint8)
    off = (hw - 224) // 2
    n = 300
    best = min(timeit.repeat(lambda: cmn(img, off, off, mirror), number=n, repeat=7, timer=time.process_time)) / n
    print(f"NumPy {np.__version__} {name:22s} {best * 1e6:8.1f} us")
