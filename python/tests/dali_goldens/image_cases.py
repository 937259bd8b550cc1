"""The image cases whose outputs real DALI 2.4 recorded (python/tests/dali_goldens/image.npz, written by
scripts/record_dali_goldens.py image) and test_dali_goldens_image.py compares Sluice with. One
definition serves both: each case is a function of DALI's or Sluice's `fn` and `types` modules and the
input DataNode. Inputs: IMAGE_FILES (encoded, from tests/data/images) for the decoder cases; for the
others, the PNG/BMP/PNM files decoded (lossless, so any decoder gives the same pixels), stored in the
.npz ("input/<i>") so both sides get identical arrays, layout HWC.
"""
import numpy as np

# Lossless sources of the HWC inputs: RGB of different sizes (odd ones included).
PIXEL_FILES = ["rgb.png", "resize_src.png"]
# Encoded inputs of the decoder cases.
IMAGE_FILES = ["photo_500x375.jpg", "progressive.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "gray.jpg",
               "rgb.png", "rgba.png", "gray.png", "palette.png", "rgb_lossless.webp", "rgb24.bmp", "rgb.ppm",
               "gray.pgm"]

def mosaic(x):
    """A Bayer mosaic from an RGB image: its green channel, cropped to even extents (DALI requires them)."""
    return x[:28, :36, 1]


def stitched(fn, x):
    """A 2h x 2w mosaic (even extents for any input) of the input's channels side by side and stacked:
    more content than mosaic(x), and seams VNG's gradients must cross."""
    return fn.cat(fn.cat(x[:, :, 1], x[:, :, 0], axis=1), fn.cat(x[:, :, 2], x[:, :, 1], axis=1), axis=0)


def two_colourings(fn, types, x):
    """An h x 2w RGB image: the input and its BGR twin side by side (more colours for the Lab path)."""
    return fn.cat(x, fn.color_space_conversion(x, image_type=types.RGB, output_type=types.BGR), axis=1)


MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

PIXEL_CASES = {
    "resize_linear_down": lambda fn, types, x: [fn.resize(x, resize_x=37, resize_y=29)],
    "resize_linear_up": lambda fn, types, x: [fn.resize(x, resize_x=83, resize_y=61)],
    "resize_cubic": lambda fn, types, x: [fn.resize(x, resize_x=53, resize_y=71, interp_type=types.INTERP_CUBIC)],
    "resize_lanczos": lambda fn, types, x: [fn.resize(x, resize_x=41, resize_y=33, interp_type=types.INTERP_LANCZOS3)],
    "resize_nearest": lambda fn, types, x: [fn.resize(x, resize_x=45, resize_y=35, interp_type=types.INTERP_NN)],
    "resize_triangular": lambda fn, types, x: [fn.resize(x, resize_x=30, resize_y=20,
                                                          interp_type=types.INTERP_TRIANGULAR)],
    "resize_no_antialias": lambda fn, types, x: [fn.resize(x, resize_x=33, resize_y=27, antialias=False)],
    "resize_shorter_float": lambda fn, types, x: [fn.resize(x, resize_shorter=40, dtype=types.FLOAT)],
    "resize_not_larger": lambda fn, types, x: [fn.resize(x, size=[50, 60], mode="not_larger")],
    "resize_roi": lambda fn, types, x: [fn.resize(x, size=[40, 40], roi_start=[0.1, 0.2], roi_end=[0.8, 0.9],
                                                  roi_relative=True)],
    "crop_mirror_normalize_chw": lambda fn, types, x: [
        fn.crop_mirror_normalize(x, crop=(20, 24), mean=MEAN, std=STD, mirror=1, output_layout="CHW",
                                 dtype=types.FLOAT)],
    "crop_mirror_normalize_pad_fp16": lambda fn, types, x: [
        fn.crop_mirror_normalize(x, crop=(20, 20), crop_pos_x=0.3, crop_pos_y=0.7, mean=MEAN, std=STD,
                                 pad_output=True, dtype=types.FLOAT16, scale=1.5, shift=0.25)],
    "crop_mirror_normalize_crop_too_big": lambda fn, types, x: [  # DALI: an error (out_of_bounds_policy "error")
        fn.crop_mirror_normalize(x, crop=(300, 30), mean=MEAN, std=STD)],
    "crop_out_of_bounds_pad": lambda fn, types, x: [fn.crop(x, crop=(50, 70), crop_pos_x=0.9, crop_pos_y=0.1,
                                                            out_of_bounds_policy="pad", fill_values=[7, 8, 9])],
    "flip_both": lambda fn, types, x: [fn.flip(x, horizontal=1, vertical=1)],
    "rotate_30_linear": lambda fn, types, x: [fn.rotate(x, angle=30, fill_value=0)],
    "rotate_90_keep_size": lambda fn, types, x: [fn.rotate(x, angle=90, keep_size=True, interp_type=types.INTERP_NN)],
    "warp_affine_linear": lambda fn, types, x: [fn.warp_affine(x, matrix=[0.9, 0.2, 3.0, -0.1, 1.1, -2.0],
                                                               size=[40, 50], fill_value=255)],
    "transpose_chw": lambda fn, types, x: [fn.transpose(x, perm=[2, 0, 1])],
    "pad_align": lambda fn, types, x: [fn.pad(x, axes=[0, 1], align=[8, 16], fill_value=3)],
    "slice_normalized": lambda fn, types, x: [fn.slice(x, rel_start=[0.25, 0.1], rel_shape=[0.5, 0.6], axes=[0, 1])],
    "brightness_contrast": lambda fn, types, x: [fn.brightness_contrast(x, brightness=1.2, contrast=0.7)],
    "brightness_contrast_center": lambda fn, types, x: [
        fn.brightness_contrast(x, brightness=0.9, brightness_shift=0.1, contrast=1.3, contrast_center=100)],
    "color_twist": lambda fn, types, x: [fn.color_twist(x, brightness=1.1, contrast=0.8, saturation=1.3, hue=20)],
    "hsv": lambda fn, types, x: [fn.hsv(x, hue=40, saturation=0.6, value=1.2)],
    "hue": lambda fn, types, x: [fn.hue(x, hue=-70)],
    "saturation": lambda fn, types, x: [fn.saturation(x, saturation=1.7)],
    "color_space_gray": lambda fn, types, x: [fn.color_space_conversion(x, image_type=types.RGB,
                                                                        output_type=types.GRAY)],
    "color_space_ycbcr": lambda fn, types, x: [fn.color_space_conversion(x, image_type=types.RGB,
                                                                         output_type=types.YCbCr)],
    "color_space_bgr": lambda fn, types, x: [fn.color_space_conversion(x, image_type=types.RGB,
                                                                       output_type=types.BGR)],
    "gaussian_blur": lambda fn, types, x: [fn.gaussian_blur(x, sigma=1.5)],
    "gaussian_blur_window_float": lambda fn, types, x: [
        fn.gaussian_blur(fn.slice(x, 0, 24, axes=[0]), window_size=7, sigma=[2.0, 0.8], dtype=types.FLOAT)],
    "erase": lambda fn, types, x: [fn.erase(x, anchor=[3, 4, 10, 12], shape=[5, 6, 4, 4], axis_names="HW",
                                            fill_value=[1, 2, 3])],
    "normalize_global": lambda fn, types, x: [fn.normalize(fn.cast(fn.slice(x, 0, 24, axes=[0]), dtype=types.FLOAT))],
    "normalize_axes": lambda fn, types, x: [fn.normalize(fn.cast(x, dtype=types.FLOAT), axes=[0, 1], scale=64,
                                                         shift=128, dtype=types.UINT8)],
    "cast_int16": lambda fn, types, x: [fn.cast(x, dtype=types.INT16)],
    "equalize": lambda fn, types, x: [fn.equalize(x)],
    "jpeg_compression_distortion": lambda fn, types, x: [fn.jpeg_compression_distortion(x, quality=40)],
    "paste": lambda fn, types, x: [fn.paste(x, ratio=1.5, paste_x=0.2, paste_y=0.8, fill_value=(10, 20, 30))],
    "reductions": lambda fn, types, x: [fn.reductions.mean(x, axes=[0, 1]), fn.reductions.max(x),
                                        fn.reductions.std_dev(fn.cast(x, dtype=types.FLOAT),
                                                              fn.reductions.mean(fn.cast(x, dtype=types.FLOAT),
                                                                                 axes=[2]), axes=[2])],
    "lookup_table": lambda fn, types, x: [fn.lookup_table(x, keys=[0, 1, 2, 250], values=[9, 8, 7, 6],
                                                          default_value=5)],
    # Issue 40: the image operators that differed from DALI, argument by argument.
    **{f"debayer_{alg}_{by}{bx}": (lambda alg, by, bx: lambda fn, types, x: [
        fn.experimental.debayer(mosaic(x), blue_position=[by, bx], algorithm=alg)])(alg, by, bx)
       for alg in ("vng_ocv", "bilinear_ocv", "edgeaware_ocv") for by in (0, 1) for bx in (0, 1)},
    # 58x74 and 300x400 mosaics: VNG with red-or-blue and with green first, the others once.
    **{f"debayer_{alg}_stitched_{by}{bx}": (lambda alg, by, bx: lambda fn, types, x: [
        fn.experimental.debayer(stitched(fn, x), blue_position=[by, bx], algorithm=alg)])(alg, by, bx)
       for alg, by, bx in (("vng_ocv", 0, 0), ("vng_ocv", 0, 1), ("bilinear_ocv", 1, 0), ("edgeaware_ocv", 1, 0),
                           ("gray_ocv", 1, 1))},
    **{f"debayer_gray_ocv_{by}{bx}": (lambda by, bx: lambda fn, types, x: [
        fn.experimental.debayer(mosaic(x), blue_position=[by, bx], algorithm="gray_ocv")])(by, bx)
       for by in (0, 1) for bx in (0, 1)},
    # VNG under 8 rows or columns: OpenCV 5's fallback, bilinear for the same pattern.
    "debayer_vng_ocv_small_10": lambda fn, types, x: [
        fn.experimental.debayer(x[:6, :10, 1], blue_position=[1, 0], algorithm="vng_ocv")],
    "debayer_vng_ocv_small_01": lambda fn, types, x: [
        fn.experimental.debayer(x[:10, :4, 1], blue_position=[0, 1], algorithm="vng_ocv")],
    "clahe_luma": lambda fn, types, x: [fn.clahe(x, tiles_x=4, tiles_y=4, clip_limit=2.0)],
    "clahe_luma_two_colourings": lambda fn, types, x: [fn.clahe(two_colourings(fn, types, x), tiles_x=5, tiles_y=3,
                                                                clip_limit=1.5)],
    "clahe_luma_no_clip": lambda fn, types, x: [fn.clahe(two_colourings(fn, types, x), tiles_x=2, tiles_y=7,
                                                         clip_limit=0.0)],
    "clahe_luma_default_tiles": lambda fn, types, x: [fn.clahe(x, tiles_x=8, tiles_y=8, clip_limit=40.0)],
    "clahe_per_channel": lambda fn, types, x: [fn.clahe(x, tiles_x=4, tiles_y=3, clip_limit=2.0, luma_only=False)],
    "clahe_gray": lambda fn, types, x: [fn.clahe(x[:, :, 1:2], tiles_x=4, tiles_y=3, clip_limit=3.0)],
    "clahe_gray_small_clip": lambda fn, types, x: [fn.clahe(x[:, :, 0:1], tiles_x=3, tiles_y=5, clip_limit=1.0)],
    "laplacian_u8": lambda fn, types, x: [fn.laplacian(x)],
    "laplacian_float": lambda fn, types, x: [fn.laplacian(x, dtype=types.FLOAT)],
    "laplacian_float_w5": lambda fn, types, x: [fn.laplacian(x, window_size=5, dtype=types.FLOAT)],
    "laplacian_float_w7_s3": lambda fn, types, x: [fn.laplacian(x, window_size=[7, 5], smoothing_size=[3, 1],
                                                                dtype=types.FLOAT)],
    "laplacian_float_normalized": lambda fn, types, x: [fn.laplacian(x, window_size=9, normalized_kernel=True,
                                                                     dtype=types.FLOAT)],
    "laplacian_float_scale": lambda fn, types, x: [fn.laplacian(fn.cast(x, dtype=types.FLOAT), window_size=3,
                                                                scale=[0.5, 2.0])],
    # Per-axis windows without smoothing_size: each partial derivative smooths with its own window size.
    "laplacian_float_w37": lambda fn, types, x: [fn.laplacian(x[:40, :50], window_size=[3, 7], dtype=types.FLOAT)],
    "laplacian_float_w73_normalized": lambda fn, types, x: [
        fn.laplacian(fn.cast(x[:40, :50], dtype=types.FLOAT), window_size=[7, 3], normalized_kernel=True)],
    # DALI 2.4's largest windows (31): coefficients past 2^24, float32 summation order shows.
    "laplacian_float_w31_normalized": lambda fn, types, x: [
        fn.laplacian(x[:40, :50], window_size=[31, 25], smoothing_size=[29, 31], normalized_kernel=True,
                     dtype=types.FLOAT)],
    "water_default": lambda fn, types, x: [fn.water(x)],
    "water_linear": lambda fn, types, x: [fn.water(x, ampl_x=3.5, ampl_y=2.0, freq_x=0.3, freq_y=0.2, phase_x=0.5,
                                                   phase_y=1.0, interp_type=types.INTERP_LINEAR, fill_value=9)],
    "water_float": lambda fn, types, x: [fn.water(fn.cast(x, dtype=types.FLOAT), ampl_y=4.0, freq_y=0.5)],
    "sphere": lambda fn, types, x: [fn.sphere(x)],
    "tensor_resize_nearest_frac": lambda fn, types, x: [
        fn.experimental.tensor_resize(x, scales=[0.7, 1.3, 1.0], interp_type=types.INTERP_NN)],
    "tensor_resize_nearest_frac_axes": lambda fn, types, x: [
        fn.experimental.tensor_resize(x, scales=[1.45, 0.55], axes=[0, 1], interp_type=types.INTERP_NN)],
    "tensor_resize_nearest_sizes": lambda fn, types, x: [
        fn.experimental.tensor_resize(x, sizes=[17, 23], axes=[0, 1], interp_type=types.INTERP_NN)],
    "tensor_resize_linear_frac": lambda fn, types, x: [
        fn.experimental.tensor_resize(x, scales=[0.7, 1.3], axes=[0, 1], interp_type=types.INTERP_LINEAR)],
    "brightness_contrast_example_cpu": lambda fn, types, x: [
        fn.brightness_contrast(x, brightness_shift=0.3, contrast=0.4, contrast_center=100)],
    "brightness_contrast_example_gpu": lambda fn, types, x: [
        fn.brightness_contrast(x, contrast=1.5, brightness_shift=1, brightness=-1)],
    "brightness_contrast_float_out": lambda fn, types, x: [
        fn.brightness_contrast(x, contrast=1.7, brightness=0.8, dtype=types.FLOAT)],
    "contrast_only": lambda fn, types, x: [fn.contrast(x, contrast=2.2)],
    "hsv_value": lambda fn, types, x: [fn.hsv(x, value=0.7)],
    "hsv_saturation": lambda fn, types, x: [fn.hsv(x, saturation=1.9)],
    "hsv_hue": lambda fn, types, x: [fn.hsv(x, hue=-123.5)],
    "hsv_float": lambda fn, types, x: [fn.hsv(fn.cast(x, dtype=types.FLOAT), hue=30, saturation=0.5, value=1.1,
                                              dtype=types.FLOAT)],
    # DALI's hsv gives uint8 when dtype is not given, also for float input (its schema default);
    # Sluice keeps the input type, as DALI's documentation says: test_hsv_default_dtype_differs_as_documented.
    "hsv_float_default_dtype": lambda fn, types, x: [fn.hsv(fn.cast(x, dtype=types.FLOAT), hue=30, saturation=0.5,
                                                            value=1.1)],
}

DECODER_CASES = {
    "decode_rgb": lambda fn, types, x: [fn.decoders.image(x, output_type=types.RGB)],
    "decode_gray": lambda fn, types, x: [fn.decoders.image(x, output_type=types.GRAY)],
    "decode_crop": lambda fn, types, x: [fn.decoders.image_crop(x, crop=(16, 20), crop_pos_x=0.4, crop_pos_y=0.6)],
}
