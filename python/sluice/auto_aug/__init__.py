"""Automatic augmentation (DALI's ``nvidia.dali.auto_aug``): AutoAugment, RandAugment and
TrivialAugment over a catalogue of augmentations, with a per-sample choice of operation and
magnitude made inside the pipeline (``core.select``: the batch is split by the chosen operation,
each operation runs on its own samples only, and the results are merged back in order).

DALI asks for ``@pipeline_def(enable_conditionals=True)``; Sluice accepts the flag and does not
need it (its switch is an operator pair, not a rewrite of Python ``if`` statements).
"""
from . import augmentations, auto_augment, core, rand_augment, trivial_augment

__all__ = ["augmentations", "auto_augment", "core", "rand_augment", "trivial_augment"]
