"""AutoAugment (https://arxiv.org/abs/1805.09501): per sample, one sub-policy drawn uniformly, then
each of its steps applied with its probability at its magnitude; DALI's
``nvidia.dali.auto_aug.auto_augment``, with the paper's ImageNet, reduced ImageNet, SVHN and
reduced CIFAR-10 policies."""
import numpy as np

from .. import fn, types
from . import augmentations as a
from ._utils import augmentation_kwargs, check_sample, forbid_unused_kwargs, get_translations, pretty_select, seeds
from .core import Policy, select, signed_bin
from .core._augmentation import _param_table

_POLICIES_WITHOUT_TRANSLATION = ("reduced_image_net",)


def auto_augment(sample, policy_name="image_net", shape=None, fill_value=128, interp_type=None,
                 max_translate_abs=None, max_translate_rel=None, seed=None):
    """Applies one of the paper's policies ("image_net", "reduced_image_net", "svhn",
    "reduced_cifar10") to a batch of HWC uint8 images. Translations move by up to
    max_translate_abs pixels (default 250), or with `shape` by up to max_translate_rel of the image
    (default 1)."""
    policies = {"image_net": get_image_net_policy, "reduced_image_net": get_reduced_image_net_policy,
                "svhn": get_svhn_policy, "reduced_cifar10": get_reduced_cifar10_policy}
    if not isinstance(policy_name, str) or policy_name not in policies:
        raise ValueError(f"policy_name must be one of {', '.join(policies)}, got {policy_name!r}")
    check_sample(sample, "auto_augment")
    if policy_name in _POLICIES_WITHOUT_TRANSLATION:
        for value, arg in ((shape, "shape"), (max_translate_abs, "max_translate_abs"),
                           (max_translate_rel, "max_translate_rel")):
            if value is not None:
                raise ValueError(f"the policy `{policy_name}` has no translations, so `{arg}` must not be given")
        policy = policies[policy_name]()
    else:
        policy = policies[policy_name](use_shape=shape is not None, max_translate_abs=max_translate_abs,
                                       max_translate_rel=max_translate_rel)
    return apply_auto_augment(policy, sample, seed, **augmentation_kwargs(fill_value, interp_type, shape))


def auto_augment_image_net(sample, shape=None, fill_value=128, interp_type=None, max_translate_abs=None,
                           max_translate_rel=None, seed=None):
    """auto_augment with the ImageNet policy."""
    return auto_augment(sample, "image_net", shape, fill_value, interp_type, max_translate_abs,
                        max_translate_rel, seed)


def _skip(sample, **_):
    return sample


def apply_auto_augment(policy, sample, seed=None, **kwargs):
    """Applies `policy` (a :class:`Policy`) in AutoAugment fashion."""
    if not isinstance(policy, Policy):
        raise TypeError(f"apply_auto_augment: policy must be a Policy, got {type(policy).__name__}")
    if not policy.sub_policies:
        raise ValueError(f"apply_auto_augment: the policy {policy.name!r} has no sub-policies")
    check_sample(sample, "apply_auto_augment")
    forbid_unused_kwargs(policy.augmentations.values(), kwargs, "apply_auto_augment")
    subs = policy.sub_policies
    stages = max(len(sub) for sub in subs)
    rng_seeds = seeds(seed, 1 + 2 * stages)
    sub_id = fn.random.uniform(values=list(range(len(subs))), dtype=types.INT32, seed=rng_seeds[0])
    signed = any(aug.randomly_negate for aug in policy.augmentations.values())
    for stage in range(stages):
        # The augmentations met at this stage, plus identity for sub-policies shorter than `stage`.
        stage_augs = []
        for sub in subs:
            if stage < len(sub) and sub[stage][0] not in stage_augs:
                stage_augs.append(sub[stage][0])
        stage_augs.append(a.identity)
        aug_of = [stage_augs.index(sub[stage][0]) if stage < len(sub) else len(stage_augs) - 1 for sub in subs]
        prob_of = [sub[stage][1] if stage < len(sub) else 0.0 for sub in subs]
        mag_of = [(sub[stage][2] or 0) if stage < len(sub) else 0 for sub in subs]
        aug_id = _param_table(np.array(aug_of, np.int32), sub_id)
        prob = _param_table(np.array(prob_of, np.float32), sub_id)
        mag_bin = _param_table(np.array(mag_of, np.int32), sub_id)
        if signed:
            mag_bin = signed_bin(mag_bin, seed=rng_seeds[1 + 2 * stage])
        run = fn.cast(fn.random.uniform(range=[0, 1], seed=rng_seeds[2 + 2 * stage]) < prob, dtype=types.INT32)

        def apply_stage(sample, aug_id, magnitude_bin, _augs=stage_augs, **extra):
            return pretty_select(_augs, aug_id, dict(sample=sample, magnitude_bin=magnitude_bin,
                                                     num_magnitude_bins=policy.num_magnitude_bins, **extra),
                                 auto_aug_name="apply_auto_augment", ref_suite_name="get_image_net_policy")

        sample = select([_skip, apply_stage], run, sample=sample, aug_id=aug_id, magnitude_bin=mag_bin, **kwargs)
    return sample


def _shape_policy_augs(use_shape, max_translate_abs, max_translate_rel):
    translate_x, translate_y = get_translations(use_shape, 250, 1., max_translate_abs, max_translate_rel)
    return dict(
        translate_x=translate_x, translate_y=translate_y,
        shear_x=a.shear_x.augmentation((0, 0.3), True), shear_y=a.shear_y.augmentation((0, 0.3), True),
        rotate=a.rotate.augmentation((0, 30), True),
        brightness=a.brightness.augmentation((0.1, 1.9), False, None),
        color=a.color.augmentation((0.1, 1.9), False, None),
        contrast=a.contrast.augmentation((0.1, 1.9), False, None),
        sharpness=a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted),
        posterize=a.posterize.augmentation((0, 4), False, a.poster_mask_uint8),
        solarize=a.solarize.augmentation((0, 256), False),
        solarize_add=a.solarize_add.augmentation((0, 110), False),
        invert=a.invert, equalize=a.equalize, auto_contrast=a.auto_contrast)


def _policy(name, table, augs):
    """A Policy from rows of (name, probability, bin) steps."""
    return Policy(name=name, num_magnitude_bins=11,
                  sub_policies=[[(augs[op], p, m) for op, p, m in row] for row in table])


_IMAGE_NET = [
    [("equalize", 0.8, None), ("shear_y", 0.8, 4)], [("color", 0.4, 9), ("equalize", 0.6, None)],
    [("color", 0.4, 1), ("rotate", 0.6, 8)], [("solarize", 0.8, 3), ("equalize", 0.4, None)],
    [("solarize", 0.4, 2), ("solarize", 0.6, 2)], [("color", 0.2, 0), ("equalize", 0.8, None)],
    [("equalize", 0.4, None), ("solarize_add", 0.8, 3)], [("shear_x", 0.2, 9), ("rotate", 0.6, 8)],
    [("color", 0.6, 1), ("equalize", 1.0, None)], [("invert", 0.4, None), ("rotate", 0.6, 0)],
    [("equalize", 1.0, None), ("shear_y", 0.6, 3)], [("color", 0.4, 7), ("equalize", 0.6, None)],
    [("posterize", 0.4, 6), ("auto_contrast", 0.4, None)], [("solarize", 0.6, 8), ("color", 0.6, 9)],
    [("solarize", 0.2, 4), ("rotate", 0.8, 9)], [("rotate", 1.0, 7), ("translate_y", 0.8, 9)],
    [("solarize", 0.8, 4)], [("shear_y", 0.8, 0), ("color", 0.6, 4)], [("color", 1.0, 0), ("rotate", 0.6, 2)],
    [("equalize", 0.8, None)], [("equalize", 1.0, None), ("auto_contrast", 0.6, None)],
    [("shear_y", 0.4, 7), ("solarize_add", 0.6, 7)], [("posterize", 0.8, 2), ("solarize", 0.6, 10)],
    [("solarize", 0.6, 8), ("equalize", 0.6, None)], [("color", 0.8, 6), ("rotate", 0.4, 5)],
]

_REDUCED_IMAGE_NET = [
    [("posterize", 0.4, 8), ("rotate", 0.6, 9)], [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)], [("posterize", 0.6, 7), ("posterize", 0.6, 6)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)], [("equalize", 0.4, None), ("rotate", 0.8, 8)],
    [("solarize", 0.6, 3), ("equalize", 0.6, None)], [("posterize", 0.8, 5), ("equalize", 1.0, None)],
    [("rotate", 0.2, 3), ("solarize", 0.6, 8)], [("equalize", 0.6, None), ("posterize", 0.4, 6)],
    [("rotate", 0.8, 8), ("color", 0.4, 0)], [("rotate", 0.4, 9), ("equalize", 0.6, None)],
    [("equalize", 0.8, None)], [("invert", 0.6, None), ("equalize", 1.0, None)],
    [("color", 0.6, 4), ("contrast", 1.0, 8)], [("rotate", 0.8, 8), ("color", 1.0, 2)],
    [("color", 0.8, 8), ("solarize", 0.8, 7)], [("sharpness", 0.4, 7), ("invert", 0.6, None)],
    [("shear_x", 0.6, 5), ("equalize", 1.0, None)], [("color", 0.4, 0), ("equalize", 0.6, None)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)], [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("invert", 0.6, None), ("equalize", 1.0, None)], [("color", 0.6, 4), ("contrast", 1.0, 8)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)],
]

_SVHN = [
    [("shear_x", 0.9, 4), ("invert", 0.2, None)], [("shear_y", 0.9, 8), ("invert", 0.7, None)],
    [("equalize", 0.6, None), ("solarize", 0.6, 6)], [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("equalize", 0.6, None), ("rotate", 0.9, 3)], [("shear_x", 0.9, 4), ("auto_contrast", 0.8, None)],
    [("shear_y", 0.9, 8), ("invert", 0.4, None)], [("shear_y", 0.9, 5), ("solarize", 0.2, 6)],
    [("invert", 0.9, None), ("auto_contrast", 0.8, None)], [("equalize", 0.6, None), ("rotate", 0.9, 3)],
    [("shear_x", 0.9, 4), ("solarize", 0.3, 3)], [("shear_y", 0.8, 8), ("invert", 0.7, None)],
    [("equalize", 0.9, None), ("translate_y", 0.6, 6)], [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("contrast", 0.3, 3), ("rotate", 0.8, 4)], [("invert", 0.8, None)],
    [("shear_y", 0.7, 6), ("solarize", 0.4, 8)], [("invert", 0.6, None), ("rotate", 0.8, 4)],
    [("shear_y", 0.3, 7), ("translate_x", 0.9, 3)], [("shear_x", 0.1, 6), ("invert", 0.6, None)],
    [("solarize", 0.7, 2), ("translate_y", 0.6, 7)], [("shear_y", 0.8, 4), ("invert", 0.8, None)],
    [("shear_x", 0.7, 9), ("translate_y", 0.8, 3)], [("shear_y", 0.8, 5), ("auto_contrast", 0.7, None)],
    [("shear_x", 0.7, 2), ("invert", 0.1, None)],
]

_REDUCED_CIFAR10 = [
    [("invert", 0.1, None), ("contrast", 0.2, 6)], [("rotate", 0.7, 2), ("translate_x", 0.3, 9)],
    [("sharpness", 0.8, 1), ("sharpness", 0.9, 3)], [("shear_y", 0.5, 8), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.5, None), ("equalize", 0.9, None)], [("shear_y", 0.2, 7), ("posterize", 0.3, 7)],
    [("color", 0.4, 3), ("brightness", 0.6, 7)], [("sharpness", 0.3, 9), ("brightness", 0.7, 9)],
    [("equalize", 0.6, None), ("equalize", 0.5, None)], [("contrast", 0.6, 7), ("sharpness", 0.6, 5)],
    [("color", 0.7, 7), ("translate_x", 0.5, 8)], [("equalize", 0.3, None), ("auto_contrast", 0.4, None)],
    [("translate_y", 0.4, 3), ("sharpness", 0.2, 6)], [("brightness", 0.9, 6), ("color", 0.2, 8)],
    [("solarize", 0.5, 2)], [("equalize", 0.2, None), ("auto_contrast", 0.6, None)],
    [("equalize", 0.2, None), ("equalize", 0.6, None)], [("color", 0.9, 9), ("equalize", 0.6, None)],
    [("auto_contrast", 0.8, None), ("solarize", 0.2, 8)], [("brightness", 0.1, 3), ("color", 0.7, 0)],
    [("solarize", 0.4, 5), ("auto_contrast", 0.9, None)], [("translate_y", 0.9, 9), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.9, None), ("solarize", 0.8, 3)], [("equalize", 0.8, None), ("invert", 0.1, None)],
    [("translate_y", 0.7, 9), ("auto_contrast", 0.9, None)],
]


def get_image_net_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The AutoAugment paper's ImageNet policy (25 sub-policies of up to two steps, 11 bins)."""
    return _policy("ImageNetPolicy", _IMAGE_NET, _shape_policy_augs(use_shape, max_translate_abs, max_translate_rel))


def get_reduced_image_net_policy():
    """The paper's policy found on reduced ImageNet (no translations)."""
    return _policy("ReducedImageNetPolicy", _REDUCED_IMAGE_NET, _shape_policy_augs(False, None, None))


def get_svhn_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The paper's SVHN policy."""
    return _policy("SvhnPolicy", _SVHN, _shape_policy_augs(use_shape, max_translate_abs, max_translate_rel))


def get_reduced_cifar10_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """The paper's policy found on reduced CIFAR-10."""
    return _policy("ReducedCifar10Policy", _REDUCED_CIFAR10,
                   _shape_policy_augs(use_shape, max_translate_abs, max_translate_rel))
