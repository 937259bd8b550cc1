"""resize, tensor_resize and resize_crop_mirror on DALI's other resize types, int16 and uint16 (to the
same type or to float32, as DALI's ResizeBase), against:

- Pillow's float ("F") resize of the same values, rounded half away from zero and clipped to the
  type (DALI's ConvertSat): Pillow accumulates in double, Sluice in float, so an output can differ
  by one where the exact value is within float rounding of a half; at most 1, on under 1% of them;
- SciPy's ndimage.zoom (order=1, grid_mode=True, mode="nearest": the linear filter without
  antialiasing) for tensor_resize's axes, rounded the same way;
- Sluice's own uint8 and float32 results where the arithmetic is the same: a 16-bit input resized
  to float32 equals the same values given as float32 exactly; NEAREST on uint8 values held in
  int16 equals the uint8 result cast; linear is within 1 of it (uint8 runs Pillow's fixed point
  with a uint8 intermediate).
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

Image = pytest.importorskip("PIL.Image")
ndi = pytest.importorskip("scipy.ndimage")

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
RNG = np.random.default_rng(16)
WIDE = [np.int16, np.uint16]
PIL_FILTERS = {types.INTERP_LINEAR: Image.BILINEAR, types.INTERP_CUBIC: Image.BICUBIC,
               types.INTERP_LANCZOS3: Image.LANCZOS}


def photo():
    return np.asarray(Image.open(IMAGES / "photo_500x375.jpg").convert("RGB"))


def widen(img8, dtype):
    """The uint8 photo spread over the 16-bit type's range (every value used, both signs for int16)."""
    v = img8.astype(np.int32) * 257
    return (v - 32768 if dtype == np.int16 else v).astype(dtype)


def run(samples, build, layout="HWC"):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(samples), layout=layout)
        outs = build(src)
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res]


def round_away(x, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.sign(x) * np.floor(np.abs(x) + 0.5), info.min, info.max).astype(dtype)


def pillow_float(img, out_hw, interp):
    oh, ow = out_hw
    chans = [np.asarray(Image.fromarray(img[..., c].astype(np.float32), "F").resize((ow, oh), PIL_FILTERS[interp]))
             for c in range(img.shape[2])]
    return np.stack(chans, axis=-1).astype(np.float64)


def assert_within_one(got, want):
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= 1
    assert np.count_nonzero(diff) <= 0.01 * diff.size


@pytest.mark.parametrize("dtype", WIDE)
@pytest.mark.parametrize("interp", list(PIL_FILTERS))
@pytest.mark.parametrize("out_hw", [(150, 200), (500, 640)])
def test_resize_against_pillow_float(dtype, interp, out_hw):
    img = widen(photo(), dtype)
    (out,), = run([img], lambda x: fn.resize(x, size=list(out_hw), interp_type=interp, subpixel_scale=False))
    assert out.dtype == dtype and out.shape == (*out_hw, 3)
    assert_within_one(out, round_away(pillow_float(img, out_hw, interp), dtype))


@pytest.mark.parametrize("dtype", WIDE)
def test_float_output_is_the_float_inputs_result(dtype):
    img = widen(photo(), dtype)
    build = lambda x: fn.resize(x, size=[123, 321], interp_type=types.INTERP_CUBIC)
    (wide,), = run([img], lambda x: fn.resize(x, size=[123, 321], interp_type=types.INTERP_CUBIC,
                                              dtype=types.FLOAT))
    (flt,), = run([img.astype(np.float32)], build)
    assert wide.dtype == np.float32
    np.testing.assert_array_equal(wide, flt)
    (same,), = run([img], build)
    np.testing.assert_array_equal(same, round_away(flt, dtype))  # one rounding, at the end


@pytest.mark.parametrize("dtype", WIDE)
def test_uint8_values_in_a_wide_type_give_the_uint8_result(dtype):
    img8 = photo()
    img = img8.astype(dtype)
    # Linear differs by at most 1 (uint8 rounds its intermediate rows to uint8, about 14% of the
    # outputs move by one); cubic and Lanczos also clamp the overshoot of those rows, so they are
    # not compared.
    for interp, exact in [(types.INTERP_NN, True), (types.INTERP_LINEAR, False)]:
        build = lambda x: fn.resize(x, size=[200, 170], interp_type=interp)
        (wide,), = run([img], build)
        (u8,), = run([img8], build)
        if exact:
            np.testing.assert_array_equal(wide, u8.astype(dtype))
        else:
            assert np.abs(wide.astype(np.int32) - u8.astype(np.int32)).max() <= 1


@pytest.mark.parametrize("dtype", WIDE)
def test_cubic_overshoot_saturates(dtype):
    info = np.iinfo(dtype)
    img = np.where(np.arange(40) < 20, info.min, info.max).astype(dtype).reshape(1, 40, 1).repeat(3, axis=0)
    (out,), = run([img], lambda x: fn.resize(x, size=[3, 123], interp_type=types.INTERP_CUBIC))
    (flt,), = run([img.astype(np.float32)], lambda x: fn.resize(x, size=[3, 123], interp_type=types.INTERP_CUBIC))
    assert flt.min() < info.min - 0.5 and flt.max() > info.max + 0.5
    np.testing.assert_array_equal(out, round_away(flt, dtype))


@pytest.mark.parametrize("dtype", WIDE)
def test_volumes(dtype):
    vol = RNG.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (6, 7, 8, 2), endpoint=True).astype(dtype)
    build = lambda x: fn.resize(x, size=[4, 9, 5])
    (out,), = run([vol], build, layout="DHWC")
    (flt,), = run([vol.astype(np.float32)], build, layout="DHWC")
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, round_away(flt, dtype))


@pytest.mark.parametrize("dtype", WIDE)
def test_tensor_resize_against_scipy_zoom(dtype):
    info = np.iinfo(dtype)
    sig = RNG.integers(info.min, info.max, 300, endpoint=True).astype(dtype)
    (out,), = run([sig], lambda x: fn.tensor_resize(x, sizes=[777], antialias=False), layout="")
    want = round_away(ndi.zoom(sig.astype(np.float64), 777 / 300, order=1, grid_mode=True, mode="nearest"), dtype)
    assert out.dtype == dtype
    assert np.abs(out.astype(np.int64) - want.astype(np.int64)).max() <= 1


@pytest.mark.parametrize("dtype", WIDE)
def test_tensor_resize_of_hw_is_resize(dtype):
    img = widen(photo(), dtype)
    (tr,), = run([img], lambda x: fn.tensor_resize(x, axes=[0, 1], sizes=[100, 133]))
    (rs,), = run([img], lambda x: fn.resize(x, size=[100, 133]))
    np.testing.assert_array_equal(tr, rs)
    (trf,), = run([img], lambda x: fn.tensor_resize(x, axes=[0, 1], sizes=[100, 133], dtype=types.FLOAT))
    assert trf.dtype == np.float32


@pytest.mark.parametrize("dtype", WIDE)
def test_resize_crop_mirror_is_the_chain(dtype):
    img = widen(photo(), dtype)
    kw = dict(resize_shorter=160, crop=[120, 100], crop_pos_x=0.3, crop_pos_y=0.7)
    (rcm,), = run([img], lambda x: fn.resize_crop_mirror(x, mirror=1, **kw))
    (chain,), = run([img], lambda x: fn.flip(fn.crop(fn.resize(x, resize_shorter=160), crop=[120, 100],
                                                     crop_pos_x=0.3, crop_pos_y=0.7), horizontal=1))
    assert rcm.dtype == dtype
    # The crop's region reaches the kernel as float32 (test_resize_crop_mirror.py), so the float
    # weights can differ in their last bits from the whole image's and move a near-half by one.
    assert_within_one(rcm, chain)


@pytest.mark.parametrize("dtype, out", [(np.int16, types.UINT8), (np.uint16, types.INT16), (np.uint8, types.INT16)])
@pytest.mark.parametrize("op", ["resize", "tensor_resize", "resize_crop_mirror"])
def test_output_must_be_the_input_type_or_float(dtype, out, op):
    img = np.zeros((8, 8, 3), dtype)
    build = {"resize": lambda x: fn.resize(x, size=[4, 4], dtype=out),
             "tensor_resize": lambda x: fn.tensor_resize(x, axes=[0, 1], sizes=[4, 4], dtype=out),
             "resize_crop_mirror": lambda x: fn.resize_crop_mirror(x, size=[4, 4], crop=2, dtype=out)}[op]
    with pytest.raises(Exception, match="dtype"):
        run([img], build)


@pytest.mark.parametrize("dtype", WIDE)
def test_random_resized_crop_takes_the_wide_types(dtype):
    # Same seed and shapes: the same windows; NEAREST copies values, so uint8 values held in the
    # wide type give the uint8 result cast.
    img8 = photo()
    build = lambda x: fn.random_resized_crop(x, size=[64, 80], interp_type=types.INTERP_NN)
    (wide,), = run([img8.astype(dtype)], build)
    (u8,), = run([img8], build)
    assert wide.dtype == dtype
    np.testing.assert_array_equal(wide, u8.astype(dtype))
