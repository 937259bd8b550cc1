#!/usr/bin/env python3
"""Generates the small test images used by tests/kernels and the kernel benchmarks.

Run with the system Python (Pillow + NumPy): /usr/bin/python3 tests/data/make_test_images.py
Outputs are committed under tests/data/images; the script is deterministic (fixed seed), so
re-running it reproduces the same files for a given Pillow/libjpeg version.
"""
import os
import numpy as np
from PIL import Image, ImageOps

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")
rng = np.random.default_rng(1234)


def photo_like(w, h, noise=6.0):
    """Smooth gradients + blobs + mild noise: compresses like a photo, has edges and texture."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 128 + 90 * np.sin(x / 37.0) * np.cos(y / 53.0)
    g = 128 + 80 * np.cos((x + y) / 41.0)
    b = 100 + 100 * ((x - w / 2) ** 2 + (y - h / 2) ** 2 < (min(w, h) / 3) ** 2)
    img = np.stack([r, g, b], axis=-1)
    # a few hard-edged rectangles
    for _ in range(6):
        x0, y0 = rng.integers(0, w - 8), rng.integers(0, h - 8)
        img[y0:y0 + rng.integers(4, h // 3), x0:x0 + rng.integers(4, w // 3)] = rng.integers(0, 256, 3)
    img += rng.normal(0, noise, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def save(im, name, **kw):
    im.save(os.path.join(OUT, name), **kw)


def main():
    os.makedirs(OUT, exist_ok=True)
    # --- JPEG: benchmark photo and decode variants -------------------------------------------
    big = Image.fromarray(photo_like(500, 375))
    save(big, "photo_500x375.jpg", quality=90)  # 4:2:0 baseline (Pillow default)
    small = Image.fromarray(photo_like(157, 113))  # odd sizes: partial MCUs on both edges
    save(small, "s420.jpg", quality=90, subsampling=2)
    save(small, "s422.jpg", quality=90, subsampling=1)
    save(small, "s444.jpg", quality=90, subsampling=0)
    save(small, "progressive.jpg", quality=90, progressive=True)
    save(small.convert("L"), "gray.jpg", quality=90)
    save(small.convert("CMYK"), "cmyk.jpg", quality=90)
    save(small, "small.png")
    # EXIF orientation: the *displayed* image has a red top-left and a blue top-right corner.
    disp = np.full((32, 48, 3), 128, np.uint8)
    disp[:10, :10] = (255, 0, 0)
    disp[:10, -10:] = (0, 0, 255)
    disp[-10:, :10] = (0, 255, 0)
    disp_im = Image.fromarray(disp)
    save(disp_im, "orient_expected.png")
    inverse = {1: None, 2: Image.FLIP_LEFT_RIGHT, 3: Image.ROTATE_180, 4: Image.FLIP_TOP_BOTTOM,
               5: Image.TRANSPOSE, 6: Image.ROTATE_90, 7: Image.TRANSVERSE, 8: Image.ROTATE_270}
    for k in range(1, 9):
        stored = disp_im if inverse[k] is None else disp_im.transpose(inverse[k])
        exif = Image.Exif()
        exif[0x0112] = k
        save(stored, f"orient_{k}.jpg", quality=95, exif=exif.tobytes())
        check = ImageOps.exif_transpose(Image.open(os.path.join(OUT, f"orient_{k}.jpg")))
        assert check.size == disp_im.size, (k, check.size)
        assert np.abs(np.asarray(check, np.int16) - disp).mean() < 4, k
    # --- PNG ---------------------------------------------------------------------------------
    tiny = Image.fromarray(photo_like(37, 29))
    save(tiny, "rgb.png")
    rgba = tiny.copy()
    rgba.putalpha(Image.fromarray(np.tile(np.arange(37, dtype=np.uint8) * 7, (29, 1))))
    save(rgba, "rgba.png")
    save(tiny.convert("L"), "gray.png")
    save(rgba.convert("LA"), "gray_alpha.png")
    save(tiny.convert("P", palette=Image.ADAPTIVE, colors=16), "palette.png")
    g16 = (np.asarray(tiny.convert("L"), np.uint16) * 257).astype(np.uint16)
    Image.fromarray(g16, mode="I;16").save(os.path.join(OUT, "gray16.png"))
    # --- WebP (lossless, so it must equal rgb.png / rgba.png exactly) ------------------------
    save(tiny, "rgb_lossless.webp", lossless=True)
    save(rgba, "rgba_lossless.webp", lossless=True, exact=True)
    save(tiny, "rgb_lossy.webp", quality=80)
    # --- BMP ---------------------------------------------------------------------------------
    save(tiny, "rgb24.bmp")
    save(rgba, "rgba32.bmp")
    save(tiny.convert("P", palette=Image.ADAPTIVE, colors=16), "palette8.bmp")
    save(tiny.convert("L"), "gray8.bmp")
    # --- PNM (binary by Pillow, ASCII written here) -------------------------------------------
    save(tiny, "rgb.ppm")
    save(tiny.convert("L"), "gray.pgm")
    a = np.asarray(tiny)
    with open(os.path.join(OUT, "rgb_ascii.ppm"), "w") as f:
        f.write(f"P3\n# ascii test\n{a.shape[1]} {a.shape[0]}\n255\n")
        f.write("\n".join(" ".join(str(v) for v in row.reshape(-1)) for row in a) + "\n")
    gl = np.asarray(tiny.convert("L"))
    with open(os.path.join(OUT, "gray_ascii.pgm"), "w") as f:
        f.write(f"P2\n{gl.shape[1]} {gl.shape[0]}\n255\n")
        f.write("\n".join(" ".join(str(v) for v in row) for row in gl) + "\n")
    # --- Resize references (Pillow) -----------------------------------------------------------
    src = Image.fromarray(photo_like(200, 150, noise=4.0))
    save(src, "resize_src.png")
    filters = {"nearest": Image.NEAREST, "linear": Image.BILINEAR, "cubic": Image.BICUBIC,
               "lanczos": Image.LANCZOS}
    cases = [("down", (90, 90), None), ("up", (311, 257), None),
             ("roi", (64, 48), (20.5, 10.25, 150.0, 110.0))]
    for fname, f in filters.items():
        for cname, size, box in cases:
            save(src.resize(size, f, box=box), f"resize_{fname}_{cname}.png")
    print("total bytes:", sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT)))


if __name__ == "__main__":
    main()
