"""fn.experimental.remap on the repository's photographs against OpenCV 4.6's cv2.remap.

DALI runs remap only on the GPU (CV-CUDA); Sluice's CPU version follows its documented semantics:
output(x, y) = input(mapx(x, y), mapy(x, y)), border constant 0, and pixel_origin="center" is
OpenCV's convention ("corner", DALI's default, is cv2.remap of the maps minus 0.5).
Tolerances (uint8): OpenCV's remap rounds coordinates to 1/32 pixel and uses 15-bit weights; Sluice
computes in float32 / double (uint8 RGB linear: 1/2048 pixel, integer blend): linear and cubic mean |diff| < 0.1 and under 0.3% of the values off by
more than 1; nearest: under 0.05% of the pixels differ (coordinates on a rounding tie).
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"


def photo(name="photo_500x375.jpg"):
    Image = pytest.importorskip("PIL.Image")
    return np.asarray(Image.open(IMAGES / name).convert("RGB"))


def maps(h, w, oh, ow):
    """A swirl plus a downscale, reaching past the image's edges."""
    y, x = np.mgrid[0:oh, 0:ow].astype(np.float32)
    cx, cy = ow / 2, oh / 2
    r = np.hypot(x - cx, y - cy)
    a = 0.6 * np.exp(-r / (0.4 * max(oh, ow)))
    mx = cx + (x - cx) * np.cos(a) - (y - cy) * np.sin(a)
    my = cy + (x - cx) * np.sin(a) + (y - cy) * np.cos(a)
    return (mx * (w / ow) * 1.05 - 5).astype(np.float32), (my * (h / oh) * 1.05 - 5).astype(np.float32)


def run(images, mxs, mys, layout="HWC", **kwargs):
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        mx = fn.external_source(source=lambda: list(mxs))
        my = fn.external_source(source=lambda: list(mys))
        pipe.set_outputs(fn.experimental.remap(src, mx, my, **kwargs))
    out = pipe.run()[0]
    return [np.array(out.at(i)) for i in range(len(images))]


def check_close(got, ref, interp):
    assert got.shape == ref.shape and got.dtype == ref.dtype
    d = np.abs(got.astype(np.int32) - ref.astype(np.int32))
    if interp == "NN":
        assert (d.max(axis=-1) > 0).mean() < 5e-4, (d > 0).mean()
    else:
        assert d.mean() < 0.1, d.mean()
        assert (d > 1).mean() < 3e-3, (d > 1).mean()


@pytest.mark.parametrize("interp", ["NN", "LINEAR", "CUBIC"])
@pytest.mark.parametrize("origin", ["center", "corner"])
def test_matches_cv2_remap(interp, origin):
    cv2 = pytest.importorskip("cv2")
    img = photo()
    h, w = img.shape[:2]
    mx, my = maps(h, w, 300, 420)
    got = run([img], [mx], [my], interp=getattr(types, "INTERP_" + interp), pixel_origin=origin)[0]
    assert got.shape == (300, 420, 3)
    s = 0.0 if origin == "center" else 0.5
    flag = {"NN": cv2.INTER_NEAREST, "LINEAR": cv2.INTER_LINEAR, "CUBIC": cv2.INTER_CUBIC}[interp]
    ref = cv2.remap(img, mx - s, my - s, flag, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    check_close(got, ref, interp)


def test_gray_float_and_hwc_maps():
    cv2 = pytest.importorskip("cv2")
    img = photo("s444.jpg")
    gray = np.ascontiguousarray(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)).astype(np.float32)
    h, w = gray.shape
    mx, my = maps(h, w, h, w)
    got = run([gray], [mx[..., None]], [my[..., None]], layout="HW", pixel_origin="center")[0]
    ref = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    d = np.abs(got - ref)  # OpenCV's 1/32-pixel coordinates
    assert d.mean() < 0.1 and d.max() < 8, (d.mean(), d.max())


def test_bad_arguments_and_maps():
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pytest.raises(Exception, match="interp"):
        with pipe:
            src = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)])
            m = fn.external_source(source=lambda: [np.zeros((4, 4), np.float32)])
            fn.experimental.remap(src, m, m, interp=types.INTERP_LANCZOS3)
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(Exception, match="same shape"):
        run([img], [np.zeros((4, 4), np.float32)], [np.zeros((4, 5), np.float32)])
