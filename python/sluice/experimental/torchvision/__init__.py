"""DALI's ``nvidia.dali.experimental.torchvision``: torchvision-style transforms that run Sluice's
operators (``from sluice.experimental.torchvision import Compose, RandomResizedCrop, ...``), on PIL
images and torch tensors, per image (inside a Dataset's ``__getitem__``, in DataLoader workers) or
on ``[N, C, H, W]`` batches. See ``transforms`` for what matches torchvision and where pixels differ.

Not yet: ColorJitter, Grayscale/RandomGrayscale, GaussianBlur, Pad, RandomApply, RandomCrop,
ToPILImage (DALI's list), nor torchvision's RandAugment, TrivialAugmentWide, AutoAugment,
RandomErasing.
"""
from .transforms import (CenterCrop, Compose, InterpolationMode, Normalize, PILToTensor, RandomHorizontalFlip,
                         RandomResizedCrop, RandomVerticalFlip, Resize, ToDtype, ToPureTensor)

__all__ = ["CenterCrop", "Compose", "InterpolationMode", "Normalize", "PILToTensor", "RandomHorizontalFlip",
           "RandomResizedCrop", "RandomVerticalFlip", "Resize", "ToDtype", "ToPureTensor"]
