"""``RandomErasing``: torchvision's window and value drawn from torch's generator in torchvision's
order, erased by Sluice's ``erase`` (one region, one fill per channel). Like torchvision's, it takes
tensors only."""
import math
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd

from ._base import Transform, _per_call


def _erase_params(c, h, w, scale, ratio, value, torch):
    """torchvision's RandomErasing.get_params: (top, left, eh, ew, noise or None), or None when ten
    tries found no window (torchvision then writes the image onto itself)."""
    area = h * w
    log_ratio = torch.log(torch.tensor(ratio))
    for _ in range(10):
        erase_area = area * torch.empty(1).uniform_(scale[0], scale[1]).item()
        aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        eh = int(round(math.sqrt(erase_area * aspect_ratio)))
        ew = int(round(math.sqrt(erase_area / aspect_ratio)))
        if not (eh < h and ew < w):
            continue
        noise = torch.empty([c, eh, ew], dtype=torch.float32).normal_() if value is None else None
        top = torch.randint(0, h - eh + 1, size=(1,)).item()
        left = torch.randint(0, w - ew + 1, size=(1,)).item()
        return top, left, eh, ew, noise
    return None


class RandomErasing(Transform):
    """torchvision's ``RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
    inplace=False)`` on ``[C, H, W]`` tensors and ``[N, C, H, W]`` batches (one draw per image, in
    order). A number or one value per channel is erased with ``erase`` (converted to the image's type
    as torch converts: truncated); ``value="random"`` writes torch's normal draws, as torchvision. ``inplace`` is accepted, but the
result is always a new tensor (the input is left as it is; torchvision's writes into it)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, (tuple, list)) or not isinstance(ratio, (tuple, list)):
            raise TypeError("Scale and ratio should be sequences")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, tuple(scale), tuple(ratio), value, inplace

    def _apply(self, image):
        if image.kind == "pil":
            raise TypeError("RandomErasing: img should be Tensor Image. Got a PIL image (convert with PILToTensor)")
        if image.is_batch:
            parts = [self._apply(image.replace(t)) for t in image.data.tensors]
            return image.replace(ndd.as_batch([p.data for p in parts], layout=image.layout))
        import torch
        if not torch.rand(1) < self.p:
            return image
        c, h, w = image.data.shape
        value = None if isinstance(self.value, str) else \
            [self.value] if isinstance(self.value, numbers.Number) else list(self.value)
        if value is not None and len(value) not in (1, c):
            raise ValueError(f"RandomErasing: if value is a sequence, it should have either a single value or {c} "
                             "(number of input channels)")
        params = _erase_params(c, h, w, self.scale, self.ratio, value, torch)
        if params is None:
            return image
        top, left, eh, ew, noise = params
        if noise is not None:  # per-pixel values: written as torch writes them (its conversion to the dtype)
            out = torch.from_numpy(np.array(image.data))
            out[:, top:top + eh, left:left + ew] = noise
            return image.replace(ndd.as_tensor(out, layout="CHW"))
        # the value in the image's type as torch's assignment converts it (a float truncated for uint8)
        dtype = torch.from_numpy(np.zeros(0, np.asarray(image.data).dtype)).dtype
        fill = torch.tensor(value).to(dtype).double().tolist()
        return image.replace(ndd.erase(image.data, anchor=_per_call([top, left]), shape=_per_call([eh, ew]),
                                       axis_names="HW", fill_value=fill))
