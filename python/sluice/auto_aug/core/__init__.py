"""The building blocks of sluice.auto_aug (DALI's ``nvidia.dali.auto_aug.core``)."""
from ._augmentation import Augmentation as _Augmentation, MissingArgException, signed_bin
from ._select import select
from .decorator import augmentation
from .policy import Policy

__all__ = ["augmentation", "Policy", "signed_bin", "select", "_Augmentation", "MissingArgException"]
