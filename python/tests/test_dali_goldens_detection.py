"""The detection and segmentation operators against real DALI 2.4's outputs on the same inputs
(recorded by scripts/record_dali_goldens.py detection into dali_goldens/detection.npz; the cases are
dali_goldens/detection_cases.py, one definition run by both): the box cases on the stored boxes, the
decoder cases on tests/data/images files, the readers.coco cases on the COCO set write_coco writes.
Shapes and dtypes equal; integers (masks, pixels, labels, polygons) exactly, floats within float32
rounding. A case DALI rejects must be rejected by Sluice too.
"""
import importlib.util
import os

import numpy as np
import pytest

import sluice
from sluice import fn, types

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "data", "images")
_spec = importlib.util.spec_from_file_location("detection_cases",
                                               os.path.join(HERE, "dali_goldens", "detection_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(os.path.join(HERE, "dali_goldens", "detection.npz"))
INPUTS = [GOLDEN[f"input/{i}"] for i in range(len(cases.inputs()))]
TOLERANCE = 1e-6  # relative to max(1, |value|): boxes O(1), box_encoder's scaled offsets O(10), pixels O(100)


def run(build, inputs):
    pipe = sluice.Pipeline(batch_size=len(inputs), num_threads=2, device_id=None, seed=7)
    with pipe:
        outs = build(fn, types, fn.external_source(source=lambda: list(inputs), batch=True))
        pipe.set_outputs(*outs)
    pipe.build()
    return [[np.array(t.at(i)) for i in range(len(inputs))] for t in pipe.run()]


def compare(name, ours):
    assert len(ours) == len({k.split("/")[1] for k in GOLDEN.files if k.startswith(name + "/")})
    for o, samples in enumerate(ours):
        for s, a in enumerate(samples):
            b = GOLDEN[f"{name}/{o}/{s}"]
            where = f"{name} output {o} sample {s}"
            assert a.dtype == b.dtype, f"{where}: dtype {a.dtype}, DALI {b.dtype}"
            assert a.shape == b.shape, f"{where}: shape {a.shape}, DALI {b.shape}"
            if not np.issubdtype(b.dtype, np.floating):
                np.testing.assert_array_equal(a, b, err_msg=where)
            else:
                err = np.abs(a.astype(np.float64) - b) / np.maximum(1.0, np.abs(b.astype(np.float64)))
                assert err.size == 0 or err.max() <= TOLERANCE, f"{where}: error {err.max():.3g}"


@pytest.mark.parametrize("name", list(cases.CASES))
def test_case_matches_dali(name):
    compare(name, run(cases.CASES[name], INPUTS))


@pytest.mark.parametrize("name", list(cases.DECODER_CASES))
def test_decoder_case_matches_dali(name):
    encoded = [np.fromfile(os.path.join(IMAGES, f), dtype=np.uint8) for f in cases.ENCODED_FILES]
    if f"{name}/error" in GOLDEN.files:  # DALI rejects it: so must Sluice
        with pytest.raises(Exception, match="outside|not valid"):
            run(cases.DECODER_CASES[name], encoded)
        return
    compare(name, run(cases.DECODER_CASES[name], encoded))


@pytest.fixture(scope="module")
def coco_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("coco"))
    cases.write_coco(root)
    return root


@pytest.mark.parametrize("name", list(cases.READER_CASES))
def test_reader_case_matches_dali(name, coco_root):
    pipe = sluice.Pipeline(batch_size=cases.COCO_IMAGES, num_threads=2, device_id=None, seed=7)
    with pipe:
        pipe.set_outputs(*cases.READER_CASES[name](fn, coco_root))
    pipe.build()
    compare(name, [[np.array(t.at(i)) for i in range(cases.COCO_IMAGES)] for t in pipe.run()])
