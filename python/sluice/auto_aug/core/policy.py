"""Policy: AutoAugment's sub-policies, each a sequence of (augmentation, probability, magnitude bin)."""
from ._augmentation import Augmentation


class Policy:
    """For each sample one sub-policy is chosen uniformly; its steps run in order, each with its
    probability, at its magnitude bin (None for augmentations without a magnitude)."""

    def __init__(self, name, num_magnitude_bins, sub_policies):
        if not isinstance(num_magnitude_bins, int) or isinstance(num_magnitude_bins, bool) or num_magnitude_bins < 1:
            raise ValueError(f"num_magnitude_bins must be a positive integer, got {num_magnitude_bins!r}")
        if not isinstance(sub_policies, (list, tuple)):
            raise TypeError(f"sub_policies must be a list or tuple of sub-policies, got {type(sub_policies).__name__}")
        for sub_policy in sub_policies:
            if not isinstance(sub_policy, (list, tuple)):
                raise TypeError(f"each sub-policy must be a list or tuple, got {sub_policy!r}")
            for step in sub_policy:
                if not isinstance(step, (list, tuple)) or len(step) != 3:
                    raise ValueError(f"each step of a sub-policy is (augmentation, probability, magnitude), got {step!r}")
                aug, p, mag = step
                if not isinstance(aug, Augmentation):
                    raise TypeError(f"{aug!r} is not an Augmentation (did you forget the @augmentation decorator?)")
                if not isinstance(p, (int, float)) or not 0 <= p <= 1:
                    raise ValueError(f"the probability of `{aug.name}` must be in [0, 1], got {p!r}")
                if mag is not None and (not isinstance(mag, int) or not 0 <= mag < num_magnitude_bins):
                    raise ValueError(f"the magnitude bin of `{aug.name}` must be an integer in "
                                     f"[0, {num_magnitude_bins - 1}], got {mag!r}")
                if mag is None and aug.mag_range is not None:
                    raise ValueError(f"`{aug.name}` has a magnitude range, so its step needs a magnitude bin")
        self.name = name
        self.num_magnitude_bins = num_magnitude_bins
        self.sub_policies = _unique_names(sub_policies)

    @property
    def augmentations(self):
        """name -> augmentation, over all sub-policies, sorted by name."""
        augs = {aug for sub in self.sub_policies for aug, _, _ in sub}
        return {a.name: a for a in sorted(augs, key=lambda a: a.name)}

    def __repr__(self):
        subs = ",\n\t".join(repr([(a.name, p, m) for a, p, m in sub]) for sub in self.sub_policies)
        return (f"Policy(name={self.name!r}, num_magnitude_bins={self.num_magnitude_bins!r}, "
                f"sub_policies=[{subs}], augmentations={list(self.augmentations)!r})")


def _unique_names(sub_policies):
    """Distinct augmentations that share a name are renamed "<i>__<name>" so the policy reads unambiguously."""
    order = []
    for sub in sub_policies:
        for aug, _, _ in sub:
            if aug not in order:
                order.append(aug)
    if len({a.name for a in order}) == len(order):
        return tuple(tuple(tuple(step) for step in sub) for sub in sub_policies)
    width = len(str(len(order) - 1))
    renamed = {a: a.augmentation(name=f"{str(i).zfill(width)}__{a.name}") for i, a in enumerate(order)}
    return tuple(tuple((renamed[a], p, m) for a, p, m in sub) for sub in sub_policies)
