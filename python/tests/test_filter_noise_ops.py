"""fn.gaussian_blur, fn.filter, fn.noise.*, fn.erase, fn.grid_mask and fn.jpeg_compression_distortion
on real photographs against independent references:

- gaussian_blur: OpenCV's cv2.GaussianBlur with the same sigma and window (BORDER_REFLECT_101),
  within 1 LSB; DALI's window from sigma (2 * ceil(3 sigma) + 1) and sigma from window;
- filter: cv2.filter2D (a correlation, anchor at the centre, BORDER_REFLECT_101 / CONSTANT), within 1 LSB;
- noise.gaussian / noise.shot / noise.salt_and_pepper: statistics of the added noise and per-sample
  determinism across num_threads;
- erase: exact pixels against NumPy slicing; grid_mask: NumPy evaluation of DALI's formula;
- jpeg_compression_distortion: Pillow's JPEG encode + decode at the same quality (4:2:0), and lower
  quality gives lower PSNR.
"""
import io
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


def run(images, op, *extra_inputs, args=None, layout="HWC", threads=2, seed=11, iterations=1, **kwargs):
    args = args or {}
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=threads, seed=seed)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        extras = [fn.external_source(source=lambda e=e: list(e)) for e in extra_inputs]
        drawn = {name: fn.random.uniform(range=rng) for name, rng in args.items()}
        out = op(src, *extras, **drawn, **kwargs)
        pipe.set_outputs(out, *drawn.values())
    results = []
    for _ in range(iterations):
        outs = pipe.run()
        samples = [np.array(outs[0].at(i)) for i in range(len(images))]
        values = {name: [float(np.array(outs[k + 1].at(i))) for i in range(len(images))] for k, name in enumerate(args)}
        results.append((samples, values))
    return results[0] if iterations == 1 else results


def max_diff(a, b):
    return int(np.abs(a.astype(np.int32) - b.astype(np.int32)).max())


def dali_window(sigma):
    return 2 * math.ceil(3 * sigma) + 1


@pytest.mark.parametrize("sigma,window", [(1.0, None), ((2.5, 0.8), None), (None, (5, 9)), ((1.3, 3.0), (7, 11))])
def test_gaussian_blur_matches_opencv(sigma, window):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    kwargs = {}
    if sigma is not None:
        kwargs["sigma"] = sigma
    if window is not None:
        kwargs["window_size"] = window
    out, _ = run(imgs, fn.gaussian_blur, **kwargs)
    sy, sx = (sigma if isinstance(sigma, tuple) else (sigma, sigma)) if sigma else (0, 0)
    wy, wx = (window if isinstance(window, tuple) else (window, window)) if window else (dali_window(sy), dali_window(sx))
    if not sy:
        sy, sx = ((wy - 1) // 2 - 1) * 0.3 + 0.8, ((wx - 1) // 2 - 1) * 0.3 + 0.8
    for img, got in zip(imgs, out):
        ref = cv2.GaussianBlur(img, (wx, wy), sigmaX=sx, sigmaY=sy, borderType=cv2.BORDER_REFLECT_101)
        assert got.shape == img.shape and got.dtype == np.uint8
        assert max_diff(got, ref) <= 1


def test_gaussian_blur_per_sample_sigma_and_float_output():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    out, vals = run(imgs, fn.gaussian_blur, args={"sigma": (0.5, 3.0)}, dtype=sluice.types.FLOAT)
    for img, got, s in zip(imgs, out, vals["sigma"]):
        w = dali_window(s)
        ref = cv2.GaussianBlur(img.astype(np.float32), (w, w), sigmaX=s, sigmaY=s, borderType=cv2.BORDER_REFLECT_101)
        assert got.dtype == np.float32
        assert np.abs(got - ref).max() < 0.05


def gaussian_1d(sigma):
    r = math.ceil(3 * sigma)
    g = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma ** 2))
    return g / g.sum()


@pytest.mark.parametrize("layout", ["DHWC", "CDHW", "DHW"])
def test_gaussian_blur_volumes_in_3d(layout):
    # An impulse far from the borders spreads into the outer product of the three 1-D Gaussians
    # (DALI blurs volumes in 3-D; cov_gaussian_blur_volume checks values against DALI itself).
    vol = np.zeros((11, 13, 15), np.float32)
    vol[5, 6, 7] = 1000
    sig = (1.0, 1.5, 0.8)
    data = {"DHWC": vol[..., None], "CDHW": vol[None], "DHW": vol}[layout]
    (got,), _ = run([data], fn.gaussian_blur, layout=layout, sigma=list(sig))
    gd, gh, gw = (gaussian_1d(s) for s in sig)
    want = np.zeros_like(vol, dtype=np.float64)
    want[5 - len(gd) // 2:5 + len(gd) // 2 + 1, 6 - len(gh) // 2:6 + len(gh) // 2 + 1,
         7 - len(gw) // 2:7 + len(gw) // 2 + 1] = 1000 * np.einsum("i,j,k->ijk", gd, gh, gw)
    assert got.shape == data.shape
    np.testing.assert_allclose(got.reshape(vol.shape), want, atol=1e-3)


def test_gaussian_blur_volume_needs_one_or_three_values():
    vol = np.zeros((4, 6, 6, 1), np.uint8)
    with pytest.raises(sluice.SluiceError, match=r"sigma.*expected 1 value or 3"):
        run([vol], fn.gaussian_blur, layout="DHWC", sigma=[1.0, 2.0])


@pytest.mark.parametrize("border,cv_border", [("reflect_101", "BORDER_REFLECT_101"), ("constant", "BORDER_CONSTANT"),
                                              ("clamp", "BORDER_REPLICATE"), ("reflect_1001", "BORDER_REFLECT"),
                                              ("wrap", "BORDER_WRAP")])
def test_filter_matches_opencv_filter2d(border, cv_border):
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    rng = np.random.default_rng(3)
    filters = [rng.uniform(-0.3, 0.5, size=(3, 5)).astype(np.float32) for _ in imgs]
    out, _ = run(imgs, fn.filter, filters, border=border)
    for img, f, got in zip(imgs, filters, out):
        if cv_border == "BORDER_WRAP":  # filter2D has no wrap: pad by hand, then take the valid part
            padded = np.pad(img.astype(np.float32), ((1, 1), (2, 2), (0, 0)), mode="wrap")
            ref = cv2.filter2D(padded, -1, f, borderType=cv2.BORDER_CONSTANT)[1:-1, 2:-2]
            ref = np.clip(np.round(ref), 0, 255).astype(np.uint8)
        else:
            ref = cv2.filter2D(img, -1, f, borderType=getattr(cv2, cv_border))
        assert max_diff(got, ref) <= 1, border


def test_filter_valid_mode_shape():
    imgs = [np.zeros((10, 12, 3), np.uint8)]
    out, _ = run(imgs, fn.filter, [np.ones((3, 5), np.float32)], mode="valid")
    assert out[0].shape == (8, 8, 3)


def test_noise_gaussian_statistics_and_thread_determinism():
    imgs = [np.full((128, 128, 3), 100, np.uint8) for _ in range(4)]
    out, _ = run(imgs, fn.noise.gaussian, mean=3.0, stddev=8.0)
    for o in out:
        d = o.astype(np.float64) - 100
        assert abs(d.mean() - 3.0) < 0.3 and abs(d.std() - 8.0) < 0.3
    assert not np.array_equal(out[0], out[1])
    for op in (fn.noise.gaussian, fn.noise.shot, fn.noise.salt_and_pepper):
        a = run(imgs, op, threads=1, iterations=2)
        b = run(imgs, op, threads=3, iterations=2)
        for (sa, _), (sb, _) in zip(a, b):
            for x, y in zip(sa, sb):
                np.testing.assert_array_equal(x, y)


def test_noise_shot_and_salt_and_pepper_statistics():
    img = np.full((200, 200, 3), 120, np.uint8)
    (shot,), _ = run([img], fn.noise.shot, factor=2.0)
    assert abs(shot.mean() - 120) < 0.5
    assert abs(shot.astype(np.float64).var() - 120 * 2) < 15
    (sp,), _ = run([img], fn.noise.salt_and_pepper, prob=0.2, salt_vs_pepper=0.75)
    assert (sp == sp[..., :1]).all()  # per pixel: all channels alike
    assert abs((sp[..., 0] == 255).mean() - 0.15) < 0.01
    assert abs((sp[..., 0] == 0).mean() - 0.05) < 0.01
    (spc,), _ = run([img], fn.noise.salt_and_pepper, prob=0.2, per_channel=True)
    assert (spc != spc[..., :1]).any(axis=-1).mean() > 0.2


def test_erase_matches_numpy_slicing():
    imgs = photos()
    out, _ = run(imgs, fn.erase, anchor=(10, 20, 100, 300), shape=(50, 60, 40, 1000), fill_value=(1, 2, 3))
    for img, got in zip(imgs, out):
        ref = img.copy()
        ref[10:60, 20:80] = (1, 2, 3)
        ref[100:140, 300:] = (1, 2, 3)
        np.testing.assert_array_equal(got, ref)
    out, _ = run(imgs, fn.erase, anchor=(0.25,), shape=(0.5,), axis_names="W", normalized=True, fill_value=7)
    for img, got in zip(imgs, out):
        w = img.shape[1]
        ref = img.copy()
        ref[:, int(np.float32(0.25) * w):int(np.float32(0.25) * w + np.float32(0.5) * w)] = 7
        np.testing.assert_array_equal(got, ref)


def grid_mask_ref(img, tile, ratio, angle, sx, sy):
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    ca, sa = math.cos(angle) / tile, math.sin(angle) / tile
    fx = -sx / tile - y * sa + x * ca
    fy = -sy / tile + y * ca + x * sa
    fxr, fyr = fx - np.floor(fx), fy - np.floor(fy)
    keep = (fxr >= ratio) | (fyr >= ratio)
    edge = (np.abs(fxr - ratio) < 1e-4) | (np.abs(fyr - ratio) < 1e-4) | (np.minimum(fxr, 1 - fxr) < 1e-4) | (np.minimum(fyr, 1 - fyr) < 1e-4)
    return img * keep[..., None], edge


def test_grid_mask_matches_dalis_formula():
    imgs = photos()
    for tile, ratio, angle, sx, sy in [(100, 0.5, 0.0, 0.0, 0.0), (37, 0.3, 0.5, 10.0, -4.0), (64, 0.7, -1.0, 0.0, 20.0)]:
        out, _ = run(imgs, fn.grid_mask, tile=tile, ratio=ratio, angle=angle, shift_x=sx, shift_y=sy)
        for img, got in zip(imgs, out):
            ref, edge = grid_mask_ref(img, tile, ratio, angle, sx, sy)
            np.testing.assert_array_equal(got[~edge], ref[~edge])


def test_jpeg_compression_distortion_matches_pillow_and_quality_orders_psnr():
    Image = pytest.importorskip("PIL.Image")
    imgs = photos()
    last = None
    for q in (90, 50, 10):
        out, _ = run(imgs, fn.jpeg_compression_distortion, quality=q)
        psnrs = []
        for img, got in zip(imgs, out):
            buf = io.BytesIO()
            Image.fromarray(img).save(buf, "JPEG", quality=q, subsampling=2)
            ref = np.asarray(Image.open(buf).convert("RGB"))
            assert max_diff(got, ref) <= 1
            mse = ((got.astype(np.float64) - img) ** 2).mean()
            psnrs.append(10 * math.log10(255 ** 2 / mse))
        if last is not None:
            assert all(p < l for p, l in zip(psnrs, last))
        last = psnrs


@pytest.mark.parametrize("op,kwargs,fragment", [
    (fn.gaussian_blur, {}, "sigma"),
    (fn.gaussian_blur, {"window_size": 4}, "window_size"),
    (fn.noise.salt_and_pepper, {"prob": 2.0}, "prob"),
    (fn.noise.gaussian, {"stddev": -1.0}, "stddev"),
    (fn.grid_mask, {"tile": 0}, "tile"),
    (fn.grid_mask, {"ratio": 1.5}, "ratio"),
    (fn.erase, {"anchor": (1, 2), "shape": (1, 2, 3, 4)}, "anchor"),
    (fn.erase, {"shape": (1, 2), "fill_value": (1, 2)}, "fill_value"),
])
def test_errors_name_the_operator_and_argument(op, kwargs, fragment):
    with pytest.raises(Exception) as e:
        run([np.zeros((8, 8, 3), np.uint8)], op, **kwargs)
    assert fragment in str(e.value)


def test_wrong_layout_is_an_error():
    with pytest.raises(Exception) as e:
        run([np.zeros((3, 8, 8), np.uint8)], fn.jpeg_compression_distortion, layout="CHW")
    assert "HWC" in str(e.value)
