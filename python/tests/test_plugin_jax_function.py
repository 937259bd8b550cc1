"""sluice.plugin.jax.fn.jax_function (DALI's): a function of jax.Array batches as an operator, as a
decorator with and without arguments, with jit/vmap, several outputs, output_layouts, no outputs,
sharding; checked against NumPy on decoded (resized, so uniform) photographs; the errors (non-uniform
batches, wrong leading extent, non-JAX returns, bad arguments), the function's traceback, and
determinism across thread counts. (No DALI golden: DALI 2.4's plugin.jax needs JAX 0.6.)"""
import numpy as np
import pytest

from sluice.errors import ArgumentError

from plugin_helpers import build, check_against, run_error, same_across_threads

jax = pytest.importorskip("jax")
jnp = jax.numpy

from sluice.plugin import jax as sjax  # noqa: E402
from sluice.plugin.jax.fn import jax_function  # noqa: E402

SIZE = (24, 32)


@jax_function
@jax.jit
@jax.vmap
def mirror(image):
    return image[:, ::-1, :]


@jax_function(num_outputs=2, output_layouts=["HW", "C"])
def gray_and_channel_max(batch):
    assert isinstance(batch, jax.Array) and batch.ndim == 4
    gray = (batch.astype(jnp.int32).sum(axis=3) // 3).astype(jnp.uint8)
    return gray, batch.max(axis=(1, 2))


def test_module_path_is_dalis():
    assert sjax.fn.jax_function is jax_function


def test_decorated_jit_vmap_matches_numpy():
    check_against(build(lambda x: mirror(x), resize=SIZE), lambda image: [image[:, ::-1]])


def test_two_outputs_with_layouts():
    pipe = build(lambda x: gray_and_channel_max(x), resize=SIZE)
    images, gray, cmax = pipe.run()
    assert (gray.layout(), cmax.layout()) == ("HW", "C")
    check_against(pipe, lambda image: [(image.astype(np.int64).sum(axis=2) // 3).astype(np.uint8),
                                       image.max(axis=(0, 1))])


@jax_function(num_outputs=2)
def mirror_and_gray(batch):
    return batch[:, :, ::-1, :], batch.max(axis=3)


def test_outputs_without_layouts_take_the_input_layout_when_the_ranks_match():
    # DALI's rule: output k takes input k's layout when their sample ranks match; output 1 (rank 2)
    # matches no input of its index, so it has none.
    pipe = build(lambda x: mirror_and_gray(x), resize=SIZE)
    images, mirrored, gray = pipe.run()
    assert images.layout() == "HWC"
    assert (mirrored.layout(), gray.layout()) == ("HWC", "")
    pipe = build(lambda x: jax_function(lambda b: b.max(axis=3))(x), resize=SIZE)
    assert pipe.run()[1].layout() == ""  # rank 2 against the HWC input: no layout


def test_called_directly_and_no_outputs():
    seen = []

    def record(batch):
        seen.append(batch.shape)

    observe = jax_function(record, num_outputs=0)
    pipe = build(lambda x: [observe(x), jax_function(lambda b: b.astype(jnp.float32) / 255)(x)][1:], resize=SIZE)
    check_against(pipe, lambda image: [image.astype(np.float32) / 255], rtol=1e-7)
    assert seen[0] == (4, *SIZE, 3)


def test_single_device_sharding():
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    sharding = NamedSharding(Mesh(np.array(jax.devices()[:1]), ("batch",)), PartitionSpec("batch"))
    op = jax_function(lambda b: b * 2, sharding=sharding)
    check_against(build(lambda x: op(x), resize=SIZE), lambda image: [image * 2])


def test_deterministic_across_thread_counts():
    same_across_threads(lambda x: list(gray_and_channel_max(x)), resize=SIZE)


def test_a_batch_of_different_shapes_is_an_error_naming_the_input():
    message = run_error(lambda x: mirror(x))
    assert "jax_function: JAX function inputs must be batches of uniform shape" in message
    assert "The input at index 0" in message


def test_the_leading_extent_must_be_the_batch_size():
    message = run_error(lambda x: jax_function(lambda b: b[:2])(x), resize=SIZE)
    assert "leftmost dimension should match the current batch size of 4, but the output at index 0 has shape of " \
           "(2, 24, 32, 3)" in message
    message = run_error(lambda x: jax_function(lambda b: b.sum())(x), resize=SIZE)
    assert "Got a 0D tensor for output at index 0" in message


def test_non_jax_returns_and_wrong_counts_are_errors():
    message = run_error(lambda x: jax_function(lambda b: np.asarray(b))(x), resize=SIZE)
    assert "jax_function: output 0 is a ndarray, expected a jax.Array" in message
    message = run_error(lambda x: jax_function(lambda b: (b, b), num_outputs=1)(x), resize=SIZE)
    assert "expected to return (a tuple of) `num_outputs=1` outputs, but returned 2" in message


def test_an_exception_in_the_function_carries_its_traceback():
    @jax_function
    def broken_function(batch):
        return batch.reshape(7, -1)

    message = run_error(lambda x: broken_function(x), resize=SIZE)
    assert "TypeError" in message and "Traceback" in message and "broken_function" in message
    assert "[jax_function_" in message


@pytest.mark.parametrize("kwargs, argument", [
    (dict(device="gpu"), "device"),
    (dict(num_outputs=2, output_layouts=["HWC"]), "output_layouts"),
    (dict(num_outputs=-1), "num_outputs"),
    (dict(sharding="batch"), "sharding"),
])
def test_bad_arguments_name_the_argument(kwargs, argument):
    with pytest.raises(ArgumentError) as info:
        jax_function(lambda b: b, **kwargs)
    assert info.value.argument == argument


def test_a_call_without_inputs_is_an_error():
    with pytest.raises(ArgumentError) as info:
        jax_function(lambda: jnp.zeros((4, 2)))()
    assert "at least one input" in str(info.value)
