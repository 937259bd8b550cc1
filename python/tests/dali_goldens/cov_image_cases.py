"""Image operator cases added for argument coverage (issue 40): each gives the arguments the older
image cases leave at their defaults non-default values, on small images, sequences (FHWC), volumes
(DHWC) and channel-first images. Recorded by `scripts/record_dali_goldens.py cov_image` into
cov_image.npz; compared by test_dali_goldens_coverage.py. CASES: name -> (input kind, build(fn, types, x)).
"""
import numpy as np

BATCH = 3


def _image(h, w, c, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 7) % 256][:c], axis=-1)
    return np.clip(base + rng.integers(-20, 21, (h, w, c)), 0, 255).astype(np.uint8)


def inputs():
    hwc = [_image(20, 28, 3, 1), _image(15, 22, 3, 2), _image(26, 18, 3, 3)]
    return {
        "hwc": ("HWC", hwc),
        "chw": ("CHW", [np.ascontiguousarray(a.transpose(2, 0, 1)) for a in hwc]),
        "gray": ("HWC", [a[:, :, :1].copy() for a in hwc]),
        "fhwc": ("FHWC", [np.stack([_image(12, 16, 3, 10 + i + f) for f in range(3)]) for i in range(2)]),
        "dhwc": ("DHWC", [np.stack([_image(10, 12, 1, 20 + i + d) for d in range(6)]) for i in range(2)]),
    }


def _mask0(fn):
    """A per-sample mask of zeros (DALI 2.4 ignores a constant mask=0: docs/dali-compatibility.md, sphere)."""
    return fn.random.coin_flip(probability=0.0)


M3 = [1.0, 0.1, -2.0, 0.05, 0.9, 1.0, 0.001, 0.002, 1.0]

CASES = {
    # resize
    "cov_resize_longer_filters": ("hwc", lambda fn, types, x: [
        fn.resize(x, resize_longer=20, min_filter=types.INTERP_CUBIC, mag_filter=types.INTERP_NN)]),
    "cov_resize_max_size_subpixel": ("hwc", lambda fn, types, x: [
        fn.resize(x, resize_x=40, max_size=[30, 35], subpixel_scale=False)]),
    "cov_resize_volume": ("dhwc", lambda fn, types, x: [fn.resize(x, resize_z=4, resize_x=8, resize_y=7)]),
    "cov_resize_sequence": ("fhwc", lambda fn, types, x: [fn.resize(x, size=[8, 10])]),
    "cov_resize_chw": ("chw", lambda fn, types, x: [fn.resize(x, size=[10, 12], interp_type=types.INTERP_NN)]),
    # resize_crop_mirror
    "cov_rcm_shorter_crop_mirror": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_shorter=16, crop=[10, 12], crop_pos_x=0.3, crop_pos_y=0.8, mirror=1)]),
    "cov_rcm_xy_nn": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_x=30, resize_y=20, crop_w=12, crop_h=9, interp_type=types.INTERP_NN,
                              antialias=False, rounding="truncate")]),
    "cov_rcm_size_mode": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, size=[18, 22], mode="stretch", min_filter=types.INTERP_CUBIC,
                              mag_filter=types.INTERP_NN, subpixel_scale=False, crop=[8, 8])]),
    "cov_rcm_roi_float": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_x=20, resize_y=20, roi_start=[2, 3], roi_end=[12, 14], crop=[10, 10],
                              dtype=types.FLOAT)]),
    "cov_rcm_roi_relative": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_x=20, resize_y=20, roi_start=[0.1, 0.1], roi_end=[0.9, 0.8],
                              roi_relative=True, crop=[12, 12])]),
    "cov_rcm_longer_max": ("hwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_longer=30, max_size=25, crop=[10, 10])]),
    "cov_rcm_volume": ("dhwc", lambda fn, types, x: [
        fn.resize_crop_mirror(x, resize_z=4, resize_x=10, resize_y=8, crop_d=3, crop_h=6, crop_w=6,
                              crop_pos_z=0.3)]),
    # crop and crop_mirror_normalize
    "cov_crop_hw_truncate_float": ("hwc", lambda fn, types, x: [
        fn.crop(x, crop_h=7, crop_w=9, crop_pos_x=0.33, crop_pos_y=0.61, rounding="truncate")]),
    "cov_crop_volume": ("dhwc", lambda fn, types, x: [fn.crop(x, crop=(3, 5, 6), crop_pos_z=0.7)]),
    "cov_crop_volume_dhw": ("dhwc", lambda fn, types, x: [fn.crop(x, crop_d=4, crop_h=5, crop_w=6)]),
    "cov_crop_sequence": ("fhwc", lambda fn, types, x: [fn.crop(x, crop=(6, 7), crop_pos_x=0.2)]),
    "cov_cmn_pad_policy": ("hwc", lambda fn, types, x: [
        fn.crop_mirror_normalize(x, crop_h=30, crop_w=10, out_of_bounds_policy="pad", fill_values=[1, 2, 3],
                                 output_layout="HWC", rounding="truncate", crop_pos_x=0.4)]),
    "cov_cmn_volume": ("dhwc", lambda fn, types, x: [
        fn.crop_mirror_normalize(x, crop_d=3, crop_h=6, crop_w=7, crop_pos_z=0.2, mean=[10.0], std=[3.0],
                                 output_layout="CDHW")]),
    "cov_cmn_chw_in": ("chw", lambda fn, types, x: [
        fn.crop_mirror_normalize(x, crop=(8, 8), mean=[1.0, 2.0, 3.0], std=[2.0, 2.0, 2.0], output_layout="HWC")]),
    # flip, rotate, warps
    "cov_flip_vertical_only": ("hwc", lambda fn, types, x: [fn.flip(x, horizontal=0, vertical=1)]),
    "cov_flip_depthwise": ("dhwc", lambda fn, types, x: [fn.flip(x, horizontal=0, depthwise=1)]),
    "cov_flip_chw": ("chw", lambda fn, types, x: [fn.flip(x)]),
    "cov_rotate_size_float": ("hwc", lambda fn, types, x: [
        fn.rotate(x, angle=35, size=[20, 24], dtype=types.FLOAT, fill_value=0)]),
    "cov_rotate_volume_axis": ("dhwc", lambda fn, types, x: [
        fn.rotate(x, angle=90, axis=[0, 0, 1], interp_type=types.INTERP_NN, keep_size=True)]),
    "cov_rotate_per_frame": ("fhwc", lambda fn, types, x: [fn.rotate(x, angle=fn.per_frame(
        fn.constant(fdata=[10.0, -25.0, 40.0], shape=[3], layout="X"), replace=True), fill_value=0, keep_size=True)]),
    "cov_rotate_sequence": ("fhwc", lambda fn, types, x: [fn.rotate(x, angle=-20, fill_value=3)]),
    "cov_warp_affine_nn_forward_float": ("hwc", lambda fn, types, x: [
        fn.warp_affine(x, matrix=[1.1, 0.1, 2.0, -0.1, 0.9, 1.0], inverse_map=False, interp_type=types.INTERP_NN,
                       dtype=types.FLOAT, fill_value=0)]),
    "cov_warp_perspective": ("hwc", lambda fn, types, x: [
        fn.experimental.warp_perspective(x, matrix=M3, size=[18, 20], interp_type=types.INTERP_NN,
                                         border_mode="constant", fill_value=[5, 6, 7])]),
    "cov_warp_perspective_forward_center": ("hwc", lambda fn, types, x: [
        fn.experimental.warp_perspective(x, matrix=M3, inverse_map=False, pixel_origin="center",
                                         border_mode="replicate")]),
    # colour
    "cov_brightness_float": ("hwc", lambda fn, types, x: [
        fn.brightness(x, brightness=1.3, brightness_shift=0.05, dtype=types.FLOAT)]),
    "cov_contrast_center_float": ("hwc", lambda fn, types, x: [
        fn.contrast(x, contrast=1.4, contrast_center=90, dtype=types.FLOAT)]),
    "cov_hue_float": ("hwc", lambda fn, types, x: [fn.hue(x, hue=30, dtype=types.FLOAT)]),
    "cov_saturation_float": ("hwc", lambda fn, types, x: [
        fn.saturation(x, saturation=0.4, dtype=types.FLOAT)]),
    "cov_color_twist_float": ("hwc", lambda fn, types, x: [
        fn.color_twist(x, hue=15, saturation=1.2, dtype=types.FLOAT)]),
    "cov_color_twist_sequence": ("fhwc", lambda fn, types, x: [fn.color_twist(x, brightness=0.8, contrast=1.2)]),
    "cov_color_space_ycbcr_rgb": ("hwc", lambda fn, types, x: [
        fn.color_space_conversion(x, image_type=types.YCbCr, output_type=types.RGB),
        fn.color_space_conversion(x, image_type=types.BGR, output_type=types.GRAY)]),
    "cov_clahe_bins": ("hwc", lambda fn, types, x: [fn.clahe(x, tiles_x=2, tiles_y=2, clip_limit=2.0, bins=64,
                                                              luma_only=False)]),
    "cov_lookup_table_float": ("hwc", lambda fn, types, x: [
        fn.lookup_table(x, keys=[0, 10, 128], values=[0.5, 1.5, 2.5], default_value=-1.0, dtype=types.FLOAT)]),
    # filters
    "cov_filter_constant_valid": ("hwc", lambda fn, types, x: [
        fn.filter(x, np.float32([[0, 1, 0], [1, -4, 1], [0, 1, 0]]), border="constant", dtype=types.FLOAT),
        fn.filter(x, np.float32([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16, mode="valid"),
        fn.filter(x, np.float32([[1, 0], [0, -1], [1, 1]]), anchor=[0, 1], border="wrap", dtype=types.FLOAT)]),
    "cov_gaussian_blur_sequence": ("fhwc", lambda fn, types, x: [fn.gaussian_blur(x, sigma=1.0)]),
    "cov_gaussian_blur_volume": ("dhwc", lambda fn, types, x: [fn.gaussian_blur(x, window_size=3)]),
    # geometry on tensors
    "cov_erase_normalized_centered": ("hwc", lambda fn, types, x: [
        fn.erase(x, anchor=[0.5, 0.5], shape=[0.4, 0.3], normalized=True, centered_anchor=True, axes=[0, 1])]),
    "cov_erase_axis_names": ("hwc", lambda fn, types, x: [
        fn.erase(x, anchor=[0.2], shape=[5], normalized_anchor=True, normalized_shape=False, axis_names="W",
                 fill_value=100)]),
    "cov_slice_start_end": ("hwc", lambda fn, types, x: [
        fn.slice(x, start=[2, 3], end=[10, 15], axes=[0, 1]), fn.slice(x, rel_start=[0.1, 0.2],
                                                                        rel_end=[0.7, 0.9], axis_names="HW")]),
    "cov_slice_shape_pad": ("hwc", lambda fn, types, x: [
        fn.slice(x, start=[5, -2], shape=[30, 10], axis_names="WH", out_of_bounds_policy="pad",
                 fill_values=[9, 8, 7])]),
    "cov_slice_anchor_inputs": ("hwc", lambda fn, types, x: [
        fn.slice(x, np.float32([3, 4]), np.float32([6, 9]), normalized_anchor=False, normalized_shape=False)]),
    "cov_slice_volume": ("dhwc", lambda fn, types, x: [fn.slice(x, start=[1, 2, 3], shape=[3, 4, 5],
                                                                axis_names="DHW")]),
    "cov_pad_axis_names": ("hwc", lambda fn, types, x: [fn.pad(x, axis_names="W", shape=[30], fill_value=1)]),
    "cov_transpose_layouts": ("hwc", lambda fn, types, x: [
        fn.transpose(x, perm=[1, 0, 2], output_layout="WHC"), fn.transpose(x, perm=[2, 0, 1], transpose_layout=False)]),
    "cov_paste_canvas": ("hwc", lambda fn, types, x: [
        fn.paste(x, ratio=1.2, min_canvas_size=40, fill_value=(1, 2, 3))]),
    "cov_paste_gray": ("gray", lambda fn, types, x: [fn.paste(x, ratio=2.0, n_channels=1, fill_value=(4,))]),
    "cov_sphere_args": ("hwc", lambda fn, types, x: [fn.sphere(x, fill_value=5, interp_type=types.INTERP_LINEAR),
                                                     fn.sphere(x, mask=_mask0(fn))]),
    "cov_water_mask": ("hwc", lambda fn, types, x: [fn.water(x, mask=_mask0(fn))]),
    "cov_grid_mask": ("hwc", lambda fn, types, x: [
        fn.grid_mask(x, tile=8, ratio=0.3, angle=0.4, shift_x=2.0, shift_y=-3.0)]),
    "cov_noise_deterministic": ("hwc", lambda fn, types, x: [
        fn.noise.salt_and_pepper(x, prob=1.0, salt_vs_pepper=1.0, salt_val=200),
        fn.noise.salt_and_pepper(x, prob=1.0, salt_vs_pepper=0.0, pepper_val=30, per_channel=True),
        fn.noise.gaussian(x, stddev=0.0, mean=3.0)]),
    "cov_jpeg_distortion_sequence": ("fhwc", lambda fn, types, x: [fn.jpeg_compression_distortion(x, quality=70)]),
    "cov_equalize_gray": ("gray", lambda fn, types, x: [fn.equalize(x)]),
}
