"""dl_tensor_python_function, plugin.pytorch's torch_python_function and plugin.numba's numba_function
against real DALI 2.4's outputs on the same images (recorded by scripts/record_dali_goldens.py plugins
into dali_goldens/plugins.npz; the cases are dali_goldens/plugins_cases.py, one definition run by
both), and against the same computations in NumPy. dtypes, shapes and values must be equal (the
float cases run the same torch code in both)."""
import importlib.util
import os

import numpy as np
import pytest

import sluice
from sluice import fn, types

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from sluice.plugin.numba.fn import experimental as numba_fn  # noqa: E402
from sluice.plugin.pytorch import fn as torch_fn  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("plugins_cases", os.path.join(HERE, "dali_goldens", "plugins_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(os.path.join(HERE, "dali_goldens", "plugins.npz"))
INPUTS = [GOLDEN[f"input/{i}"] for i in range(len(cases.PIXEL_FILES))]


class plugins:
    dl_tensor_python_function = fn.dl_tensor_python_function
    torch_python_function = torch_fn.torch_python_function
    numba_function = numba_fn.numba_function


def run(build):
    pipe = sluice.Pipeline(batch_size=len(INPUTS), num_threads=2, device_id=None, seed=7)
    with pipe:
        outs = build(fn, types, plugins, fn.external_source(source=lambda: list(INPUTS), batch=True, layout="HWC"))
        pipe.set_outputs(*outs)
    pipe.build()
    return [[np.array(t.at(i)) for i in range(len(INPUTS))] for t in pipe.run()]


def test_recorded_by_dali_24():
    assert str(GOLDEN["dali_version"]).startswith("2.4")


@pytest.mark.parametrize("name", list(cases.CASES))
def test_case_matches_dali_and_numpy(name):
    ours = run(cases.CASES[name])
    for o, samples in enumerate(ours):
        for s, value in enumerate(samples):
            dali = GOLDEN[f"{name}/{o}/{s}"]
            assert value.dtype == dali.dtype and value.shape == dali.shape, (name, o, s, value.dtype, dali.dtype)
            np.testing.assert_array_equal(value, dali, err_msg=f"{name} output {o} sample {s}")
            expected = cases.reference(name, INPUTS[s])[o]
            assert value.shape == expected.shape, (name, o, s)
            np.testing.assert_allclose(value, expected, rtol=1e-6, err_msg=f"{name} output {o} sample {s} vs NumPy")
