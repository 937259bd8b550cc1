"""The standard augmentations of AutoAugment, RandAugment and TrivialAugment (DALI's
``nvidia.dali.auto_aug.augmentations``), as Sluice operators on HWC uint8 images.

Each is an :class:`~sluice.auto_aug.core._Augmentation` with the setup DALI declares (magnitude
range, random negation, magnitude -> parameter); ``aug.augmentation(mag_range=...)`` makes a variant.
Called with a batch, ``magnitude_bin`` and ``num_magnitude_bins``, it applies
``op(sample, as_param(magnitudes[bin] * (-1) ** sign))``.

Where the result can differ from torchvision's functional counterpart: ``equalize`` follows
OpenCV's histogram formula (as DALI's), ``sharpness`` filters the 1-pixel border too (PIL and
torchvision keep it), and uint8 results are rounded where torchvision truncates.
"""
import numpy as np

from .. import fn, types
from .core import augmentation


def warp_x_param(magnitude):
    return [magnitude, 0]


def warp_y_param(magnitude):
    return [0, magnitude]


def _warp(sample, matrix, fill_value, interp_type):
    return fn.warp_affine(sample, matrix=matrix, fill_value=fill_value, interp_type=interp_type, inverse_map=False)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_x_param)
def shear_x(sample, shear, fill_value=128, interp_type=None):
    return _warp(sample, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_y_param)
def shear_y(sample, shear, fill_value=128, interp_type=None):
    return _warp(sample, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0., 1.), randomly_negate=True, mag_to_param=warp_x_param)
def translate_x(sample, rel_offset, shape, fill_value=128, interp_type=None):
    """Shifts by rel_offset * width; `shape` is the batch of HWC shapes (e.g. fn.shapes or
    fn.peek_image_shape)."""
    offset = rel_offset * shape[1]
    return _warp(sample, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_x_param, name="translate_x")
def translate_x_no_shape(sample, offset, fill_value=128, interp_type=None):
    return _warp(sample, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0., 1.), randomly_negate=True, mag_to_param=warp_y_param)
def translate_y(sample, rel_offset, shape, fill_value=128, interp_type=None):
    offset = rel_offset * shape[0]
    return _warp(sample, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_y_param, name="translate_y")
def translate_y_no_shape(sample, offset, fill_value=128, interp_type=None):
    return _warp(sample, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 30), randomly_negate=True)
def rotate(sample, angle, fill_value=128, interp_type=None, rotate_keep_size=True):
    return fn.rotate(sample, angle=angle, fill_value=fill_value, interp_type=interp_type, keep_size=rotate_keep_size)


def shift_enhance_range(magnitude):
    """The enhance operations (brightness, contrast, color, sharpness) are neutral at 1: a magnitude
    in [0, 1], randomly negated, becomes 1 + magnitude."""
    return 1 + magnitude


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def brightness(sample, parameter):
    return fn.brightness(sample, brightness=parameter)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def contrast(sample, parameter):
    """PIL's ImageEnhance.Contrast: blends with the mean of the image's luma."""
    gray = fn.color_space_conversion(sample, image_type=types.RGB, output_type=types.GRAY)
    center = fn.reductions.mean(gray)
    return fn.contrast(sample, contrast=parameter, contrast_center=center)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def color(sample, parameter):
    return fn.saturation(sample, saturation=parameter)


def sharpness_kernel(magnitude):
    """The 3x3 kernel of PIL's ImageEnhance.Sharpness for a magnitude in [-1, 1]: a blend of the
    image (1 + magnitude) and PIL's SMOOTH filter (-magnitude)."""
    blur = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float32) / 13
    ident = np.zeros((3, 3), dtype=np.float32)
    ident[1, 1] = 1
    return -magnitude * blur + (1 + magnitude) * ident


def sharpness_kernel_shifted(magnitude):
    """sharpness_kernel for a magnitude in [0, 2] (neutral at 1)."""
    return sharpness_kernel(magnitude - 1)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=sharpness_kernel)
def sharpness(sample, kernel):
    return fn.filter(sample, kernel)


def poster_mask_uint8(magnitude):
    """The mask that keeps the `magnitude` (rounded, clamped to [1, 8]) most significant bits."""
    bits = int(np.clip(np.round(magnitude), 1, 8))
    return np.uint8(0xFF ^ ((1 << (8 - bits)) - 1))


@augmentation(mag_range=(0, 4), mag_to_param=poster_mask_uint8)
def posterize(sample, mask):
    return sample & mask


@augmentation(mag_range=(256, 0))
def solarize(sample, threshold):
    """Inverts the pixels at or above the threshold."""
    keep = sample < threshold
    # A typed constant, as DALI's: a Python 255 is int32 and would make the result int32.
    return keep * sample + (keep ^ True) * (types.Constant(255, dtype=types.UINT8) - sample)


def solarize_add_shift(shift):
    if shift >= 128:
        raise ValueError(f"solarize_add takes shifts in [0, 128), got {shift}")
    return np.uint8(shift)


@augmentation(mag_range=(0, 110), mag_to_param=solarize_add_shift)
def solarize_add(sample, shift):
    """Adds `shift` to the pixels below 128."""
    low = sample < types.Constant(128, dtype=types.UINT8)
    return low * (sample + shift) + (low ^ True) * sample


@augmentation
def invert(sample, _):
    return types.Constant(255, dtype=types.UINT8) - sample


@augmentation
def equalize(sample, _):
    """Per-channel histogram equalization (OpenCV's formula, as DALI's)."""
    return fn.equalize(sample)


@augmentation
def auto_contrast(sample, _):
    """Stretches each channel to [0, 255]; a constant channel is left as it is."""
    lo = fn.reductions.min(sample, axes=[0, 1], keep_dims=True)
    hi = fn.reductions.max(sample, axes=[0, 1], keep_dims=True)
    spread = hi - lo
    flat = spread == 0
    mean = lo * (flat ^ True)
    stddev = fn.cast(spread, dtype=types.FLOAT) + flat * 255.0
    return fn.normalize(sample, mean=mean, stddev=stddev, scale=255.0, dtype=types.UINT8)


@augmentation
def identity(sample, _):
    return sample
