"""Conditionals (DALI's @pipeline_def(enable_conditionals=True)): `if`/`elif`/`else`, `and`, `or`
and `not` on DataNodes run per sample; each test checks the outputs against NumPy computed per
sample from the same data (sluice._conditionals)."""
import contextlib
import itertools
import traceback

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types
from sluice.pipeline import do_not_convert
from sluice.pipeline.experimental import pipeline_def as experimental_pipeline_def

BATCH = 8
RNG = np.random.default_rng(1234)
IMAGES = [RNG.integers(0, 256, size=(3 + i % 3, 4 + i % 2, 3), dtype=np.uint8) for i in range(BATCH)]
VALUES = [np.array([i - 3, 10 * (i - 3)], np.float32) for i in range(BATCH)]


def images():
    return [x.copy() for x in IMAGES]


def values():
    return [x.copy() for x in VALUES]


def run(pipe, iterations=1):
    """Builds and runs `pipe`; per output, the list of samples as NumPy arrays (of the last batch)."""
    pipe.build()
    for _ in range(iterations):
        outs = pipe.run()
    return [[np.asarray(o[i]) for i in range(len(o))] for o in outs]


def cond_pipe(**kwargs):
    return pipeline_def(enable_conditionals=True, batch_size=BATCH, num_threads=1, device_id=None, seed=42,
                        **kwargs)


def test_if_else_runs_different_operators_per_sample():
    @cond_pipe()
    def pipe():
        img = fn.external_source(source=images, layout="HWC")
        if fn.reductions.mean(img) > 127:
            out = fn.flip(img, horizontal=1)
        else:
            out = img // types.Constant(2).uint8()  # a Python 2 is int32 (DALI): the branches must agree
        return out

    (out,) = run(pipe())
    for x, got in zip(IMAGES, out):
        want = x[:, ::-1] if x.mean() > 127 else x // 2
        np.testing.assert_array_equal(got, want)
    assert {x.mean() > 127 for x in IMAGES} == {True, False}  # both branches have samples


def test_elif_chain():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        s = fn.reductions.sum(v)
        if s > 20:
            out = v * 2
        elif s > 0:
            out = v + 100
        elif s == 0:
            out = v - 7
        else:
            out = -v
        return out

    (out,) = run(pipe())
    for v, got in zip(VALUES, out):
        s = v.sum()
        want = v * 2 if s > 20 else v + 100 if s > 0 else v - 7 if s == 0 else -v
        np.testing.assert_array_equal(got, want)


def test_nested_ifs_with_conditions_made_before():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        s = fn.reductions.sum(v)
        outer = s > 0
        inner = s > 33   # made outside both ifs: split twice on the way in
        if outer:
            if inner:
                out = v * 3
            else:
                out = v + 1
            tag = v[0] * 0 + 1
        else:
            if s < -22:
                out = v - 1
            else:
                out = v
            tag = v[0] * 0 - 1
        return out, tag

    out, tag = run(pipe())
    for v, got, t in zip(VALUES, out, tag):
        s = v.sum()
        want = (v * 3 if s > 33 else v + 1) if s > 0 else (v - 1 if s < -22 else v)
        np.testing.assert_array_equal(got, want)
        assert t == (1 if s > 0 else -1)


def test_and_or_not_per_sample_and_lazily():
    calls = []

    def seen(x):
        calls.append(float(x))
        return np.array(x > 5)

    def scalars():
        return [np.array(float(i), np.float32) for i in range(BATCH)]

    @cond_pipe(prefetch_queue_depth=1)  # one batch computed: `calls` is that batch's
    def pipe():
        x = fn.external_source(source=scalars)
        both = (x > 2) and fn.python_function(x, function=seen)
        either = (x < 1) or fn.python_function(x, function=seen)
        negated = not (x > 4)
        chain = (x > 1) and (x < 6) and not (x == 3)
        return both, either, negated, chain

    both, either, negated, chain = run(pipe())
    xs = np.arange(BATCH)
    assert [bool(b) for b in both] == [x > 2 and x > 5 for x in xs]
    assert [bool(b) for b in either] == [x < 1 or x > 5 for x in xs]
    assert [bool(b) for b in negated] == [not x > 4 for x in xs]
    assert [bool(b) for b in chain] == [1 < x < 6 and x != 3 for x in xs]
    assert all(b.dtype == np.bool_ and b.shape == () for b in both + either + negated + chain)
    # the right operand ran only for the samples that needed it: x > 2 for `and`, x >= 1 for `or`
    assert sorted(calls) == sorted([float(x) for x in xs if x > 2] + [float(x) for x in xs if x >= 1])


def test_any_numeric_scalar_is_a_truth_value():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        total = fn.reductions.sum(v)                      # float32: -33 ... 44
        count = fn.cast(total, dtype=types.INT32)         # int32, not only 0 and 1
        if total:
            a = v
        else:
            a = v + 1
        if count:
            b = v * 2
        else:
            b = v - 1
        return a, b

    a, b = run(pipe())
    for v, got_a, got_b in zip(VALUES, a, b):
        np.testing.assert_array_equal(got_a, v if v.sum() else v + 1)
        np.testing.assert_array_equal(got_b, v * 2 if int(v.sum()) else v - 1)


def test_condition_from_a_random_operator():
    @cond_pipe()
    def pipe():
        img = fn.external_source(source=images, layout="HWC")
        do_flip = fn.random.coin_flip(probability=0.5, dtype=types.BOOL)
        if do_flip:
            out = fn.flip(img, horizontal=1)
        else:
            out = img
        return out, do_flip

    out, flips = run(pipe(), iterations=2)
    assert {bool(f) for f in flips} == {True, False}
    for x, got, f in zip(IMAGES, out, flips):
        np.testing.assert_array_equal(got, x[:, ::-1] if f else x)


def test_branches_produce_different_shapes():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) >= 0:
            out = fn.cat(v, v, v)
        else:
            out = v[0:1]
        return out

    (out,) = run(pipe())
    for v, got in zip(VALUES, out):
        np.testing.assert_array_equal(got, np.concatenate([v, v, v]) if v.sum() >= 0 else v[:1])


def test_a_node_made_before_the_if_used_in_one_branch_only():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        offset = fn.reductions.max(v) * 0.5   # made before, used only in the `else` branch
        if fn.reductions.sum(v) > 0:
            out = v
        else:
            out = v - offset
        return out

    (out,) = run(pipe())
    for v, got in zip(VALUES, out):
        np.testing.assert_array_equal(got, v if v.sum() > 0 else v - v.max() * 0.5)


def test_python_conditions_keep_python_semantics():
    trace = []

    @cond_pipe()
    def pipe(mode, flag):
        v = fn.external_source(source=values)
        if mode == "double":
            trace.append("double")
            out = v * 2
        elif mode == "neg" and flag:
            trace.append("neg")
            out = -v
        else:
            trace.append("other")
            out = v
        k = 0 if not flag else 5
        return out + k

    for mode, flag, want in (("double", True, lambda v: v * 2 + 5), ("neg", True, lambda v: -v + 5),
                             ("neg", False, lambda v: v), ("x", True, lambda v: v + 5)):
        trace.clear()
        p = pipe(mode, flag)
        assert len(trace) == 1  # one branch traced, as plain Python
        assert not any(c.schema.name.startswith("_select") for c in p._recorded)  # nothing split
        (out,) = run(p)
        for v, got in zip(VALUES, out):
            np.testing.assert_array_equal(got, want(v))


def test_random_operator_in_a_branch_is_the_same_whatever_the_threads():
    def build(threads):
        @pipeline_def(enable_conditionals=True, batch_size=BATCH, num_threads=threads, device_id=None, seed=5)
        def pipe():
            img = fn.cast(fn.external_source(source=images, layout="HWC"), dtype=types.FLOAT)
            if fn.reductions.mean(img) > 127:
                out = fn.noise.gaussian(img, stddev=10.0)   # per-sample random, on the branch's samples
                angle = fn.random.uniform(range=(-30, 30))  # no inputs: drawn for the whole batch, then split
                out = fn.rotate(out, angle=angle, fill_value=0)
            else:
                out = img
            return out
        return run(pipe(), iterations=2)[0]

    one, three = build(1), build(3)
    for x, a, b in zip(IMAGES, one, three):
        np.testing.assert_array_equal(a, b)
        if x.mean() <= 127:
            np.testing.assert_array_equal(a, x.astype(np.float32))  # untouched rows stay themselves
        else:
            assert not np.array_equal(a, x.astype(np.float32))


def test_early_return_in_a_branch():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            return v * 10
        w = v - 1          # the rest of the function is the `else` branch
        if fn.reductions.sum(v) < -22:
            return w * 0
        return w

    (out,) = run(pipe())
    for v, got in zip(VALUES, out):
        np.testing.assert_array_equal(got, v * 10 if v.sum() > 0 else (v - 1) * 0 if v.sum() < -22 else v - 1)

    @cond_pipe()
    def nested():  # returns inside a `with` and a Python loop inside a branch
        v = fn.external_source(source=values)
        s = fn.reductions.sum(v)
        if s > 0 and not s > 33:
            with contextlib.nullcontext():
                for k in range(3):
                    if k == 2:
                        return v * k
        elif not s < -22:
            return v + 100
        else:
            return v - 100

    (out,) = run(nested())
    for v, got in zip(VALUES, out):
        s = v.sum()
        np.testing.assert_array_equal(got, v * 2 if 0 < s <= 33 else v + 100 if s >= -22 else v - 100)


def test_numbers_tuples_and_dicts_are_merged_per_sample():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            label = 1
            pair = (v, v * 2)
            d = {"a": v + 1}
        else:
            label = 2
            pair = (-v, v)
            d = {"a": v - 1}
        return label, pair[0], pair[1], d["a"]

    label, first, second, a = run(pipe())
    for v, lb, f, s, x in zip(VALUES, label, first, second, a):
        pos = v.sum() > 0
        assert lb == (1 if pos else 2) and lb.dtype == np.int32
        np.testing.assert_array_equal(f, v if pos else -v)
        np.testing.assert_array_equal(s, v * 2 if pos else v)
        np.testing.assert_array_equal(x, v + 1 if pos else v - 1)


def helper_clip(v, s):
    """A module-level helper: converted when called from a pipeline with conditionals."""
    if s > 11 and not s > 33:
        return v + 1000
    return v


@do_not_convert
def helper_not_converted(v, s):
    if s > 0:
        return v
    return -v


class Base:
    def apply(self, v, s):
        return v


class Augment(Base):
    def __init__(self, amount):
        self.__amount = amount  # a private (mangled) name

    def apply(self, v, s):
        if s < 0:
            out = v - self.__amount
        else:
            out = super().apply(v, s)  # zero-argument super() in a converted method
        return out


def test_called_functions_and_methods_are_converted():
    @cond_pipe()
    def pipe():
        v = fn.external_source(source=values)
        s = fn.reductions.sum(v)

        def local(x):  # defined inside: converted with the pipeline definition
            if s == 0:
                x = x + 0.5
            return x

        return helper_clip(v, s), Augment(100).apply(v, s), local(v)

    clipped, augmented, local = run(pipe())
    for v, c, a, lo in zip(VALUES, clipped, augmented, local):
        s = v.sum()
        np.testing.assert_array_equal(c, v + 1000 if 11 < s <= 33 else v)
        np.testing.assert_array_equal(a, v - 100 if s < 0 else v)
        np.testing.assert_array_equal(lo, v + 0.5 if s == 0 else v)

    @cond_pipe()
    def uses_unconverted():
        v = fn.external_source(source=values)
        return helper_not_converted(v, fn.reductions.sum(v))

    with pytest.raises(TypeError, match="no truth value"):
        uses_unconverted()
    with pytest.raises(ValueError, match="do_not_convert"):
        pipeline_def(do_not_convert(lambda: None))


def test_if_in_a_loop_and_conditionals_enabled_at_call_time():
    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def pipe():
        v = fn.external_source(source=values)
        for step in range(3):
            if fn.reductions.sum(v) < 30:
                v = v + 5
        return v

    (out,) = run(pipe(enable_conditionals=True))
    for v, got in zip(VALUES, out):
        want = v.copy()
        for _ in range(3):
            if want.sum() < 30:
                want = want + 5
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="no truth value"):
        pipe()  # not enabled: an `if` on a DataNode is an error


def test_experimental_pipeline_def_and_conditional_operators():
    @experimental_pipeline_def(enable_conditionals=True, batch_size=BATCH, num_threads=1, device_id=None)
    def pipe():
        v = fn.external_source(source=values)
        pred = fn.reductions.sum(v) > 0
        t, f = fn._conditional.split(v, predicate=pred)
        merged = fn._conditional.merge(t * 2, f, predicate=pred)
        return merged, fn._conditional.not_(pred), fn._conditional.validate_logical(
            pred, expression_name="and", expression_side="left")

    merged, negated, valid = run(pipe())
    for v, m, n, ok in zip(VALUES, merged, negated, valid):
        np.testing.assert_array_equal(m, v * 2 if v.sum() > 0 else v)
        assert bool(n) == (not v.sum() > 0) and bool(ok) == (v.sum() > 0)


# --- errors -------------------------------------------------------------------------------------

def _line_of(func, text):
    import inspect
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_variable_set_in_one_branch_and_used_after_is_an_error_at_the_if():
    def body():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:  # the if
            y = v * 2
        return y

    with pytest.raises(RuntimeError, match="Variable 'y' must also be initialized in the `else` branch") as e:
        cond_pipe()(body)()
    assert f"{__file__}, line {_line_of(body, '# the if')}" in str(e.value)
    frames = [f for f in traceback.extract_tb(e.value.__traceback__) if f.filename == __file__]
    assert frames[-1].lineno == _line_of(body, "# the if")

    def unused():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            tmp = v * 2   # only in one branch, never read after: fine, as in DALI
            v = tmp
        return v

    (out,) = run(cond_pipe()(unused)())
    for v, got in zip(VALUES, out):
        np.testing.assert_array_equal(got, v * 2 if v.sum() > 0 else v)

    def closures():
        def source():
            tmp = values()  # a local of another function: not the `tmp` below
            return tmp
        v = fn.external_source(source=source)
        base = v * 0

        def later():  # reads `base` when called, after the `if`: `base` is merged
            return base
        if fn.reductions.sum(v) > 0:
            tmp = v * 2
            base = tmp
        return later()

    (out,) = run(cond_pipe()(closures)())
    for v, got in zip(VALUES, out):
        np.testing.assert_array_equal(got, v * 2 if v.sum() > 0 else v * 0)


def test_return_in_one_branch_only_and_divergent_structures_are_errors():
    def one_return():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            return v

    with pytest.raises(RuntimeError, match="The `else` branch must also have a return statement"):
        cond_pipe()(one_return)()

    def divergent():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            out = (v, v)
        else:
            out = v
        return out

    with pytest.raises(TypeError, match="Divergent data found in different branches"):
        cond_pipe()(divergent)()

    def not_a_number():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            mode = "a"
        else:
            mode = "b"
        return v if mode else v

    with pytest.raises(TypeError, match="variable 'mode' is assigned str"):
        cond_pipe()(not_a_number)()


def test_errors_in_user_code_point_at_the_users_line():
    def body():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            out = v + no_such_name  # noqa: F821
        else:
            out = v
        return out

    with pytest.raises(NameError) as e:
        cond_pipe()(body)()
    last = traceback.extract_tb(e.value.__traceback__)[-1]
    assert last.filename == __file__ and last.lineno == _line_of(body, "no_such_name")


def test_run_time_condition_errors_name_the_users_line():
    def vector_condition():
        v = fn.external_source(source=values)
        if v > 0:   # one value per element, not per sample
            out = v
        else:
            out = -v
        return out

    p = cond_pipe()(vector_condition)()
    with pytest.raises(sluice.SluiceError, match=r"`if` condition \(test_conditionals.py:%d" %
                       _line_of(vector_condition, "if v > 0")):
        run(p)

    def float_and():
        v = fn.external_source(source=values)
        return fn.reductions.sum(v) and True

    with pytest.raises(sluice.SluiceError, match="`and` left operand .*must be an integer type, got float32"):
        run(cond_pipe()(float_and)())


def test_unsupported_forms_are_clear_errors():
    def loop_control():
        v = fn.external_source(source=values)
        for _ in range(2):
            if fn.reductions.sum(v) > 0:
                break
            v = v + 1
        return v

    with pytest.raises(sluice.SluiceError, match="`break` or `continue` inside a branch"):
        cond_pipe()(loop_control)()

    def permutation():
        v = fn.external_source(source=values)
        if fn.reductions.sum(v) > 0:
            v = fn.permute_batch(v, indices=fn.batch_permutation())
        return v

    with pytest.raises(sluice.SluiceError, match="batch_permutation inside a branch"):
        cond_pipe()(permutation)()

    def leak():
        v = fn.external_source(source=values)
        kept = []
        if fn.reductions.sum(v) > 0:
            kept.append(v * 2)
        return kept[0]

    with pytest.raises(sluice.SluiceError, match="produced inside a branch of the `if`"):
        cond_pipe()(leak)()

    def ternary():
        v = fn.external_source(source=values)
        return v if fn.reductions.sum(v) > 0 else -v

    with pytest.raises(TypeError, match="no truth value"):
        cond_pipe()(ternary)()


# --- the rewrite keeps Python's semantics for Python values ---------------------------------------
def _py_f1(a, b):
    if a > b:
        return a
    elif a == b:
        return 0
    return b

def _py_f2(xs):
    total = 0
    for x in xs:
        if x % 2:
            continue
        if x > 6:
            break
        total += x
    return total

def _py_f3(a):
    out = []
    for i in range(a):
        if i == 3:
            return out
        with open(__file__) as fh:
            if i > 10:
                return None
        out.append(i)
    return out

def _py_f4(a, b):
    r = a and b or not a
    s = (a or b) and (not b)
    t = a and b and (a or b)
    return r, s, t

def _py_f5(n):
    def inner(k):
        if k > 2:
            return k * 2
        return -k
    acc = [inner(i) for i in range(n) if i % 2 == 0 and i > 0]
    try:
        if n > 3:
            raise ValueError("x")
        y = 1
    except ValueError:
        y = 2
    finally:
        z = 3
    return acc, y, z

def _py_f6(a):
    while True:
        if a > 5:
            a -= 1
            if a == 7:
                return "seven"
        else:
            break
    if a < 0:
        x = 1
    return a

def _py_f7(a):
    if a:
        b = 1
    if a:
        return b
    try:
        return b
    except NameError:
        return "unbound"

def _py_f8(a):
    x = 5
    def get():
        return x
    if a:
        x = 10
    return get()

def _py_f9(a, b=3, *args, k=4, **kw):
    if not a:
        return b, args, k, kw
    return (not b) or k

def _py_f10(a):
    for i in range(3):
        for j in range(3):
            if i * j == a:
                return (i, j)
    return None

def _py_f11(a):
    g = lambda v: v > 1 and v < 5
    return [g(i) for i in range(a)]

def _py_f12(a):
    match a:
        case 1:
            if a:
                return "one"
        case _:
            pass
    return "other"

_PY_CASES = {_py_f1: [(1, 2), (2, 1), (3, 3)], _py_f2: [([1, 2, 4, 8, 10],), ([],)], _py_f3: [(2,), (5,)],
         _py_f4: list(itertools.product([0, 1, 2, None, ""], repeat=2)), _py_f5: [(2,), (6,)],
         _py_f6: [(3,), (9,), (6,)], _py_f7: [(0,), (1,)], _py_f8: [(0,), (1,)], _py_f9: [(0,), (1,), (1, 0)],
         _py_f10: [(0,), (4,), (9,)], _py_f11: [(6,)], _py_f12: [(1,), (2,)]}


def test_the_rewrite_keeps_python_semantics():
    """Every `if`, `and`, `or`, `not`, `return` pattern above gives what plain Python gives."""
    from sluice import _conditionals
    for f, cases in _PY_CASES.items():
        g = _conditionals.convert(f)
        assert g is not f and "_sluice_ag" in g.__code__.co_freevars
        for args in cases:
            assert f(*args) == g(*args), (f.__name__, args)


def test_dalis_conditionals_tutorial_on_the_cpu(tmp_path):
    """DALI's "Conditional execution" example (rotate 25% of the images), with the decoder on the CPU;
    checked against rotate + resize applied to every image by a pipeline without conditionals."""
    import io
    from PIL import Image
    from sluice.types import DALIDataType
    (tmp_path / "a").mkdir()
    for i in range(8):
        buf = io.BytesIO()
        Image.fromarray(RNG.integers(0, 256, size=(40 + 4 * i, 60, 3), dtype=np.uint8)).save(buf, format="PNG")
        (tmp_path / "a" / f"{i}.png").write_bytes(buf.getvalue())

    @pipeline_def(enable_conditionals=True, batch_size=4, num_threads=4, device_id=0, seed=42)
    def rotate_pipe():
        jpegs, _ = fn.readers.file(device="cpu", file_root=str(tmp_path))
        images = fn.decoders.image(jpegs, device="cpu")
        do_rotate = fn.random.coin_flip(probability=0.25, dtype=DALIDataType.BOOL)
        angle = fn.random.uniform(range=(10, 30))

        if do_rotate:
            result = fn.rotate(images, angle=angle, fill_value=0)
        else:
            result = images

        resized = fn.resize(result, resize_x=400, resize_y=400)
        return resized, images, do_rotate, angle

    pipe = rotate_pipe()
    pipe.build()
    batches = [[[np.asarray(o[i]) for i in range(len(o))] for o in pipe.run()] for _ in range(4)]
    got = [x for b in batches for x in b[0]]
    imgs = [x for b in batches for x in b[1]]
    flags = [bool(x) for b in batches for x in b[2]]
    angles = [np.float32(x) for b in batches for x in b[3]]
    assert any(flags) and not all(flags)

    def ref_pipe(rotate):
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe():
            img = fn.external_source(source=lambda: [imgs[k]], layout="HWC", batch=True, cycle=False)
            ang = fn.external_source(source=lambda: [angles[k]], batch=True, cycle=False)
            out = fn.rotate(img, angle=ang, fill_value=0) if rotate else img
            return fn.resize(out, resize_x=400, resize_y=400)
        return pipe()

    for k in range(len(got)):
        want = np.asarray(ref_pipe(flags[k]).run()[0][0])
        np.testing.assert_array_equal(got[k], want)
