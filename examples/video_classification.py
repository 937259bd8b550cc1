#!/usr/bin/env python3
"""Trains a tiny 3-D convolutional network for a few steps on video clips read by Sluice, in the
shape of DALI's video examples with only the imports changed:

    readers.video (file_root, random clips) -> flip (random, the same for every frame of a clip) ->
    resize -> crop_mirror_normalize (FHWC -> FCHW, float) -> DALIGenericIterator -> torch

    PYTHONPATH=python .venv/bin/python examples/video_classification.py [DATA_DIR] --steps 20

DATA_DIR holds class folders of videos, as scripts/make_video_data.py writes them (default:
build/video_data, made if missing): a square moving right, left, down or up. A flip would swap two
classes (a mirrored "right" is "left"), so the random flip is there as the call form, with
--flip-probability 0 by default.
"""
import argparse
import os
import subprocess
import sys

import torch

from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pipeline_def
def video_pipeline(data_dir, sequence_length=8, stride=2, size=64, crop=56, flip_probability=0.0):
    video, label = fn.readers.video(file_root=data_dir, sequence_length=sequence_length, stride=stride, step=3,
                                    random_shuffle=True, initial_fill=64, pad_last_batch=True, name="Reader")
    # One random decision per clip: every frame of a clip is flipped, or none.
    video = fn.flip(video, horizontal=0, vertical=fn.random.coin_flip(probability=flip_probability))
    video = fn.resize(video, size=(size, size))
    video = fn.crop_mirror_normalize(video, crop=(crop, crop), dtype=types.FLOAT, output_layout="CHW",
                                     mean=[0.45 * 255, 0.45 * 255, 0.45 * 255], std=[0.225 * 255] * 3)
    return video, label  # video: FCHW per clip


class Tiny3dNet(torch.nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv3d(3, 16, kernel_size=3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool3d((1, 2, 2)),
            torch.nn.Conv3d(16, 32, kernel_size=3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool3d(2),
            torch.nn.Conv3d(32, 32, kernel_size=3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool3d(1))
        self.head = torch.nn.Linear(32, classes)

    def forward(self, x):  # x: N, C, T, H, W
        return self.head(self.features(x).flatten(1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=os.path.join(ROOT, "build", "video_data"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--flip-probability", type=float, default=0.0)
    args = ap.parse_args(argv)
    if not os.path.isdir(args.data):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_video_data.py"), args.data], check=True)
    classes = len([d for d in os.listdir(args.data) if os.path.isdir(os.path.join(args.data, d))])
    torch.manual_seed(0)
    pipe = video_pipeline(args.data, flip_probability=args.flip_probability, batch_size=args.batch_size, num_threads=args.threads, device_id=None, seed=1)
    pipe.build()
    loader = DALIGenericIterator(pipe, ["video", "label"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    model = Tiny3dNet(classes)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    step, losses = 0, []
    while step < args.steps:
        for batch in loader:
            video = batch[0]["video"].permute(0, 2, 1, 3, 4)  # N, F, C, H, W -> N, C, T, H, W
            label = batch[0]["label"].view(-1).long()
            loss = torch.nn.functional.cross_entropy(model(video), label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            print(f"step {step}: clips {tuple(video.shape)}, loss {loss.item():.4f}", flush=True)
            step += 1
            if step == args.steps:
                break
    first, last = sum(losses[:3]) / len(losses[:3]), sum(losses[-3:]) / len(losses[-3:])
    print(f"video_classification: {step} steps, loss {first:.4f} -> {last:.4f}")
    return losses


if __name__ == "__main__":
    main()
