"""Python exposes exactly what the C++ registry holds: for every registered schema, the fn function's
signature and the ops class's constructor list its arguments, with its defaults, and nothing else."""
import inspect

import numpy as np
import pytest

import sluice
from sluice import _sluice, fn, ops
from sluice.namespaces import camel_case

PYTHON_ARGS = {"device", "name"}
# Operators implemented in Python: their signatures are DALI's, and hold the schema's arguments.
PYTHON_IMPLEMENTED = {"external_source": (sluice.external_source, sluice.ExternalSource)}
# Operators whose fn function is a Python wrapper with DALI's arguments rather than the schema's
# (fn's Python-side overrides); their ops class is generated.
FN_WRAPPERS = {"readers.tfrecord": sluice.tfrecord.tfrecord}
EMPTY = inspect.Parameter.empty


def lookup(root, name, leaf_name=lambda leaf: leaf):
    path, _, leaf = name.rpartition(".")
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return getattr(obj, leaf_name(leaf))


def schema_defaults(info):
    """Argument -> the default Python shows: none for a required argument, else the schema's."""
    return {a.name: EMPTY if a.required else a.default for a in info.arguments if a.name not in PYTHON_ARGS}


def same(a, b):
    return type(a) is type(b) and a == b


def check_keywords(where, params, expected):
    keywords = {n: p for n, p in params.items() if p.kind == p.KEYWORD_ONLY}
    assert set(keywords) == set(expected) | PYTHON_ARGS, where
    for arg, default in expected.items():
        assert same(keywords[arg].default, default), f"{where}: {arg} defaults to {keywords[arg].default!r}, " \
                                                     f"the schema says {default!r}"
    assert keywords["device"].default == "cpu" and keywords["name"].default is None, where


OPERATORS = _sluice.list_operators()


@pytest.mark.parametrize("name", OPERATORS)
def test_fn_and_ops_expose_exactly_the_schema(name):
    info = _sluice.get_operator_info(name)
    expected = schema_defaults(info)
    if name in PYTHON_IMPLEMENTED:
        func, cls = PYTHON_IMPLEMENTED[name]
        assert lookup(fn, name) is func and lookup(ops, name, camel_case) is cls
        for where, params in (("fn", inspect.signature(func).parameters),
                              ("ops", inspect.signature(cls.__init__).parameters)):
            for arg, default in expected.items():
                assert arg in params, f"{where}.{name} lacks the schema's argument {arg}"
                assert same(params[arg].default, default), f"{where}.{name}: {arg}"
        return

    func, cls = lookup(fn, name), lookup(ops, name, camel_case)
    assert cls.__doc__ == info.doc
    if name in FN_WRAPPERS:
        assert func is FN_WRAPPERS[name]
    else:
        assert func.__doc__ == info.doc
        params = inspect.signature(func).parameters
        check_keywords(f"fn.{name}", params, expected)
        inputs = [p for p in params.values() if p.kind == p.POSITIONAL_ONLY]
        assert len(inputs) == info.max_inputs
        assert [p.default is EMPTY for p in inputs] == [i < info.min_inputs for i in range(info.max_inputs)]
        if info.input_names:
            assert [p.name for p in inputs] == [n if n.isidentifier() else f"input{i}"
                                                for i, n in enumerate(info.input_names)]

    init = inspect.signature(cls.__init__).parameters
    assert [p.kind for p in init.values()][0] == inspect.Parameter.POSITIONAL_ONLY  # self
    assert all(p.kind == p.KEYWORD_ONLY for p in list(init.values())[1:])
    check_keywords(f"ops.{name}", dict(list(init.items())[1:]), expected)

    # Nothing else is accepted: an argument the schema lacks is rejected, where the call is made.
    if name not in FN_WRAPPERS:
        with pytest.raises(sluice.ArgumentError, match="unknown argument 'not_an_argument'"):
            func(not_an_argument=1)
    with pytest.raises(sluice.ArgumentError, match="unknown argument 'not_an_argument'"):
        cls(not_an_argument=1)


def test_external_source_object_api_rejects_unknown_arguments_at_construction():
    with pytest.raises(TypeError, match="not_an_argument"):
        sluice.ExternalSource(not_an_argument=1)


def test_input_layouts_are_part_of_the_schema():
    """Each input's accepted layouts, which the core checks once per batch, are in the schema and in
    the docs fn and ops carry; an input of any layout has ""."""
    resize = sluice.schema.get_schema("resize")
    assert resize.input_layouts == ["HWC or CHW (or FHWC, FCHW, DHWC, CDHW, FDHWC, FCDHW); none: read as HWC"]
    assert ("images: HWC or CHW images, DHWC or CDHW volumes (or F-first sequences of them, resized frame by frame): "
            "uint8, int16, uint16 or float32 (16-bit: CPU only). Channel-first inputs are resized channel by channel "
            "(CPU only). Layout: HWC or CHW (or FHWC, FCHW, DHWC, CDHW, FDHWC, FCDHW); none: read as HWC.\n"
            ) in fn.resize.__doc__
    equalize = sluice.schema.get_schema("equalize")
    assert equalize.input_layouts == [
        "HWC, CHW or HW (or FHWC, FCHW, FHW); none: read as HWC or HW by the number of dimensions"]
    assert sluice.schema.get_schema("cast").input_layouts == [""]


def test_a_wrong_input_layout_is_one_message_naming_the_operator_and_input():
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
    with pipe:
        images = fn.external_source(source=lambda: [np.zeros((3, 8, 8), np.uint8)], layout="WHC")
        pipe.set_outputs(fn.resize(images, size=4, name="rs"))
    with pytest.raises(sluice.SluiceError, match=r"^\[rs\] input 0 \('images'\) must have layout HWC or CHW "
                                                 r"\(or FHWC, FCHW, DHWC, CDHW, FDHWC, FCDHW\), got 'WHC'"):
        pipe.run()
