"""fn.random.normal / uniform / coin_flip / beta take DALI's optional `shape_like` input: each output
sample has the shape of that input's sample (DALI's RNN-T example dithers with
fn.random.normal(audio)). What DALI 2.4 gives (checked with its CPU pipelines): the input's shapes
sample by sample, scalars included, whatever the input's type; float32 (coin_flip: int32) unless
`dtype` says otherwise; `shape` with the input is an error. Sluice's random streams are its own, so
the values are compared by determinism (same seed, any num_threads) and statistics, not with DALI's.
"""
import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

SHAPES = [(3, 4), (2, 5), (0, 3)]


def run(build, shapes=SHAPES, dtype=np.uint8, seed=42, num_threads=2):
    samples = [np.zeros(s, dtype) for s in shapes]
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=num_threads, device_id=None, seed=seed)
    with pipe:
        x = fn.external_source(source=lambda: samples, batch=True)
        out = build(x)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    pipe.build()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in pipe.run()]


@pytest.mark.parametrize("name, dtype", [("normal", np.float32), ("uniform", np.float32),
                                         ("coin_flip", np.int32), ("beta", np.float32)])
def test_each_sample_takes_the_shape_of_the_input(name, dtype):
    (out,) = run(lambda x: getattr(fn.random, name)(x), dtype=np.float32)
    assert [o.shape for o in out] == SHAPES
    assert all(o.dtype == dtype for o in out)
    # Any input type; a scalar sample gives a scalar.
    (out,) = run(lambda x: getattr(fn.random, name)(x), shapes=[(), ()], dtype=np.int16)
    assert [o.shape for o in out] == [(), ()]


def test_dtype_and_the_distribution_arguments_apply():
    u8, f64, vals = run(lambda x: (fn.random.coin_flip(x, dtype=types.UINT8),
                                   fn.random.normal(x, dtype=types.FLOAT64),
                                   fn.random.uniform(x, values=[1, 2])))
    assert u8[0].dtype == np.uint8 and u8[0].shape == (3, 4) and set(np.unique(u8[0])) <= {0, 1}
    assert f64[1].dtype == np.float64 and f64[1].shape == (2, 5)
    assert set(np.unique(vals[0])) <= {1.0, 2.0}


def test_dithering_like_rnnt_follows_the_distribution():
    audio = [(20000,)]
    normal, coin, uni = run(lambda a: (fn.random.normal(a, mean=2.0, stddev=3.0),
                                       fn.random.coin_flip(a, probability=0.3),
                                       fn.random.uniform(a, range=[-2.0, 6.0])),
                            shapes=audio, dtype=np.float32)
    assert normal[0].shape == (20000,)
    assert abs(normal[0].mean() - 2.0) < 0.1 and abs(normal[0].std() - 3.0) < 0.1
    assert abs(coin[0].mean() - 0.3) < 0.02
    assert uni[0].min() >= -2.0 and uni[0].max() < 6.0 and abs(uni[0].mean() - 2.0) < 0.1


@pytest.mark.parametrize("name", ["normal", "uniform", "coin_flip"])
def test_the_same_values_for_a_seed_and_any_num_threads(name):
    def build(x):
        return getattr(fn.random, name)(x)
    a = run(build, seed=7, num_threads=1)[0]
    b = run(build, seed=7, num_threads=3)[0]
    c = run(build, seed=8, num_threads=1)[0]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, z) for x, z in zip(a, c))


def test_ops_classes_and_legacy_names_take_the_input():
    n, c, u = run(lambda x: (ops.random.Normal()(x), ops.CoinFlip(probability=1.0)(x), ops.Uniform()(x)))
    assert [o.shape for o in n] == SHAPES and [o.shape for o in u] == SHAPES
    np.testing.assert_array_equal(c[0], np.ones((3, 4), np.int32))
    (legacy,) = run(lambda x: fn.normal_distribution(x))
    assert legacy[1].shape == (2, 5)


@pytest.mark.parametrize("name", ["normal", "uniform", "coin_flip", "beta"])
def test_shape_and_shape_like_together_is_an_error(name):
    # DALI: 'Providing argument "shape" is incompatible with providing a shape-like input'.
    with pytest.raises(Exception, match=r"(?s)shape.*shape_like"):
        run(lambda x: getattr(fn.random, name)(x, shape=[2]))
