"""sluice.Pipeline's options travel to C++ as one bound PipelineOptions, validated only in C++."""
import pytest

import sluice
from sluice import _sluice, fn


def test_bound_options_have_the_cpp_defaults():
    o = _sluice.PipelineOptions()
    assert (o.batch_size, o.num_threads, o.device_id, o.seed) == (1, 1, -1, -1)
    assert o.exec_pipelined and o.exec_async and (o.cpu_queue_depth, o.gpu_queue_depth) == (2, 2)
    assert o.checkpoint is None and o.memory is None and not o.enable_checkpointing
    o.checkpoint = "text"
    o.memory = _sluice.MemoryConfig()
    assert o.checkpoint == "text" and o.memory.host_growth_factor == 1.0
    o.checkpoint = None
    assert o.checkpoint is None
    o.validate()


def test_the_pipeline_is_built_from_its_options():
    pipe = sluice.Pipeline(batch_size=3, num_threads=2, seed=5, prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2},
                           bytes_per_sample=64)
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    pipe.build()
    o = pipe._cpp.options
    assert (o.batch_size, o.num_threads, o.seed, o.cpu_queue_depth, o.gpu_queue_depth, o.bytes_per_sample) == \
        (3, 2, 5, 3, 2, 64)
    assert pipe.batch_size == 3 and pipe.num_threads == 2 and pipe.seed == 5


@pytest.mark.parametrize("kwargs,message", [
    ({"batch_size": 0}, "batch_size must be at least 1, got 0"),
    ({"batch_size": 2, "num_threads": 0}, "num_threads must be at least 1, got 0"),
    ({"batch_size": 2, "prefetch_queue_depth": 0}, "prefetch_queue_depth"),
    ({"batch_size": 2, "prefetch_queue_depth": {"cpu_size": 1, "gpu_size": 0}}, "gpu_size"),
])
def test_options_are_validated_by_cpp_naming_the_option(kwargs, message):
    pipe = sluice.Pipeline(**kwargs)
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    with pytest.raises(sluice.SluiceError, match=message):
        pipe.build()
    o = _sluice.PipelineOptions()
    o.batch_size = 0
    with pytest.raises(sluice.SluiceError, match="batch_size"):
        o.validate()
