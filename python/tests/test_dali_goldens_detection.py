"""The box operators against real DALI 2.4's outputs on the same boxes (recorded by
scripts/record_dali_goldens.py detection into dali_goldens/detection.npz; the cases are
dali_goldens/detection_cases.py, one definition run by both). Shapes and dtypes equal; values equal
within float32 rounding (the same formulas, evaluated in another order).
"""
import importlib.util
import os

import numpy as np
import pytest

import sluice
from sluice import fn, types

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("detection_cases",
                                               os.path.join(HERE, "dali_goldens", "detection_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(os.path.join(HERE, "dali_goldens", "detection.npz"))
INPUTS = [GOLDEN[f"input/{i}"] for i in range(len(cases.inputs()))]
TOLERANCE = 1e-6  # absolute: boxes and offsets are O(1) (box_encoder's scaled offsets O(10): relative)


def run(build):
    pipe = sluice.Pipeline(batch_size=len(INPUTS), num_threads=2, device_id=None, seed=7)
    with pipe:
        outs = build(fn, types, fn.external_source(source=lambda: list(INPUTS), batch=True))
        pipe.set_outputs(*outs)
    pipe.build()
    return [[np.array(t.at(i)) for i in range(len(INPUTS))] for t in pipe.run()]


@pytest.mark.parametrize("name", list(cases.CASES))
def test_case_matches_dali(name):
    ours = run(cases.CASES[name])
    assert len(ours) == len({k.split("/")[1] for k in GOLDEN.files if k.startswith(name + "/")})
    for o, samples in enumerate(ours):
        for s, a in enumerate(samples):
            b = GOLDEN[f"{name}/{o}/{s}"]
            where = f"{name} output {o} sample {s}"
            assert a.dtype == b.dtype, f"{where}: dtype {a.dtype}, DALI {b.dtype}"
            assert a.shape == b.shape, f"{where}: shape {a.shape}, DALI {b.shape}"
            if np.issubdtype(b.dtype, np.integer):
                np.testing.assert_array_equal(a, b, err_msg=where)
            else:
                err = np.abs(a.astype(np.float64) - b) / np.maximum(1.0, np.abs(b.astype(np.float64)))
                assert err.size == 0 or err.max() <= TOLERANCE, f"{where}: error {err.max():.3g}"
