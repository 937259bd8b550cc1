"""The video golden cases, run by scripts/record_dali_goldens.py (with DALI 2.4, which records its
outputs into video.npz) and by test_dali_goldens_video.py (with Sluice, compared with them).

The videos are made once, at recording, by the ffmpeg command-line tool (make_videos) and stored in
video.npz as bytes ("input/<name>"): the tests read them from there, so another FFmpeg's encoder
cannot change them. Codecs are the ones DALI 2.4 decodes on the CPU (VP8, VP9, MJPEG), at odd and
even sizes and the chroma layouts they come in (4:2:0, 4:2:2 and 4:4:4; MJPEG full range).

DECODER_CASES: name -> (video, kwargs of experimental.decoders.video), one sample.
READER_CASES: name -> kwargs of experimental.readers.video; "filenames" holds video names, "file_list"
lines "<video> <label> [start [end]]" (the runner writes the videos to files and the list with
absolute paths); every clip of one epoch is recorded, batch_size 1, in order.
"""
import os
import shutil
import subprocess
import tempfile
import zlib

# name -> (size, rate, frames, ffmpeg output arguments, extension)
VIDEOS = {
    "vp9_97x63": ("98x64", 25, 6, ["-vf", "format=rgb24,crop=97:63:0:0:exact=1,format=yuv420p", "-c:v", "libvpx-vp9",
                                    "-g", "4", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"], "webm"),
    "vp9_444_40x30": ("40x30", 25, 4, ["-pix_fmt", "yuv444p", "-c:v", "libvpx-vp9", "-g", "4", "-deadline",
                                       "realtime", "-cpu-used", "8", "-b:v", "300k"], "webm"),
    "vp8_64x48": ("64x48", 25, 20, ["-pix_fmt", "yuv420p", "-c:v", "libvpx", "-g", "6", "-b:v", "300k"], "webm"),
    "vp8_13f": ("48x32", 10, 13, ["-pix_fmt", "yuv420p", "-c:v", "libvpx", "-g", "5", "-b:v", "300k"], "webm"),
    "vp8_at_1_5s": ("64x48", 25, 20, ["-pix_fmt", "yuv420p", "-c:v", "libvpx", "-g", "6", "-b:v", "300k",
                                      "-output_ts_offset", "1.5"], "webm"),
    "mjpeg_33x17": ("34x18", 25, 3, ["-vf", "format=rgb24,crop=33:17:0:0:exact=1,format=yuvj420p", "-c:v", "mjpeg"],
                    "avi"),
    "mjpeg_422_31x20": ("32x20", 25, 3, ["-vf", "format=rgb24,crop=31:20:0:0:exact=1,format=yuvj422p", "-c:v",
                                         "mjpeg"], "avi"),
}


def make_videos():
    """Encodes every VIDEOS entry with the ffmpeg CLI (testsrc2, single-threaded); name -> bytes."""
    ffmpeg = shutil.which("ffmpeg")
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for name, (size, rate, frames, args, ext) in VIDEOS.items():
            path = os.path.join(d, f"{name}.{ext}")
            subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}",
                            "-frames:v", str(frames), "-threads", "1", *args, path], check=True)
            with open(path, "rb") as f:
                out[name] = f.read()
    return out


def extension(name):
    return VIDEOS[name][4]


DECODER_CASES = {
    "dec_vp9_odd_420": ("vp9_97x63", {}),
    "dec_vp9_444": ("vp9_444_40x30", {}),
    "dec_vp8_even_420": ("vp8_64x48", {"start_frame": 3, "sequence_length": 4}),
    "dec_mjpeg_odd_j420": ("mjpeg_33x17", {}),
    "dec_mjpeg_j422": ("mjpeg_422_31x20", {}),
}

_FILE_LIST = ["vp8_64x48 1 0.1 0.5", "vp8_64x48 2 0.13 0.37", "vp8_13f 3", "vp8_64x48 4 0.3 5",
              "vp8_64x48 5 -1 0.3", "vp8_64x48 6 0.3 0.76", "vp8_at_1_5s 7 0.1 0.5", "vp8_at_1_5s 8 1.6 2.0"]
_FRAME_LIST = ["vp8_64x48 1 5 12", "vp8_64x48 2 -8 -2", "vp8_64x48 3 2.5 7.5", "vp8_13f 4", "vp8_64x48 5 3 30"]

READER_CASES = {
    "rd_frame_num_sequence_timestamps": dict(filenames=["vp8_64x48"], sequence_length=3, stride=2, step=5,
                                             enable_frame_num="sequence", enable_timestamps=True),
    "rd_default_step_frame_num_true": dict(filenames=["vp8_64x48"], sequence_length=3, stride=2,
                                           enable_frame_num=True, labels=[7]),
    "rd_ycbcr_odd": dict(filenames=["vp9_97x63"], sequence_length=2, image_type="YCbCr",
                         enable_frame_num="scalar"),
    "rd_timestamps_offset_start": dict(filenames=["vp8_at_1_5s"], sequence_length=3, step=7, enable_timestamps=True),
    "rd_rgb_j422": dict(filenames=["mjpeg_422_31x20"], sequence_length=3, enable_timestamps=True),
    "rd_pad_constant": dict(filenames=["vp8_13f"], sequence_length=6, stride=2, step=6, pad_mode="constant",
                            fill_value=[9, 99, 199], enable_frame_num="sequence", enable_timestamps=True),
    "rd_pad_edge": dict(filenames=["vp8_13f"], sequence_length=4, stride=3, pad_mode="edge",
                        enable_frame_num="sequence"),
    "rd_list_timestamps_default": dict(file_list=_FILE_LIST, sequence_length=2, step=1, enable_frame_num="scalar"),
    "rd_list_timestamps_up_down": dict(file_list=_FILE_LIST, sequence_length=2, step=1, enable_frame_num="scalar",
                                       file_list_rounding="start_up_end_down"),
    "rd_list_timestamps_all_up": dict(file_list=_FILE_LIST, sequence_length=1, step=2, enable_frame_num="scalar",
                                      file_list_rounding="all_up", enable_timestamps=True),
    "rd_list_frames": dict(file_list=_FRAME_LIST, file_list_format="frames", sequence_length=2, step=1,
                           enable_frame_num="scalar"),
    "rd_list_frames_all_down": dict(file_list=_FRAME_LIST, file_list_format="frames", sequence_length=1, step=1,
                                    file_list_rounding="all_down", enable_frame_num="scalar"),
}

# Cases whose frames are recorded as their shape only (what they check is which clips are cut).
SHAPE_ONLY = {name for name in READER_CASES if name.startswith("rd_list_")}


def materialize(kwargs, videos, folder):
    """kwargs with video names replaced by files written under `folder` (a file_list as a list file
    of absolute paths)."""
    paths = {}
    for name, data in videos.items():
        paths[name] = os.path.join(folder, f"{name}.{extension(name)}")
        if not os.path.exists(paths[name]):
            with open(paths[name], "wb") as f:
                f.write(data)
    kw = dict(kwargs)
    if "filenames" in kw:
        kw["filenames"] = [paths[n] for n in kw["filenames"]]
    if "file_list" in kw:
        list_path = os.path.join(folder, f"list_{zlib.crc32(repr(kw['file_list']).encode()):08x}.txt")
        with open(list_path, "w") as f:
            for line in kw["file_list"]:
                name, rest = line.split(" ", 1)
                f.write(f"{paths[name]} {rest}\n")
        kw["file_list"] = list_path
    return kw
