"""The data the torchvision-style transforms take and give, and its dynamic-mode form.

torchvision's transforms take a PIL image (HWC uint8; "L" images get a channel), a torch tensor of
one image (``[C, H, W]``) or a batch of them (``[N, C, H, W]``), and give back the same kind. Inside,
an :class:`Image` holds the dynamic-mode data (a Tensor, or a Batch for ``[N, C, H, W]``) with its
layout ("HWC" for PIL, "CHW" for tensors) and what to convert it back to; a chain of transforms
(``Compose``) converts once on the way in and once on the way out.
"""
import numpy as np

import sluice.experimental.dynamic as ndd


class Image:
    """Dynamic-mode data of one image or a batch, and the kind of object it came as ("pil" or "tensor")."""

    __slots__ = ("data", "kind", "pil_mode")

    def __init__(self, data, kind, pil_mode=None):
        self.data = data
        self.kind = kind
        self.pil_mode = pil_mode

    @property
    def layout(self):
        return "HWC" if self.kind == "pil" else "CHW"

    @property
    def is_batch(self):
        return isinstance(self.data, ndd.Batch)

    def sizes(self):
        """(H, W) of each image (one entry for a single image)."""
        shapes = self.data.shape if self.is_batch else [self.data.shape]
        h_axis, w_axis = (0, 1) if self.kind == "pil" else (1, 2)
        return [(s[h_axis], s[w_axis]) for s in shapes]

    def replace(self, data):
        return Image(data, self.kind, self.pil_mode)


def _is_pil(obj):
    try:
        from PIL import Image as _PIL
    except ImportError:
        return False
    return isinstance(obj, _PIL.Image)


def to_image(obj, what):
    """A PIL image, a torch tensor ([C, H, W] or [N, C, H, W]) or an Image -> an Image."""
    if isinstance(obj, Image):
        return obj
    if _is_pil(obj):
        arr = np.asarray(obj)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return Image(ndd.as_tensor(np.ascontiguousarray(arr), layout="HWC"), "pil", obj.mode)
    import torch
    if isinstance(obj, torch.Tensor):
        if obj.device.type != "cpu":
            raise TypeError(f"{what}: the tensor is on {obj.device}; Sluice's transforms take host tensors")
        t = obj.contiguous()
        if t.ndim == 3:
            return Image(ndd.as_tensor(t, layout="CHW"), "tensor")
        if t.ndim == 4:
            return Image(ndd.as_batch(t, layout="CHW"), "tensor")
        raise ValueError(f"{what}: a tensor image is [C, H, W] or a batch [N, C, H, W], got shape {tuple(t.shape)}")
    raise TypeError(f"{what}: inpt should be Tensor or PIL Image. Got {type(obj)}")


def from_image(image):
    """An Image -> what the transforms give back: a PIL image or a torch tensor."""
    if image.kind == "pil":
        from PIL import Image as _PIL
        arr = np.asarray(image.data)
        if arr.dtype != np.uint8:
            raise TypeError("a PIL image holds uint8 data: convert with PILToTensor before changing the dtype")
        if arr.shape[2] == 1:
            return _PIL.fromarray(arr[:, :, 0], mode="L")
        return _PIL.fromarray(np.ascontiguousarray(arr), mode=image.pil_mode if image.pil_mode in ("RGB", "RGBA")
                              else None)
    return image.data.torch()  # shares the output buffer, which the tensor keeps alive
