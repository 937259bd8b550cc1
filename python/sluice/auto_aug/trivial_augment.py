"""TrivialAugment (https://arxiv.org/abs/2103.10158): one operation per sample, drawn uniformly,
at a magnitude bin drawn uniformly; DALI's ``nvidia.dali.auto_aug.trivial_augment``."""
from .. import fn, types
from . import augmentations as a
from ._utils import (augmentation_kwargs, check_sample, forbid_unused_kwargs, get_translations, pretty_select,
                     seeds, without_excluded)
from .core import signed_bin


def trivial_augment_wide(sample, num_magnitude_bins=31, shape=None, fill_value=128, interp_type=None,
                         max_translate_abs=None, max_translate_rel=None, seed=None, excluded=None):
    """Applies TrivialAugment with the wide augmentation space to a batch of HWC uint8 images
    (translations: max_translate_abs default 32 pixels, or max_translate_rel default 1 with `shape`)."""
    check_sample(sample, "trivial_augment_wide")
    aug_kwargs = augmentation_kwargs(fill_value, interp_type, shape)
    suite = get_trivial_augment_wide_suite(shape is not None, max_translate_abs, max_translate_rel)
    selected = without_excluded(suite, excluded, "TrivialAugmentWide")
    return apply_trivial_augment(selected, sample, num_magnitude_bins=num_magnitude_bins, seed=seed, **aug_kwargs)


def apply_trivial_augment(augmentations, sample, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies `augmentations` in TrivialAugment fashion."""
    if not isinstance(num_magnitude_bins, int) or isinstance(num_magnitude_bins, bool) or num_magnitude_bins < 1:
        raise ValueError(f"num_magnitude_bins must be a positive integer, got {num_magnitude_bins!r}")
    if not augmentations:
        raise ValueError("apply_trivial_augment: the list of augmentations is empty")
    check_sample(sample, "apply_trivial_augment")
    forbid_unused_kwargs(augmentations, kwargs, "apply_trivial_augment")
    s_bin, s_sign, s_op = seeds(seed, 3)
    magnitude_bin = fn.random.uniform(values=list(range(num_magnitude_bins)), dtype=types.INT32, seed=s_bin)
    if any(aug.randomly_negate for aug in augmentations):
        magnitude_bin = signed_bin(magnitude_bin, seed=s_sign)
    op_idx = fn.random.uniform(values=list(range(len(augmentations))), dtype=types.INT32, seed=s_op)
    op_kwargs = dict(sample=sample, magnitude_bin=magnitude_bin, num_magnitude_bins=num_magnitude_bins, **kwargs)
    return pretty_select(augmentations, op_idx, op_kwargs, auto_aug_name="apply_trivial_augment",
                         ref_suite_name="get_trivial_augment_wide_suite")


def get_trivial_augment_wide_suite(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The 14 operations of TrivialAugment's wide augmentation space."""
    return get_translations(use_shape, 32, 1., max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.99), True),
        a.shear_y.augmentation((0, 0.99), True),
        a.rotate.augmentation((0, 135), True),
        a.brightness.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.contrast.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.color.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.sharpness.augmentation((0.01, 0.99), True, a.sharpness_kernel),
        a.posterize.augmentation((8, 2), False, a.poster_mask_uint8),
        a.solarize.augmentation((256, 0)),
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]
