"""sluice.plugin.numba (DALI's numba_function / NumbaFunction): run_fn and setup_fn compiled by Numba,
per sample and per batch, with and without setup_fn, several outputs; checked against NumPy on
decoded photographs; the argument checks (at construction: naming the argument; per batch: the
inputs against in_types/ins_ndim), exceptions raised in run_fn, and determinism across thread counts."""
import numpy as np
import pytest

from sluice import types
from sluice.errors import ArgumentError

from plugin_helpers import build, check_against, run_error, same_across_threads

pytest.importorskip("numba")

import sluice.plugin.numba as snb  # noqa: E402
from sluice.plugin.numba.fn.experimental import numba_function  # noqa: E402

U8 = types.UINT8


def run_invert(out0, in0):
    flat_in, flat_out = in0.ravel(), out0.ravel()
    for i in range(flat_in.size):
        flat_out[i] = 255 - flat_in[i]


def setup_gray_and_histogram(outs, ins):
    for s in range(len(ins[0])):
        outs[0][s][0] = ins[0][s][0]
        outs[0][s][1] = ins[0][s][1]
        outs[1][s][0] = 256


def run_gray_and_histogram(gray, hist, image):
    hist[:] = 0
    for i in range(image.shape[0]):
        for j in range(image.shape[1]):
            acc = 0
            for c in range(image.shape[2]):
                acc += image[i, j, c]
                hist[image[i, j, c]] += 1
            gray[i, j] = acc // 3


def run_batch_gray_and_histogram(grays, hists, images):
    if len(grays) != len(images) or len(hists) != len(images):
        raise ValueError("one list per output and input, one array per sample")
    for k in range(len(images)):
        gray, hist, image = grays[k], hists[k], images[k]
        hist[:] = 0
        for i in range(image.shape[0]):
            for j in range(image.shape[1]):
                acc = 0
                for c in range(image.shape[2]):
                    acc += image[i, j, c]
                    hist[image[i, j, c]] += 1
                gray[i, j] = acc // 3


def gray_and_histogram(image):
    return [(image.astype(np.int64).sum(axis=2) // 3).astype(np.uint8),
            np.bincount(image.ravel(), minlength=256).astype(np.int32)]


GRAY_HIST = dict(setup_fn=setup_gray_and_histogram, out_types=[U8, types.INT32], in_types=[U8], outs_ndim=[2, 1],
                 ins_ndim=[3])


def test_spellings_are_dalis():
    assert snb.fn.numba_function is snb.fn.experimental.numba_function is numba_function
    assert snb.experimental.NumbaFunction is snb.NumbaFunction


def test_no_setup_fn_outputs_take_the_inputs_shape_and_type():
    check_against(build(lambda x: numba_function(x, run_fn=run_invert, out_types=[U8], in_types=[U8], outs_ndim=[3],
                                                 ins_ndim=[3])), lambda image: [255 - image])


def test_per_sample_with_setup_fn_and_two_outputs():
    check_against(build(lambda x: numba_function(x, run_fn=run_gray_and_histogram, **GRAY_HIST)), gray_and_histogram)


def test_batch_processing_gets_lists():
    check_against(build(lambda x: numba_function(x, run_fn=run_batch_gray_and_histogram, batch_processing=True,
                                                 **GRAY_HIST)), gray_and_histogram)


def test_the_object_api_with_scalar_arguments_and_two_inputs():
    def run_add(out0, a, b):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                for c in range(a.shape[2]):
                    out0[i, j, c] = a[i, j, c] // 2 + b[i, j, c] // 2

    def setup_first(outs, ins):
        for s in range(len(ins[0])):
            for d in range(3):
                outs[0][s][d] = ins[0][s][d]

    op = snb.NumbaFunction(run_fn=run_add, setup_fn=setup_first, out_types=U8, in_types=[U8, U8], outs_ndim=3,
                           ins_ndim=[3, 3])
    inverted = snb.NumbaFunction(run_fn=run_invert, out_types=U8, in_types=U8, outs_ndim=3, ins_ndim=3)
    check_against(build(lambda x: op(x, inverted(x))), lambda image: [image // 2 + (255 - image) // 2])


def test_a_numba_dispatcher_is_accepted_as_run_fn():
    import numba
    check_against(build(lambda x: numba_function(x, run_fn=numba.njit(run_invert), out_types=[U8], in_types=[U8],
                                                 outs_ndim=[3], ins_ndim=[3])), lambda image: [255 - image])


def test_deterministic_across_thread_counts():
    same_across_threads(lambda x: numba_function(x, run_fn=run_gray_and_histogram, **GRAY_HIST))


def test_inputs_are_checked_against_in_types_and_ins_ndim():
    message = run_error(lambda x: numba_function(x, run_fn=run_invert, out_types=[types.FLOAT], in_types=[types.FLOAT],
                                                 outs_ndim=[3], ins_ndim=[3]))
    assert ("numba_function: Data type passed in `in_types` at index 0 doesn't match type of the input data: "
            "uint8 != float32") in message
    assert "[numba_function_" in message
    message = run_error(lambda x: numba_function(x, run_fn=run_invert, out_types=[U8], in_types=[U8], outs_ndim=[2],
                                                 ins_ndim=[2]))
    assert "numba_function: Number of dimensions passed in `ins_ndim` at index 0 doesn't match" in message


def test_negative_shape_from_setup_fn():
    def setup_negative(outs, ins):
        for s in range(len(outs[0])):
            outs[0][s][0] = -1

    message = run_error(lambda x: numba_function(x, run_fn=lambda o, i: None, setup_fn=setup_negative,
                                                 out_types=[U8], in_types=[U8], outs_ndim=[1], ins_ndim=[3]))
    assert "numba_function: Shape of data should be non negative. After `setup_fn` the shape of output 0" in message


def test_an_exception_in_run_fn_is_reported():
    def run_checked(out0, in0):
        if in0.shape[2] != 4:
            raise ValueError("expected RGBA")

    message = run_error(lambda x: numba_function(x, run_fn=run_checked, out_types=[U8], in_types=[U8], outs_ndim=[3],
                                                 ins_ndim=[3]))
    assert "ValueError: expected RGBA" in message and "Traceback" in message


@pytest.mark.parametrize("kwargs, argument", [
    (dict(out_types=[U8], in_types=[U8], outs_ndim=[3, 1], ins_ndim=[3]), "outs_ndim"),
    (dict(out_types=[U8], in_types=[U8], outs_ndim=[3], ins_ndim=[3, 3]), "ins_ndim"),
    (dict(out_types=[U8], in_types=[U8], outs_ndim=[-1], ins_ndim=[3]), "outs_ndim"),
    (dict(out_types=[U8, U8], in_types=[U8], outs_ndim=[3, 3], ins_ndim=[3]), "out_types"),
    (dict(out_types=[types.INT16], in_types=[U8], outs_ndim=[3], ins_ndim=[3]), "out_types"),
    (dict(out_types=[U8], in_types=[types.FLOAT16], outs_ndim=[3], ins_ndim=[3]), "in_types"),
    (dict(out_types=[U8], in_types=[types.STRING], outs_ndim=[3], ins_ndim=[3]), "in_types"),
    (dict(out_types=[U8] * 7, in_types=[U8], outs_ndim=[3] * 7, ins_ndim=[3]), "out_types"),
    (dict(out_types=[U8], in_types=[U8], outs_ndim=[3], ins_ndim=[3], device="gpu"), "device"),
])
def test_bad_arguments_are_rejected_at_construction(kwargs, argument):
    with pytest.raises(ArgumentError) as info:
        snb.NumbaFunction(run_fn=run_invert, **kwargs)
    assert info.value.argument == argument
    assert str(info.value).startswith("numba_function: ") or "numba_function: " in str(info.value)


def test_run_fn_that_does_not_compile_names_run_fn():
    def run_untyped(out0, in0):
        out0[0] = "text"

    with pytest.raises(ArgumentError) as info:
        snb.NumbaFunction(run_fn=run_untyped, out_types=[U8], in_types=[U8], outs_ndim=[3], ins_ndim=[3])
    assert info.value.argument == "run_fn" and "nopython" in str(info.value)


def test_input_count_must_match_in_types():
    with pytest.raises(ArgumentError) as info:
        build(lambda x: numba_function(x, x, run_fn=run_invert, out_types=[U8], in_types=[U8], outs_ndim=[3],
                                       ins_ndim=[3]))
    assert info.value.argument == "in_types" and "Expected 1 inputs" in str(info.value)


def test_cuda_launch_arguments_are_accepted_and_unused_on_the_cpu():
    check_against(build(lambda x: numba_function(x, run_fn=run_invert, out_types=[U8], in_types=[U8], outs_ndim=[3],
                                                 ins_ndim=[3], blocks=[2, 2, 1], threads_per_block=[32, 8, 1])),
                  lambda image: [255 - image], iterations=1)
