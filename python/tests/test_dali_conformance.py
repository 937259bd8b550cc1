"""One test per argument and call form that DALI's operator reference documents, for every operator
Sluice has (written from DALI's fn.* pages and its PyTorch examples, in our own words): each is
accepted, and where the form has a meaning beyond "accepted" (a scalar for a list, an enum's integer
value, a mode), the output shows DALI's meaning. docs/dali-compatibility.md says what differs.
"""
import io

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

PIL = pytest.importorskip("PIL.Image")

H, W = 30, 40  # the test image: height 30, width 40


def image():
    y, x = np.mgrid[0:H, 0:W]
    return np.stack([x * 6, y * 8, (x + y) * 3], axis=-1).astype(np.uint8)


def run(build, batch=1, source=None):
    """Runs a pipeline whose graph `build(images)` makes from a batch of the test image; returns the
    first output's samples as arrays."""
    src = source or (lambda: [image()] * batch)
    pipe = sluice.Pipeline(batch_size=batch, num_threads=1, seed=3)
    with pipe:
        out = build(fn.external_source(source=src, layout="HWC"))
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    outs = pipe.run()
    return [np.asarray(outs[0].at(i)) for i in range(batch)]


def shape_of(build):
    return run(build)[0].shape


# --- resize ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, expected", [
    ({"resize_x": 20, "resize_y": 10}, (10, 20)),
    ({"resize_x": 20}, (15, 20)),                                    # a missing extent keeps the aspect
    ({"resize_y": 15}, (15, 20)),
    ({"size": [12, 16]}, (12, 16)),
    ({"size": (12, 0)}, (12, 16)),                                   # 0: derived
    ({"size": 15}, (15, 15)),                                        # scalar: every extent (mode default)
    ({"size": 15, "mode": "not_smaller"}, (15, 20)),                 # the ResNet-50 validation form
    ({"size": 15, "mode": "not_larger"}, (11, 15)),
    ({"size": [15, 15], "mode": "stretch"}, (15, 15)),
    ({"resize_x": 20, "mode": "stretch"}, (30, 20)),                 # stretch: a missing extent is kept
    ({"size": np.array([12.0, 16.0])}, (12, 16)),                    # NumPy arrays
    ({"resize_shorter": 15}, (15, 20)),
    ({"resize_longer": 20}, (15, 20)),
    ({"resize_shorter": 15, "max_size": 18}, (14, 18)),              # max_size as a scalar
    ({"resize_shorter": 15, "max_size": [100, 18]}, (14, 18)),
    ({"size": 60, "mode": "not_smaller", "max_size": [50, 70]}, (50, 67)),
])
def test_resize_output_size_forms(kwargs, expected):
    assert shape_of(lambda x: fn.resize(x, **kwargs))[:2] == expected


def test_resize_size_per_sample():
    sizes = fn.external_source(source=lambda: [np.array([10.0, 12.0], np.float32)])
    assert shape_of(lambda x: fn.resize(x, size=sizes))[:2] == (10, 12)


@pytest.mark.parametrize("interp", [types.INTERP_TRIANGULAR, int(types.INTERP_TRIANGULAR), "TRIANGULAR",
                                    types.DALIInterpType.INTERP_TRIANGULAR])
def test_resize_interp_type_as_enum_integer_or_name(interp):
    ref = run(lambda x: fn.resize(x, resize_x=20, resize_y=15, interp_type=types.INTERP_TRIANGULAR))[0]
    out = run(lambda x: fn.resize(x, resize_x=20, resize_y=15, interp_type=interp))[0]
    assert np.array_equal(out, ref)


@pytest.mark.parametrize("arg", ["min_filter", "mag_filter"])
@pytest.mark.parametrize("value", [types.INTERP_NN, 0, "NN"])
def test_resize_min_and_mag_filter_forms(arg, value):
    assert shape_of(lambda x: fn.resize(x, resize_x=20, **{arg: value}))[:2] == (15, 20)


def test_resize_filters_default_to_interp_type():
    nn = run(lambda x: fn.resize(x, resize_x=80, resize_y=60, interp_type=types.INTERP_NN))[0]
    both = run(lambda x: fn.resize(x, resize_x=80, resize_y=60, min_filter=0, mag_filter=0))[0]
    assert np.array_equal(nn, both)


def test_resize_antialias_and_dtype():
    aa = run(lambda x: fn.resize(x, resize_x=10, antialias=True))[0]
    no = run(lambda x: fn.resize(x, resize_x=10, antialias=False))[0]
    assert aa.shape == no.shape and not np.array_equal(aa, no)
    assert run(lambda x: fn.resize(x, resize_x=10))[0].dtype == np.uint8       # dtype unset: the input's
    for dt in (types.FLOAT, 9, "float32", np.float32):
        assert run(lambda x: fn.resize(x, resize_x=10, dtype=dt))[0].dtype == np.float32


def test_resize_roi_forms():
    # roi_start/roi_end in (y, x) order, absolute or relative; a scalar applies to both axes.
    absolute = run(lambda x: fn.resize(x, size=[10, 10], roi_start=[0, 0], roi_end=[15, 20]))[0]
    relative = run(lambda x: fn.resize(x, size=[10, 10], roi_start=0, roi_end=0.5, roi_relative=True))[0]
    assert np.array_equal(absolute, relative)
    # start > end flips that axis.
    flipped = run(lambda x: fn.resize(x, size=[H, W], roi_start=[0, W], roi_end=[H, 0], subpixel_scale=False))[0]
    assert np.array_equal(flipped, image()[:, ::-1])


def test_resize_subpixel_scale():
    """A fractional exact size (40 * 25/30 = 33.33 wide) keeps its scale by default (DALI's
    subpixel_scale=True); False stretches the whole image to the rounded size."""
    on = run(lambda x: fn.resize(x, resize_y=25, mode="not_smaller"))[0]       # width 33.33 -> 33
    off = run(lambda x: fn.resize(x, resize_y=25, mode="not_smaller", subpixel_scale=False))[0]
    assert on.shape == off.shape == (25, 33, 3)
    assert not np.array_equal(on, off)
    exact_on = run(lambda x: fn.resize(x, resize_x=20, resize_y=15))[0]        # exact: no difference
    exact_off = run(lambda x: fn.resize(x, resize_x=20, resize_y=15, subpixel_scale=False))[0]
    assert np.array_equal(exact_on, exact_off)


def test_resize_gpu_tuning_arguments_are_accepted():
    assert shape_of(lambda x: fn.resize(x, resize_x=20, minibatch_size=8, temp_buffer_hint=1 << 20))[:2] == (15, 20)


def test_resize_ops_and_legacy_spelling():
    assert shape_of(lambda x: ops.Resize(device="cpu", size=15, mode="not_smaller")(x))[:2] == (15, 20)


# --- crop_mirror_normalize -------------------------------------------------------------------
def cmn(x, **kw):
    return fn.crop_mirror_normalize(x, **kw)


@pytest.mark.parametrize("crop", [(10, 20), [10, 20], np.array([10, 20])])
def test_cmn_crop_pair_forms(crop):
    assert shape_of(lambda x: cmn(x, crop=crop)) == (3, 10, 20)


def test_cmn_crop_scalar_is_a_square():
    out = run(lambda x: cmn(x, crop=10, output_layout="HWC"))[0]
    assert out.shape == (10, 10, 3)
    assert np.array_equal(out, image()[10:20, 15:25].astype(np.float32))


def test_cmn_crop_h_w_and_positions():
    out = run(lambda x: cmn(x, crop_h=10, crop_w=20, crop_pos_x=0, crop_pos_y=1, output_layout="HWC"))[0]
    assert np.array_equal(out, image()[20:30, 0:20].astype(np.float32))


def test_cmn_rounding():
    # anchor = 0.5 * (40 - 15) = 12.5: "round" -> 13 (halfway away from zero), "truncate" -> 12.
    r = run(lambda x: cmn(x, crop=(30, 15), output_layout="HWC"))[0]
    t = run(lambda x: cmn(x, crop=(30, 15), output_layout="HWC", rounding="truncate"))[0]
    assert np.array_equal(r, image()[:, 13:28].astype(np.float32))
    assert np.array_equal(t, image()[:, 12:27].astype(np.float32))


@pytest.mark.parametrize("mean, std", [(0, 255.0), ([0], [255]), (0.0, [255.0, 255.0, 255.0]),
                                       (np.zeros(3), np.full(3, 255.0))])
def test_cmn_mean_std_scalar_or_per_channel(mean, std):
    out = run(lambda x: cmn(x, mean=mean, std=std, output_layout="HWC"))[0]
    assert np.allclose(out, image() / 255.0)


def test_cmn_scale_shift():
    out = run(lambda x: cmn(x, mean=[1, 2, 3], std=2, scale=4, shift=5, output_layout="HWC"))[0]
    assert np.allclose(out, 4 * (image() - np.array([1, 2, 3])) / 2 + 5)


@pytest.mark.parametrize("dtype, np_dtype", [(types.FLOAT, np.float32), (types.FLOAT16, np.float16),
                                             (types.UINT8, np.uint8), (types.INT8, np.int8), (9, np.float32),
                                             ("float16", np.float16), (np.uint8, np.uint8)])
def test_cmn_dtype_forms(dtype, np_dtype):
    assert run(lambda x: cmn(x, dtype=dtype, mean=0 if np_dtype != np.int8 else 128))[0].dtype == np_dtype


def test_cmn_default_is_float_chw():
    out = run(lambda x: cmn(x))[0]
    assert out.dtype == np.float32 and out.shape == (3, H, W)


@pytest.mark.parametrize("layout, shape", [("CHW", (3, H, W)), ("HWC", (H, W, 3)), (types.NCHW, (3, H, W)),
                                           (types.NHWC, (H, W, 3))])
def test_cmn_output_layout_as_string_or_tensor_layout(layout, shape):
    assert shape_of(lambda x: cmn(x, output_layout=layout)) == shape


@pytest.mark.parametrize("mirror", [1, True, np.int32(1)])
def test_cmn_mirror_constant_forms(mirror):
    out = run(lambda x: cmn(x, mirror=mirror, output_layout="HWC"))[0]
    assert np.array_equal(out, image()[:, ::-1].astype(np.float32))


def test_cmn_mirror_false_and_per_sample():
    assert np.array_equal(run(lambda x: cmn(x, mirror=False, output_layout="HWC"))[0], image().astype(np.float32))
    flips = [np.array(1, np.int32), np.array(0, np.int32)]
    outs = run(lambda x: cmn(x, output_layout="HWC", mirror=fn.external_source(source=lambda: flips)), batch=2,
               source=lambda: [image(), image()])
    assert np.array_equal(outs[0], image()[:, ::-1]) and np.array_equal(outs[1], image())
    outs = run(lambda x: cmn(x, mirror=fn.random.coin_flip(probability=1.0), output_layout="HWC"))
    assert np.array_equal(outs[0], image()[:, ::-1])


def test_cmn_pad_output_fill_values_out_of_bounds():
    assert shape_of(lambda x: cmn(x, pad_output=True)) == (4, H, W)
    out = run(lambda x: cmn(x, crop=(H, W + 10), crop_pos_x=0, out_of_bounds_policy="pad", fill_values=7,
                            output_layout="HWC"))[0]
    assert out.shape == (H, W + 10, 3) and np.all(out[:, W:] == 7)
    out = run(lambda x: cmn(x, crop=(H, W + 10), out_of_bounds_policy="trim_to_shape", output_layout="HWC"))[0]
    assert out.shape == (H, W, 3)


# --- crop, flip, transpose, cast, copy -------------------------------------------------------
@pytest.mark.parametrize("kwargs, window", [
    ({"crop": (10, 20)}, (10, 20, 10, 30)), ({"crop": 10}, (10, 20, 15, 25)),
    ({"crop_h": 10, "crop_w": 20, "crop_pos_x": 0.0, "crop_pos_y": 0.0}, (0, 10, 0, 20)),
    ({"crop": [30, 15], "rounding": "truncate"}, (0, 30, 12, 27)),
])
def test_crop_forms(kwargs, window):
    y0, y1, x0, x1 = window
    assert np.array_equal(run(lambda x: fn.crop(x, **kwargs))[0], image()[y0:y1, x0:x1])


def test_crop_out_of_bounds_and_fill_values():
    out = run(lambda x: fn.crop(x, crop=(H + 2, W), out_of_bounds_policy="pad", fill_values=[1, 2, 3]))[0]
    assert out.shape == (H + 2, W, 3) and list(out[0, 0]) == [1, 2, 3]


@pytest.mark.parametrize("kwargs, expected", [
    ({}, lambda a: a[:, ::-1]), ({"horizontal": 0, "vertical": 1}, lambda a: a[::-1]),
    ({"horizontal": True, "vertical": True}, lambda a: a[::-1, ::-1]), ({"horizontal": False}, lambda a: a),
])
def test_flip_forms(kwargs, expected):
    assert np.array_equal(run(lambda x: fn.flip(x, **kwargs))[0], expected(image()))


def test_flip_per_sample_and_legacy_class():
    out = run(lambda x: fn.flip(x, horizontal=fn.random.coin_flip(probability=0.0)))[0]
    assert np.array_equal(out, image())
    assert np.array_equal(run(lambda x: ops.Flip(vertical=1, horizontal=0)(x))[0], image()[::-1])


@pytest.mark.parametrize("layout", ["CHW", types.NCHW])
def test_transpose_forms(layout):
    out = run(lambda x: fn.transpose(x, perm=[2, 0, 1], output_layout=layout))[0]
    assert np.array_equal(out, image().transpose(2, 0, 1))
    assert np.array_equal(run(lambda x: fn.transpose(x, perm=(1, 0, 2), transpose_layout=False))[0],
                          image().transpose(1, 0, 2))


@pytest.mark.parametrize("dtype", [types.FLOAT, 9, "float32", np.float32, types.DALIDataType.FLOAT])
def test_cast_dtype_forms(dtype):
    out = run(lambda x: fn.cast(x, dtype=dtype))[0]
    assert out.dtype == np.float32 and np.array_equal(out, image())


def test_cast_int64_and_copy():
    assert run(lambda x: fn.cast(x, dtype=types.INT64))[0].dtype == np.int64
    assert np.array_equal(run(lambda x: fn.copy(x))[0], image())
    assert np.array_equal(run(lambda x: ops.Copy()(x))[0], image())


# --- random ----------------------------------------------------------------------------------
def random_values(make, batch=64):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=1, seed=5)
    with pipe:
        pipe.set_outputs(make())
    (out,) = pipe.run()
    return np.stack([np.asarray(out.at(i)) for i in range(batch)])


@pytest.mark.parametrize("make, check", [
    (lambda: fn.random.coin_flip(), lambda v: v.dtype == np.int32 and set(v.ravel()) == {0, 1}),
    (lambda: fn.random.coin_flip(probability=1.0), lambda v: np.all(v == 1)),
    (lambda: fn.coin_flip(probability=0), lambda v: np.all(v == 0)),
    (lambda: fn.random.coin_flip(shape=3), lambda v: v.shape == (64, 3)),
    (lambda: fn.random.coin_flip(shape=[2, 2], dtype=types.UINT8), lambda v: v.shape == (64, 2, 2) and v.dtype == np.uint8),
    (lambda: ops.CoinFlip(probability=0.5)(), lambda v: v.shape == (64,)),
    (lambda: fn.random.uniform(), lambda v: v.dtype == np.float32 and v.min() >= -1 and v.max() < 1),
    (lambda: fn.random.uniform(range=(2, 3)), lambda v: v.min() >= 2 and v.max() < 3),
    (lambda: fn.uniform(range=[0.0, 1.0], shape=2), lambda v: v.shape == (64, 2)),
    (lambda: fn.random.uniform(values=[1, 5]), lambda v: set(v.ravel()) <= {1.0, 5.0}),
    (lambda: ops.Uniform(range=[0.6, 1.4])(), lambda v: v.min() >= 0.6 and v.max() < 1.4),
    (lambda: fn.random.normal(), lambda v: v.dtype == np.float32 and abs(v.mean()) < 0.5),
    (lambda: fn.random.normal(mean=10, stddev=0.001), lambda v: np.allclose(v, 10, atol=0.01)),
    (lambda: fn.normal_distribution(shape=(3,), dtype=types.FLOAT64), lambda v: v.shape == (64, 3) and v.dtype == np.float64),
])
def test_random_operator_forms(make, check):
    assert check(random_values(make))


def test_coin_flip_probability_per_sample():
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=1)
    with pipe:
        pipe.set_outputs(fn.random.coin_flip(probability=fn.external_source(source=lambda: [np.array(1.0, np.float32)] * 4)))
    (out,) = pipe.run()
    assert all(int(np.asarray(out.at(i))) == 1 for i in range(4))


# --- decoders --------------------------------------------------------------------------------
@pytest.fixture
def jpeg_dir(tmp_path):
    (tmp_path / "a").mkdir()
    buf = io.BytesIO()
    PIL.fromarray(image()).save(buf, format="JPEG", quality=95)
    (tmp_path / "a" / "0.jpg").write_bytes(buf.getvalue())
    return tmp_path


def decode(root, make):
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=2)
    with pipe:
        jpegs, _ = fn.readers.file(file_root=str(root))
        pipe.set_outputs(make(jpegs))
    return np.asarray(pipe.run()[0].at(0))


@pytest.mark.parametrize("output_type, channels", [(types.RGB, 3), (0, 3), ("BGR", 3), (types.GRAY, 1), (2, 1),
                                                   (types.YCbCr, 3), (types.ANY_DATA, 3)])
def test_decoder_output_type_forms(jpeg_dir, output_type, channels):
    assert decode(jpeg_dir, lambda j: fn.decoders.image(j, output_type=output_type)).shape == (H, W, channels)


def test_decoder_dali_gpu_arguments_are_accepted_on_the_cpu(jpeg_dir):
    """The ResNet-50 example's CPU path passes the paddings as 0; DALI's other decoder knobs too."""
    ref = decode(jpeg_dir, lambda j: fn.decoders.image(j))
    out = decode(jpeg_dir, lambda j: fn.image_decoder(
        j, device="cpu", output_type=types.RGB, dtype=types.UINT8, device_memory_padding=0, host_memory_padding=0,
        device_memory_padding_jpeg2k=0, host_memory_padding_jpeg2k=0, hw_decoder_load=0.9,
        hybrid_huffman_threshold=1000, jpeg_fancy_upsampling=True, preallocate_width_hint=100,
        preallocate_height_hint=100, affine=False, memory_stats=True, split_stages=False, use_chunk_allocator=False,
        adjust_orientation=True, use_fast_idct=False))
    assert np.array_equal(out, ref)


@pytest.mark.parametrize("kwargs", [
    {}, {"random_area": [0.1, 1.0], "random_aspect_ratio": [0.8, 1.25], "num_attempts": 100},
    {"random_area": 0.5}, {"random_aspect_ratio": 1.0, "random_area": [0.25, 0.25]}, {"seed": 7},
])
def test_decoder_random_crop_forms(jpeg_dir, kwargs):
    out = decode(jpeg_dir, lambda j: fn.decoders.image_random_crop(j, **kwargs))
    assert out.ndim == 3 and out.shape[0] <= H and out.shape[1] <= W
    if "random_aspect_ratio" in kwargs and kwargs["random_aspect_ratio"] == 1.0:
        assert abs(out.shape[0] - out.shape[1]) <= 1


@pytest.mark.parametrize("kwargs, shape", [({"crop": (10, 20)}, (10, 20, 3)), ({"crop": 12}, (12, 12, 3)),
                                           ({"crop_h": 8, "crop_w": 9, "crop_pos_x": 0, "crop_pos_y": 0}, (8, 9, 3))])
def test_decoder_crop_forms(jpeg_dir, kwargs, shape):
    assert decode(jpeg_dir, lambda j: fn.image_decoder_crop(j, **kwargs)).shape == shape


def test_decoder_legacy_classes(jpeg_dir):
    assert decode(jpeg_dir, lambda j: ops.ImageDecoder(device="cpu", output_type=types.RGB)(j)).shape == (H, W, 3)
    assert decode(jpeg_dir, lambda j: ops.ImageDecoderRandomCrop(num_attempts=5)(j)).ndim == 3


# --- readers ---------------------------------------------------------------------------------
def test_file_reader_forms(jpeg_dir):
    for make in (lambda: fn.readers.file(file_root=str(jpeg_dir), name="Reader"),
                 lambda: fn.file_reader(file_root=str(jpeg_dir), random_shuffle=True, initial_fill=4, name="Reader"),
                 lambda: ops.FileReader(file_root=str(jpeg_dir))(name="Reader"),
                 lambda: fn.readers.file(files=[str(jpeg_dir / "a" / "0.jpg")], labels=[3], name="Reader"),
                 lambda: fn.readers.file(file_root=str(jpeg_dir), file_filters="*.jpg", case_sensitive_filter=True,
                                         shard_id=0, num_shards=1, pad_last_batch=True, stick_to_shard=True,
                                         tensor_init_bytes=1024, read_ahead=True, prefetch_queue_depth=2,
                                         skip_cached_images=True, lazy_init=True, dont_use_mmap=True, name="Reader")):
        pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
        with pipe:
            pipe.set_outputs(*make())
        data, label = pipe.run()
        assert np.asarray(label.at(0)).dtype == np.int32 and pipe.epoch_size("Reader") == 1


def test_sequence_reader_forms(jpeg_dir):
    """readers.sequence / sequence_reader / ops.SequenceReader with each of DALI's arguments (the
    fixture's folder "a" is one stream of one frame)."""
    root = str(jpeg_dir)
    for make, shape in (
            (lambda: fn.readers.sequence(file_root=root, sequence_length=1, name="Reader"), (1, H, W, 3)),
            (lambda: fn.sequence_reader(file_root=root, sequence_length=1, step=2, stride=3, name="Reader"), (1, H, W, 3)),
            (lambda: ops.SequenceReader(file_root=root, sequence_length=1, image_type=types.GRAY)(name="Reader"),
             (1, H, W, 1)),
            (lambda: fn.readers.sequence(file_root=root, sequence_length=1, image_type=types.BGR, random_shuffle=True,
                                         initial_fill=4, shard_id=0, num_shards=1, pad_last_batch=True,
                                         stick_to_shard=True, tensor_init_bytes=1024, read_ahead=True,
                                         prefetch_queue_depth=2, skip_cached_images=True, lazy_init=True,
                                         dont_use_mmap=True, seed=5, bytes_per_sample_hint=[4096], name="Reader"),
             (1, H, W, 3))):
        pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
        with pipe:
            pipe.set_outputs(make())
        (frames,) = pipe.run()
        assert frames.layout() == "FHWC" and np.asarray(frames.at(0)).shape == shape
        assert pipe.epoch_size("Reader") == 1


def test_not_supported_dali_arguments_name_themselves():
    with pytest.raises(sluice.ArgumentError) as e:
        fn.readers.file(file_root=".", dir_filters=["x*"])
    assert e.value.argument == "dir_filters"
    with pytest.raises(sluice.ArgumentError) as e:
        fn.resize(fn.testing.counter(), resize_x=2, save_attrs=True)
    assert e.value.argument == "save_attrs"


# --- preemphasis_filter --------------------------------------------------------------------------
def signal():
    return np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32)


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [0.03, 1.03, 2.06, 4.12]),                                   # preemph_coeff 0.97, border clamp
    ({"border": "zero"}, [1.0, 1.03, 2.06, 4.12]),                    # out[0] = x[0]
    ({"border": "reflect", "preemph_coeff": 0.5}, [0.0, 1.5, 3.0, 6.0]),  # x[-1] = x[1]
    ({"preemph_coeff": 0.0}, [1.0, 2.0, 4.0, 8.0]),
])
def test_preemphasis_filter_forms(kwargs, expected):
    out = run(lambda x: fn.preemphasis_filter(x, **kwargs), source=lambda: [signal()])[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_preemphasis_filter_per_sample_coeff_and_dtype():
    out = run(lambda x: fn.preemphasis_filter(x, preemph_coeff=fn.random.uniform(range=[0.5, 0.5]), dtype=types.INT16),
              source=lambda: [signal()])[0]
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out, [0, 2, 3, 6])  # 0.5, 1.5, 3, 6 rounded to even


def test_preemphasis_filter_ops_class():
    op = ops.PreemphasisFilter(border="zero", preemph_coeff=0.5)
    out = run(lambda x: op(x), source=lambda: [signal()])[0]
    np.testing.assert_allclose(out, [1.0, 1.5, 3.0, 6.0])
