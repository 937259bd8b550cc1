"""NumPy arrays and scalars wherever an operator takes a list or a number (DALI takes them: e.g.
multi_paste's in_anchors as a [K, 2] array). The Python layer's argument conversion is generic, so
this walks every registered schema: each list-valued argument given as a NumPy array (several
dtypes, 1-D and 2-D) and each numeric argument given as a NumPy scalar or 0-d array must validate
exactly as the same numbers given as a Python list or number (same normalised value, or the same
error). multi_paste's outputs with NumPy region arguments are checked against DALI in
test_dali_goldens_detection.py (multi_paste_numpy*), and against plain lists here.
"""
import numpy as np
import pytest

import sluice
from sluice import _sluice, fn, types
from sluice.schema import all_schemas

SCHEMAS = all_schemas()


def outcome(op, arg, value, inputs):
    """What validation makes of `value` for `arg`: ("ok", the normalised value) or ("error", message)."""
    try:
        d = _sluice.validate_operator(op, "", "cpu", inputs, {}, {arg: value})
        return "ok", d.args.get(arg)
    except Exception as e:  # noqa: BLE001 -- the error itself is compared
        return "error", str(e)


def arguments(kinds):
    for op, schema in sorted(SCHEMAS.items()):
        for name, info in sorted(schema.arguments.items()):
            if info.type in kinds:
                yield op, schema, name, info


LIST_ARGS = list(arguments(("list of int", "list of float")))
SCALAR_ARGS = list(arguments(("int", "float")))


def test_every_list_argument_takes_numpy_arrays():
    accepted = 0
    for op, schema, name, info in LIST_ARGS:
        inputs = [f"in{k}" for k in range(schema.min_inputs)]
        default = info.default if isinstance(info.default, list) and info.default else None
        values = np.array(default if default else ([2, 3] if info.type == "list of int" else [0.5, 0.25]))
        dtypes = [np.int32, np.int64, np.uint8] if info.type == "list of int" else [np.float32, np.float64, np.int16]
        for dt in dtypes:
            arr = values.astype(dt)
            want = outcome(op, name, arr.tolist(), inputs)  # the same numbers as a Python list
            where = f"{op}.{name} as {np.dtype(dt).name}"
            assert outcome(op, name, arr, inputs) == want, where
            assert outcome(op, name, [v for v in arr], inputs) == want, where + " (a list of NumPy scalars)"
            if arr.size % 2 == 0:
                assert outcome(op, name, arr.reshape(-1, 2), inputs) == want, where + " [K, 2]"
            accepted += want[0] == "ok"
    assert len(LIST_ARGS) > 100 and accepted > len(LIST_ARGS)  # most validate (several dtypes each)


def test_every_numeric_argument_takes_numpy_scalars():
    accepted = 0
    for op, schema, name, info in SCALAR_ARGS:
        inputs = [f"in{k}" for k in range(schema.min_inputs)]
        base = info.default if isinstance(info.default, (int, float)) and not isinstance(info.default, bool) else 1
        for dt in ((np.int32, np.int64, np.uint16) if info.type == "int" else (np.float32, np.float64, np.int64)):
            v = np.array(base).astype(dt)
            want = outcome(op, name, v.item(), inputs)
            where = f"{op}.{name} as {np.dtype(dt).name}"
            assert outcome(op, name, v[()], inputs) == want, where  # a NumPy scalar
            assert outcome(op, name, v, inputs) == want, where + " (0-d array)"
            accepted += want[0] == "ok"
    assert len(SCALAR_ARGS) > 100 and accepted > len(SCALAR_ARGS)


def test_multi_paste_numpy_regions_equal_lists():
    imgs = [np.arange(8 * 10 * 3, dtype=np.uint8).reshape(8, 10, 3) * (i + 1) for i in range(2)]
    lists = dict(in_ids=[1, 0], in_anchors=[0, 1, 2, 3], shapes=[3, 4, 4, 5], out_anchors=[1, 1, 3, 4])
    arrays = dict(in_ids=np.array([1, 0]), in_anchors=np.array([[0, 1], [2, 3]], np.int16),
                  shapes=np.array([[3, 4], [4, 5]], np.int64), out_anchors=np.array([[1, 1], [3, 4]], np.uint8))
    outs = []
    for kw in (lists, arrays):
        pipe = sluice.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            x = fn.external_source(source=lambda: imgs, batch=True, layout="HWC")
            pipe.set_outputs(fn.multi_paste(x, **kw))
        pipe.build()
        outs.append([np.array(t) for t in pipe.run()[0]])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    # The first region: sample 1's [0:3, 1:5] at [1, 1] of sample 0's output (its rows 1 and 2; the
    # second region, pasted later, covers row 3 from column 4).
    np.testing.assert_array_equal(outs[1][0][1:3, 1:5], imgs[1][0:2, 1:5])
    assert not outs[1][0][0].any() and not outs[1][0][:, 0].any()


def test_a_nested_object_array_is_still_refused():
    with pytest.raises(Exception, match="expected"):
        _sluice.validate_operator("multi_paste", "", "cpu", ["in0"], {}, {"in_anchors": np.array([object()])})
