"""RandAugment (https://arxiv.org/abs/1909.13719): each sample goes through `n` operations drawn
uniformly from the suite, at magnitude bin `m`; DALI's ``nvidia.dali.auto_aug.rand_augment``."""
import warnings

from .. import fn, types
from . import augmentations as a
from ._utils import (augmentation_kwargs, check_sample, forbid_unused_kwargs, get_translations, pretty_select,
                     seeds, without_excluded)
from .core import signed_bin


def rand_augment(sample, n, m, num_magnitude_bins=31, shape=None, fill_value=128, interp_type=None,
                 max_translate_abs=None, max_translate_rel=None, seed=None, monotonic_mag=True, excluded=None):
    """Applies RandAugment to a batch of HWC uint8 images.

    n: operations per sample; m: their magnitude bin in [0, num_magnitude_bins - 1];
    shape: the images' shapes (HWC), to translate by a fraction of the image (max_translate_rel,
    default 100/224) rather than by pixels (max_translate_abs, default 100); fill_value and
    interp_type: for the geometric operations (None fill repeats the border);
    monotonic_mag: False uses AutoAugment's ranges for the color operations, whose strength is not
    monotonic in the bin; excluded: names of suite operations to leave out.
    """
    check_sample(sample, "rand_augment")
    aug_kwargs = augmentation_kwargs(fill_value, interp_type, shape)
    suite = (get_rand_augment_suite if monotonic_mag else get_rand_augment_non_monotonic_suite)(
        shape is not None, max_translate_abs, max_translate_rel)
    selected = without_excluded(suite, excluded, "RandAugment")
    return apply_rand_augment(selected, sample, n, m, num_magnitude_bins=num_magnitude_bins, seed=seed, **aug_kwargs)


def apply_rand_augment(augmentations, sample, n, m, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies `augmentations` in RandAugment fashion: `n` drawn per sample, each at bin `m`."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"the number of operations n must be a non-negative integer, got {n!r}")
    if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 1:
        raise ValueError(f"num_magnitude_bins must be a positive integer, got {num_magnitude_bins!r}")
    if not isinstance(m, int) or isinstance(m, bool) or not 0 <= m < num_magnitude_bins:
        raise ValueError(f"the magnitude bin m must be an integer in [0, {num_magnitude_bins - 1}], got {m!r}")
    if n == 0:
        warnings.warn("apply_rand_augment was called with n=0: no augmentation is applied", Warning)
        return sample
    if not augmentations:
        raise ValueError("apply_rand_augment: the list of augmentations is empty (allowed only with n=0)")
    check_sample(sample, "apply_rand_augment")
    forbid_unused_kwargs(augmentations, kwargs, "apply_rand_augment")
    signed = any(aug.randomly_negate for aug in augmentations)
    level_seeds = seeds(seed, 2 * n)
    for level in range(n):
        op_idx = fn.random.uniform(values=list(range(len(augmentations))), dtype=types.INT32,
                                   seed=level_seeds[2 * level])
        mag_bin = signed_bin(m, seed=level_seeds[2 * level + 1]) if signed else m
        op_kwargs = dict(sample=sample, magnitude_bin=mag_bin, num_magnitude_bins=num_magnitude_bins, **kwargs)
        sample = pretty_select(augmentations, op_idx, op_kwargs, auto_aug_name="apply_rand_augment",
                               ref_suite_name="get_rand_augment_suite")
    return sample


def get_rand_augment_suite(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The RandAugment operations with magnitudes that grow with the bin (14 of them)."""
    return get_translations(use_shape, 100, 100 / 224, max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.3), True),
        a.shear_y.augmentation((0, 0.3), True),
        a.rotate.augmentation((0, 30), True),
        a.brightness.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.contrast.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.color.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.sharpness.augmentation((0, 0.9), True, a.sharpness_kernel),
        a.posterize.augmentation((8, 4), False, a.poster_mask_uint8),
        a.solarize.augmentation((256, 0)),  # a lower threshold is a stronger solarization
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]


def get_rand_augment_non_monotonic_suite(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The RandAugment operations with AutoAugment's ranges for the color operations."""
    return get_translations(use_shape, 100, 100 / 224, max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.3), True),
        a.shear_y.augmentation((0, 0.3), True),
        a.rotate.augmentation((0, 30), True),
        a.brightness.augmentation((0.1, 1.9), False, None),
        a.contrast.augmentation((0.1, 1.9), False, None),
        a.color.augmentation((0.1, 1.9), False, None),
        a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted),
        a.posterize.augmentation((0, 4), False, a.poster_mask_uint8),
        a.solarize.augmentation((0, 256), False, None),
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]
