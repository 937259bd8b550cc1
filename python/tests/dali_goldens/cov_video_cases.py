"""Video cases (issue 40's argument coverage) over the two small VP9 files in dali_goldens/cov_data/video
(scripts/make_golden_reader_data.py): decoders.video on their bytes, experimental.readers.video on the
files. Recorded by `scripts/record_dali_goldens.py cov_video` into cov_video.npz; compared by
test_dali_goldens_coverage.py. CASES: name -> (input kind, build(fn, types, x)); kind None: a reader.
"""
import os
import tempfile
import zlib

import numpy as np

BATCH = 2
VIDEO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cov_data", "video")
FILES = [os.path.join(VIDEO, n) for n in ("a.webm", "b.webm")]


def file_list(kind):
    """A file list naming this checkout's videos (DALI's forms: frames, or timestamps with `kind`='ts')."""
    rows = ([f"{FILES[0]} 3 0 8", f"{FILES[1]} 5 2 9"] if kind == "frames" else
            [f"{FILES[0]} 3 0.0 0.3", f"{FILES[1]} 5 0.08 0.35"])
    text = "\n".join(rows) + "\n"
    path = os.path.join(tempfile.gettempdir(), f"sluice_dali_goldens_video_{zlib.crc32(text.encode()):08x}.txt")
    if not os.path.exists(path):  # named by its content: written once per checkout
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def inputs():
    return {"videos": (None, [np.fromfile(f, dtype=np.uint8) for f in FILES])}


CASES = {
    "cov_video_decode_range": ("videos", lambda fn, types, x: [
        fn.decoders.video(x, start_frame=1, end_frame=9, stride=2)]),
    "cov_video_decode_frames_pad": ("videos", lambda fn, types, x: [
        fn.decoders.video(x, frames=[0, 2, 5, 30], pad_mode="constant", fill_value=[9, 8, 7],
                          build_index=False)]),
    "cov_video_decode_sequence_edge": ("videos", lambda fn, types, x: [
        fn.decoders.video(x, start_frame=6, sequence_length=5, pad_mode="edge")]),
    "cov_video_reader_sequences": (None, lambda fn, types, x: [
        *fn.experimental.readers.video(filenames=FILES, labels=[4, 5], sequence_length=3, step=4, stride=2,
                                       enable_frame_num=True, enable_timestamps=True)]),
    "cov_video_reader_pad": (None, lambda fn, types, x: [
        fn.experimental.readers.video(filenames=FILES, sequence_length=5, step=7, pad_mode="constant",
                                      fill_value=[1, 2, 3])]),
    "cov_video_reader_file_list": (None, lambda fn, types, x: [
        *fn.experimental.readers.video(file_list=file_list("frames"), file_list_format="frames",
                                       file_list_include_end=True, sequence_length=2)]),
    "cov_video_reader_file_list_ts": (None, lambda fn, types, x: [
        *fn.experimental.readers.video(file_list=file_list("ts"), file_list_format="timestamps",
                                       file_list_rounding="start_up_end_down", sequence_length=2)]),
    "cov_video_reader_uniform": (None, lambda fn, types, x: [
        fn.experimental.readers.video(filenames=FILES, sequence_length=4, uniform_sample=True)]),
}
