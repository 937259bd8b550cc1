"""Test videos made with the FFmpeg command-line tool (deterministic: testsrc2 patterns, fixed
encoder settings, single-threaded encoders). Shared by the video tests."""
import shutil
import subprocess

import numpy as np

FFMPEG = shutil.which("ffmpeg")


def encoders():
    """The video encoders this ffmpeg has."""
    out = subprocess.run([FFMPEG, "-hide_banner", "-encoders"], capture_output=True, text=True).stdout
    return {line.split()[1] for line in out.splitlines() if line.startswith(" V")}


def make(path, *, codec="libx264", size="96x64", rate=25, frames=60, gop=12, extra=(), vf=None, pix_fmt="yuv420p"):
    """Encodes `frames` frames of testsrc2 at `size` into `path`; returns the path."""
    args = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}",
            "-frames:v", str(frames)]
    if vf:
        args += ["-vf", vf]
    args += ["-c:v", codec, "-pix_fmt", pix_fmt, "-threads", "1"]
    if codec == "libx264":
        args += ["-g", str(gop), "-bf", "2", "-preset", "veryfast"]
    elif codec == "libx265":
        args += ["-x265-params", f"log-level=error:keyint={gop}:min-keyint={gop}:pools=none:frame-threads=1"]
    elif codec == "libvpx-vp9":
        args += ["-g", str(gop), "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"]
    elif codec in ("mpeg4",):
        args += ["-g", str(gop), "-bf", "1", "-q:v", "5"]
    elif codec == "libaom-av1":
        args += ["-g", str(gop), "-cpu-used", "8", "-crf", "40", "-b:v", "0"]
    elif codec == "libsvtav1":
        args += ["-g", str(gop), "-preset", "12"]
    args += list(extra) + [str(path)]
    subprocess.run(args, check=True)
    return str(path)


def pyav_frames(path, fmt="rgb24"):
    """Every frame of the first video stream as PyAV decodes it (to_ndarray(fmt)), and each frame's
    time in seconds."""
    import av

    frames, times = [], []
    with av.open(str(path)) as c:
        for f in c.decode(video=0):
            frames.append(f.to_ndarray(format=fmt))
            times.append(f.time)
    return frames, times


def as_numpy(out):
    """A batch (TensorList) as a list of arrays."""
    return [np.array(out[i]) for i in range(len(out))]
