#!/usr/bin/env python3
"""Video clip loading, side by side in one run: Sluice's readers.video -> resize vs PyAV in a torch
DataLoader (the usual way without DALI; torchcodec and decord do not install for this Python 3.11 +
Debian torch 1.13), both handing torch uint8 batches to the training loop.

Each clip: 16 consecutive frames from a random start in a random file, resized to 112x112 RGB.
  Sluice: readers.video(sequence_length=16, step=1, random_shuffle) -> resize(size=112x112)
          (antialiased linear), num_threads=N, through DALIGenericIterator.
  PyAV:   a Dataset whose __getitem__ opens the file, seeks to the keyframe before the start
          (container.seek, backward), decodes forward to the start frame and converts 16 frames
          with to_ndarray(format="rgb24", width=112, height=112) (libswscale, bilinear: cheaper
          than Sluice's resize), one decoder thread; DataLoader(num_workers=N, batch_size=B).
Reports clips/s (median of --repeats timed runs of --batches batches after a warm-up), the ratio,
and CPU time per frame (all the processes' user + system time over the timed runs / frames).

    PYTHONPATH=python .venv/bin/python benchmarks/bench_video.py [--threads 2] [--json out.json]

The videos (H.264, 320x240, 25 fps, 10 s, a keyframe every 2 s) are made once with the ffmpeg CLI
into --data (default build/bench_video_data).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

import numpy as np
import psutil
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEQ, SIZE = 16, 112


def make_data(folder, count, seconds):
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i in range(count):
        p = os.path.join(folder, f"v{i:02d}.mp4")
        if not os.path.exists(p):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                            f"testsrc2=size=320x240:rate=25:duration={seconds},hue=h={37 * i}",
                            "-c:v", "libx264", "-preset", "veryfast", "-g", "50", "-pix_fmt", "yuv420p",
                            "-threads", "1", p + ".tmp.mp4"], check=True)
            os.replace(p + ".tmp.mp4", p)
        paths.append(p)
    return paths


def cpu_seconds(procs):
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def all_procs():
    me = psutil.Process()
    return [me] + me.children(recursive=True)


def timed(batches_iter, batches, batch_size):
    """(clips/s, cpu seconds) over `batches` batches taken from the iterator."""
    procs = all_procs()
    c0, t0 = cpu_seconds(procs), time.perf_counter()
    for _ in range(batches):
        b = next(batches_iter)
        assert b.shape == (batch_size, SEQ, SIZE, SIZE, 3), b.shape
    t1 = time.perf_counter()
    c1 = cpu_seconds(procs)
    return batches * batch_size / (t1 - t0), c1 - c0


# ---- Sluice -----------------------------------------------------------------------------------

def sluice_batches(paths, batch_size, threads):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from sluice import fn, pipeline_def
    from sluice.plugin.pytorch import DALIGenericIterator

    @pipeline_def
    def pipe_def():
        video = fn.readers.video(filenames=paths, sequence_length=SEQ, step=1, random_shuffle=True,
                                 initial_fill=256, name="Reader")
        return fn.resize(video, size=(SIZE, SIZE))

    pipe = pipe_def(batch_size=batch_size, num_threads=threads, device_id=None, seed=12, prefetch_queue_depth=2)
    pipe.build()
    it = DALIGenericIterator(pipe, ["video"], reader_name="Reader", auto_reset=True)

    def gen():
        while True:
            for b in it:
                yield b[0]["video"]
    return gen()


# ---- PyAV in a DataLoader -----------------------------------------------------------------------

class PyAvClips(torch.utils.data.Dataset):
    def __init__(self, paths, length):
        import av
        self.paths, self.length = paths, length
        self.frames = []
        for p in paths:
            with av.open(p) as c:
                self.frames.append(c.streams.video[0].frames)

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        import av
        rng = random.Random(i)
        f = rng.randrange(len(self.paths))
        start = rng.randrange(self.frames[f] - SEQ + 1)
        out = np.empty((SEQ, SIZE, SIZE, 3), np.uint8)
        with av.open(self.paths[f]) as c:
            s = c.streams.video[0]
            s.thread_count = 1
            target = int(round(start / float(s.average_rate) / s.time_base))
            c.seek(target, stream=s, backward=True, any_frame=False)
            k = 0
            for frame in c.decode(s):
                if frame.pts < target:
                    continue
                out[k] = frame.to_ndarray(format="rgb24", width=SIZE, height=SIZE)
                k += 1
                if k == SEQ:
                    break
        assert k == SEQ
        return torch.from_numpy(out)


def pyav_batches(paths, batch_size, workers):
    ds = PyAvClips(paths, 10 ** 7)
    loader = torch.utils.data.DataLoader(ds, batch_size=batch_size, num_workers=workers, shuffle=True,
                                         persistent_workers=True, prefetch_factor=2)
    return iter(loader)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "bench_video_data"))
    ap.add_argument("--videos", type=int, default=8)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2, help="Sluice's num_threads and the DataLoader's num_workers")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--batches", type=int, default=25)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    paths = make_data(args.data, args.videos, args.seconds)
    results = {}
    for name, make in (("sluice", sluice_batches), ("pyav_dataloader", pyav_batches)):
        it = make(paths, args.batch_size, args.threads)
        for _ in range(3):  # warm-up: workers started, queues filled
            next(it)
        runs = [timed(it, args.batches, args.batch_size) for _ in range(args.repeats)]
        rates = [r for r, _ in runs]
        frames = args.batches * args.batch_size * SEQ * args.repeats
        results[name] = {"clips_per_s": statistics.median(rates), "runs": rates,
                         "cpu_ms_per_frame": 1000 * sum(c for _, c in runs) / frames}
        print(f"{name:16s} {statistics.median(rates):8.1f} clips/s (runs {', '.join(f'{r:.1f}' for r in rates)}), "
              f"CPU {results[name]['cpu_ms_per_frame']:.3f} ms/frame", flush=True)
        del it
    ratio = results["sluice"]["clips_per_s"] / results["pyav_dataloader"]["clips_per_s"]
    cpu_ratio = results["pyav_dataloader"]["cpu_ms_per_frame"] / results["sluice"]["cpu_ms_per_frame"]
    print(f"Sluice / PyAV+DataLoader: {ratio:.2f}x clips/s, {cpu_ratio:.2f}x less CPU per frame "
          f"({args.threads} threads / workers, batch {args.batch_size}, {SEQ} frames at {SIZE}x{SIZE}, "
          f"{os.cpu_count()} CPUs)")
    results.update(ratio=ratio, cpu_ratio=cpu_ratio, threads=args.threads, batch_size=args.batch_size,
                   cpus=os.cpu_count())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return results


if __name__ == "__main__":
    main()
