"""Helpers shared by the AutoAugment, RandAugment and TrivialAugment entry points."""
from ..graph import DataNode
from . import augmentations as a
from .core import select
from .core._augmentation import MissingArgException


def max_translate_hw(max_translate):
    if isinstance(max_translate, (tuple, list)):
        if len(max_translate) != 2:
            raise ValueError(f"a maximal translation is one number or (height, width), got {max_translate!r}")
        return tuple(max_translate)
    return max_translate, max_translate


def get_translations(use_shape, default_translate_abs, default_translate_rel, max_translate_abs=None,
                     max_translate_rel=None):
    """[translate_x, translate_y] with their magnitude ranges: relative to the image shape with
    use_shape (max_translate_rel), else in pixels (max_translate_abs)."""
    if not isinstance(use_shape, bool):
        raise TypeError(f"use_shape must be True or False, got {use_shape!r}")
    if use_shape:
        if max_translate_abs is not None:
            raise ValueError("max_translate_abs cannot be used with image shapes; use max_translate_rel")
        h, w = max_translate_hw(default_translate_rel if max_translate_rel is None else max_translate_rel)
        return [a.translate_x.augmentation((0, w), True), a.translate_y.augmentation((0, h), True)]
    if max_translate_rel is not None:
        raise ValueError("max_translate_rel needs image shapes (the `shape` argument); use max_translate_abs")
    h, w = max_translate_hw(default_translate_abs if max_translate_abs is None else max_translate_abs)
    return [a.translate_x_no_shape.augmentation((0, w), True), a.translate_y_no_shape.augmentation((0, h), True)]


def forbid_unused_kwargs(augmentations, kwargs, call_name):
    """An extra argument that no augmentation takes is an error (a misspelt fill_value, say)."""
    import inspect
    used = set()
    for aug in augmentations:
        used.update(list(inspect.signature(aug.op).parameters)[2:])
    unused = [k for k in kwargs if k not in used]
    if unused:
        raise TypeError(f"{call_name}: no augmentation takes the argument(s) {', '.join(unused)}")


def pretty_select(augmentations, aug_ids, op_kwargs, auto_aug_name, ref_suite_name):
    try:
        return select(augmentations, aug_ids, **op_kwargs)
    except MissingArgException as e:
        if e.missing_args == ["shape"] and e.augmentation.op in (a.translate_x.op, a.translate_y.op):
            raise ValueError(
                f"The augmentation `{e.augmentation.name}` needs the image shapes: pass `shape` (HWC, e.g. "
                f"fn.peek_image_shape(jpegs) or fn.shapes(images)) to `{auto_aug_name}`, or use the "
                f"translations that do not need shapes (see `{ref_suite_name}` and its `use_shape`).") from e
        raise


def seeds(seed, count):
    """`count` seeds for the random draws of one call: all None (derived from the pipeline's seed),
    or distinct ones derived from `seed` (equal seeds would draw equal numbers)."""
    if seed is None:
        return [None] * count
    return [(int(seed) + 7919 * k) % (2 ** 31) for k in range(count)]


def check_sample(sample, call_name):
    if not isinstance(sample, DataNode):
        raise TypeError(f"{call_name}: sample must be a DataNode (a batch of HWC uint8 images), "
                        f"got {type(sample).__name__}")


def augmentation_kwargs(fill_value, interp_type, shape):
    """The extra arguments the suites' augmentations take (`shape` only when given)."""
    kwargs = {"fill_value": fill_value, "interp_type": interp_type}
    if shape is not None:
        kwargs["shape"] = shape
    return kwargs


def without_excluded(suite, excluded, suite_name):
    """`suite` less the augmentations named in `excluded`; a name not in the suite is an error."""
    names = [aug.name for aug in suite]
    for name in excluded or []:
        if name not in names:
            raise ValueError(f"`{name}` is in `excluded` but not in the {suite_name} suite: {', '.join(names)}")
    return [aug for aug in suite if aug.name not in (excluded or [])]
