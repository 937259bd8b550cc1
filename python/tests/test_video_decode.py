"""fn.experimental.decoders.video against PyAV (Debian's python3-av, the same FFmpeg libraries)
decoding the same files: frames bit-identical, at the same frame numbers, on videos made here with
the ffmpeg command-line tool -- H.264 (B-frames), HEVC, VP9, MPEG-4, AV1, constant and variable frame
rate, odd sizes, a rotated-metadata file -- for clips starting at keyframes and between them; then
padding, the clip arguments, determinism across num_threads, and bad input."""
import io
import os
import re
import subprocess

import numpy as np
import pytest

import sluice
from sluice import fn

av = pytest.importorskip("av")
from video_files import FFMPEG, as_numpy, encoders, make, pyav_frames  # noqa: E402

pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")


def decode(datas, threads=2, **kwargs):
    """Runs decoders.video on a batch of encoded byte arrays; returns the clips (PyAV's conversion
    unless color_conversion is given: these tests compare with PyAV's decode)."""
    kwargs.setdefault("color_conversion", "pyav")
    pipe = sluice.Pipeline(batch_size=len(datas), num_threads=threads, seed=3)
    with pipe:
        enc = fn.external_source(source=lambda: [np.asarray(d, np.uint8) for d in datas], batch=True, cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, **kwargs))
    pipe.build()
    (out,) = pipe.run()
    return as_numpy(out)


def read(path):
    return np.fromfile(path, dtype=np.uint8)


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    d = tmp_path_factory.mktemp("videos")
    have = encoders()
    v = {
        "h264": make(d / "h264.mp4", frames=60, gop=12),
        "h264_odd": make(d / "h264_odd.mp4", size="97x65", frames=30, gop=10, pix_fmt="yuv444p"),
        "h264_vfr": make(d / "h264_vfr.mp4", frames=60, gop=10, vf=r"select=not(eq(mod(n\,3)\,1))",
                         extra=["-fps_mode", "vfr"]),
        "mpeg4": make(d / "mpeg4.avi", codec="mpeg4", frames=40, gop=10),
    }
    if "libx265" in have:
        v["hevc"] = make(d / "hevc.mp4", codec="libx265", size="96x64", frames=40, gop=10)
    if "libvpx-vp9" in have:
        v["vp9"] = make(d / "vp9.webm", codec="libvpx-vp9", size="95x63", frames=40, gop=10)
    if "libaom-av1" in have:
        v["av1"] = make(d / "av1.mkv", codec="libaom-av1", size="64x64", frames=20, gop=8)
    rot = str(d / "rotated.mp4")
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", v["h264"], "-c", "copy", "-metadata:s:v:0", "rotate=90", rot],
                   check=True)
    v["rotated"] = rot
    return v


NAMES = ["h264", "h264_odd", "h264_vfr", "mpeg4", "hevc", "vp9", "av1", "rotated"]


@pytest.mark.parametrize("name", NAMES)
def test_frames_bit_identical_to_pyav(videos, name):
    if name not in videos:
        pytest.skip(f"this ffmpeg has no encoder for {name}")
    ref, _ = pyav_frames(videos[name])
    n = len(ref)
    data = read(videos[name])
    # The whole stream, then clips starting at keyframes (0, 10/12) and between them, with strides.
    (whole,) = decode([data])
    assert whole.shape == (n,) + ref[0].shape
    np.testing.assert_array_equal(whole, np.stack(ref))
    starts = sorted({1, 7, 10, 11, 12, 13, n // 2, n - 5})
    for s in starts:
        for stride in (1, 3):
            length = min(4, (n - s + stride - 1) // stride)
            (clip,) = decode([data], start_frame=s, sequence_length=length, stride=stride)
            np.testing.assert_array_equal(clip, np.stack(ref[s:s + stride * length:stride]), err_msg=f"start {s}")


def test_vfr_file_has_irregular_timestamps(videos):
    _, times = pyav_frames(videos["h264_vfr"])
    steps = np.round(np.diff(times), 4)
    assert len(set(steps)) > 1, steps  # the file really is variable-rate


def test_rotated_file_carries_rotation(videos):
    probe = subprocess.run([FFMPEG.replace("ffmpeg", "ffprobe"), "-v", "error", "-show_streams", videos["rotated"]],
                           capture_output=True, text=True, check=True).stdout
    assert "rotation=90" in probe or "rotation=-90" in probe, probe


def test_gray_and_batch_of_different_files(videos):
    refs = [pyav_frames(videos[k])[0] for k in ("h264", "mpeg4", "h264_odd")]
    out = decode([read(videos[k]) for k in ("h264", "mpeg4", "h264_odd")], start_frame=3, sequence_length=5)
    for o, r in zip(out, refs):
        np.testing.assert_array_equal(o, np.stack(r[3:8]))


def test_frames_argument_any_order(videos):
    ref, _ = pyav_frames(videos["h264"])
    (clip,) = decode([read(videos["h264"])], frames=[30, 2, 2, 59, 13])
    np.testing.assert_array_equal(clip, np.stack([ref[i] for i in (30, 2, 2, 59, 13)]))


def test_end_frame(videos):
    ref, _ = pyav_frames(videos["h264"])
    (clip,) = decode([read(videos["h264"])], start_frame=10, end_frame=20, stride=4)
    np.testing.assert_array_equal(clip, np.stack(ref[10:20:4]))


def test_per_sample_start_frame(videos):
    ref, _ = pyav_frames(videos["h264"])
    data = read(videos["h264"])
    starts = [0, 11, 25, 50]
    pipe = sluice.Pipeline(batch_size=4, num_threads=2, seed=1)
    with pipe:
        enc = fn.external_source(source=lambda: [data] * 4, batch=True, cycle=False)
        st = fn.external_source(source=lambda: [np.array(s, np.int64) for s in starts], batch=True, cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, start_frame=st, sequence_length=3, color_conversion="pyav"))
    pipe.build()
    (out,) = pipe.run()
    for s, o in zip(starts, as_numpy(out)):
        np.testing.assert_array_equal(o, np.stack(ref[s:s + 3]))


@pytest.mark.parametrize("mode,expect", [
    ("constant", None), ("edge", [8, 9, 9, 9, 9]), ("repeat", [8, 9, 9, 9, 9]),
    ("reflect_1001", [8, 9, 9, 8, 7]), ("symmetric", [8, 9, 9, 8, 7]),
    ("reflect_101", [8, 9, 8, 7, 6]), ("reflect", [8, 9, 8, 7, 6]), ("none", [8, 9])])
def test_pad_modes(videos, tmp_path, mode, expect):
    path = make(tmp_path / "ten.mp4", frames=10, gop=4)
    ref, _ = pyav_frames(path)
    (clip,) = decode([read(path)], start_frame=8, sequence_length=5, pad_mode=mode, fill_value=[7, 100, 200])
    if expect is None:  # constant: frames 8, 9, then fill_value
        np.testing.assert_array_equal(clip[:2], np.stack(ref[8:10]))
        assert (clip[2:] == np.array([7, 100, 200], np.uint8)).all()
        assert clip.shape[0] == 5
    else:
        np.testing.assert_array_equal(clip, np.stack([ref[i] for i in expect]))


def test_pad_mode_none_gives_dalis_shorter_clip(tmp_path):
    """pad_mode="none" past the end: DALI's code (VideoDecoderBase::GetSequenceLength, the "isolated"
    boundary) and its pad_mode documentation ("Return shorter sequences if not enough frames") give a
    clip of min(sequence_length, ceil((frames - start) / stride)) frames -- its operator description
    says "causes an error" instead; the code is followed (docs/dali-compatibility.md). end_frame past
    the end is capped the same way; `frames` past the end is an error."""
    path = make(tmp_path / "ten.mp4", frames=10, gop=4)
    ref, _ = pyav_frames(path)
    data = read(path)
    for start, length, stride in ((5, 4, 2), (8, 5, 1), (0, 12, 3), (9, 3, 4)):
        (clip,) = decode([data], start_frame=start, sequence_length=length, stride=stride, pad_mode="none")
        want = list(range(start, 10, stride))[:length]
        assert len(want) == min(length, -(-(10 - start) // stride))
        np.testing.assert_array_equal(clip, np.stack([ref[i] for i in want]))
    (clip,) = decode([data], start_frame=5, end_frame=20, stride=2, pad_mode="none")
    np.testing.assert_array_equal(clip, np.stack([ref[i] for i in (5, 7, 9)]))
    msg = decode_error(data, frames=[9, 10], pad_mode="none")
    assert "frame 10" in msg and "pad_mode" in msg, msg


def test_deterministic_across_threads(videos):
    datas = [read(videos[k]) for k in ("h264", "mpeg4", "h264_vfr", "h264_odd")] * 2
    kw = dict(start_frame=5, sequence_length=6, stride=2)
    base = decode(datas, threads=1, **kw)
    for t in (2, 4):
        for a, b in zip(base, decode(datas, threads=t, **kw)):
            np.testing.assert_array_equal(a, b)


# ---- bad input -----------------------------------------------------------------------------------

def decode_error(data, **kwargs):
    with pytest.raises(Exception) as e:
        decode([data], **kwargs)
    msg = str(e.value)
    assert "experimental.decoders.video" in msg, msg
    return msg


def test_truncated_file_without_moov(videos):
    data = read(videos["h264"])  # moov at the end (ffmpeg's default): cut, it is missing
    msg = decode_error(data[: len(data) // 2])
    assert "moov" in msg or "container" in msg, msg


def test_truncated_faststart_file(videos, tmp_path):
    path = str(tmp_path / "fast.mp4")
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", videos["h264"], "-c", "copy", "-movflags", "+faststart", path],
                   check=True)
    data = read(path)
    msg = decode_error(data[: int(len(data) * 0.6)], start_frame=0, sequence_length=60)
    # The MP4 demuxer flags the sample cut by the end of the file corrupt: the error names its frame.
    assert "truncated" in msg and re.search(r"frame \d+", msg), msg


def truncated_videos(tmp_path):
    """WebM (VP9), MKV (H.264) and MP4 with its index first (H.264, faststart), each 50 frames,
    written by the ffmpeg CLI; and each cut at 60% of its bytes: a WebM or MKV cut mid-cluster
    demuxes to a clean end of file, only its declared duration (the DURATION tag FFmpeg writes per
    track) tells it was 2 s long."""
    have = encoders()
    out = {"mkv": make(tmp_path / "t.mkv", frames=50, gop=10)}
    fast = str(tmp_path / "t.mp4")
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", out["mkv"], "-c", "copy", "-movflags", "+faststart", fast],
                   check=True)
    out["mp4"] = fast
    if "libvpx-vp9" in have:
        out["webm"] = make(tmp_path / "t.webm", codec="libvpx-vp9", frames=50, gop=10)
    cut = {}
    for name, path in out.items():
        data = read(path)
        cut[name] = str(tmp_path / f"cut_{name}.{name}")
        data[: int(len(data) * 0.6)].tofile(cut[name])
    return out, cut


def test_truncated_webm_mkv_mp4_are_errors_naming_the_frame(tmp_path):
    """A cut WebM / MKV / MP4 is an error naming the last frame read, not a shorter video -- whatever
    clip is asked for (also one inside the part that is there) -- and on_error="replace" replaces it."""
    whole, cut = truncated_videos(tmp_path)
    for name in whole:
        (clip,) = decode([read(whole[name])], start_frame=0, sequence_length=50)
        assert clip.shape[0] == 50, name
        for kw in ({}, {"start_frame": 0, "sequence_length": 5}):
            msg = decode_error(read(cut[name]), **kw)
            assert "truncated" in msg and re.search(r"frame \d+", msg), (name, msg)
        if name != "mp4":  # Matroska: the declared duration against where the frames end
            assert re.search(r"frames end at [\d.]+ s \(frame \d+, the last read\), its DURATION tag declares "
                             r"2\.000 s", msg), msg
    good = read(whole["mkv"])
    pipe = sluice.Pipeline(batch_size=2, num_threads=2, seed=1)
    with pipe:
        enc = fn.external_source(source=lambda: [read(cut["mkv"]), good], batch=True, cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, sequence_length=2, on_error="replace"))
    pipe.build()
    (out,) = pipe.run()
    assert all(x.shape == (2, 64, 96, 3) for x in as_numpy(out))
    log = pipe.error_log()
    assert len(log) == 1 and "truncated" in str(log[0]), log


def test_no_video_stream(tmp_path):
    path = str(tmp_path / "audio.m4a")
    subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", path], check=True)
    msg = decode_error(read(path))
    assert "no video stream" in msg and "audio" in msg, msg


def test_zero_frames(tmp_path):
    path = str(tmp_path / "zero.avi")  # a video stream without a single frame
    subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x32:rate=5", "-frames:v", "0",
                    "-c:v", "mpeg4", path], check=True)
    assert "holds no frames" in decode_error(read(path))


def test_not_a_video_and_empty():
    assert "container" in decode_error(np.frombuffer(b"hello, this is not a video" * 10, np.uint8))
    assert "empty" in decode_error(np.zeros(0, np.uint8))


def test_unsupported_codec(tmp_path):
    path = str(tmp_path / "mpeg4.avi")
    subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x32:rate=5", "-frames:v", "3",
                    "-c:v", "mpeg4", path], check=True)
    raw = open(path, "rb").read()
    assert raw.count(b"FMP4") == 2  # the stream header's and the bitmap header's fourcc
    data = np.frombuffer(raw.replace(b"FMP4", b"ZZZZ"), np.uint8)  # a fourcc no decoder claims
    assert "unsupported codec" in decode_error(data)


def test_frame_over_max_pixels(videos):
    msg = decode_error(read(videos["h264"]), max_pixels=96 * 64 - 1)
    assert "max_pixels" in msg and "96x64" in msg, msg


def test_start_past_the_end(videos):
    msg = decode_error(read(videos["h264"]), start_frame=60, sequence_length=2)
    assert "start_frame 60" in msg and "60-frame" in msg, msg


def test_frames_past_the_end_without_padding(videos):
    msg = decode_error(read(videos["h264"]), frames=[3, 70], pad_mode="none")
    assert "frame 70" in msg, msg


def test_corrupt_packets_never_crash(videos):
    """Bytes overwritten inside the media data: FFmpeg conceals some damage, reports the rest; either
    way a clip of the right shape comes out or the error names the operator -- no crash, no hang."""
    data = read(videos["h264"]).copy()
    rng = np.random.default_rng(0)
    for trial in range(8):
        bad = data.copy()
        at = rng.integers(len(bad) // 8, len(bad) - 2000)
        bad[at:at + 600] = rng.integers(0, 256, 600, dtype=np.uint8)
        try:
            (clip,) = decode([bad], start_frame=20, sequence_length=8)
            assert clip.shape == (8, 64, 96, 3)
        except Exception as e:  # noqa: BLE001 -- the message is what is checked
            assert "experimental.decoders.video" in str(e) and re.search(r"frame \d+", str(e)), e


def test_corrupt_frame_is_an_error_naming_it(videos):
    """Bytes overwritten inside one packet: PyAV (the same FFmpeg) flags a decoded frame corrupt;
    decoders.video refuses to return it, naming the frame, and returns the frames before it."""
    data = read(videos["h264"]).copy()
    rng = np.random.default_rng(0)
    for _ in range(40):
        bad = data.copy()
        at = rng.integers(len(bad) // 8, len(bad) - 2000)
        bad[at:at + 600] = rng.integers(0, 256, 600, dtype=np.uint8)
        try:
            with av.open(io.BytesIO(bad.tobytes())) as c:
                flags = [f.is_corrupt for f in c.decode(video=0)]
        except av.AVError:
            continue
        if any(flags):
            break
    else:
        pytest.skip("no corruption that decodes to a flagged frame was found")
    first = flags.index(True)
    msg = decode_error(bad, start_frame=0, sequence_length=len(flags))
    assert f"frame {first} was decoded from damaged data" in msg, msg
    if first > 0:
        (clip,) = decode([bad], start_frame=0, sequence_length=first)
        assert clip.shape[0] == first


def test_on_error_replace(videos):
    good = read(videos["h264"])
    pipe = sluice.Pipeline(batch_size=3, num_threads=2, seed=1)
    with pipe:
        enc = fn.external_source(source=lambda: [good, np.frombuffer(b"junk" * 100, np.uint8), good], batch=True,
                                 cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, sequence_length=2, on_error="replace"))
    pipe.build()
    (out,) = pipe.run()
    o = as_numpy(out)
    assert all(x.shape == (2, 64, 96, 3) for x in o)
    log = pipe.error_log()
    assert len(log) == 1 and "container" in str(log[0]), log
