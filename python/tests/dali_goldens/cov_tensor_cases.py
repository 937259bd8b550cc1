"""Tensor, reduction, normalisation, constant and transform-builder cases added for argument coverage
(issue 40). Recorded by `scripts/record_dali_goldens.py cov_tensor` into cov_tensor.npz; compared by
test_dali_goldens_coverage.py. CASES: name -> (input kind, build(fn, types, x)); kind None: the case
makes its own data (BATCH samples).
"""
import numpy as np

BATCH = 2


def inputs():
    rng = np.random.default_rng(3)
    f32 = [rng.uniform(-5, 5, (3, 4, 2)).astype(np.float32), rng.uniform(-5, 5, (2, 5, 2)).astype(np.float32)]
    seq = [rng.integers(0, 255, (4, 3, 5, 2)).astype(np.uint8), rng.integers(0, 255, (3, 2, 4, 2)).astype(np.uint8)]
    labels = [np.int32([0, 2, 1, 3]), np.int32([3, 3, 0])]
    points = [rng.uniform(0, 1, (5, 3)).astype(np.float32), rng.uniform(0, 1, (2, 3)).astype(np.float32)]
    return {"f32": ("HWC", f32), "seq": ("FHWC", seq), "labels": (None, labels), "points": (None, points)}


def _u8(fn, types, x):
    return fn.cast(x * 20 + 100, dtype=types.UINT8)


CASES = {
    # reductions: every argument of every reduction
    "cov_reductions_axis_names": ("f32", lambda fn, types, x: [
        fn.reductions.max(x, axis_names="HW", keep_dims=True), fn.reductions.min(x, axes=[1], keep_dims=True),
        fn.reductions.min(x, axis_names="C"), fn.reductions.mean(_u8(fn, types, x), axis_names="W", dtype=types.FLOAT),
        fn.reductions.mean_square(x, axes=[0, 2], keep_dims=True), fn.reductions.mean_square(_u8(fn, types, x), axis_names="H",
                                                                                            dtype=types.FLOAT),
        fn.reductions.rms(_u8(fn, types, x), axis_names="C", keep_dims=True, dtype=types.FLOAT),
        fn.reductions.sum(x, axis_names="HC", keep_dims=True)]),
    "cov_reductions_variance": ("f32", lambda fn, types, x: [
        fn.reductions.variance(x, fn.reductions.mean(x, axes=[0, 1], keep_dims=True), axes=[0, 1], ddof=1,
                               keep_dims=True),
        fn.reductions.variance(x, fn.reductions.mean(x, axis_names="W"), axis_names="W"),
        fn.reductions.std_dev(x, fn.reductions.mean(x, axis_names="H", keep_dims=True), axis_names="H", ddof=1,
                              keep_dims=True)]),
    # normalize
    "cov_normalize_mean_stddev": ("f32", lambda fn, types, x: [
        fn.normalize(x, mean=1.5, stddev=2.0), fn.normalize(x, axis_names="HW", epsilon=0.5, ddof=1)]),
    "cov_normalize_batch": ("f32", lambda fn, types, x: [fn.normalize(fn.slice(x, start=[0, 0], shape=[2, 4], axes=[0, 1]), axes=[2], batch=True)]),
    # shapes of tensors
    "cov_reshape_layouts": ("f32", lambda fn, types, x: [
        fn.reshape(x, rel_shape=[1, 2, 0.5], layout="ABC"), fn.reshape(x, src_dims=[2, 0, 1]),
        fn.reshape(x, shape=[-1, 2], layout="XY")]),
    "cov_reinterpret": ("f32", lambda fn, types, x: [
        fn.reinterpret(x, dtype=types.INT32), fn.reinterpret(x, rel_shape=[1, 2, 0.5], layout="ABC"),
        fn.reinterpret(x, shape=[-1], layout="X")]),
    "cov_expand_squeeze_names": ("f32", lambda fn, types, x: [
        fn.squeeze(fn.expand_dims(x, axes=[0, 3], new_axis_names="FZ"), axis_names="F")]),
    "cov_cat_stack_names": ("f32", lambda fn, types, x: [
        fn.cat(x, x * 2, axis_name="W"), fn.cat(x, -x, axis=2), fn.stack(x, x + 1, axis=1, axis_name="N"),
        fn.stack(x, x, axis=3)]),
    "cov_transpose_volume": ("seq", lambda fn, types, x: [fn.transpose(x, perm=[0, 3, 1, 2])]),
    "cov_element_extract": ("seq", lambda fn, types, x: [*fn.element_extract(x, element_map=[0, 2])]),
    "cov_sequence_rearrange": ("seq", lambda fn, types, x: [fn.sequence_rearrange(x, new_order=[2, 0, 0, 1])]),
    "cov_permute_batch": ("f32", lambda fn, types, x: [fn.permute_batch(x, indices=[1, 1])]),
    "cov_one_hot_axis": ("labels", lambda fn, types, x: [
        fn.one_hot(x, num_classes=4, axis=0, dtype=types.INT32, on_value=5, off_value=-1),
        fn.one_hot(fn.reshape(x, shape=[-1, 1], layout="XY"), num_classes=5, axis_name="Z")]),
    "cov_cast_like_zeros_like": ("labels", lambda fn, types, x: [
        fn.zeros_like(x, dtype=types.FLOAT), fn.ones_like(x, dtype=types.UINT8), fn.full_like(x, 2.5),
        fn.copy(x)]),
    # constants and generators
    "cov_constants": (None, lambda fn, types, x: [
        fn.constant(fdata=[1.5, 2.5, -1.0, 4.0], shape=[2, 2], layout="HW"),
        fn.constant(idata=[1, 2, 3], dtype=types.INT16),
        fn.zeros(shape=[2, 3], dtype=types.INT32, layout="AB"), fn.ones(shape=[3], dtype=types.FLOAT64, layout="A"),
        fn.full(np.float32([1.0, 2.0]), shape=[3, 2], layout="XY")]),
    # transform builders
    "cov_transforms_rotation": (None, lambda fn, types, x: [
        fn.transforms.rotation(angle=30, center=[1.0, 2.0], reverse_order=True),
        fn.transforms.rotation(angle=45, axis=[0.0, 0.0, 1.0], center=[1.0, 0.0, 2.0])]),
    "cov_transforms_scale": (None, lambda fn, types, x: [
        fn.transforms.scale(scale=[2.0, 3.0], center=[0.5, 1.0]), fn.transforms.scale(scale=[2.0], ndim=3),
        fn.transforms.scale(fn.transforms.translation(offset=[1.0, 2.0]), scale=[2.0, 0.5], reverse_order=True)]),
    "cov_transforms_shear": (None, lambda fn, types, x: [
        fn.transforms.shear(shear=[0.1, 0.2], center=[1.0, 1.0]), fn.transforms.shear(angles=[10.0, -20.0]),
        fn.transforms.shear(fn.transforms.scale(scale=[2.0, 2.0]), shear=[0.3, 0.0], reverse_order=True)]),
    "cov_transforms_translation": (None, lambda fn, types, x: [
        fn.transforms.translation(fn.transforms.scale(scale=[2.0, 3.0]), offset=[1.0, -1.0], reverse_order=True)]),
    "cov_transforms_crop": (None, lambda fn, types, x: [
        fn.transforms.crop(from_start=[0.1, 0.2], from_end=[0.9, 0.7], to_start=[0.0, 1.0], to_end=[1.0, 0.0]),
        fn.transforms.crop(from_start=[10.0, 20.0], from_end=[5.0, 40.0], absolute=True),
        fn.transforms.crop(fn.transforms.scale(scale=[2.0, 2.0]), from_start=[0.5, 0.5], reverse_order=True)]),
    "cov_transforms_combine": (None, lambda fn, types, x: [
        fn.transforms.combine(fn.transforms.scale(scale=[2.0, 3.0]), fn.transforms.translation(offset=[1.0, 2.0]),
                              reverse_order=True)]),
    # coordinates
    "cov_coord_flip_3d": ("points", lambda fn, types, x: [
        fn.coord_flip(x, layout="xyz", flip_x=0, flip_y=1, flip_z=1, center_y=0.25, center_z=0.75),
        fn.coord_flip(x, layout="zyx", flip_z=1)]),
    "cov_coord_transform_mt": ("points", lambda fn, types, x: [
        fn.coord_transform(x, MT=[1.0, 0.5, 0.0, 0.1, 0.0, 2.0, 0.0, -0.2, 0.3, 0.0, 1.0, 0.5]),
        fn.coord_transform(fn.cast(x * 100, dtype=types.INT16), M=[0.5], dtype=types.INT16)]),
}
