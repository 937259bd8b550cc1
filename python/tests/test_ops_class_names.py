"""sluice.ops names its classes as DALI names them, taken from DALI's own schemas: every operator
DALI 2.4 registers (dali_goldens/ops_names.tsv, written by scripts/record_dali_goldens.py names
from nvidia.dali.ops._names._op_name) whose fn name Sluice has is in sluice.ops under DALI's ops
name (ops.BBoxPaste, ops.RandomBBoxCrop, ops.ROIRandomCrop, ops.reductions.RMS, ...), and a
current (not deprecated) one is a class of that __name__. The camel-case spellings Sluice used
before (ops.BboxPaste, ...) stay as aliases of the same classes.
"""
import os

import pytest

import sluice
from sluice import fn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = [line.rstrip("\n").split("\t") for line in open(os.path.join(HERE, "dali_goldens", "ops_names.tsv"))
        if not line.startswith("#")]
# DALI operators Sluice does not have (docs/dali-compatibility.md, "DALI operators Sluice does not
# have", and GPU-only ones).
ABSENT = {"ssd_random_crop", "optical_flow", "video_reader_resize", "readers.video_resize"}


def find(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def test_the_list_is_dalis():
    assert len(ROWS) > 150
    assert ["bbox_paste", "BBoxPaste", "0", "c"] in ROWS


@pytest.mark.parametrize("fn_name, ops_name, deprecated, backends", ROWS, ids=[r[0] for r in ROWS])
def test_every_dali_operator_has_dalis_ops_name(fn_name, ops_name, deprecated, backends):
    if fn_name in ABSENT:
        assert find(fn, fn_name) is None, f"{fn_name} is registered now: take it out of ABSENT"
        return
    assert find(fn, fn_name) is not None, f"fn.{fn_name} is missing"
    cls = find(ops, ops_name)
    assert isinstance(cls, type), f"ops.{ops_name} is missing"
    if deprecated == "0":
        assert cls.__name__ == ops_name.rpartition(".")[2], f"ops.{ops_name} is named {cls.__name__}"


def test_dali_spellings_and_the_old_aliases_are_one_class():
    assert ops.BBoxPaste is ops.BboxPaste and ops.BBoxPaste.__name__ == "BBoxPaste"
    assert ops.RandomBBoxCrop.__name__ == "RandomBBoxCrop" and ops.ROIRandomCrop.__name__ == "ROIRandomCrop"
    assert ops.reductions.RMS is ops.reductions.Rms
    assert ops.segmentation.RandomObjectBBox.__name__ == "RandomObjectBBox"
    assert ops.COCOReader is ops.readers.COCO


# DALI's ops classes written in Python over internal ("_"-prefixed) schemas, hence not in the list.
DALI_PYTHON_CLASSES = ["PythonFunction", "DLTensorPythonFunction", "TFRecordReader", "readers.TFRecord"]


@pytest.mark.parametrize("ops_name", DALI_PYTHON_CLASSES)
def test_dalis_python_classes_have_dalis_names(ops_name):
    assert isinstance(find(ops, ops_name), type), f"ops.{ops_name} is missing"


def test_the_generated_docs_give_dalis_class_names():
    from sluice.tools import opdocs

    assert opdocs.dali_names("bbox_paste")[1] == "nvidia.dali.ops.BBoxPaste"
    assert opdocs.dali_names("readers.tfrecord")[1] == "nvidia.dali.ops.readers.TFRecord"
    assert "ops.COCOReader" in opdocs.dali_names("readers.coco")[2]


def test_a_dali_spelled_class_runs():
    import numpy as np

    boxes = np.array([[0.1, 0.2, 0.5, 0.6]], np.float32)
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(source=lambda: [boxes], batch=True)
        pipe.set_outputs(ops.BBoxPaste(ratio=2.0, paste_x=0.0, paste_y=0.0, ltrb=True)(src))
    pipe.build()
    np.testing.assert_allclose(np.array(pipe.run()[0].at(0)), boxes / 2)
