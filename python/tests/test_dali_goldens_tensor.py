"""Arithmetic (DALI's type promotion, integer division and modulo, comparisons, bitwise), casts,
nvidia.dali.math's functions, reductions and tensor utilities against real DALI 2.4's outputs on the
same inputs (recorded by scripts/record_dali_goldens.py tensor into dali_goldens/tensor.npz; the cases
are dali_goldens/tensor_cases.py, one definition run by both). dtypes and shapes must be equal;
values equal, or within the float32 rounding each case states.
"""
import importlib.util
import os

import numpy as np
import pytest

import sluice
from sluice import fn, math, types

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("tensor_cases", os.path.join(HERE, "dali_goldens", "tensor_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(os.path.join(HERE, "dali_goldens", "tensor.npz"))
INPUTS = [GOLDEN[f"input/{i}"] for i in range(len(cases.inputs()))]

# Largest error relative to max(1, |DALI's value|), by case; unlisted: bit-exact. The transcendental
# functions are libm's (Sluice) against DALI's own float32 implementations: a few ulps.
TOLERANCE = {"math_functions": 4e-7, "pow": 2.4e-7, "reductions": 2.4e-7}

# Where Sluice differs from DALI on purpose ((case, output) -> check), each documented in
# docs/dali-compatibility.md:
#  - a Python int constant takes the tensor's type where it fits (int16 + 7 is int16; DALI types the
#    literal int32, so int32): the values agree;
#  - sum of unsigned integers is int64 (DALI: uint64; Sluice has no uint64 type): the values agree;
#  - float sums accumulate in double and round once (DALI accumulates in float32): Sluice's is the
#    exactly rounded sum; where the terms cancel (sample 0 holds +-3e9 and +-4e4) DALI's is off by 122.
def _same_values(a, b, s):
    # Equal wherever DALI's value fits Sluice's type (int16 + 7 wraps at 32767 in int16).
    info = np.iinfo(a.dtype)
    fits = (b.astype(np.int64) >= info.min) & (b.astype(np.int64) <= info.max)
    assert fits.mean() > 0.5
    np.testing.assert_array_equal(a.astype(np.int64)[fits], b.astype(np.int64)[fits])


def _exact_sum(a, b, s):
    assert a == np.float32(np.sum(INPUTS[s].astype(np.float64))), (a, b)


DIFFERS = {("python_scalars", 4): _same_values, ("reductions", 1): _same_values, ("reductions", 0): _exact_sum}


def run(build):
    pipe = sluice.Pipeline(batch_size=len(INPUTS), num_threads=2, device_id=None, seed=7)
    with pipe:
        outs = build(fn, types, math, fn.external_source(source=lambda: list(INPUTS), batch=True))
        pipe.set_outputs(*outs)
    pipe.build()
    return [[np.array(t.at(i)) for i in range(len(INPUTS))] for t in pipe.run()]


@pytest.mark.parametrize("name", list(cases.CASES))
def test_case_matches_dali(name):
    ours = run(cases.CASES[name])
    tol = TOLERANCE.get(name, 0)
    for o, samples in enumerate(ours):
        for s, a in enumerate(samples):
            b = GOLDEN[f"{name}/{o}/{s}"]
            where = f"{name} output {o} sample {s}"
            if (name, o) in DIFFERS:
                assert a.shape == b.shape, where
                DIFFERS[(name, o)](a, b, s)
                continue
            assert a.dtype == b.dtype, f"{where}: dtype {a.dtype}, DALI {b.dtype}"
            assert a.shape == b.shape, f"{where}: shape {a.shape}, DALI {b.shape}"
            if tol == 0:
                np.testing.assert_array_equal(a, b, err_msg=where)
            else:
                a64, b64 = a.astype(np.float64), b.astype(np.float64)
                np.testing.assert_array_equal(np.isnan(a64), np.isnan(b64), err_msg=where)
                np.testing.assert_array_equal(a64[np.isinf(b64)], b64[np.isinf(b64)], err_msg=where)
                ok = np.isfinite(b64)
                err = np.abs(a64[ok] - b64[ok]) / np.maximum(1.0, np.abs(b64[ok]))
                assert err.size == 0 or err.max() <= tol, f"{where}: relative error {err.max():.3g} > {tol}"
