"""Operator calls are validated by the C++ schema where they are made (sluice::ValidateOperator):
the same checks and messages as the C++ API, raised as ArgumentError at the call, before build()."""
import numpy as np
import pytest

import sluice
from sluice import _sluice, fn, ops, types
from sluice.namespaces import camel_case

from conftest import registered


def node():
    return fn.external_source(name="x")


# Each raises at the call, naming the argument (ranges, enumerations and layout strings are schema
# constraints; a bool is not a float).
INVALID_CALLS = [
    ("crop_mirror_normalize", {"output_layout": "XYZ"}),
    ("resize", {"interp_type": 999}),
    ("resize", {"resize_x": True}),
    ("crop_mirror_normalize", {"std": [-1.0]}),
]


@pytest.mark.parametrize("op,kwargs", INVALID_CALLS, ids=[f"{op}-{next(iter(kw))}" for op, kw in INVALID_CALLS])
def test_invalid_arguments_raise_at_the_call_naming_the_argument(op, kwargs):
    arg = next(iter(kwargs))
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pipe:
        x = node()
        with pytest.raises(sluice.ArgumentError) as e:
            getattr(fn, op)(x, **kwargs)  # raises here, not at build()
        pipe.set_outputs(x)
    assert e.value.argument == arg and f"argument '{arg}'" in str(e.value)
    assert e.value.op == op and str(e.value).startswith(f"[{op}] ")
    assert not pipe._cpp  # nothing was built
    # The object API raises the same error when the operator is constructed.
    with pytest.raises(sluice.ArgumentError) as e_ops:
        getattr(ops, camel_case(op))(**kwargs)
    assert str(e_ops.value) == str(e.value)


def test_a_bool_is_not_a_float_as_in_cpp():
    with pytest.raises(sluice.ArgumentError, match=r"^\[crop_mirror_normalize\] argument 'scale': expected float, "
                                                   r"got True$"):
        fn.crop_mirror_normalize(node(), scale=True)


def test_errors_name_the_instance_and_carry_the_cpp_context():
    with pytest.raises(sluice.ArgumentError) as e:
        fn.random.coin_flip(probability="high", name="coin")
    err = e.value
    assert isinstance(err, TypeError) and isinstance(err, sluice.SluiceError)
    assert (err.op, err.argument) == ("coin", "probability")
    assert err.message == "expected float, got 'high'"
    assert str(err) == "[coin] argument 'probability': expected float, got 'high'"


def test_unknown_argument_suggests_the_closest_even_with_an_unconvertible_value():
    with pytest.raises(sluice.ArgumentError, match=r"unknown argument 'probabilty' .*\(did you mean 'probability'\?\)"):
        fn.random.coin_flip(probabilty={"not": "convertible"})


def test_input_count_is_checked_at_the_call():
    with pytest.raises(sluice.ArgumentError, match="takes 0 input"):
        fn.batch_permutation(node())
    with pytest.raises(sluice.ArgumentError, match="takes 0 to 1 input"):
        fn.random.coin_flip(node(), node())
    with pytest.raises(sluice.ArgumentError, match="takes 1 input"):
        fn.crop_mirror_normalize()


def test_a_data_node_for_a_constant_only_argument():
    with pytest.raises(sluice.ArgumentError, match="argument 'output_layout': cannot be given per sample") as e:
        fn.crop_mirror_normalize(node(), output_layout=node())
    assert e.value.argument == "output_layout"


@pytest.mark.parametrize("op,arg,value,expected", [
    ("random.uniform", "range", np.array([0, 4]), [0.0, 4.0]),
    ("random.uniform", "range", (np.int64(1), 2.5), [1.0, 2.5]),
    ("random.uniform", "range", [np.float32(0.5), 1], [0.5, 1.0]),
    ("random.uniform", "values", [1, 2], [1.0, 2.0]),
    ("random.coin_flip", "probability", np.float32(0.25), 0.25),
    ("random.coin_flip", "probability", np.array(0.25), 0.25),
    ("random.coin_flip", "probability", 1, 1.0),
    ("random.coin_flip", "shape", np.array([2, 3], dtype=np.int32), [2, 3]),
    ("random.coin_flip", "shape", (2, 3), [2, 3]),
    ("random.coin_flip", "shape", [2.0, 3.0], [2, 3]),
    ("random.coin_flip", "shape", 4, [4]),
    ("random.coin_flip", "dtype", types.UINT8, "uint8"),
    ("random.coin_flip", "dtype", np.uint8, "uint8"),
    ("random.coin_flip", "dtype", np.dtype("int16"), "int16"),
    ("random.normal", "mean", np.float64(2), 2.0),
    ("crop_mirror_normalize", "mean", 0.5, [0.5]),
    ("crop_mirror_normalize", "crop", [], []),
    ("crop_mirror_normalize", "mirror", np.bool_(True), 1),
    ("crop_mirror_normalize", "output_layout", types.NHWC, "HWC"),
    ("decoders.image", "use_fast_idct", np.bool_(True), True),
    ("decoders.image", "output_type", types.GRAY, "GRAY"),
    ("flip", "horizontal", np.int32(0), 0),
    ("readers.file", "files", [], []),
    ("readers.file", "files", np.array([], dtype=np.float64), []),
    ("readers.file", "file_filters", ("*.x", "*.y"), ["*.x", "*.y"]),
    ("readers.file", "labels", np.arange(3), [0, 1, 2]),
])
def test_python_values_convert_by_type(op, arg, value, expected):
    if not registered(op):
        pytest.skip(f"{op} is not registered")
    schema = _sluice.get_operator_info(op)
    inputs = [node() for _ in range(schema.min_inputs)]
    obj = fn
    for part in op.split("."):
        obj = getattr(obj, part)
    out = obj(*inputs, **{arg: value})
    got = (out[0] if isinstance(out, list) else out).source_call.args[arg]
    assert got == expected and type(got) is type(expected)
    if isinstance(got, list) and got:
        assert all(type(g) is type(x) for g, x in zip(got, expected))


@pytest.mark.parametrize("arg,value,message", [
    ("probability", {"a": 1}, "expected float, got {'a': 1}"),
    ("shape", [[1, 2]], "expected list of int, got [[1, 2]]"),
    ("shape", [1, "x"], "expected list of int, got [1, 'x']"),
    ("probability", 2 ** 70, "expected float, got 1180591620717411303424"),
    ("shape", [1.5], "expected list of int"),
    ("dtype", "float33", "unknown dtype 'float33'"),
])
def test_unsupported_values_name_the_argument(arg, value, message):
    with pytest.raises(sluice.ArgumentError) as e:
        fn.random.coin_flip(**{arg: value})
    assert e.value.argument == arg and message in str(e.value)


def test_none_means_not_given():
    out = fn.random.coin_flip(probability=None, shape=None)
    assert "probability" not in out.source_call.args and "shape" not in out.source_call.args


def test_the_validated_call_is_what_runs():
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0)
    with pipe:
        c = fn.testing.counter()
        pipe.set_outputs(fn.testing.add_constant(c, value=np.float32(2)), fn.testing.add_constant(c, value=np.int8(3)))
    a, b = pipe.run()
    assert a.as_array().ravel().tolist() == [2, 3, 4, 5]
    assert b.as_array().ravel().tolist() == [3, 4, 5, 6]


def test_ops_checks_constructor_arguments_and_defers_what_the_call_gives():
    with pytest.raises(sluice.ArgumentError, match="argument 'probability': expected float"):
        ops.random.CoinFlip(probability="high")
    with pytest.raises(sluice.ArgumentError, match="did you mean 'probability'"):
        ops.random.CoinFlip(probabilty=0.5)
    transpose = ops.Transpose(output_layout="WHC")  # `perm` is required: given at the call
    out = transpose(node(), perm=[1, 0, 2])
    assert out.source_call.args["perm"] == [1, 0, 2]
    with pytest.raises(sluice.ArgumentError, match="argument 'perm': is required"):
        transpose(node())


def test_resize_interp_type_takes_dali_enums():
    out = fn.resize(node(), resize_x=10, interp_type=types.INTERP_CUBIC)
    assert out.source_call.args["interp_type"] == "CUBIC"


@pytest.mark.parametrize("name", _sluice.list_operators())
def test_every_schema_default_validates_when_given_explicitly(name):
    """Each default, given back through Python, converts and validates (empty lists included)."""
    from sluice.graph import check_arguments

    failures = []
    for arg in _sluice.get_operator_info(name).arguments:
        if not arg.required:
            try:
                check_arguments(name, "cpu", None, {arg.name: arg.default})
            except sluice.ArgumentError as e:
                failures.append((name, arg.name, str(e)))
    assert failures == []
