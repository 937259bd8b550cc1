"""The SSD training input pipeline, images per second, side by side in one run: Sluice (DALI's SSD
example pipeline) against the same work in a PyTorch DataLoader with torchvision.

    PYTHONPATH=python .venv/bin/python benchmarks/ssd_pipeline_bench.py [--data DIR] [--images 512]
        [--threads 2] [--batch 32] [--repeat 3]

The data set is scripts/make_coco_data.py's at COCO's image size (--size 640 480; made in --data if
missing). Every contender does per image: read the JPEG, SSD's random IoU crop (thresholds 0, 0.1,
0.3, 0.5, 0.7, 0.9 or no crop; 50 attempts of sides in [0.3, 1], aspect ratio in [0.5, 2]; boxes kept
by their centre, clipped), decode, resize to 300x300 (bilinear), one coin flip for image and boxes,
normalise to float CHW, and encode the boxes against SSD300's 8,732 default boxes (IoU matching,
criteria 0.5); then batches of --batch as torch tensors.

- sluice:      readers.coco -> random_bbox_crop -> decoders.image_slice (decodes only the crop window)
               -> resize -> bb_flip + crop_mirror_normalize(mirror) -> box_encoder ->
               DALIGenericIterator, num_threads = --threads;
- torchvision: torchvision 0.14 has no transforms v2 (boxes), so the detection transforms are written
               here with torchvision.transforms.functional on PIL images (decode the whole image, crop,
               resize, hflip, to_tensor, normalize), NumPy for the crop's IoU test and
               torchvision.ops.box_iou for the matching, in a DataLoader with --threads workers
               (torch's own threads: 1 per worker).

Each repeat runs one epoch per contender, the contenders alternating, each timed from the start of
its pipeline (Sluice: from the pipeline's build, as its iterator runs the first batches when
created; torchvision: from the DataLoader's first iteration, which starts its workers); reported:
the median over repeats of images per second and the ratio.
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
THRESHOLDS = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9]


def default_boxes():
    from test_detection_ops import ssd300_default_boxes
    return ssd300_default_boxes().astype(np.float32)


def sluice_epoch(data, anchors, threads, batch):
    from sluice import fn, pipeline_def, types
    from sluice.plugin.pytorch import DALIGenericIterator

    @pipeline_def(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    def pipe():
        images, bboxes, labels = fn.readers.coco(file_root=data, annotations_file=os.path.join(data, "annotations.json"),
                                                 skip_empty=True, ratio=True, ltrb=True, shuffle_after_epoch=True,
                                                 name="Reader")
        crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(bboxes, labels, aspect_ratio=[0.5, 2.0],
                                                                    thresholds=THRESHOLDS, scaling=[0.3, 1.0],
                                                                    bbox_layout="xyXY", allow_no_crop=True,
                                                                    num_attempts=50)
        images = fn.decoders.image_slice(images, crop_begin, crop_size, output_type=types.RGB)
        flip = fn.random.coin_flip(probability=0.5)
        images = fn.resize(images, resize_x=300, resize_y=300)
        bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip)
        images = fn.crop_mirror_normalize(images, crop=(300, 300), mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                          std=[0.229 * 255, 0.224 * 255, 0.225 * 255], mirror=flip,
                                          dtype=types.FLOAT, output_layout="CHW")
        bboxes, labels = fn.box_encoder(bboxes, labels, criteria=0.5, anchors=anchors.ravel().tolist())
        return images, bboxes, labels

    t0, n = time.perf_counter(), 0  # from the build: the iterator runs the first batches when created
    p = pipe()
    p.build()
    it = DALIGenericIterator(p, ["images", "bboxes", "labels"], reader_name="Reader")
    for b in it:
        n += b[0]["images"].shape[0]
    # The last batch is filled up to the batch size (DALI's default policy): count the epoch's images.
    return min(n, p.epoch_size("Reader")), time.perf_counter() - t0


class TorchvisionSSD:
    """The same per-image work with torchvision.transforms.functional and torchvision.ops (a
    torch Dataset; picklable for the DataLoader's workers)."""

    def __init__(self, data, anchors):
        import json
        with open(os.path.join(data, "annotations.json")) as f:
            d = json.load(f)
        cats = {c["id"]: k + 1 for k, c in enumerate(d["categories"])}
        by_image = {}
        for a in d["annotations"]:
            if a["bbox"][2] >= 0.1 and a["bbox"][3] >= 0.1:
                by_image.setdefault(a["image_id"], []).append(a)
        self.items = []
        for im in sorted(d["images"], key=lambda im: im["id"]):
            anns = by_image.get(im["id"], [])
            if not anns:
                continue  # skip_empty
            b = np.array([a["bbox"] for a in anns], np.float32)
            b[:, 2:] += b[:, :2]
            b /= [im["width"], im["height"], im["width"], im["height"]]
            self.items.append((os.path.join(data, im["file_name"]), b, np.array([cats[a["category_id"]] for a in anns])))
        self.anchors = anchors

    def __len__(self):
        return len(self.items)

    @staticmethod
    def iou_with(boxes, win):
        """IoU of each box with one window, in NumPy (cheaper than torch ops on a few boxes)."""
        lt = np.maximum(boxes[:, :2], win[:2])
        rb = np.minimum(boxes[:, 2:], win[2:])
        inter = np.prod(np.clip(rb - lt, 0, None), axis=1)
        area = np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)
        return inter / (area + (win[2] - win[0]) * (win[3] - win[1]) - inter)

    def crop(self, boxes):
        rng = random
        while True:
            choice = rng.randrange(len(THRESHOLDS) + 1)
            if choice == len(THRESHOLDS):
                return (0.0, 0.0, 1.0, 1.0)
            for _ in range(50):
                w, h = rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0)
                if not 0.5 <= w / h <= 2.0:
                    continue
                l, t = rng.uniform(0, 1 - w), rng.uniform(0, 1 - h)
                if self.iou_with(boxes, np.array([l, t, l + w, t + h])).min() < THRESHOLDS[choice]:
                    continue
                c = (boxes[:, :2] + boxes[:, 2:]) / 2
                if not np.any((c[:, 0] > l) & (c[:, 0] < l + w) & (c[:, 1] > t) & (c[:, 1] < t + h)):
                    continue
                return (l, t, l + w, t + h)

    def __getitem__(self, i):
        import torch
        import torchvision.transforms.functional as F
        from PIL import Image
        from torchvision.ops import box_iou
        path, boxes, labels = self.items[i]
        img = Image.open(path).convert("RGB")
        l, t, r, b = self.crop(boxes)
        W, H = img.size
        c = (boxes[:, :2] + boxes[:, 2:]) / 2
        keep = (c[:, 0] >= l) & (c[:, 0] <= r) & (c[:, 1] >= t) & (c[:, 1] <= b)
        bx = (np.clip(boxes[keep], [l, t, l, t], [r, b, r, b]) - [l, t, l, t]) / [r - l, b - t, r - l, b - t]
        lab = labels[keep]
        img = F.crop(img, round(t * H), round(l * W), round((b - t) * H), round((r - l) * W))
        img = F.resize(img, [300, 300])
        if random.random() < 0.5:
            img = F.hflip(img)
            bx = np.stack([1 - bx[:, 2], bx[:, 1], 1 - bx[:, 0], bx[:, 3]], 1)
        x = F.normalize(F.to_tensor(img), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        # SSD's matching on the 8,732 default boxes.
        anchors = torch.from_numpy(self.anchors)
        bt = torch.from_numpy(bx.astype(np.float32))
        out_b = torch.stack([(anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2,
                             anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]], 1)
        out_l = torch.zeros(len(anchors), dtype=torch.int32)
        if len(bt):
            ious = box_iou(bt, anchors)
            best_anchor = ious.argmax(dim=1)
            ious[torch.arange(len(bt)), best_anchor] = 2.0
            best_iou, best_box = ious.max(dim=0)
            m = best_iou > 0.5
            mb = bt[best_box[m]]
            out_b[m] = torch.stack([(mb[:, 0] + mb[:, 2]) / 2, (mb[:, 1] + mb[:, 3]) / 2, mb[:, 2] - mb[:, 0],
                                    mb[:, 3] - mb[:, 1]], 1)
            out_l[m] = torch.from_numpy(lab.astype(np.int32))[best_box[m]]
        return x, out_b, out_l


def _worker_init(_):
    import torch
    torch.set_num_threads(1)
    random.seed(torch.initial_seed() % 2**32)


def torchvision_epoch(ds, threads, batch):
    import torch
    loader = torch.utils.data.DataLoader(ds, batch_size=batch, num_workers=threads, shuffle=True,
                                         worker_init_fn=_worker_init, persistent_workers=False)
    t0, n = time.perf_counter(), 0
    for x, b, l in loader:
        n += x.shape[0]
    return n, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="/tmp/sluice_coco_bench512")
    ap.add_argument("--images", type=int, default=512)
    ap.add_argument("--size", type=int, nargs=2, default=(640, 480))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.data, "annotations.json")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_coco_data.py"), a.data, "--images",
                        str(a.images), "--size", str(a.size[0]), str(a.size[1])], check=True)
    import torch
    torch.set_num_threads(1)
    anchors = default_boxes()
    ds = TorchvisionSSD(a.data, anchors)
    print(f"{len(ds)} images with objects, {a.size[0]}x{a.size[1]}-ish JPEGs; batch {a.batch}, {a.threads} threads/workers")
    rates = {"sluice": [], "torchvision": []}
    for r in range(a.repeat):
        n, s = sluice_epoch(a.data, anchors, a.threads, a.batch)
        rates["sluice"].append(n / s)
        n2, s2 = torchvision_epoch(ds, a.threads, a.batch)
        rates["torchvision"].append(n2 / s2)
        print(f"  run {r + 1}: sluice {n / s:7.1f} img/s ({n} in {s:.2f} s)   torchvision {n2 / s2:7.1f} img/s "
              f"({n2} in {s2:.2f} s)", flush=True)
    ms, mt = statistics.median(rates["sluice"]), statistics.median(rates["torchvision"])
    print(f"\nmedian: sluice {ms:.1f} img/s, torchvision DataLoader {mt:.1f} img/s: sluice {ms / mt:.2f}x")


if __name__ == "__main__":
    main()
