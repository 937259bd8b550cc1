#!/usr/bin/env python3
"""Makes a small, deterministic action-recognition data set of H.264 videos with the ffmpeg CLI:
OUT/<class>/<n>.mp4, where a coloured square moves right (class 0), left (class 1), down (class 2)
or up (class 3) over a plain background -- telling the classes apart needs the frames' order,
which a 3-D convolution sees. Colours, sizes, speeds and positions come from a seeded generator;
the encoder runs single-threaded, so the same arguments give the same files.

    python3 scripts/make_video_data.py OUT [--per-class 6] [--classes 4] [--seconds 2] [--size 128x96]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

MOTIONS = [  # (x, y) of the square at time t: W, H frame size, S square size, V speed, X0/Y0 start
    ("mod({x0}+{v}*t\\,{w}-{s})", "{y0}"),              # right
    ("{w}-{s}-mod({x0}+{v}*t\\,{w}-{s})", "{y0}"),      # left
    ("{x0}", "mod({y0}+{v}*t\\,{h}-{s})"),              # down
    ("{x0}", "{h}-{s}-mod({y0}+{v}*t\\,{h}-{s})"),      # up
]


def make_video(path, cls, rng, seconds, width, height, rate=25, gop=12):
    s = rng.randint(12, 24)
    v = rng.randint(30, 70)
    x0, y0 = rng.randint(0, width - s - 1), rng.randint(0, height - s - 1)
    bg = "0x%02x%02x%02x" % tuple(rng.randint(0, 80) for _ in range(3))
    fg = "0x%02x%02x%02x" % tuple(rng.randint(150, 255) for _ in range(3))
    fx, fy = (e.format(x0=x0, y0=y0, v=v, w=width, h=height, s=s) for e in MOTIONS[cls])
    subprocess.run([
        "ffmpeg", "-v", "error", "-y",
        "-f", "lavfi", "-i", f"color=c={bg}:s={width}x{height}:r={rate}:d={seconds}",
        "-f", "lavfi", "-i", f"color=c={fg}:s={s}x{s}:r={rate}:d={seconds}",
        "-filter_complex", f"[0][1]overlay=x='{fx}':y='{fy}'",
        "-c:v", "libx264", "-preset", "veryfast", "-g", str(gop), "-pix_fmt", "yuv420p", "-threads", "1",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", path], check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--per-class", type=int, default=6)
    ap.add_argument("--classes", type=int, default=4, choices=range(1, len(MOTIONS) + 1))
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--size", default="128x96")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if shutil.which("ffmpeg") is None:
        sys.exit("make_video_data: the ffmpeg command is needed (apt-get install ffmpeg)")
    width, height = (int(v) for v in args.size.split("x"))
    rng = random.Random(args.seed)
    for cls in range(args.classes):
        folder = os.path.join(args.out, f"class{cls}")
        os.makedirs(folder, exist_ok=True)
        for n in range(args.per_class):
            make_video(os.path.join(folder, f"{n:03d}.mp4"), cls, rng, args.seconds, width, height)
    print(f"make_video_data: {args.classes * args.per_class} videos in {args.out}")


if __name__ == "__main__":
    main()
