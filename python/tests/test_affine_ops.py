"""fn.transforms.*, fn.warp_affine and fn.rotate from Python, as a DALI user writes them:

- the matrix builders compose as DALI documents (the new transform applied after the input's,
  before it with reverse_order; combine([T1, T2, T3]) = T3 T2 T1), checked with NumPy;
- warp_affine/rotate on real photographs against OpenCV's warpAffine (python3-opencv) with the same
  matrix shifted to OpenCV's integer pixel centres: linear PSNR >= 40 dB, nearest exact away from
  the border and from pixel edges (OpenCV's coordinates are fixed point, 1/1024 pixel);
- rotate's output size is DALI's bounding box with its parity rule, the rotation counter-clockwise.
"""
import math
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "progressive.jpg"]


def photos():
    Image = pytest.importorskip("PIL.Image")
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run(build, batch_size=2, threads=2):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, seed=3)
    with pipe:
        outs = build()
        pipe.set_outputs(*outs)
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(batch_size)] for o in res]


def mat3(m):
    return np.vstack([np.asarray(m, np.float64).reshape(2, 3), [0, 0, 1]])


def rot(deg, center=(0, 0)):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    r = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    cx, cy = center
    return tr((cx, cy)) @ r @ tr((-cx, -cy))


def tr(off):
    return np.array([[1, 0, off[0]], [0, 1, off[1]], [0, 0, 1]], np.float64)


def test_builders_and_composition_order():
    outs = run(lambda: (
        fn.transforms.rotation(angle=30, center=[10, 20]),
        fn.transforms.translation(fn.transforms.rotation(angle=30), offset=[4, -1]),
        fn.transforms.translation(fn.transforms.rotation(angle=30), offset=[4, -1], reverse_order=True),
        fn.transforms.combine(fn.transforms.rotation(angle=30), fn.transforms.translation(offset=[4, -1]),
                              fn.transforms.scale(scale=[2, 0.5])),
        fn.transforms.shear(angles=[45, 0]),
        fn.transforms.scale(scale=[2, 3], center=[1, 2]),
        fn.transforms.crop(from_start=[10, 20], from_end=[30, 60]),
    ))
    R, T, S = rot(30), tr((4, -1)), np.diag([2, 0.5, 1])
    for i in range(2):
        assert outs[0][i].shape == (2, 3) and outs[0][i].dtype == np.float32
        np.testing.assert_allclose(mat3(outs[0][i]), rot(30, (10, 20)), atol=1e-5)
        np.testing.assert_allclose(mat3(outs[1][i]), T @ R, atol=1e-5)
        np.testing.assert_allclose(mat3(outs[2][i]), R @ T, atol=1e-5)
        np.testing.assert_allclose(mat3(outs[3][i]), S @ T @ R, atol=1e-5)
        np.testing.assert_allclose(outs[4][i], [[1, 1, 0], [0, 1, 0]], atol=1e-6)
        np.testing.assert_allclose(outs[5][i], [[2, 0, -1], [0, 3, -4]], atol=1e-6)
        np.testing.assert_allclose(mat3(outs[6][i]) @ [10, 20, 1], [0, 0, 1], atol=1e-6)
        np.testing.assert_allclose(mat3(outs[6][i]) @ [30, 60, 1], [1, 1, 1], atol=1e-6)


def test_per_sample_angle():
    outs = run(lambda: (lambda a: (fn.transforms.rotation(angle=a), a))(fn.random.uniform(range=(-30, 30))), batch_size=4)
    for m, a in zip(*outs):
        np.testing.assert_allclose(mat3(m), rot(float(a)), atol=1e-5)
    assert len({float(a) for a in outs[1]}) > 1


def cv_warp(img, m, size, nearest, fill=0):
    cv2 = pytest.importorskip("cv2")
    m = np.asarray(m, np.float64).reshape(2, 3)
    a = m.copy()
    a[:, 2] = m[:, :2] @ [0.5, 0.5] + m[:, 2] - 0.5  # DALI's half-pixel convention in OpenCV's frame
    flags = (cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR) | cv2.WARP_INVERSE_MAP
    return cv2.warpAffine(img, a, (size[1], size[0]), flags=flags, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=(fill,) * 4)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def interior_mask(m, out_hw, in_hw):
    ys, xs = np.mgrid[0:out_hw[0], 0:out_hw[1]] + 0.5
    m = np.asarray(m, np.float64).reshape(2, 3)
    sx = m[0, 0] * xs + m[0, 1] * ys + m[0, 2]
    sy = m[1, 0] * xs + m[1, 1] * ys + m[1, 2]
    near = lambda v: np.abs(v - np.round(v)) < 2 / 1024
    return (sx > 1) & (sy > 1) & (sx < in_hw[1] - 1) & (sy < in_hw[0] - 1) & ~near(sx) & ~near(sy)


@pytest.mark.parametrize("interp", [types.INTERP_LINEAR, types.INTERP_NN])
def test_warp_affine_matches_opencv(interp):
    imgs = photos()
    h, w = imgs[0].shape[:2]
    m = (rot(25, (w / 2, h / 2)) @ tr((7.5, -3.25)))[:2].ravel().tolist()
    outs = run(lambda: (fn.warp_affine(fn.external_source(source=lambda: imgs, layout="HWC"), matrix=m, size=[300, 420],
                                       fill_value=0, interp_type=interp),))
    for img, got in zip(imgs, outs[0]):
        assert got.shape == (300, 420, 3) and got.dtype == np.uint8
        ref = cv_warp(img, m, (300, 420), interp == types.INTERP_NN)
        if interp == types.INTERP_LINEAR:
            assert psnr(got, ref) >= 40
        else:
            mask = interior_mask(m, (300, 420), img.shape[:2])
            assert mask.sum() > 5000  # enough pixels compared (the smaller photo covers part of the output)
            np.testing.assert_array_equal(got[mask], ref[mask])


def test_warp_affine_takes_matrices_from_transforms():
    imgs = photos()

    def build():
        src = fn.external_source(source=lambda: imgs, layout="HWC")
        t = fn.transforms.rotation(angle=fn.random.uniform(range=(-20, 20)), center=[100, 80])
        return fn.warp_affine(src, t, fill_value=0), fn.warp_affine(src, matrix=t, fill_value=0), t

    by_input, by_arg, mats = run(build)
    for img, a, b, m in zip(imgs, by_input, by_arg, mats):
        np.testing.assert_array_equal(a, b)
        assert a.shape == img.shape
        assert psnr(a, cv_warp(img, m, img.shape[:2], False)) >= 40


def test_rotate_size_direction_and_opencv():
    imgs = photos()
    outs = run(lambda: (lambda s: (fn.rotate(s, angle=10, fill_value=0), fn.rotate(s, angle=90, interp_type=types.INTERP_NN),
                                   fn.rotate(s, angle=-35, keep_size=True)))(
        fn.external_source(source=lambda: imgs, layout="HWC")))
    for img, r10, r90, keep in zip(imgs, *outs):
        h, w = img.shape[:2]
        c, s = abs(math.cos(math.radians(10))), abs(math.sin(math.radians(10)))
        ow, oh = math.ceil(c * w + s * h - 0.01), math.ceil(c * h + s * w - 0.01)
        ow += (ow % 2) ^ (w % 2)
        oh += (oh % 2) ^ (h % 2)
        assert r10.shape == (oh, ow, 3)
        # DALI's mapping: T(in / 2) R(angle) T(-out / 2), counter-clockwise on screen.
        m = (tr((w / 2, h / 2)) @ rot(10) @ tr((-ow / 2, -oh / 2)))[:2]
        assert psnr(r10, cv_warp(img, m, (oh, ow), False)) >= 40
        np.testing.assert_array_equal(r90, np.rot90(img))
        assert keep.shape == img.shape
