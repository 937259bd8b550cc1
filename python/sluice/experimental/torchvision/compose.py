"""``Compose`` (with its fusion of a recipe's normalizing tail) and ``RandomApply``."""
import sluice.experimental.dynamic as ndd
from sluice import types

from ._base import Transform
from ._image import Image, from_image, to_image
from .conversion import Normalize, PILToTensor, ToDtype
from .geometry import RandomHorizontalFlip


class Compose(Transform):
    """Applies `transforms` in order (``batch_size``, ``num_threads`` and DALI's pipeline arguments are
    accepted for DALI's signature; batch calls use ``sluice.experimental.dynamic``'s thread count)."""

    def __init__(self, transforms, batch_size=None, num_threads=None, **pipeline_kwargs):
        self.transforms = list(transforms)
        for t in self.transforms:
            if not callable(t):
                raise TypeError(f"Compose: {t!r} is not a transform")

    def _apply(self, image):
        transforms = self.transforms
        k = 0
        while k < len(transforms):
            fused = _fused_to_normalized(transforms, k, image)
            if fused is not None:
                image, k = fused
                continue
            t = transforms[k]
            image = t._apply(image) if isinstance(t, Transform) else to_image(t(from_image(image)), "Compose")
            k += 1
        return image


def _fused_to_normalized(transforms, k, image):
    """The usual end of a training recipe on a PIL image, ``[RandomHorizontalFlip,] PILToTensor,
    ToDtype(float32, scale=True), Normalize``, as ONE crop_mirror_normalize (HWC uint8 -> CHW float:
    ``(x - 255 mean) / (255 std)``, mirrored by the flip's draw), instead of four passes over the
    image. Returns (image, next index), or None when the transforms at `k` are not that sequence.
    The flip draws from torch's generator where it stands in the list, as it would unfused; values
    equal the unfused ones up to float rounding (one operation instead of two)."""
    import torch
    flip = transforms[k] if isinstance(transforms[k], RandomHorizontalFlip) else None
    rest = transforms[k + (flip is not None):k + (flip is not None) + 3]
    if image.kind != "pil" or len(rest) < 3 or not isinstance(rest[0], PILToTensor) or \
            not isinstance(rest[1], ToDtype) or rest[1].dtype != torch.float32 or not rest[1].scale or \
            not isinstance(rest[2], Normalize) or image.data.dtype != ndd.uint8:
        return None
    c = image.data.shape[2] if not image.is_batch else image.data.shape[0][2]
    norm = rest[2]
    mean = norm.mean * c if len(norm.mean) == 1 else norm.mean
    std = norm.std * c if len(norm.std) == 1 else norm.std
    mirror = int(torch.rand(1).item() < flip.p) if flip is not None else 0
    out = ndd.crop_mirror_normalize(image.data, mean=[255.0 * m for m in mean], std=[255.0 * v for v in std],
                                    mirror=mirror, dtype=types.FLOAT, output_layout="CHW")
    return Image(out, "tensor"), k + (flip is not None) + 3


class RandomApply(Transform):
    """torchvision's ``RandomApply(transforms, p=0.5)``: all of `transforms` with probability `p`
    (one draw per call, as torchvision: a batch gets one draw)."""

    def __init__(self, transforms, p=0.5):
        self.transforms, self.p = list(transforms), p
        self._chain = Compose(self.transforms)

    def _apply(self, image):
        import torch
        if self.p < torch.rand(1).item():
            return image
        return self._chain._apply(image)
