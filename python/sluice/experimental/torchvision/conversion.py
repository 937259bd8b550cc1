"""Type and layout conversions: ``Normalize``, ``ToDtype``, ``PILToTensor``, ``ToPureTensor``,
``ToPILImage``."""
import sluice.experimental.dynamic as ndd
from sluice import types

from ._base import Transform
from ._image import Image


class Normalize(Transform):
    """torchvision's ``Normalize(mean, std)`` on float tensor images (``[C, H, W]``, one value per
    channel): ``(x - mean) / std``, one ``crop_mirror_normalize`` pass."""

    def __init__(self, mean, std, inplace=False):
        self.mean, self.std = [float(m) for m in mean], [float(s) for s in std]
        if any(s == 0 for s in self.std):
            raise ValueError(f"std evaluated to zero after conversion to float32, leading to division by zero: "
                             f"{std!r}")

    def _apply(self, image):
        if image.kind != "tensor":
            raise TypeError("Normalize: takes a tensor image (convert a PIL image with PILToTensor and ToDtype)")
        if image.data.dtype != ndd.float32:
            raise TypeError(f"Normalize: takes a float32 tensor image, got {image.data.dtype.name}; use ToDtype first")
        channels = {s[0] for s in (image.data.shape if image.is_batch else [image.data.shape])}
        c = channels.pop()
        mean = self.mean * c if len(self.mean) == 1 else self.mean
        std = self.std * c if len(self.std) == 1 else self.std
        return image.replace(ndd.crop_mirror_normalize(image.data, mean=mean, std=std, dtype=types.FLOAT,
                                                       output_layout="CHW"))


class ToDtype(Transform):
    """torchvision v2's ``ToDtype(dtype, scale=False)`` for image tensors: uint8 to float32
    (``scale=True``: divided by 255) and back (``scale=True``: multiplied by 255, saturated)."""

    def __init__(self, dtype, scale=False):
        self.dtype, self.scale = dtype, scale
        import torch
        if dtype not in (torch.float32, torch.uint8):
            raise NotImplementedError(f"ToDtype: {dtype} is not supported yet (torch.float32 and torch.uint8 are)")

    def _apply(self, image):
        import torch
        if image.kind != "tensor":
            raise TypeError("ToDtype: takes a tensor image (convert a PIL image with PILToTensor)")
        x = image.data
        if self.dtype == torch.float32:
            if x.dtype == ndd.float32:
                return image
            return image.replace(x / 255.0 if self.scale else ndd.cast(x, dtype=types.FLOAT))
        if x.dtype == ndd.uint8:
            return image
        return image.replace(ndd.cast(x * 255.0 if self.scale else x, dtype=types.UINT8))


class PILToTensor(Transform):
    """A PIL image (HWC) as a ``[C, H, W]`` uint8 tensor image."""

    def _apply(self, image):
        if image.kind != "pil":
            raise TypeError("PILToTensor: takes a PIL image")
        return Image(ndd.transpose(image.data, perm=[2, 0, 1], output_layout="CHW"), "tensor")


class ToPureTensor(Transform):
    """Gives tensors (a PIL image becomes a ``[C, H, W]`` tensor; tensors pass through)."""

    def _apply(self, image):
        return PILToTensor()._apply(image) if image.kind == "pil" else image


class ToPILImage(Transform):
    """A ``[C, H, W]`` uint8 tensor image (1, 3 or 4 channels) as a PIL image ("L", "RGB", "RGBA");
    a PIL image passes through. A batch gives a list of PIL images."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, inpt):
        from ._image import from_image, to_image
        image = self._apply(to_image(inpt, "ToPILImage"))
        if image.is_batch:
            return [from_image(Image(t, "pil", image.pil_mode)) for t in image.data.tensors]
        return from_image(image)

    def _apply(self, image):
        if image.kind == "pil":
            return image
        if image.data.dtype != ndd.uint8:
            raise NotImplementedError("ToPILImage: takes uint8 tensor images (convert with ToDtype(torch.uint8, "
                                      "scale=True))")
        hwc = ndd.transpose(image.data, perm=[1, 2, 0], output_layout="HWC")
        channels = (hwc.shape[2] if not image.is_batch else hwc.shape[0][2])
        mode = self.mode or {1: "L", 3: "RGB", 4: "RGBA"}.get(channels)
        if mode is None:
            raise ValueError(f"ToPILImage: cannot choose a PIL mode for {channels} channels; give mode=")
        return Image(hwc, "pil", mode)
