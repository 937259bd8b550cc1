"""DALI's input sets: an operator given a list of DataNodes as one input runs once per element and
returns a list (sluice.graph.call_operator); random operators' calls share one seed, so every
input set gets the same random choices (DALI's logical id)."""
import numpy as np
import pytest

import sluice
from sluice import fn, ops, pipeline_def, types

BATCH = 4
RNG = np.random.default_rng(7)
A = [RNG.random((4 + i, 5, 3), dtype=np.float32) * 100 for i in range(BATCH)]
B = [RNG.random((4 + i, 5, 3), dtype=np.float32) * 100 for i in range(BATCH)]


def source(arrays):
    return lambda: [a.copy() for a in arrays]


def run(pipe):
    pipe.build()
    return [[np.asarray(o[i]) for i in range(len(o))] for o in pipe.run()]


def cpu_pipe(**kwargs):
    return pipeline_def(**{"batch_size": BATCH, "num_threads": 1, "device_id": None, "seed": 3, **kwargs})


def test_a_list_input_runs_the_operator_per_element():
    @cpu_pipe()
    def pipe():
        a = fn.external_source(source=source(A), layout="HWC")
        b = fn.external_source(source=source(B), layout="HWC")
        flipped = fn.flip([a, b], horizontal=1)
        assert isinstance(flipped, list) and len(flipped) == 2
        single = fn.flip([a], horizontal=0, vertical=1)   # one set: a DataNode, as in DALI
        assert isinstance(single, sluice.DataNode)
        cat = fn.cat([a, b], a, axis=2)     # the plain input is repeated for every set
        return flipped[0], flipped[1], single, cat[0], cat[1]

    fa, fb, single, ca, cb = run(pipe())
    for i in range(BATCH):
        np.testing.assert_array_equal(fa[i], A[i][:, ::-1])
        np.testing.assert_array_equal(fb[i], B[i][:, ::-1])
        np.testing.assert_array_equal(single[i], A[i][::-1])
        np.testing.assert_array_equal(ca[i], np.concatenate([A[i], A[i]], axis=2))
        np.testing.assert_array_equal(cb[i], np.concatenate([B[i], A[i]], axis=2))


def test_ops_api_and_several_lists():
    @cpu_pipe()
    def pipe():
        a = fn.external_source(source=source(A), layout="HWC")
        b = fn.external_source(source=source(B), layout="HWC")
        flip = ops.Flip(horizontal=1, vertical=1)
        fa, fb = flip([a, b])
        ab, ba = fn.cat([a, b], [b, a], axis=1)   # lists are zipped
        return fa, fb, ab, ba

    fa, fb, ab, ba = run(pipe())
    for i in range(BATCH):
        np.testing.assert_array_equal(fa[i], A[i][::-1, ::-1])
        np.testing.assert_array_equal(fb[i], B[i][::-1, ::-1])
        np.testing.assert_array_equal(ab[i], np.concatenate([A[i], B[i]], axis=1))
        np.testing.assert_array_equal(ba[i], np.concatenate([B[i], A[i]], axis=1))


def test_random_operators_share_their_random_choices_across_sets():
    @cpu_pipe()
    def pipe():
        a = fn.external_source(source=source(A), layout="HWC")
        crops = fn.random_resized_crop([a, a * 2], size=(3, 3), interp_type=types.INTERP_NN)
        noisy = fn.noise.gaussian([a, a], stddev=3.0)
        # a multi-output operator: one list per output, each with one entry per set
        anchors, shapes = fn.random_crop_generator([a.shape(), a.shape()])
        return crops[0], crops[1], noisy[0], noisy[1], anchors[0], anchors[1], shapes[0], shapes[1]

    c0, c1, n0, n1, a0, a1, s0, s1 = run(pipe())
    for i in range(BATCH):
        np.testing.assert_array_equal(c1[i], c0[i] * 2)   # the same window, nearest neighbour
        np.testing.assert_array_equal(n0[i], n1[i])
        assert not np.array_equal(n0[i], A[i])
        np.testing.assert_array_equal(a0[i], a1[i])
        np.testing.assert_array_equal(s0[i], s1[i])


def test_shared_seed_is_reproducible_and_an_explicit_seed_is_kept():
    def build(seed, op_seed=None):
        @cpu_pipe(seed=seed)
        def pipe():
            a = fn.external_source(source=source(A), layout="HWC")
            kwargs = {} if op_seed is None else {"seed": op_seed}
            x, y = fn.noise.gaussian([a, a], stddev=3.0, **kwargs)
            z = fn.noise.gaussian(a, stddev=3.0, seed=op_seed) if op_seed is not None else x
            return x, y, z
        return run(pipe())

    first, again, other = build(11), build(11), build(12)
    for i in range(BATCH):
        np.testing.assert_array_equal(first[0][i], again[0][i])
        assert not np.array_equal(first[0][i], other[0][i])
    x, y, z = build(11, op_seed=99)
    for i in range(BATCH):  # the given seed is every set's: the same values as one call with that seed
        np.testing.assert_array_equal(x[i], z[i])
        np.testing.assert_array_equal(y[i], z[i])


def test_checkpoint_restores_the_shared_seed():
    def pipe_def(**kwargs):
        @cpu_pipe(seed=21, enable_checkpointing=True, **kwargs)
        def pipe():
            a = fn.external_source(source=source(A), layout="HWC")
            x, y = fn.noise.gaussian([a, a], stddev=3.0)
            return x, y
        return pipe()

    p = pipe_def()
    run(p)
    text = p.checkpoint()
    want = [np.asarray(t) for t in p.run()[0]]
    restored = pipe_def(checkpoint=text)
    got = run(restored)[0]
    for w, g in zip(want, got):
        np.testing.assert_array_equal(w, g)

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, enable_checkpointing=True)
    def unseeded():
        a = fn.external_source(source=source(A), layout="HWC")
        return fn.noise.gaussian([a, a], stddev=3.0)[0]

    with pytest.raises(sluice.SluiceError, match="input sets in a pipeline with enable_checkpointing"):
        unseeded()


def test_input_set_errors():
    @cpu_pipe()
    def lengths():
        a = fn.external_source(source=source(A), layout="HWC")
        return fn.cat([a, a], [a, a, a])

    with pytest.raises(ValueError, match="must have the same length"):
        lengths()

    @cpu_pipe()
    def mixed():
        a = fn.external_source(source=source(A), layout="HWC")
        return fn.flip([a, 3])

    with pytest.raises(TypeError, match="mixes DataNodes with other values"):
        mixed()


def test_input_sets_inside_a_conditional_branch():
    @cpu_pipe(enable_conditionals=True)
    def pipe():
        a = fn.external_source(source=source(A), layout="HWC")
        b = fn.external_source(source=source(B), layout="HWC")
        if fn.reductions.mean(a) > 50:
            a, b = fn.flip([a, b], horizontal=1)
        return a, b

    fa, fb = run(pipe())
    for i in range(BATCH):
        flip = A[i].mean() > 50
        np.testing.assert_array_equal(fa[i], A[i][:, ::-1] if flip else A[i])
        np.testing.assert_array_equal(fb[i], B[i][:, ::-1] if flip else B[i])
