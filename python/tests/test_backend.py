"""sluice.backend: DALI's nvidia.dali.backend memory functions, observed through memory statistics.

A host buffer shrinks when a new size is below threshold x capacity. With sizes 100 kB, 70 kB,
40 kB, 30 kB through a `copy` operator, the default threshold 0.9 reallocates at 70 kB (< 90% of the
first buffer), while 0.5 keeps the first buffer until 40 kB, then keeps that one for 30 kB: the
operator's reserved_memory_size tells the two apart. SLUICE_HOST_BUFFER_SHRINK_THRESHOLD=0.5 (in a
child process, so the environment is read fresh) and backend.SetHostBufferShrinkThreshold(0.5) must
give the same sequence.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sluice
from sluice import backend, fn

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIZES = [100_000, 70_000, 40_000, 30_000]

# Run in a child process: prints the copy operator's reserved_memory_size after each batch.
CHILD = r"""
import json, sys
import numpy as np
import sluice
from sluice import backend, fn
if sys.argv[1] != "-":
    backend.SetHostBufferShrinkThreshold(float(sys.argv[1]))
sizes = json.loads(sys.argv[2])
batches = iter(sizes)
pipe = sluice.Pipeline(batch_size=1, num_threads=1, prefetch_queue_depth=1, exec_pipelined=False, exec_async=False,
                       enable_memory_stats=True)
with pipe:
    pipe.set_outputs(fn.copy(fn.external_source(source=lambda: [np.ones(next(batches), np.uint8)]), name="copy"))
reserved = []
for _ in sizes:
    pipe.run()
    reserved.append(pipe.executor_statistics()["copy"]["reserved_memory_size"][0])
print(json.dumps(reserved))
"""


def reserved_sizes(threshold=None, env=None):
    child_env = {k: v for k, v in os.environ.items() if "BUFFER" not in k}
    child_env.update(env or {})
    child_env["PYTHONPATH"] = os.path.join(ROOT, "python")
    r = subprocess.run([sys.executable, "-c", CHILD, "-" if threshold is None else str(threshold), json.dumps(SIZES)],
                       env=child_env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_set_host_buffer_shrink_threshold_acts_like_the_environment_variable():
    default = reserved_sizes()
    by_env = reserved_sizes(env={"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD": "0.5"})
    by_dali_env = reserved_sizes(env={"DALI_HOST_BUFFER_SHRINK_THRESHOLD": "0.5"})
    by_setter = reserved_sizes(threshold=0.5)
    assert by_setter == by_env == by_dali_env
    assert by_setter != default
    # 0.5: 70 kB stays in the 100 kB buffer, 30 kB in the 40 kB one; 0.9 shrinks every time.
    assert by_setter[1] == by_setter[0] and by_setter[3] == by_setter[2]
    assert default[1] < default[0] and default[3] < default[2]
    # The setter wins over the variable, as in DALI.
    assert reserved_sizes(threshold=0.9, env={"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD": "0.5"}) == default


@pytest.fixture
def clean_defaults():
    backend._reset_memory_defaults()
    yield
    backend._reset_memory_defaults()


@pytest.mark.parametrize("setter, bad", [
    (backend.SetHostBufferShrinkThreshold, -0.1), (backend.SetHostBufferShrinkThreshold, 1.5),
    (backend.SetHostBufferGrowthFactor, 0.99), (backend.SetHostBufferGrowthFactor, 4.5),
    (backend.SetDeviceBufferGrowthFactor, 0.5), (backend.SetDeviceBufferGrowthFactor, 5),
    (backend.SetBufferGrowthFactor, 0), (backend.SetBufferGrowthFactor, float("nan")),
])
def test_out_of_range_values_raise_and_change_nothing(clean_defaults, setter, bad):
    before = (backend.GetHostBufferShrinkThreshold(), backend.GetHostBufferGrowthFactor(),
              backend.GetDeviceBufferGrowthFactor())
    with pytest.raises(ValueError, match=r"must be in \["):
        setter(bad)
    assert (backend.GetHostBufferShrinkThreshold(), backend.GetHostBufferGrowthFactor(),
            backend.GetDeviceBufferGrowthFactor()) == before


def test_non_numbers_are_type_errors(clean_defaults):
    for bad in ("0.5", None, True):
        with pytest.raises(TypeError):
            backend.SetHostBufferShrinkThreshold(bad)


def test_getters_follow_the_setters(clean_defaults, monkeypatch):
    for var in [k for k in os.environ if "BUFFER" in k]:
        monkeypatch.delenv(var)
    assert backend.GetHostBufferShrinkThreshold() == 0.9
    assert backend.GetHostBufferGrowthFactor() == backend.GetDeviceBufferGrowthFactor() == 1.0
    backend.SetHostBufferShrinkThreshold(0)
    backend.SetBufferGrowthFactor(2)
    assert backend.GetHostBufferShrinkThreshold() == 0.0
    assert backend.GetHostBufferGrowthFactor() == backend.GetDeviceBufferGrowthFactor() == 2.0
    backend.SetHostBufferGrowthFactor(1.5)
    backend.SetDeviceBufferGrowthFactor(4)
    assert (backend.GetHostBufferGrowthFactor(), backend.GetDeviceBufferGrowthFactor()) == (1.5, 4.0)
    # The environment is the base the setters override.
    backend._reset_memory_defaults()
    monkeypatch.setenv("DALI_BUFFER_GROWTH_FACTOR", "3")
    assert backend.GetDeviceBufferGrowthFactor() == 3.0

