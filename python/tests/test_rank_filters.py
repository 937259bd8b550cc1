"""fn.experimental.median_blur / dilate / erode on the repository's photographs against OpenCV 4.6.

DALI runs these only on the GPU (CV-CUDA); Sluice's CPU versions follow CV-CUDA's semantics, which
OpenCV shares: window_size / mask_size are (width, height), anchor (x, y);
- median_blur: cv2.medianBlur (BORDER_REPLICATE) for square odd windows, identical values; other
  windows against a NumPy median over the replicated-border window (rank (w * h) // 2);
- dilate / erode: cv2.dilate / cv2.erode with a rectangular element, the same anchor and iterations
  (OpenCV grows a rectangular element as DALI documents) and border: constant (OpenCV's default
  border value is the neutral one, as CV-CUDA's for integer types), replicate, reflect and
  reflect_101 — identical values; wrap (OpenCV's morphology does not take BORDER_WRAP) against NumPy.
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "s444.jpg", "progressive.jpg"]


def photos():
    Image = pytest.importorskip("PIL.Image")
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run(op, images, layout="HWC", arg_inputs=None, **kwargs):
    arg_inputs = arg_inputs or {}
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        extra = {k: fn.external_source(source=lambda v=v: [np.asarray(x) for x in v]) for k, v in arg_inputs.items()}
        pipe.set_outputs(op(src, **extra, **kwargs))
    out = pipe.run()[0]
    return [np.array(out.at(i)) for i in range(len(images))]


def numpy_rank(img, kw, kh, ax, ay, mode, reducer):
    pad = np.pad(img, ((ay, kh - 1 - ay), (ax, kw - 1 - ax), (0, 0)), mode=mode)
    wins = np.lib.stride_tricks.sliding_window_view(pad, (kh, kw), axis=(0, 1))
    return reducer(wins.reshape(*wins.shape[:3], -1))


@pytest.mark.parametrize("k", [3, 5, 7])
def test_median_blur_matches_cv2(k):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    got = run(fn.experimental.median_blur, imgs, **({} if k == 3 else {"window_size": [k, k]}))
    for img, g in zip(imgs, got):
        np.testing.assert_array_equal(g, cv2.medianBlur(img, k))


def test_median_blur_float_gray_and_rectangular_windows():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()[:2]
    f = [i.astype(np.float32) / 255 for i in imgs]
    for img, g in zip(f, run(fn.experimental.median_blur, f, window_size=5)):
        np.testing.assert_array_equal(g, cv2.medianBlur(img, 5))
    gray = [np.ascontiguousarray(i[..., 0]) for i in imgs]
    got = run(fn.experimental.median_blur, gray, layout="HW",
              arg_inputs={"window_size": [np.int32([5, 3]), np.int32([2, 4])]})
    for img, g, (kw, kh) in zip(gray, got, [(5, 3), (2, 4)]):
        ref = numpy_rank(img[..., None], kw, kh, kw // 2, kh // 2, "edge", lambda w: np.sort(w, -1)[..., (kw * kh) // 2])
        np.testing.assert_array_equal(g, ref[..., 0])


BORDERS = {"constant": None, "replicate": "BORDER_REPLICATE", "reflect": "BORDER_REFLECT",
           "reflect_101": "BORDER_REFLECT_101"}


@pytest.mark.parametrize("name", ["dilate", "erode"])
@pytest.mark.parametrize("border", list(BORDERS))
@pytest.mark.parametrize("mask,anchor,iterations", [((3, 3), (-1, -1), 1), ((5, 3), (0, 2), 1), ((3, 5), (-1, -1), 3)])
def test_morphology_matches_cv2(name, border, mask, anchor, iterations):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    op = getattr(fn.experimental, name)
    got = run(op, imgs, mask_size=list(mask), anchor=list(anchor), iterations=iterations, border_mode=border)
    kernel = np.ones((mask[1], mask[0]), np.uint8)
    kw = {} if BORDERS[border] is None else {"borderType": getattr(cv2, BORDERS[border])}
    for img, g in zip(imgs, got):
        ref = getattr(cv2, name)(img, kernel, anchor=tuple(anchor), iterations=iterations, **kw)
        np.testing.assert_array_equal(g, ref)


def test_morphology_wrap_per_sample_and_planar():
    imgs = photos()[:2]
    got = run(fn.experimental.dilate, imgs, border_mode="wrap",
              arg_inputs={"mask_size": [np.int32([3, 3]), np.int32([4, 2])], "anchor": [np.int32([-1, -1]), np.int32([3, 0])]})
    for img, g, (kw, kh, ax, ay) in zip(imgs, got, [(3, 3, 1, 1), (4, 2, 3, 0)]):
        np.testing.assert_array_equal(g, numpy_rank(img, kw, kh, ax, ay, "wrap", lambda w: w.max(-1)))
    chw = [np.ascontiguousarray(i.transpose(2, 0, 1)) for i in imgs]
    got = run(fn.experimental.erode, chw, layout="CHW", mask_size=5)
    for img, g in zip(imgs, got):
        np.testing.assert_array_equal(g.transpose(1, 2, 0), numpy_rank(img, 5, 5, 2, 2, "edge", lambda w: w.min(-1)))


@pytest.mark.parametrize(
    "op,kw,arg",
    [
        ("median_blur", dict(window_size=0), "window_size"),
        ("median_blur", dict(window_size=[3, 3, 3]), "window_size"),
        ("dilate", dict(mask_size=[0, 3]), "mask_size"),
        ("dilate", dict(anchor=[3, 0]), "anchor"),
        ("erode", dict(anchor=-2), "anchor"),
        ("erode", dict(iterations=0), "iterations"),
        ("erode", dict(border_mode="mirror"), "border_mode"),
    ],
)
def test_bad_arguments_rejected_at_the_call(op, kw, arg):
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pytest.raises(Exception, match=arg):
        with pipe:
            getattr(fn.experimental, op)(fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)]), **kw)
