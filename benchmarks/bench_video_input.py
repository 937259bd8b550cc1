#!/usr/bin/env python3
"""experimental.inputs.video on a long-GOP clip, side by side in one run (frames/s, medians, ratios).

The clip: testsrc2 at --size (default 1280x720), 25 fps, --frames frames (600), H.264 (libx264
veryfast, 2 B-frames) with a keyframe every --gop frames (250), made once with the ffmpeg CLI into
--data. It is fed to inputs.video (sequence_length --length, batch_size --batch) and read to its end;
frames/s = frames returned / wall time of the runs (feed + every run; the pipeline built before).

Rows, each in its own process, the order alternated every round:
  sluice Tn          this tree's inputs.video, num_threads=n: one decoding pass per video, FFmpeg's
                     frame threading with n threads
  baseline Tn        (with --baseline PYTHONPATH: a Sluice built before the change) inputs.video
                     decoding each sequence on its own from the keyframe before it, sequences on the
                     pipeline's n threads
  pyav               what a user would otherwise write: PyAV decoding the clip sequentially in
                     Python (container.decode, to_ndarray("rgb24"), np.stack per sequence and batch),
                     PyAV's default threading
  pyav frame Tn      the same with thread_type="AUTO", thread_count=n (FFmpeg's frame threading)
  pyav 2 procs T1    (--parallel-ceiling) two processes each decoding the whole clip with one
                     thread at the same time: frames/s of both together, the most that one
                     single-threaded decoder per GOP (per sequence slot) could reach on 2 cores

    PYTHONPATH=python .venv/bin/python benchmarks/bench_video_input.py [--rounds 5] \\
        [--baseline /path/to/old/python] [--parallel-ceiling] [--size 1920x1080] [--json out.json]
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_clip(folder, size, frames, gop):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"testsrc2_{size}_{frames}f_g{gop}.mp4")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=25",
                        "-frames:v", str(frames), "-c:v", "libx264", "-preset", "veryfast", "-g", str(gop),
                        "-keyint_min", str(gop), "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p",
                        path + ".tmp.mp4"], check=True)
        os.replace(path + ".tmp.mp4", path)
    return path


def worker_sluice(path, length, batch, threads):
    import numpy as np
    import sluice
    from sluice import fn

    data = np.fromfile(path, dtype=np.uint8)
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=1, prefetch_queue_depth=1)
    with pipe:
        pipe.set_outputs(fn.experimental.inputs.video(name="vid", sequence_length=length))
    pipe.build()
    frames = 0
    t0 = time.perf_counter()
    pipe.feed_input("vid", [data])
    while True:
        try:
            (out,) = pipe.run()
        except sluice.SluiceError as e:
            if "returned to their end" in str(e):
                break
            raise
        frames += sum(np.asarray(out[i]).shape[0] for i in range(len(out)))
    seconds = time.perf_counter() - t0
    stats = pipe.executor_statistics().get("vid", {})
    return {"frames": frames, "seconds": seconds, "counters": stats.get("counters", {})}


def worker_pyav(path, length, batch, threads, frame_threads):
    import av
    import numpy as np

    with open(path, "rb") as f:
        data = f.read()
    frames = 0
    t0 = time.perf_counter()
    with av.open(io.BytesIO(data)) as c:
        stream = c.streams.video[0]
        if frame_threads:
            stream.thread_type = "AUTO"
            stream.thread_count = threads
        seq, seqs = [], []
        for fr in c.decode(stream):
            seq.append(fr.to_ndarray(format="rgb24"))
            if len(seq) == length:
                seqs.append(np.stack(seq))
                seq = []
                if len(seqs) == batch:
                    frames += sum(len(s) for s in seqs)
                    seqs = []
        if seq:
            seqs.append(np.stack(seq))
        frames += sum(len(s) for s in seqs)
    return {"frames": frames, "seconds": time.perf_counter() - t0}


def run_worker(args, kind, threads, pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", kind, "--clip", args.clip,
           "--length", str(args.length), "--batch", str(args.batch), "--threads", str(threads)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{kind} T{threads} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_pair(args):
    """Two single-threaded PyAV decodes of the whole clip at once: frames/s of both together."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "pyav", "--clip", args.clip,
           "--length", str(args.length), "--batch", str(args.batch), "--threads", "1", "--single-thread"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    res = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    seconds = max(r["seconds"] for r in res)
    return {"frames": sum(r["frames"] for r in res), "seconds": seconds}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "bench_video_input_data"))
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--gop", type=int, default=250)
    ap.add_argument("--length", type=int, default=16, help="sequence_length")
    ap.add_argument("--batch", type=int, default=4, help="batch_size")
    ap.add_argument("--threads", default="1,2", help="num_threads values for the Sluice rows")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", help="PYTHONPATH of a Sluice built before the change (adds the baseline rows)")
    ap.add_argument("--parallel-ceiling", action="store_true", help="add the 'pyav 2 procs T1' row")
    ap.add_argument("--json")
    # Worker mode (internal).
    ap.add_argument("--worker", choices=["sluice", "pyav", "pyav-frame"])
    ap.add_argument("--clip")
    ap.add_argument("--single-thread", action="store_true")
    args = ap.parse_args()

    if args.worker:
        t = int(args.threads)
        if args.worker == "sluice":
            r = worker_sluice(args.clip, args.length, args.batch, t)
        elif args.single_thread:
            r = worker_pyav(args.clip, args.length, args.batch, 1, True)
        else:
            r = worker_pyav(args.clip, args.length, args.batch, t, args.worker == "pyav-frame")
        print(json.dumps(r))
        return

    args.clip = make_clip(args.data, args.size, args.frames, args.gop)
    here = os.path.join(ROOT, "python")
    threads = [int(t) for t in args.threads.split(",")]
    rows = []  # (label, fn)
    for t in threads:
        rows.append((f"sluice T{t}", lambda t=t: run_worker(args, "sluice", t, here)))
        if args.baseline:
            rows.append((f"baseline T{t}", lambda t=t: run_worker(args, "sluice", t, args.baseline)))
    rows.append(("pyav", lambda: run_worker(args, "pyav", 1, here)))
    for t in threads:
        if t > 1:
            rows.append((f"pyav frame T{t}", lambda t=t: run_worker(args, "pyav-frame", t, here)))
    if args.parallel_ceiling:
        rows.append(("pyav 2 procs T1", lambda: run_pair(args)))

    fps = {label: [] for label, _ in rows}
    counters = {}
    for r in range(args.rounds):
        order = rows if r % 2 == 0 else rows[::-1]
        for label, f in order:
            res = f()
            fps[label].append(res["frames"] / res["seconds"])
            if "counters" in res:
                counters[label] = res["counters"]
    med = {k: statistics.median(v) for k, v in fps.items()}
    print(f"clip {args.size}, {args.frames} frames, keyframe every {args.gop}; sequence_length {args.length}, "
          f"batch_size {args.batch}; {args.rounds} rounds, medians")
    print(f"{'row':<18}{'frames/s':>10}  {'runs':<40} counters")
    for label, _ in rows:
        runs = " ".join(f"{x:.0f}" for x in fps[label])
        print(f"{label:<18}{med[label]:>10.1f}  {runs:<40} {counters.get(label, '')}")
    print("ratios (medians of the same run):")
    for t in threads:
        s = med[f"sluice T{t}"]
        if args.baseline:
            print(f"  sluice T{t} / baseline T{t}: {s / med[f'baseline T{t}']:.2f}x")
        print(f"  sluice T{t} / pyav: {s / med['pyav']:.2f}x")
        if t > 1:
            print(f"  sluice T{t} / pyav frame T{t}: {s / med[f'pyav frame T{t}']:.2f}x")
            if "sluice T1" in med:
                print(f"  sluice T{t} / sluice T1: {s / med['sluice T1']:.2f}x")
    if args.parallel_ceiling and "pyav frame T2" in med:
        print(f"  pyav 2 procs T1 / pyav frame T2 (option a's ceiling vs frame threading): "
              f"{med['pyav 2 procs T1'] / med['pyav frame T2']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"fps": fps, "median": med, "counters": counters, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    main()
