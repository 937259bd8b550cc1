#!/usr/bin/env python3
"""Writes the small database files the golden cases of python/tests/dali_goldens/cov_readers_cases.py
read (Caffe and Caffe2 LMDB databases, an MXNet RecordIO file with its index, two small VP9 videos) into
python/tests/dali_goldens/cov_data/, where they are checked in: DALI's recorder has no LMDB or FITS
writer, so both DALI and Sluice read these files. Run with the project's Python (it has lmdb,
protobuf and PyAV):

    PYTHONPATH=python .venv/bin/python scripts/make_golden_reader_data.py

The writers are the reader tests' own (python/tests/test_caffe_readers.py, test_mxnet_reader.py).
"""
import os
import pathlib
import shutil
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "python" / "tests" / "dali_goldens" / "cov_data"
sys.path.insert(0, str(ROOT / "python" / "tests"))


def png_bytes(k):
    return (ROOT / "tests" / "data" / "images" / ["rgb.png", "gray.png", "palette.png", "rgba.png"][k % 4]).read_bytes()


def main():
    import test_caffe_readers as caffe
    import test_mxnet_reader as mxnet

    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    # Caffe: encoded images with labels, and one raw (C, H, W) datum
    datums = [caffe.Datum(data=png_bytes(k), label=10 + k, encoded=True).SerializeToString() for k in range(3)]
    px = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    datums.append(caffe.Datum(data=px.tobytes(), label=77, encoded=False, channels=2, height=3, width=4)
                  .SerializeToString())
    caffe.write_db(OUT / "caffe", datums)
    # Caffe2: an encoded image and sparse label indices; and a database of labels only
    t = caffe.t
    entries = [[t(caffe.STRING, string_data=[png_bytes(k)]), t(caffe.INT32, int32_data=[k, 3 - k])] for k in range(3)]
    caffe.write_db(OUT / "caffe2", [caffe.TensorProtos(protos=e).SerializeToString() for e in entries])
    labels_only = [[t(caffe.FLOAT, float_data=[0.5 * k, 1.0])] for k in range(3)]
    caffe.write_db(OUT / "caffe2_labels", [caffe.TensorProtos(protos=e).SerializeToString() for e in labels_only])
    # MXNet RecordIO: images with one or several labels
    mxnet.write_rec(OUT / "images.rec", OUT / "images.idx",
                    [([1.0], png_bytes(0)), ([2.0, 3.5], png_bytes(1)), ([4.0], png_bytes(2))])
    # Video: 12 and 9 frames of 32x24 VP9 in WebM (moving gradients), every 4th a key frame (DALI 2.4's
    # CPU decoder takes VP8, VP9, AV1 and MPEG-4 Part 2, not H.264)
    import av

    os.makedirs(OUT / "video")
    for name, n, shift in (("a.webm", 12, 3), ("b.webm", 9, -2)):
        with av.open(str(OUT / "video" / name), "w") as out:
            stream = out.add_stream("libvpx-vp9", rate=25, options={"g": "4", "crf": "20", "b": "0", "threads": "1"})
            stream.width, stream.height, stream.pix_fmt = 32, 24, "yuv420p"
            y, x = np.mgrid[0:24, 0:32]
            for f in range(n):
                rgb = np.stack([(x * 8 + f * shift * 5) % 256, (y * 10 + f * 9) % 256, ((x + y) * 4) % 256],
                               -1).astype(np.uint8)
                for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                    out.mux(packet)
            for packet in stream.encode():
                out.mux(packet)
    for lock in OUT.rglob("lock.mdb"):  # LMDB's reader lock, made by the writer: not data
        lock.unlink()
    for p in sorted(OUT.rglob("*")):
        if p.is_file():
            print(f"{p.relative_to(ROOT)}: {p.stat().st_size} bytes")


if __name__ == "__main__":
    main()
