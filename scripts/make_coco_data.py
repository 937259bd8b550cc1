#!/usr/bin/python3
"""Build a small deterministic COCO-format detection set from the sample photographs.

Usage: make_coco_data.py [--images N] [--seed S] [--size W H] DIR

Output, under DIR:
  images/NNNNNN.jpg        N JPEGs: a random crop of one of the Debian photographs that
                           make_sample_data.py uses, resized to about --size, with 1 to 6
                           objects painted on it: filled shapes whose category is their kind
                           (triangle, square, pentagon, star, ellipse), so a detector can learn
                           them; the shapes' outlines are the polygon segmentations
  annotations.json         COCO instances format: images (ids not in file order), categories
                           (non-contiguous ids 1, 3, 7, 12, 18), annotations with bbox (the
                           polygon's bounding box), area, iscrowd and polygon segmentation;
                           every 7th image also gets a crowd region (iscrowd=1, uncompressed
                           RLE), every 11th image no object (for skip_empty), and every 13th a box
                           0.05 px wide, which readers.coco's default size_threshold drops

Determinism: everything is a function of (seed, image index); the same seed and Debian
packages give byte-identical files. Only photographs shipped by Debian packages are used.
"""

import argparse
import json
import math
import os
import random
import sys

import numpy as np
from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_sample_data  # noqa: E402  (the photo list)

CATEGORIES = [(1, "triangle", 3), (3, "square", 4), (7, "pentagon", 5), (12, "star", 10), (18, "ellipse", 24)]
PALETTE = [(230, 40, 40), (40, 200, 60), (40, 80, 230), (240, 220, 30), (200, 40, 220), (250, 250, 250)]


def available_photos():
    return [p for _, p, _ in make_sample_data.PHOTOS if os.path.exists(p)]


def shape_polygon(rng, kind_index, cx, cy, r):
    _, _, n = CATEGORIES[kind_index]
    rot = rng.uniform(0, 2 * math.pi)
    pts = []
    for k in range(n):
        a = rot + 2 * math.pi * k / n
        rr = r * (0.45 if (CATEGORIES[kind_index][1] == "star" and k % 2) else 1.0)
        sx = 1.0 if CATEGORIES[kind_index][1] != "ellipse" else 1.4
        pts.append((round(cx + sx * rr * math.cos(a), 2), round(cy + rr * math.sin(a), 2)))
    return pts


def rle_counts(mask):
    """Uncompressed COCO RLE (column-major runs, starting with zeros) of a bool mask."""
    flat = mask.T.reshape(-1).astype(np.uint8)
    counts, prev, run = [], 0, 0
    for v in flat:
        if v != prev:
            counts.append(run)
            run, prev = 0, v
        run += 1
    counts.append(run)
    return counts


def make_image(photos, seed, index, size):
    rng = random.Random(make_sample_data.seed_int("coco", seed, index))
    photo = Image.open(photos[rng.randrange(len(photos))]).convert("RGB")
    w = int(size[0] * rng.uniform(0.8, 1.2))
    h = int(size[1] * rng.uniform(0.8, 1.2))
    pw, ph = photo.size
    cw, ch = rng.randint(pw // 3, pw), rng.randint(ph // 3, ph)
    x0, y0 = rng.randint(0, pw - cw), rng.randint(0, ph - ch)
    img = photo.crop((x0, y0, x0 + cw, y0 + ch)).resize((w, h), Image.BILINEAR)
    draw = ImageDraw.Draw(img)
    objects = []
    if index % 11 != 10:
        for _ in range(rng.randint(1, 6)):
            kind = rng.randrange(len(CATEGORIES))
            r = rng.uniform(0.06, 0.22) * min(w, h)
            cx, cy = rng.uniform(r, w - r), rng.uniform(r, h - r)
            pts = shape_polygon(rng, kind, cx, cy, r)
            draw.polygon(pts, fill=PALETTE[rng.randrange(len(PALETTE))])
            objects.append((kind, pts))
    crowd = None
    if index % 7 == 3:
        m = np.zeros((h, w), bool)
        bx, by = rng.randint(0, w // 2), rng.randint(0, h // 2)
        bw, bh = rng.randint(8, w // 3), rng.randint(8, h // 3)
        m[by:by + bh, bx:bx + bw] = True
        crowd = (rng.randrange(len(CATEGORIES)), m, [bx, by, bw, bh])
    return img, objects, crowd


def generate(out, n, seed=0, size=(320, 240)):
    photos = available_photos()
    if not photos:
        sys.exit("make_coco_data: none of the sample photographs is installed (see make_sample_data.sh)")
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    images, annotations = [], []
    ann_id = 1000
    ids = list(range(1, n + 1))
    random.Random(seed).shuffle(ids)  # image ids not in file order
    for i in range(n):
        img, objects, crowd = make_image(photos, seed, i, size)
        name = "%06d.jpg" % i
        img.save(os.path.join(out, "images", name), quality=92)
        image_id = ids[i] * 10
        images.append({"id": image_id, "file_name": "images/" + name, "width": img.width, "height": img.height})
        for kind, pts in objects:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            bbox = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
            poly = [c for p in pts for c in p]
            annotations.append({"id": ann_id, "image_id": image_id, "category_id": CATEGORIES[kind][0],
                                "bbox": [round(v, 2) for v in bbox], "area": round(bbox[2] * bbox[3], 2),
                                "iscrowd": 0, "segmentation": [poly]})
            ann_id += 1
        if crowd is not None:
            kind, m, bbox = crowd
            annotations.append({"id": ann_id, "image_id": image_id, "category_id": CATEGORIES[kind][0],
                                "bbox": bbox, "area": int(m.sum()), "iscrowd": 1,
                                "segmentation": {"size": [img.height, img.width], "counts": rle_counts(m)}})
            ann_id += 1
        if i % 13 == 5:  # a sliver that size_threshold=0.1 drops
            annotations.append({"id": ann_id, "image_id": image_id, "category_id": CATEGORIES[0][0],
                                "bbox": [5.0, 5.0, 0.05, 10.0], "area": 0.5, "iscrowd": 0,
                                "segmentation": [[5.0, 5.0, 5.05, 5.0, 5.05, 15.0, 5.0, 15.0]]})
            ann_id += 1
    data = {"info": {"description": "Sluice sample COCO set", "version": "1"},
            "images": images,
            "annotations": annotations,
            "categories": [{"id": cid, "name": name, "supercategory": "shape"} for cid, name, _ in CATEGORIES]}
    with open(os.path.join(out, "annotations.json"), "w") as f:
        json.dump(data, f)
    return os.path.join(out, "annotations.json")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--images", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, nargs=2, default=(320, 240), metavar=("W", "H"))
    a = ap.parse_args(argv)
    path = generate(a.out, a.images, a.seed, tuple(a.size))
    print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
