"""DALI's ``nvidia.dali.experimental.torchvision``: torchvision-style transforms that run Sluice's
operators (``from sluice.experimental.torchvision import Compose, RandomResizedCrop, ...``), on PIL
images and torch tensors, per image (inside a Dataset's ``__getitem__``, in DataLoader workers) or
on ``[N, C, H, W]`` batches. One module per concern: ``geometry``, ``color``, ``filters``,
``conversion``, ``compose``, ``autoaugment``.

Each transform is a callable taking what torchvision's takes (a PIL image, a ``[C, H, W]`` tensor, a
``[N, C, H, W]`` batch) and giving the same kind back; ``Compose`` chains them, converting once. The
work is dynamic-mode calls (``sluice.experimental.dynamic``): ``resize``, ``flip``,
``crop_mirror_normalize``, ``transpose``, ``cast``, arithmetic; crops are exact slices. Sizes and
crop windows are computed as torchvision computes them, and random parameters are drawn from torch's
generator in torchvision's order, so with the same ``torch.manual_seed`` a transform picks the same
crops and flips as torchvision's (``python/tests/test_torchvision_api.py``); in a DataLoader each
worker's torch seed applies. A ``[N, C, H, W]`` batch gets parameters drawn per image, in order (as
DALI's transforms; torchvision's v2 applies one draw to the whole batch).

Pixels: resizing is Sluice's resampling (antialiased with ``antialias=True``, the default of
torchvision's v2). On PIL images it gives Pillow's pixels (Sluice's resize follows Pillow's
filters); on tensors it differs from torch's antialiased interpolation by at most one level (torch
rounds its intermediate values differently), and for bicubic by up to 8 levels (torch's tensor
kernel has a = -0.75, Pillow's a = -0.5). GaussianBlur rounds its float result once (within one
level of torch's). The tests bound all of it. Crops, flips, normalization and dtype conversion are
exact.

``TrivialAugmentWide`` and ``RandAugment`` (``autoaugment``) draw their operations and magnitudes
as torchvision 0.14 does; their per-operation tolerances are in that module's doc. ``RandomErasing`` (``erasing``) draws
its window as torchvision does and erases exactly.

Not yet: Pad's modes other than "constant", nor torchvision's AutoAugment, AugMix.
"""
from .autoaugment import RandAugment, TrivialAugmentWide
from .color import ColorJitter, Grayscale, RandomGrayscale
from .compose import Compose, RandomApply
from .conversion import Normalize, PILToTensor, ToDtype, ToPILImage, ToPureTensor
from .erasing import RandomErasing
from .filters import GaussianBlur
from .geometry import (CenterCrop, InterpolationMode, Pad, RandomCrop, RandomHorizontalFlip, RandomResizedCrop,
                       RandomVerticalFlip, Resize)

__all__ = ["CenterCrop", "ColorJitter", "Compose", "GaussianBlur", "Grayscale", "InterpolationMode", "Normalize", "Pad",
           "PILToTensor", "RandAugment", "RandomApply", "RandomCrop", "RandomErasing", "RandomGrayscale",
           "RandomHorizontalFlip", "RandomResizedCrop", "RandomVerticalFlip", "Resize", "ToDtype", "ToPILImage",
           "ToPureTensor", "TrivialAugmentWide"]
