"""fn.laplacian on the repository's photographs against OpenCV 4.6:

- defaults (window_size 3) and window_size 5/7: cv2.Laplacian(ksize=k, BORDER_REFLECT_101) — identical
  values for CV_16S / float32 output computed from uint8 (every sum is an exact integer), and for
  uint8 output (both saturate);
- smoothing_size, per-axis windows, scale and normalized_kernel (which OpenCV's Laplacian does not
  have): the sum of two cv2.sepFilter2D calls with DALI's windows (binomial smoothing, [1, -2, 1]
  convolved with the smoothing window two shorter), float32, within 1e-4 relative. DALI 2.4's CPU
  laplacian gave these same numbers (checked against it when the operator was written: window 5,
  7 with smoothing 3, [3, 5] with [1, 3] and scale [0.5, 2], normalized_kernel, within float rounding;
  the DALI goldens, test_dali_goldens_image.py, now check them). Without smoothing_size each partial
  derivative smooths with its own window size (DALI's rule, visible with per-axis windows); windows
  go up to 31, as DALI 2.4;
- per-sample window_size / scale, CHW and gray (HW) inputs.
"""
import math
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


def run(images, layout="HWC", arg_inputs=None, **kwargs):
    arg_inputs = arg_inputs or {}
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        extra = {k: fn.external_source(source=lambda v=v: [np.asarray(x) for x in v]) for k, v in arg_inputs.items()}
        pipe.set_outputs(fn.laplacian(src, **extra, **kwargs))
    out = pipe.run()[0]
    return [np.array(out.at(i)) for i in range(len(images))]


def smooth(n):
    return np.array([math.comb(n - 1, k) for k in range(n)], np.float64)


def deriv(n):
    return np.convolve(smooth(n - 2), [1, -2, 1])


def reference(cv2, img, ws, ss=None, scale=(1.0, 1.0), normalized=False):
    wy, wx = (ws, ws) if np.isscalar(ws) else ws
    if ss is None:  # DALI: each partial derivative smooths with its own window size
        sy, sx = wx, wy
    else:
        sy, sx = (ss, ss) if np.isscalar(ss) else ss
    f = img.astype(np.float32)
    if normalized:
        scale = (2.0 ** (-(wy + sx) + 4), 2.0 ** (-(wx + sy) + 4))
    # sepFilter2D(kernelX, kernelY): d/dH has the derivative along y and smoothing along x.
    dy = cv2.sepFilter2D(f, cv2.CV_32F, smooth(sx), deriv(wy), borderType=cv2.BORDER_REFLECT_101)
    dx = cv2.sepFilter2D(f, cv2.CV_32F, deriv(wx), smooth(sy), borderType=cv2.BORDER_REFLECT_101)
    return scale[0] * dy + scale[1] * dx


@pytest.mark.parametrize("ksize", [3, 5, 7])
def test_matches_cv2_laplacian(ksize):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    kw = {} if ksize == 3 else {"window_size": ksize}
    got8 = run(imgs, **kw)
    gotf = run(imgs, dtype=np.float32, **kw)
    for img, g8, gf in zip(imgs, got8, gotf):
        assert g8.dtype == np.uint8 and gf.dtype == np.float32
        np.testing.assert_array_equal(g8, cv2.Laplacian(img, cv2.CV_8U, ksize=ksize))
        np.testing.assert_array_equal(gf, cv2.Laplacian(img, cv2.CV_32F, ksize=ksize))


@pytest.mark.parametrize(
    "kw",
    [
        dict(window_size=7, smoothing_size=3),
        dict(window_size=[3, 5], smoothing_size=[1, 3], scale=[0.5, 2.0]),
        dict(window_size=5, normalized_kernel=True),
        dict(window_size=[9, 3], smoothing_size=1, scale=-1.5),
        dict(window_size=[3, 7]),
        dict(window_size=[7, 3], normalized_kernel=True),
        dict(window_size=[31, 25], smoothing_size=[29, 31], normalized_kernel=True),
        dict(window_size=[3, 5]),  # d/dH smooths along W with 3, d/dW along H with 5 (DALI 2.4)
    ],
)
def test_dali_arguments_match_separable_reference(kw):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    got = run(imgs, dtype=np.float32, **kw)
    sc = kw.get("scale", 1.0)
    sc = (sc, sc) if np.isscalar(sc) else tuple(sc)
    for img, g in zip(imgs, got):
        ref = reference(cv2, img, kw["window_size"], kw.get("smoothing_size"), sc, kw.get("normalized_kernel", False))
        np.testing.assert_allclose(g, ref, rtol=0, atol=1e-4 * np.abs(ref).max())


def test_per_sample_arguments_planar_and_gray():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()[:2]
    gray = [np.ascontiguousarray(cv2.cvtColor(i, cv2.COLOR_RGB2GRAY)) for i in imgs]
    got = run(gray, layout="HW", dtype=np.float32,
              arg_inputs={"window_size": [np.int32([5]), np.int32([3])], "scale": [np.float32([2.0]), np.float32([0.5])]})
    np.testing.assert_array_equal(got[0], 2.0 * cv2.Laplacian(gray[0], cv2.CV_32F, ksize=5))
    np.testing.assert_array_equal(got[1], 0.5 * cv2.Laplacian(gray[1], cv2.CV_32F, ksize=3))
    chw = [np.ascontiguousarray(i.transpose(2, 0, 1)) for i in imgs]
    got = run(chw, layout="CHW", dtype=np.int16)
    for img, g in zip(imgs, got):
        np.testing.assert_array_equal(g.transpose(1, 2, 0), cv2.Laplacian(img, cv2.CV_16S, ksize=3))


@pytest.mark.parametrize(
    "kw,arg",
    [
        (dict(window_size=4), "window_size"),
        (dict(window_size=33), "window_size"),
        (dict(smoothing_size=33), "smoothing_size"),
        (dict(smoothing_size=0), "smoothing_size"),
        (dict(scale=[1.0, 2.0, 3.0, 4.0]), "scale"),
        (dict(scale=2.0, normalized_kernel=True), "scale"),
    ],
)
def test_bad_arguments_rejected_at_the_call(kw, arg):
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pytest.raises(Exception, match=arg):
        with pipe:
            fn.laplacian(fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)]), **kw)


def correlate_axis(v, w, axis):
    """1-D correlation along `axis`, reflect-101 borders (numpy's "reflect")."""
    r = len(w) // 2
    pad = [(0, 0)] * v.ndim
    pad[axis] = (r, r)
    p = np.pad(v, pad, mode="reflect")
    n = v.shape[axis]
    return sum(w[k] * np.take(p, np.arange(k, k + n), axis=axis) for k in range(len(w)))


@pytest.mark.parametrize("layout", ["DHWC", "CDHW", "DHW"])
@pytest.mark.parametrize("kw", [dict(), dict(window_size=[3, 5, 3], scale=[0.5, 1.0, 2.0]),
                                dict(window_size=5, smoothing_size=[1, 3, 5], normalized_kernel=True)])
def test_volumes_sum_three_partial_derivatives(layout, kw):
    # DALI's 3-D Laplacian (golden cov_vol_laplacian; these arguments were checked against DALI 2.4).
    vol = np.random.default_rng(1).random((6, 9, 11)).astype(np.float32) * 100
    data = {"DHWC": vol[..., None], "CDHW": vol[None], "DHW": vol}[layout]
    (got,) = run([data], layout=layout, dtype=np.float32, **kw)
    ws = kw.get("window_size", 3)
    ws = [ws] * 3 if np.isscalar(ws) else ws
    sc = kw.get("scale", 1.0)
    sc = [sc] * 3 if np.isscalar(sc) else sc
    ref = np.zeros(vol.shape, np.float64)
    for a in range(3):
        sizes = [ws[a] if b == a else kw["smoothing_size"][b] if "smoothing_size" in kw else ws[a] for b in range(3)]
        part = vol.astype(np.float64)
        for b in range(3):
            part = correlate_axis(part, deriv(sizes[b]) if b == a else smooth(sizes[b]), b)
        factor = 2.0 ** (-sum(sizes) + 5) if kw.get("normalized_kernel") else sc[a]
        ref += factor * part
    np.testing.assert_allclose(got.reshape(vol.shape), ref, rtol=0, atol=1e-4 * np.abs(ref).max())
