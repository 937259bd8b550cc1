"""sluice.auto_aug: each augmentation against torchvision 0.14's functional counterpart on real
photographs, the per-sample switch (_select.split/merge) that applies one operation per sample,
the choice frequencies of RandAugment/TrivialAugment (chi-square), AutoAugment's step
probabilities, determinism for any num_threads, and the argument errors.

Reference tolerances, from how the libraries differ (measured on tests/data/images):
- geometry with nearest interpolation (shear, translate, rotate): identical, at magnitudes that put
  no sampling point exactly on a pixel edge (where torchvision's grid_sample rounds half to even and
  DALI's convention takes the pixel containing the point); linear: mean difference below 1 level
  (the two blend the fill value into the edge pixels differently);
- brightness, contrast, color, auto_contrast: within 1-2 levels (Sluice rounds, torchvision truncates
  and rounds its luma image); sharpness: within 1 level away from the 1-pixel border (PIL and
  torchvision leave the border unfiltered);
- posterize, solarize, invert: identical; equalize: identical to OpenCV's equalizeHist per channel
  (DALI's formula; torchvision follows PIL's, which differs by design).
"""
import math
import pathlib

import numpy as np
import pytest

from sluice import fn, pipeline_def, types
from sluice.auto_aug import augmentations as A
from sluice.auto_aug import auto_augment, rand_augment, trivial_augment
from sluice.auto_aug.core import Policy, augmentation, select, signed_bin

torch = pytest.importorskip("torch")
F = pytest.importorskip("torchvision.transforms.functional")
from torchvision.transforms import InterpolationMode  # noqa: E402

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "s444.jpg", "progressive.jpg", "orient_1.jpg"]
NN = InterpolationMode.NEAREST


@pytest.fixture(scope="module")
def photos():
    Image = pytest.importorskip("PIL.Image")
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run_graph(images, graph, threads=2, seed=1, batch_size=None, iterations=1):
    @pipeline_def(batch_size=batch_size or len(images), num_threads=threads, device_id=None, seed=seed,
                  enable_conditionals=True)
    def pipe():
        x = fn.external_source(source=lambda: images, layout="HWC")
        out = graph(x)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    runs = []
    for _ in range(iterations):
        runs.append([[np.asarray(o[i]) for i in range(len(o))] for o in p.run()])
    return runs if iterations > 1 else runs[0]


def fixed(aug, magnitude):
    """`aug` with one magnitude and no random sign: parameter = as_param(magnitude)."""
    return aug.augmentation(mag_range=np.array([magnitude], dtype=np.float32), randomly_negate=False)


def apply_fixed(images, aug, magnitude, **kwargs):
    if magnitude is None:
        return run_graph(images, lambda x: aug(x, **kwargs))[0]
    return run_graph(images, lambda x: fixed(aug, magnitude)(x, magnitude_bin=0, num_magnitude_bins=1, **kwargs))[0]


def torchvision_ref(images, f):
    return [f(torch.from_numpy(np.array(i)).permute(2, 0, 1)).permute(1, 2, 0).numpy() for i in images]


def diffs(out, ref):
    return [np.abs(a.astype(np.int32) - b.astype(np.int32)) for a, b in zip(out, ref)]


FILL = dict(fill_value=128)
TV_FILL = [128, 128, 128]

# name: (augmentation, magnitude, extra arguments, torchvision reference, max difference)
EXACT_GEOMETRY = {
    # DALI's shear magnitude s is the matrix entry; torchvision's angle is atan(s), with the
    # opposite sign convention (x' = x - tan(angle) y); the magnitudes are randomly negated anyway.
    "shear_x": (A.shear_x, -0.23, lambda t: F.affine(t, angle=0.0, translate=[0, 0], scale=1.0,
                                                     shear=[math.degrees(math.atan(0.23)), 0.0],
                                                     interpolation=NN, fill=TV_FILL, center=[0, 0])),
    "shear_y": (A.shear_y, -0.23, lambda t: F.affine(t, angle=0.0, translate=[0, 0], scale=1.0,
                                                     shear=[0.0, math.degrees(math.atan(0.23))],
                                                     interpolation=NN, fill=TV_FILL, center=[0, 0])),
    "translate_x": (A.translate_x_no_shape, 37, lambda t: F.affine(t, angle=0.0, translate=[37, 0], scale=1.0,
                                                                    shear=[0.0, 0.0], interpolation=NN, fill=TV_FILL)),
    "translate_y": (A.translate_y_no_shape, -29, lambda t: F.affine(t, angle=0.0, translate=[0, -29], scale=1.0,
                                                                     shear=[0.0, 0.0], interpolation=NN, fill=TV_FILL)),
    "rotate": (A.rotate, 23, lambda t: F.rotate(t, 23.0, interpolation=NN, fill=TV_FILL)),
}


@pytest.mark.parametrize("name", sorted(EXACT_GEOMETRY))
def test_geometry_nearest_equals_torchvision(photos, name):
    aug, mag, ref = EXACT_GEOMETRY[name]
    out = apply_fixed(photos, aug, mag, interp_type=types.INTERP_NN, **FILL)
    for d, img in zip(diffs(out, torchvision_ref(photos, ref)), photos):
        assert d.shape == img.shape
        # rotate: a handful of sampling points land within float rounding of a pixel edge
        assert (d > 0).mean() <= (1e-4 if name == "rotate" else 0.0), name


def test_translate_with_shape_moves_by_a_fraction_of_the_image(photos):
    out = run_graph(photos, lambda x: fixed(A.translate_x, 0.25)(x, magnitude_bin=0, num_magnitude_bins=1,
                                                                  shape=fn.shapes(x), interp_type=types.INTERP_NN,
                                                                  **FILL))[0]
    for o, img in zip(out, photos):
        dx = int(0.25 * img.shape[1])
        ref = torchvision_ref([img], lambda t: F.affine(t, angle=0.0, translate=[dx, 0], scale=1.0, shear=[0.0, 0.0],
                                                       interpolation=NN, fill=TV_FILL))[0]
        # 0.25 * width is not always whole: compare away from the one column that may round either way
        assert np.array_equal(o[:, dx + 1:], ref[:, dx + 1:])
        assert (o[:, :dx - 1] == 128).all()


@pytest.mark.parametrize("name", ["shear_x", "rotate"])
def test_geometry_linear_close_to_torchvision(photos, name):
    aug, mag, _ = EXACT_GEOMETRY[name]
    ref = {"shear_x": lambda t: F.affine(t, angle=0.0, translate=[0, 0], scale=1.0,
                                         shear=[math.degrees(math.atan(0.23)), 0.0],
                                         interpolation=InterpolationMode.BILINEAR, fill=TV_FILL, center=[0, 0]),
           "rotate": lambda t: F.rotate(t, 23.0, interpolation=InterpolationMode.BILINEAR, fill=TV_FILL)}[name]
    out = apply_fixed(photos, aug, mag, **FILL)
    for d in diffs(out, torchvision_ref(photos, ref)):
        assert d.mean() < 1.0
        assert (d > 1).mean() < 0.05


# Enhance operations: the magnitude m becomes the factor 1 + m (shift_enhance_range).
COLOR = {
    "brightness_up": (A.brightness, 0.6, lambda t: F.adjust_brightness(t, 1.6), 1),
    "brightness_down": (A.brightness, -0.5, lambda t: F.adjust_brightness(t, 0.5), 1),
    "contrast_up": (A.contrast, 0.6, lambda t: F.adjust_contrast(t, 1.6), 1),
    "contrast_down": (A.contrast, -0.6, lambda t: F.adjust_contrast(t, 0.4), 1),
    "color_up": (A.color, 0.6, lambda t: F.adjust_saturation(t, 1.6), 1),
    "color_down": (A.color, -0.7, lambda t: F.adjust_saturation(t, 0.3), 2),
    "posterize": (A.posterize, 3, lambda t: F.posterize(t, 3), 0),
    "solarize": (A.solarize, 100, lambda t: F.solarize(t, 100), 0),
    "auto_contrast": (A.auto_contrast, None, F.autocontrast, 1),
    "invert": (A.invert, None, F.invert, 0),
}


@pytest.mark.parametrize("name", sorted(COLOR))
def test_color_matches_torchvision(photos, name):
    aug, mag, ref, tol = COLOR[name]
    for d in diffs(apply_fixed(photos, aug, mag), torchvision_ref(photos, ref)):
        assert d.max() <= tol, name


@pytest.mark.parametrize("factor", [0.3, 1.7])
def test_sharpness_matches_torchvision_inside_the_border(photos, factor):
    aug = A.sharpness.augmentation(as_param=A.sharpness_kernel_shifted)
    out = apply_fixed(photos, aug, factor)
    for d in diffs(out, torchvision_ref(photos, lambda t: F.adjust_sharpness(t, factor))):
        assert d[1:-1, 1:-1].max() <= 1


def test_equalize_is_opencvs(photos):
    cv2 = pytest.importorskip("cv2")
    for out, img in zip(apply_fixed(photos, A.equalize, None), photos):
        ref = np.stack([cv2.equalizeHist(np.ascontiguousarray(img[..., c])) for c in range(3)], -1)
        assert np.array_equal(out, ref)


def test_magnitude_bins_and_signs():
    """bin b of (lo, hi) in k bins is linspace(lo, hi, k)[b]; a signed bin negates for sign 1."""
    img = [np.full((4, 4, 3), 100, np.uint8)] * 8
    tag = augmentation(mag_range=(0, 30), randomly_negate=True)(lambda s, p: fn.cast(s, dtype=types.FLOAT) * 0 + p)

    def graph(x):
        sign = fn.random.uniform(values=[0, 1], dtype=types.INT32)
        return tag(x, magnitude_bin=signed_bin(7, random_sign=sign), num_magnitude_bins=11), sign

    out, sign = run_graph(img, graph)
    for o, s in zip(out, sign):
        assert np.allclose(o, 21.0 * (-1) ** int(s))
    assert {int(s) for s in sign} == {0, 1}


def tagging_suite(count, with_magnitude=False):
    """Augmentations that replace the image by a tag: op k writes 1000 * k (+ its magnitude)."""
    def make(k):
        def tag(sample, param):
            base = fn.cast(sample, dtype=types.INT32) * 0 + 1000 * k
            return base + fn.cast(param, dtype=types.INT32) if with_magnitude else base
        tag.__name__ = f"tag{k}"
        return augmentation(tag, mag_range=(0, 30) if with_magnitude else None)
    return [make(k) for k in range(count)]


def tags(out):
    return np.array([int(o.reshape(-1)[0]) for o in out])


def chi_square_uniform(values, categories):
    from scipy.stats import chisquare
    counts = np.bincount(values, minlength=categories)
    assert counts.sum() == len(values)
    return chisquare(counts).pvalue


def test_select_applies_one_operation_per_sample():
    img = [np.full((3, 5, 3), i, np.uint8) for i in range(16)]

    def graph(x):
        idx = fn.random.uniform(values=[0, 1, 2], dtype=types.INT32)
        u8 = types.Constant  # typed constants keep uint8 (a Python int is int32, as in DALI)
        out = select([lambda s: s, lambda s: s + u8(100).uint8(), lambda s: u8(255).uint8() - s], idx, x)
        return out, idx

    out, idx = run_graph(img, graph)
    for i, (o, k) in enumerate(zip(out, idx)):
        expected = {0: i, 1: i + 100, 2: 255 - i}[int(k)]
        assert o.shape == (3, 5, 3) and (o == expected).all()


def test_select_with_empty_branches_and_small_batches():
    img = [np.full((2, 2, 3), 7, np.uint8)] * 2
    suite = tagging_suite(12)  # more operations than samples: most branches get no sample
    out = run_graph(img, lambda x: select(suite, fn.random.uniform(values=list(range(12)), dtype=types.INT32),
                                          x), iterations=5)
    for (o,) in out:
        assert all(t % 1000 == 0 and 0 <= t // 1000 < 12 for t in tags(o))


def test_select_rejects_branches_of_different_types():
    img = [np.zeros((2, 2, 3), np.uint8)] * 8
    ops = [lambda s: s, lambda s: fn.cast(s, dtype=types.FLOAT)]
    with pytest.raises(Exception, match=r"_select.merge.*same type"):
        run_graph(img, lambda x: select(ops, fn.random.uniform(values=[0, 1], dtype=types.INT32), x))


def test_rand_augment_choice_is_uniform():
    img = [np.zeros((2, 2, 3), np.uint8)] * 64
    suite = tagging_suite(14)
    runs = run_graph(img, lambda x: rand_augment.apply_rand_augment(suite, x, n=1, m=5), batch_size=64,
                     iterations=40)
    chosen = np.concatenate([tags(o) // 1000 for (o,) in runs])
    assert chi_square_uniform(chosen, 14) > 1e-3


def test_rand_augment_applies_n_independent_operations():
    """With n=2 the second operation sees the first one's output: tag ops that add 1000 * k."""
    img = [np.zeros((2, 2, 3), np.int32)] * 64

    def adder(k):
        def add(sample, _):
            return sample + 1000 * k + 1
        add.__name__ = f"add{k}"
        return augmentation(add)

    suite = [adder(k) for k in range(4)]
    runs = run_graph(img, lambda x: rand_augment.apply_rand_augment(suite, x, n=2, m=0), batch_size=64,
                     iterations=20)
    values = np.concatenate([tags(o) for (o,) in runs]) - 2
    pairs = values // 1000  # k1 + k2
    assert set(np.unique(pairs)) == set(range(7))
    # The sum of two independent uniform draws on {0..3}: P(3) = 4/16.
    assert abs((pairs == 3).mean() - 0.25) < 0.05


def test_trivial_augment_choice_and_magnitude_are_uniform():
    img = [np.zeros((2, 2, 3), np.uint8)] * 64
    suite = tagging_suite(5, with_magnitude=True)
    runs = run_graph(img, lambda x: trivial_augment.apply_trivial_augment(suite, x, num_magnitude_bins=31),
                     batch_size=64, iterations=40)
    t = np.concatenate([tags(o) for (o,) in runs])
    assert chi_square_uniform(t // 1000, 5) > 1e-3
    assert chi_square_uniform(t % 1000, 31) > 1e-3


def test_auto_augment_step_probabilities():
    img = [np.zeros((2, 2, 3), np.int32)] * 64

    def adder(value):
        def add(sample, _):
            return sample + value
        add.__name__ = f"add{value}"
        return augmentation(add)

    a1, a10, a100 = adder(1), adder(10), adder(100)
    policy = Policy("test", num_magnitude_bins=3, sub_policies=[[(a1, 0.3, None), (a10, 1.0, None)],
                                                                [(a100, 0.5, None)]])
    runs = run_graph(img, lambda x: auto_augment.apply_auto_augment(policy, x), batch_size=64, iterations=40)
    t = np.concatenate([tags(o) for (o,) in runs])
    n = len(t)
    assert set(np.unique(t)) <= {0, 10, 11, 100}
    assert abs((t == 11).mean() - 0.5 * 0.3) < 0.03
    assert abs((t == 10).mean() - 0.5 * 0.7) < 0.04
    assert abs((t == 100).mean() - 0.25) < 0.04 and abs((t == 0).mean() - 0.25) < 0.04, n


@pytest.mark.parametrize("policy", ["image_net", "reduced_image_net", "svhn", "reduced_cifar10"])
def test_auto_augment_policies_run(photos, policy):
    (out,) = run_graph(photos, lambda x: auto_augment.auto_augment(x, policy_name=policy))
    assert [o.shape for o in out] == [p.shape for p in photos]
    assert all(o.dtype == np.uint8 for o in out)


@pytest.mark.parametrize("call", [
    lambda x: rand_augment.rand_augment(x, n=2, m=9),
    lambda x: rand_augment.rand_augment(x, n=3, m=15, shape=fn.shapes(x), monotonic_mag=False),
    lambda x: trivial_augment.trivial_augment_wide(x, shape=fn.shapes(x), interp_type=types.INTERP_NN),
    lambda x: auto_augment.auto_augment_image_net(x, fill_value=None),
], ids=["rand", "rand_shape", "trivial", "auto"])
def test_deterministic_for_any_num_threads(photos, call):
    images = (photos * 4)[:12]
    one = run_graph(images, call, threads=1, seed=11, iterations=3)
    two = run_graph(images, call, threads=2, seed=11, iterations=3)
    other_seed = run_graph(images, call, threads=2, seed=12, iterations=3)
    for r1, r2 in zip(one, two):
        assert all(np.array_equal(a, b) for a, b in zip(r1[0], r2[0]))
    assert any(not np.array_equal(a, b) for r1, r3 in zip(one, other_seed) for a, b in zip(r1[0], r3[0]))


def test_rand_augment_changes_each_sample_differently(photos):
    images = (photos * 4)[:16]
    (out,) = run_graph(images, lambda x: rand_augment.rand_augment(x, n=1, m=20, excluded=["identity"]))
    changed = [not np.array_equal(o, i) for o, i in zip(out, images)]
    assert sum(changed) >= 14  # an operation can leave a sample as it was (e.g. equalize of an equalized one)


@pytest.mark.parametrize("call, message", [
    (lambda x: rand_augment.rand_augment(x, n=2, m=31), "magnitude bin m"),
    (lambda x: rand_augment.rand_augment(x, n=-1, m=3), "non-negative"),
    (lambda x: rand_augment.rand_augment(x, n=2, m=3, excluded=["blur"]), "not in the RandAugment suite"),
    (lambda x: rand_augment.rand_augment(x, n=2, m=3, max_translate_rel=0.2), "needs image shapes"),
    (lambda x: rand_augment.apply_rand_augment([A.rotate], x, n=1, m=3, num_magnitude_bins=5, fil_value=3),
     "fil_value"),
    (lambda x: rand_augment.apply_rand_augment([A.translate_x], x, n=1, m=3), "needs the image shapes"),
    (lambda x: auto_augment.auto_augment(x, policy_name="cifar"), "policy_name"),
    (lambda x: auto_augment.auto_augment(x, policy_name="reduced_image_net", max_translate_abs=3), "no translations"),
    (lambda x: trivial_augment.trivial_augment_wide(x, num_magnitude_bins=0), "positive integer"),
    (lambda x: select([], None, x), "empty"),
])
def test_argument_errors(call, message):
    img = [np.zeros((4, 4, 3), np.uint8)]
    with pytest.raises(Exception, match=message):
        run_graph(img, call)


def test_policy_validation():
    with pytest.raises(TypeError, match="not an Augmentation"):
        Policy("p", 11, [[(lambda s, p: s, 0.5, 3)]])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Policy("p", 11, [[(A.rotate, 1.5, 3)]])
    with pytest.raises(ValueError, match=r"\[0, 10\]"):
        Policy("p", 11, [[(A.rotate, 0.5, 11)]])
    renamed = Policy("p", 11, [[(A.rotate, 0.5, 3), (A.rotate.augmentation(mag_range=(0, 10)), 0.5, 1)]])
    assert sorted(renamed.augmentations) == ["0__rotate", "1__rotate"]
    assert list(auto_augment.get_image_net_policy().augmentations) == sorted(
        ["auto_contrast", "color", "equalize", "invert", "posterize", "rotate", "shear_x", "shear_y", "solarize",
         "solarize_add", "translate_y"])


def test_suites_match_dalis_catalogue():
    names = [a.name for a in rand_augment.get_rand_augment_suite()]
    assert names == ["translate_x", "translate_y", "shear_x", "shear_y", "rotate", "brightness", "contrast", "color",
                     "sharpness", "posterize", "solarize", "equalize", "auto_contrast", "identity"]
    assert [a.name for a in trivial_augment.get_trivial_augment_wide_suite()] == names
    assert len(auto_augment.get_image_net_policy().sub_policies) == 25


def test_held_outputs_of_the_switch_stay_intact(photos):
    """_select.split/merge hand out views of other batches' memory: NumPy arrays and torch tensors
    (DLPack) of a merged output keep it alive and unchanged through many further runs, and after
    the pipeline is gone."""
    torch = pytest.importorskip("torch")
    images = (photos * 2)[:8]

    @pipeline_def(batch_size=len(images), num_threads=2, device_id=None, seed=5, enable_conditionals=True)
    def pipe():
        x = fn.external_source(source=lambda: images, layout="HWC")
        return rand_augment.rand_augment(x, n=2, m=9)

    p = pipe()
    p.build()
    (first,) = p.run()
    arrays = [np.asarray(first[i]) for i in range(len(first))]
    tensors = [torch.from_dlpack(first[i]) for i in range(len(first))]
    expected = [a.copy() for a in arrays]
    del first
    later = [p.run()[0] for _ in range(12)]  # the slots come round six times each
    assert any(not np.array_equal(np.asarray(later[-1][i]), expected[i]) for i in range(len(images)))
    del p, later
    for a, t, e in zip(arrays, tensors, expected):
        assert np.array_equal(a, e)
        assert np.array_equal(t.numpy(), e)
