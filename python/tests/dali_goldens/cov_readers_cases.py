"""Reader cases over checked-in database files (issue 40's argument coverage): Caffe and Caffe2 LMDB
databases, an MXNet RecordIO file and io.file.read, all under dali_goldens/cov_data/
(written by scripts/make_golden_reader_data.py). Recorded by `scripts/record_dali_goldens.py
cov_readers` into cov_readers.npz; compared by test_dali_goldens_coverage.py. CASES: name -> (input
kind, build(fn, types, x)); kind None: a reader (BATCH samples).
"""
import os

import numpy as np

BATCH = 3
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cov_data")


def _d(*parts):
    return os.path.join(DATA, *parts)


def inputs():
    names = ["images.idx", "caffe/data.mdb", "images.idx"]
    return {"paths": (None, [np.frombuffer(_d(n).encode(), np.uint8) for n in names])}


CASES = {
    "cov_readers_caffe": (None, lambda fn, types, x: [
        *fn.readers.caffe(path=_d("caffe")), fn.readers.caffe(path=_d("caffe"), label_available=False),
        fn.readers.caffe(path=_d("caffe"), image_available=False)]),
    "cov_readers_caffe2": (None, lambda fn, types, x: [*fn.readers.caffe2(path=_d("caffe2"), label_type=2)]),
    "cov_readers_caffe2_labels_only": (None, lambda fn, types, x: [
        fn.readers.caffe2(path=_d("caffe2_labels"), image_available=False, label_type=2)]),
    "cov_readers_mxnet": (None, lambda fn, types, x: [
        *fn.readers.mxnet(path=[_d("images.rec")], index_path=[_d("images.idx")])]),
    "cov_io_file_read": ("paths", lambda fn, types, x: [fn.io.file.read(x)]),
}
