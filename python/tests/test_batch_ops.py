"""MixUp/CutMix building blocks: batch_permutation, permute_batch, random.beta, one_hot."""
import math

import numpy as np
import pytest

import sluice
from sluice import fn, types


def run(build, batch_size=8, threads=1, seed=5, iterations=1):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, device_id=None, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    return [[np.array(o.as_array())
             for o in pipe.run()] for _ in range(iterations)]


def counter():
    return fn.testing.counter(shape=[3])


def test_batch_permutation_is_a_permutation_and_deterministic():
    seen = set()
    for (perm,) in run(lambda: fn.batch_permutation(), iterations=20):
        assert sorted(perm.tolist()) == list(range(8)) and perm.dtype == np.int32 and perm.shape == (8,)
        seen.add(tuple(perm.tolist()))
    assert len(seen) > 15  # differs from batch to batch
    a = run(lambda: fn.batch_permutation(), threads=1, iterations=5)
    b = run(lambda: fn.batch_permutation(), threads=2, iterations=5)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x[0], y[0])


def test_batch_permutation_no_fixed_points_and_repetitions():
    for (perm,) in run(lambda: fn.batch_permutation(no_fixed_points=True), iterations=50):
        assert sorted(perm.tolist()) == list(range(8))
        assert all(perm[i] != i for i in range(8))
    reps = run(lambda: fn.batch_permutation(allow_repetitions=True, no_fixed_points=True), iterations=50)
    assert any(len(set(p[0].tolist())) < 8 for p in reps)  # repetitions happen
    for (perm,) in reps:
        assert all(0 <= v < 8 and v != i for i, v in enumerate(perm))
    # A batch of one: no_fixed_points is ignored, as in DALI.
    (one,), = run(lambda: fn.batch_permutation(no_fixed_points=True), batch_size=1)
    assert one.tolist() == [0]


def test_permutations_are_uniform():
    counts = np.zeros((4, 4))
    for (perm,) in run(lambda: fn.batch_permutation(), batch_size=4, iterations=2400):
        counts[np.arange(4), perm] += 1
    expected = 2400 / 4
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 40, chi2  # 16 cells, 9 degrees of freedom: p < 1e-5 at 40


def test_permute_batch_follows_the_indices_with_sources():
    def build():
        x = counter()
        perm = fn.batch_permutation()
        return x, perm, fn.permute_batch(x, indices=perm)
    for x, perm, y in run(build, iterations=3):
        np.testing.assert_array_equal(y, x[perm])
    (x, y), = run(lambda: (counter(), fn.permute_batch(counter(), indices=[7, 7, 0, 1, 2, 3, 4, 5])))
    np.testing.assert_array_equal(y, x[[7, 7, 0, 1, 2, 3, 4, 5]])


def test_permute_batch_errors_name_the_argument():
    with pytest.raises(sluice.SluiceError, match=r"indices.*has 3 entries but the batch has 8"):
        run(lambda: fn.permute_batch(counter(), indices=[0, 1, 2]))
    with pytest.raises(sluice.SluiceError, match=r"indices.*index 9 of sample 1 is outside the batch \[0, 8\)"):
        run(lambda: fn.permute_batch(counter(), indices=[0, 9, 2, 3, 4, 5, 6, 7]))


def test_random_beta_matches_the_distribution():
    a, b = 0.4, 0.7
    vals = np.concatenate([o[0].reshape(-1) for o in run(lambda: fn.random.beta(alpha=a, beta=b, shape=[250]),
                                                          iterations=8)])
    assert vals.dtype == np.float32 and ((vals >= 0) & (vals <= 1)).all()
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    assert abs(vals.mean() - mean) < 4 * math.sqrt(var / vals.size)
    assert abs(vals.var() - var) < 0.15 * var
    # Kolmogorov-Smirnov against the exact CDF (scipy-free: the regularized incomplete beta by quadrature).
    xs = np.sort(vals.astype(np.float64))
    grid = np.linspace(0, 1, 200001)[1:-1]
    pdf = grid ** (a - 1) * (1 - grid) ** (b - 1)
    cdf = np.concatenate([[0], np.cumsum((pdf[1:] + pdf[:-1]) / 2)])
    cdf /= cdf[-1]
    f = np.interp(xs, grid, cdf)
    d = np.max(np.maximum(np.arange(1, xs.size + 1) / xs.size - f, f - np.arange(xs.size) / xs.size))
    assert d < 1.63 / math.sqrt(xs.size) + 0.01, d  # 1% level, plus the quadrature's error near the poles


def test_random_beta_per_sample_arguments_and_dtype():
    (v, al), = run(lambda: (lambda al: (fn.random.beta(alpha=al, beta=0.01, shape=[50], dtype=types.FLOAT64), al))(
        fn.random.uniform(range=[50.0, 60.0])))
    assert v.dtype == np.float64
    assert (v.mean(axis=1) > 0.95).all()  # alpha >> beta: close to 1
    with pytest.raises(sluice.SluiceError, match=r"alpha.*> 0"):
        fn.random.beta(alpha=0.0)
    with pytest.raises(sluice.SluiceError, match="dtype"):
        fn.random.beta(dtype=types.INT32)


def test_one_hot_scalars_and_axes():
    def labels():
        return fn.testing.counter(shape=[1])  # [1]-shaped labels, as readers give them

    (lab, oh), = run(lambda: (labels(), fn.one_hot(labels(), num_classes=10)), batch_size=4)
    assert oh.shape == (4, 10) and oh.dtype == np.float32
    np.testing.assert_array_equal(oh, np.eye(10, dtype=np.float32)[lab.reshape(-1)])
    (x, oh), = run(lambda: (counter(), fn.one_hot(counter(), num_classes=12, axis=0, dtype=types.INT32,
                                                   on_value=5, off_value=-1, axis_name="C")), batch_size=2)
    assert oh.shape == (2, 12, 3) and oh.dtype == np.int32
    want = np.where(np.arange(12)[None, :, None] == x[:, None, :], 5, -1)
    np.testing.assert_array_equal(oh, want)
    (x, oh), = run(lambda: (counter(), fn.one_hot(counter(), num_classes=20)), batch_size=2)
    assert oh.shape == (2, 3, 20)
    np.testing.assert_array_equal(oh, (np.arange(20)[None, None, :] == x[:, :, None]).astype(np.float32))


def test_one_hot_errors():
    with pytest.raises((sluice.SluiceError, TypeError), match="num_classes"):
        fn.one_hot(counter())
    with pytest.raises(sluice.SluiceError, match=r"axis_name.*single character"):
        fn.one_hot(counter(), num_classes=3, axis_name="AB")
    with pytest.raises(sluice.SluiceError, match=r"axis.*must be in \[-1, 1\]"):
        run(lambda: fn.one_hot(counter(), num_classes=3, axis=2))


def test_mixup_from_the_blocks():
    """MixUp as DALI users build it: a permutation, a beta weight, the pair mixed and the one-hot
    labels mixed with the same weight."""
    def build():
        x = fn.cast(counter(), dtype=types.FLOAT)
        lab = fn.testing.counter(shape=[1])
        perm = fn.batch_permutation()
        lam = fn.random.beta(alpha=0.4, beta=0.4)
        return x, fn.permute_batch(x, indices=perm), lab, fn.one_hot(lab, num_classes=64), \
            fn.one_hot(fn.permute_batch(lab, indices=perm), num_classes=64), perm, lam
    for x, xp, lab, oh, ohp, perm, lam in run(build, iterations=3):
        np.testing.assert_array_equal(xp, x[perm])
        np.testing.assert_array_equal(ohp, oh[perm])
        mixed = lam[:, None] * oh + (1 - lam[:, None]) * ohp
        np.testing.assert_allclose(mixed.sum(axis=1), 1.0, rtol=1e-6)
