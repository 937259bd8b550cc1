"""fn.color_space_conversion, fn.equalize, fn.lookup_table and fn.normalize on the sample set's
real photographs against independent references:

- color_space_conversion: OpenCV where the formula is the same (GRAY: cv2.cvtColor RGB2GRAY, JPEG
  luma; RGB<->BGR) and a NumPy implementation of ITU-R BT.601 studio range (DALI's YCbCr: Y in
  16..235, chroma 16..240), which OpenCV's full-range YCrCb also checks after rescaling and a
  channel reorder (within 1 LSB);
- equalize: cv2.equalizeHist on every channel (DALI's CPU operator calls it): exact;
- lookup_table: DALI's documented example and NumPy indexing;
- normalize: np.mean / np.std with axes, ddof and over the whole batch.
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "s444.jpg", "progressive.jpg", "orient_1.jpg"]


def photos():
    Image = pytest.importorskip("PIL.Image")
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run(images, op, *, layout="HWC", threads=2, arg_inputs=None, **kwargs):
    """external_source(images) -> op(**kwargs); arg_inputs: {name: [per-sample arrays]} fed as
    per-sample argument inputs."""
    arg_inputs = arg_inputs or {}
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=threads, seed=5)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        per_sample = {name: fn.external_source(source=(lambda v=v: [np.asarray(x, np.float32) for x in v]))
                      for name, v in arg_inputs.items()}
        pipe.set_outputs(op(src, **per_sample, **kwargs))
    out = pipe.run()[0]
    return [np.array(out.at(i)) for i in range(len(images))]


def max_diff(a, b):
    return int(np.abs(a.astype(np.int32) - b.astype(np.int32)).max())


def bt601(rgb):
    """ITU-R BT.601 studio-range YCbCr from the standard's definition (Kr = 0.299, Kb = 0.114)."""
    x = rgb.astype(np.float64)
    y = x @ np.array([0.299, 0.587, 0.114])
    return np.dstack([16 + 219 / 255 * y, 128 + 224 / 255 * (x[..., 2] - y) / 1.772,
                      128 + 224 / 255 * (x[..., 0] - y) / 1.402])


def u8(x):
    return np.clip(np.round(x), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# color_space_conversion


def test_rgb_to_gray_and_bgr_match_opencv():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    gray = run(imgs, fn.color_space_conversion, image_type=types.RGB, output_type=types.GRAY)
    bgr = run(imgs, fn.color_space_conversion, image_type=types.RGB, output_type=types.BGR)
    for i, img in enumerate(imgs):
        assert gray[i].shape == img.shape[:2] + (1,) and gray[i].dtype == np.uint8
        assert max_diff(gray[i][..., 0], cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)) <= 1
        np.testing.assert_array_equal(bgr[i], cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    # BGR -> GRAY reads the channels backwards.
    back = run([np.ascontiguousarray(img[..., ::-1]) for img in imgs], fn.color_space_conversion,
               image_type=types.BGR, output_type=types.GRAY)
    for a, b in zip(back, gray):
        np.testing.assert_array_equal(a, b)


def test_ycbcr_is_bt601_studio_range():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    ycc = run(imgs, fn.color_space_conversion, image_type=types.RGB, output_type=types.YCbCr)
    for i, img in enumerate(imgs):
        assert max_diff(ycc[i], u8(bt601(img))) <= 1
        # OpenCV's YCrCb is full range (JPEG) with Cr before Cb: rescaled to studio range it agrees.
        full = cv2.cvtColor(img.astype(np.float32), cv2.COLOR_RGB2YCrCb).astype(np.float64)
        studio = np.dstack([16 + 219 / 255 * full[..., 0], 128 + 224 / 255 * (full[..., 2] - 0.5),
                            128 + 224 / 255 * (full[..., 1] - 0.5)])
        assert max_diff(ycc[i], u8(studio)) <= 1
        assert ycc[i][..., 0].min() >= 16 and ycc[i][..., 0].max() <= 235


def test_ycbcr_back_to_rgb_and_gray():
    imgs = photos()
    ycc = run(imgs, fn.color_space_conversion, image_type=types.RGB, output_type=types.YCbCr)
    rgb = run(ycc, fn.color_space_conversion, image_type=types.YCbCr, output_type=types.RGB)
    gray = run(ycc, fn.color_space_conversion, image_type=types.YCbCr, output_type=types.GRAY)
    for i, img in enumerate(imgs):
        assert max_diff(rgb[i], img) <= 3  # two roundings, 219/224 levels
        y = ycc[i][..., 0].astype(np.float64)
        assert max_diff(gray[i][..., 0], u8((y - 16) * 255 / 219)) <= 1
        c = ycc[i].astype(np.float64)
        ref = np.dstack([(c[..., 0] - 16) * 255 / 219 + 1.402 * 255 / 224 * (c[..., 2] - 128),
                         (c[..., 0] - 16) * 255 / 219 - 0.344136 * 255 / 224 * (c[..., 1] - 128)
                         - 0.714136 * 255 / 224 * (c[..., 2] - 128),
                         (c[..., 0] - 16) * 255 / 219 + 1.772 * 255 / 224 * (c[..., 1] - 128)])
        assert max_diff(rgb[i], u8(ref)) <= 1


def test_gray_input_and_float_data():
    img = photos()[0]
    g = np.ascontiguousarray(img[..., :1])
    rgb = run([g], fn.color_space_conversion, image_type=types.GRAY, output_type=types.RGB)[0]
    np.testing.assert_array_equal(rgb, np.repeat(g, 3, axis=2))
    ycc = run([g], fn.color_space_conversion, image_type=types.GRAY, output_type=types.YCbCr)[0]
    assert max_diff(ycc[..., 0], u8(16 + g[..., 0].astype(np.float64) * 219 / 255)) <= 1
    assert (ycc[..., 1:] == 128).all()
    f = img.astype(np.float32) / 255  # normalized float data: offsets 16/256 and 0.5, no clamping
    out = run([f], fn.color_space_conversion, image_type=types.RGB, output_type=types.YCbCr)[0]
    assert out.dtype == np.float32
    ref = bt601(img)
    np.testing.assert_allclose(out[..., 0], 0.0625 + (ref[..., 0] - 16) / 255, atol=1e-5)
    np.testing.assert_allclose(out[..., 1:], 0.5 + (ref[..., 1:] - 128) / 255, atol=1e-5)


@pytest.mark.parametrize("kwargs, argument", [
    ({"image_type": "HSV", "output_type": types.RGB}, "image_type"),
    ({"image_type": types.RGB, "output_type": "Lab"}, "output_type"),
    ({"image_type": types.RGB}, "output_type"),
])
def test_color_space_conversion_invalid_arguments(kwargs, argument):
    with pytest.raises(sluice.ArgumentError) as e:
        run(photos()[:1], fn.color_space_conversion, **kwargs)
    assert e.value.argument == argument


def test_color_space_conversion_wrong_layout_and_channels():
    img = photos()[0]
    with pytest.raises(sluice.SluiceError, match="CHW") as e:
        run([np.ascontiguousarray(img.transpose(2, 0, 1))], fn.color_space_conversion, layout="CHW",
            image_type=types.RGB, output_type=types.GRAY)
    assert "color_space_conversion" in str(e.value)
    with pytest.raises(sluice.SluiceError, match="image_type"):
        run([np.ascontiguousarray(img[..., :1])], fn.color_space_conversion, image_type=types.RGB,
            output_type=types.GRAY)


# ---------------------------------------------------------------------------------------------
# equalize


def test_equalize_matches_opencv_per_channel():
    cv2 = pytest.importorskip("cv2")
    imgs = photos()
    out = run(imgs, fn.equalize)
    for i, img in enumerate(imgs):
        ref = np.dstack([cv2.equalizeHist(np.ascontiguousarray(img[..., c])) for c in range(3)])
        np.testing.assert_array_equal(out[i], ref)
    # Grayscale (HW) and planar (CHW) images.
    gray = [cv2.cvtColor(img, cv2.COLOR_RGB2GRAY) for img in imgs]
    out = run(gray, fn.equalize, layout="HW")
    for g, o in zip(gray, out):
        np.testing.assert_array_equal(o, cv2.equalizeHist(g))
    chw = [np.ascontiguousarray(img.transpose(2, 0, 1)) for img in imgs[:2]]
    out = run(chw, fn.equalize, layout="CHW")
    for c, o in zip(chw, out):
        np.testing.assert_array_equal(o, np.stack([cv2.equalizeHist(p) for p in c]))


def test_equalize_errors():
    img = photos()[0]
    with pytest.raises(sluice.SluiceError, match="equalize"):
        run([img.astype(np.float32)], fn.equalize)
    with pytest.raises(sluice.SluiceError, match="equalize"):
        run([img[None]], fn.equalize, layout="NHWC")


# ---------------------------------------------------------------------------------------------
# lookup_table


def test_lookup_table_dalis_example():
    data = np.array([1, 4, 1, 0, 100, 2, 3, 4], dtype=np.int32)
    out = run([data], fn.lookup_table, layout="", keys=[0, 2, 3, 4, 5, 3],
              values=[0.2, 0.4, 0.5, 0.6, 0.7, 0.10], default_value=0.99)[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [0.99, 0.6, 0.99, 0.2, 0.99, 0.4, 0.10, 0.6], rtol=1e-6)


def test_lookup_table_on_photos_matches_numpy_indexing():
    imgs = photos()
    keys = list(range(0, 256, 3))
    values = [255 - k for k in keys]
    out = run(imgs, fn.lookup_table, keys=keys, values=values, default_value=7, dtype=types.UINT8)
    for img, o in zip(imgs, out):
        table = np.full(256, 7, np.uint8)
        table[keys] = values
        assert o.dtype == np.uint8 and o.shape == img.shape
        np.testing.assert_array_equal(o, table[img])


@pytest.mark.parametrize("kwargs, argument", [
    ({"keys": [1, 2], "values": [1.0]}, "values"),
    ({"keys": [70000], "values": [1.0]}, "keys"),
    ({"keys": [-1], "values": [1.0]}, "keys"),
    ({"dtype": types.FLOAT16}, "dtype"),
])
def test_lookup_table_invalid_arguments(kwargs, argument):
    with pytest.raises(sluice.ArgumentError) as e:
        run(photos()[:1], fn.lookup_table, **kwargs)
    assert e.value.argument == argument


def test_lookup_table_takes_integers_only():
    with pytest.raises(sluice.SluiceError, match="lookup_table"):
        run([np.zeros(4, np.float32)], fn.lookup_table, layout="")


# ---------------------------------------------------------------------------------------------
# normalize


def test_normalize_default_is_every_axis():
    imgs = photos()
    out = run(imgs, fn.normalize)
    for img, o in zip(imgs, out):
        x = img.astype(np.float64)
        assert o.dtype == np.float32 and o.shape == img.shape
        np.testing.assert_allclose(o, (x - x.mean()) / x.std(), atol=1e-4)


@pytest.mark.parametrize("axes_kw, np_axes", [
    ({"axes": [0, 1]}, (0, 1)),
    ({"axis_names": "HW"}, (0, 1)),
    ({"axes": [-1]}, (2,)),
    ({"axis_names": "W"}, (1,)),
])
def test_normalize_axes_ddof_epsilon_scale_shift(axes_kw, np_axes):
    imgs = photos()
    out = run(imgs, fn.normalize, ddof=1, epsilon=0.25, scale=50.0, shift=100.0, **axes_kw)
    for img, o in zip(imgs, out):
        x = img.astype(np.float64)
        mean = x.mean(axis=np_axes, keepdims=True)
        var = x.var(axis=np_axes, ddof=1, keepdims=True)
        np.testing.assert_allclose(o, (x - mean) * 50.0 / np.sqrt(var + 0.25) + 100.0, rtol=1e-4, atol=2e-3)


def test_normalize_batch_statistics():
    imgs = [np.ascontiguousarray(img[:32, :48]) for img in photos()]  # equal shapes
    out = run(imgs, fn.normalize, batch=True, axis_names="HW")
    allx = np.stack(imgs).astype(np.float64)
    mean = allx.mean(axis=(0, 1, 2))
    std = allx.std(axis=(0, 1, 2))
    for img, o in zip(imgs, out):
        np.testing.assert_allclose(o, (img - mean) / std, atol=1e-4)
    # Different heights and widths are fine when only H and W are reduced.
    out = run(photos(), fn.normalize, batch=True, axis_names="HW")
    allp = np.concatenate([p.reshape(-1, 3) for p in photos()]).astype(np.float64)
    for img, o in zip(photos(), out):
        np.testing.assert_allclose(o, (img - allp.mean(0)) / allp.std(0), atol=1e-4)


def test_normalize_given_mean_stddev_and_integer_output():
    imgs = photos()
    out = run(imgs, fn.normalize, mean=110.0, stddev=40.0, scale=32.0, shift=128.0, dtype=types.UINT8)
    for img, o in zip(imgs, out):
        assert o.dtype == np.uint8
        assert max_diff(o, u8((img - 110.0) * 32.0 / 40.0 + 128.0)) <= 1


def test_normalize_per_sample_mean_stddev_shaped_like_the_reduced_tensor():
    imgs = photos()
    means = [img.mean(axis=(0, 1), keepdims=True) for img in imgs]  # (1, 1, 3)
    stds = [np.array(img.std() + 1.0) for img in imgs]              # scalars
    out = run(imgs, fn.normalize, arg_inputs={"mean": means, "stddev": stds})
    for img, m, s, o in zip(imgs, means, stds, out):
        np.testing.assert_allclose(o, (img - m) / s, rtol=1e-4, atol=1e-4)
    # Only the mean given: the axes come from its shape, the stddev is computed around it.
    out = run(imgs, fn.normalize, arg_inputs={"mean": means})
    for img, m, o in zip(imgs, means, out):
        x = img.astype(np.float64)
        sd = np.sqrt(((x - m) ** 2).mean(axis=(0, 1), keepdims=True))
        np.testing.assert_allclose(o, (x - m) / sd, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kwargs, argument", [
    ({"axes": [3]}, "axes"),
    ({"axis_names": "D"}, "axis_names"),
    ({"ddof": -1}, "ddof"),
    ({"epsilon": -1.0}, "epsilon"),
    ({"dtype": types.FLOAT16}, "dtype"),
])
def test_normalize_invalid_arguments(kwargs, argument):
    # axes/axis_names depend on the input's dimensions and layout: checked per batch (SluiceError);
    # the others where the operator is called (ArgumentError, a SluiceError). Both name the argument.
    with pytest.raises(sluice.SluiceError) as e:
        run(photos()[:1], fn.normalize, **kwargs)
    assert e.value.argument == argument


def test_normalize_mismatched_per_sample_shapes_name_the_argument():
    imgs = photos()[:2]
    bad = [np.zeros((1, 1, 3)), np.zeros((1, 1, 2))]
    with pytest.raises(sluice.SluiceError, match="mean"):
        run(imgs, fn.normalize, axis_names="HW", arg_inputs={"mean": bad})
    with pytest.raises(sluice.SluiceError, match="stddev"):
        run(imgs, fn.normalize, arg_inputs={"stddev": [np.ones((1, 3)), np.ones((1, 3))]})
    with pytest.raises(sluice.SluiceError, match="stddev"):
        run(imgs, fn.normalize, arg_inputs={"stddev": [np.array(1.0), np.array(-1.0)]})
    with pytest.raises(sluice.SluiceError, match="mean"):
        run(imgs, fn.normalize, batch=True, arg_inputs={"mean": [np.array(1.0), np.array(2.0)]})


def test_deterministic_across_thread_counts():
    imgs = photos()
    for op, kw in [(fn.normalize, {"axis_names": "HW"}), (fn.equalize, {}),
                   (fn.color_space_conversion, {"image_type": types.RGB, "output_type": types.YCbCr})]:
        a = run(imgs, op, threads=1, **kw)
        b = run(imgs, op, threads=2, **kw)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
