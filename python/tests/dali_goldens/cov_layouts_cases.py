"""Sequences (FHWC) and volumes (DHWC) through the operators DALI lets take them (issue 40: each layout
an operator takes), with one non-default argument each. Recorded by `scripts/record_dali_goldens.py
cov_layouts` into cov_layouts.npz; compared by test_dali_goldens_coverage.py. CASES: name -> (input
kind, build(fn, types, x)).
"""
import numpy as np

BATCH = 2


def _frames(n, h, w, c, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    out = []
    for f in range(n):
        base = np.stack([(x * 17 + f * 30) % 256, (y * 23 + f * 11) % 256, ((x + y) * 9) % 256][:c], -1)
        out.append(np.clip(base + rng.integers(-15, 16, (h, w, c)), 0, 255))
    return np.stack(out).astype(np.uint8)


def inputs():
    return {"seq": ("FHWC", [_frames(3, 10, 12, 3, 1), _frames(2, 9, 14, 3, 2)]),
            "vol": ("DHWC", [_frames(4, 8, 10, 3, 3), _frames(5, 7, 9, 3, 4)]),
            "square_seq": ("FHWC", [_frames(2, 12, 12, 3, 5), _frames(3, 10, 10, 3, 6)])}


K = np.float32([[0, 1, 0], [1, 2, 1], [0, 1, 0]]) / 6
_COLOUR = {
    "brightness": lambda fn, types, x: fn.brightness(x, brightness=1.2),
    "brightness_contrast": lambda fn, types, x: fn.brightness_contrast(x, contrast=1.3, brightness_shift=0.1),
    "contrast": lambda fn, types, x: fn.contrast(x, contrast=0.7),
    "hsv": lambda fn, types, x: fn.hsv(x, hue=20, saturation=0.8),
    "hue": lambda fn, types, x: fn.hue(x, hue=-30),
    "saturation": lambda fn, types, x: fn.saturation(x, saturation=1.5),
    "color_twist": lambda fn, types, x: fn.color_twist(x, contrast=1.2, hue=10),
    "color_space": lambda fn, types, x: fn.color_space_conversion(x, image_type=types.RGB, output_type=types.YCbCr),
    "cast": lambda fn, types, x: fn.cast(x, dtype=types.FLOAT16),
    "cast_like": lambda fn, types, x: fn.cast_like(x, fn.cast(x, dtype=types.INT16)),
    "copy": lambda fn, types, x: fn.copy(x),
    "lookup_table": lambda fn, types, x: fn.lookup_table(x, keys=[0, 255], values=[10, 20], default_value=3),
    "erase": lambda fn, types, x: fn.erase(x, anchor=[2, 3], shape=[3, 4], axis_names="HW", fill_value=50),
    "normalize": lambda fn, types, x: fn.normalize(fn.cast(x, dtype=types.FLOAT), axis_names="HW"),
    "laplacian": lambda fn, types, x: fn.laplacian(fn.cast(x, dtype=types.FLOAT), window_size=3),
    "reshape": lambda fn, types, x: fn.reshape(x, rel_shape=[1, 1, -1]),
    "reinterpret": lambda fn, types, x: fn.reinterpret(x, dtype=types.INT8),
    "expand_squeeze": lambda fn, types, x: fn.squeeze(fn.expand_dims(x, axes=[4], new_axis_names="Z"), axes=[4]),
    "tensor_resize": lambda fn, types, x: fn.tensor_resize(x, sizes=[6, 7], axes=[1, 2]),
}
CASES = {f"cov_{kind}_{name}": (kind, build) for kind in ("seq", "vol") for name, build in _COLOUR.items()}
CASES.update({
    "cov_seq_cmn": ("seq", lambda fn, types, x: [fn.crop_mirror_normalize(x, crop=(6, 6), mean=[1.0, 2.0, 3.0],
                                                                          std=[2.0, 2.0, 2.0], mirror=1,
                                                                          output_layout="FCHW")]),
    "cov_seq_flip": ("seq", lambda fn, types, x: [fn.flip(x, vertical=1)]),
    "cov_seq_equalize": ("seq", lambda fn, types, x: [fn.equalize(x)]),
    "cov_seq_filter": ("seq", lambda fn, types, x: [fn.filter(x, K)]),
    "cov_seq_warp_affine": ("seq", lambda fn, types, x: [fn.warp_affine(x, matrix=[1.0, 0.2, 1.0, 0.0, 0.9, 0.5])]),
    "cov_seq_warp_perspective": ("seq", lambda fn, types, x: [
        fn.experimental.warp_perspective(x, matrix=[1.0, 0.1, 0.0, 0.0, 1.0, 1.0, 0.001, 0.0, 1.0])]),
    "cov_seq_resize_crop_mirror": ("seq", lambda fn, types, x: [fn.resize_crop_mirror(x, resize_x=16, resize_y=12,
                                                                                     crop=[8, 8], mirror=1)]),
    "cov_seq_random_resized_crop": ("square_seq", lambda fn, types, x: [
        fn.random_resized_crop(x, size=[8, 8], random_area=1.0, random_aspect_ratio=1.0, interp_type=types.INTERP_NN)]),
    "cov_vol_warp_affine": ("vol", lambda fn, types, x: [
        fn.warp_affine(x, matrix=[1.0, 0.0, 0.1, 0.5, 0.0, 1.0, 0.0, 0.0, 0.1, 0.0, 1.0, 1.0],
                       interp_type=types.INTERP_NN)]),
    "cov_vol_transpose": ("vol", lambda fn, types, x: [fn.transpose(x, perm=[3, 0, 1, 2])]),
})
for _name, (_kind, _build) in list(CASES.items()):
    if not _name.startswith(("cov_seq_cmn", "cov_seq_flip", "cov_seq_eq", "cov_seq_filter", "cov_seq_warp",
                             "cov_seq_resize", "cov_seq_random", "cov_vol_warp", "cov_vol_transpose")):
        CASES[_name] = (_kind, (lambda b: lambda fn, types, x: [b(fn, types, x)])(_build))
