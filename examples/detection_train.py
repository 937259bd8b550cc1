"""Trains torchvision's SSDlite (ssdlite320_mobilenet_v3_large, from scratch: nothing is downloaded)
for a few steps on a COCO-format set, fed by a Sluice pipeline in the shape of DALI's SSD example:

    readers.coco -> random_bbox_crop -> decoders.image_slice -> resize 320 -> bb_flip + flip from one
    coin_flip -> crop_mirror_normalize -> pad the boxes and labels of the batch -> DALIGenericIterator

torchvision's SSD matches and encodes the boxes itself (so there is no box_encoder here), and takes
images in [0, 1] (it normalises them itself). The boxes of a batch are padded to the same count with
label -1 (fn.pad), which the loop strips.

Usage: detection_train.py DIR [--steps N] [--batch-size B] [--threads T]
       (DIR from scripts/make_coco_data.py: DIR/annotations.json and DIR/images/)
Prints the loss of every step and, at the end, the mean of the first and last quarter of the steps.
"""
import argparse
import json
import os
import sys
import time

import torch
import torchvision

from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIGenericIterator

SIZE = 320


@pipeline_def
def detection_pipeline(file_root, annotations_file):
    images, bboxes, labels = fn.readers.coco(file_root=file_root, annotations_file=annotations_file, skip_empty=True,
                                             ratio=True, ltrb=True, random_shuffle=False, shuffle_after_epoch=True,
                                             name="Reader")
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(bboxes, labels, aspect_ratio=[0.5, 2.0],
                                                                thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                                                scaling=[0.3, 1.0], bbox_layout="xyXY",
                                                                allow_no_crop=True, num_attempts=50)
    images = fn.decoders.image_slice(images, crop_begin, crop_size, output_type=types.RGB)
    flip_coin = fn.random.coin_flip(probability=0.5)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE, min_filter=types.DALIInterpType.INTERP_TRIANGULAR)
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip_coin)
    images = fn.crop_mirror_normalize(images, crop=(SIZE, SIZE), mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0],
                                      mirror=flip_coin, dtype=types.FLOAT, output_layout="CHW")
    bboxes = fn.pad(bboxes, fill_value=-1.0, axes=(0,))
    labels = fn.pad(labels, fill_value=-1, axes=(0,))
    return images, bboxes, labels


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    torch.set_num_threads(max(1, a.threads))
    ann = os.path.join(a.data, "annotations.json")
    with open(ann) as f:
        num_classes = len(json.load(f)["categories"]) + 1  # readers.coco's labels are 1..C; 0 is the background
    pipe = detection_pipeline(file_root=a.data, annotations_file=ann, batch_size=a.batch_size, num_threads=a.threads,
                              device_id=None, seed=a.seed)
    pipe.build()
    loader = DALIGenericIterator(pipe, ["images", "bboxes", "labels"], reader_name="Reader", auto_reset=True)
    model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                       num_classes=num_classes)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9, weight_decay=4e-5)
    print(f"{pipe.epoch_size('Reader')} images, {num_classes - 1} classes")
    losses, step, t0 = [], 0, time.time()
    while step < a.steps:
        for batch in loader:
            data = batch[0]
            images = list(data["images"])
            targets = []
            for boxes, labels in zip(data["bboxes"], data["labels"]):
                keep = labels >= 0
                targets.append({"boxes": boxes[keep] * SIZE, "labels": labels[keep].long()})
            loss_dict = model(images, targets)
            loss = sum(loss_dict.values())
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            losses.append(loss.item())
            print(f"step {step}/{a.steps}: loss {loss.item():.4f} "
                  f"(bbox {loss_dict['bbox_regression'].item():.4f}, cls {loss_dict['classification'].item():.4f})",
                  flush=True)
            if step == a.steps:
                break
    q = max(1, len(losses) // 4)
    first, last = sum(losses[:q]) / q, sum(losses[-q:]) / q
    print(f"mean loss of the first {q} steps {first:.4f}, of the last {q} steps {last:.4f} "
          f"({'fell' if last < first else 'did not fall'}); {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
