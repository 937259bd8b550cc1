"""Color: ``Grayscale`` and ``RandomGrayscale``, with torchvision's luma for each kind of image:
Pillow's integer formula for PIL images (``convert("L")``: ``(19595 R + 38470 G + 7471 B + 2^15)
>> 16``), torch's float formula truncated for tensors (``0.2989 R + 0.587 G + 0.114 B``). Both run
as one Sluice ``arithmetic.expression`` over the channel planes."""
import sluice.experimental.dynamic as ndd
from sluice import types

from ._base import Transform


def _channels(image):
    """The R, G, B planes (each keeps its channel axis, of extent 1)."""
    axis = 2 if image.layout == "HWC" else 0
    index = [slice(None)] * 3
    planes = []
    for c in range(3):
        index[axis] = slice(c, c + 1)
        planes.append(image.data.slice[tuple(index)] if image.is_batch else image.data[tuple(index)])
    return planes


def _gray(image, num_output_channels, what):
    c = image.data.shape[0][2 if image.layout == "HWC" else 0] if image.is_batch else \
        image.data.shape[2 if image.layout == "HWC" else 0]
    if c != 3:
        raise TypeError(f"{what}: takes RGB images (3 channels), got {c}")
    if image.data.dtype != ndd.uint8:
        raise NotImplementedError(f"{what}: takes uint8 images in this version of Sluice")
    r, g, b = _channels(image)
    if image.kind == "pil":
        luma = (r * 19595 + g * 38470 + b * 7471 + 32768) // 65536
    else:
        luma = ndd.math.floor(0.2989 * r + 0.587 * g + 0.114 * b)
    luma = ndd.cast(luma, dtype=types.UINT8)
    if num_output_channels == 3:
        axis = 2 if image.layout == "HWC" else 0
        luma = ndd.cat(luma, luma, luma, axis=axis)
    return image.replace(luma) if image.kind != "pil" else type(image)(luma, "pil", "L" if num_output_channels == 1
                                                                        else "RGB")


class Grayscale(Transform):
    """torchvision's ``Grayscale(num_output_channels=1)``."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError("num_output_channels should be either 1 or 3")
        self.num_output_channels = num_output_channels

    def _apply(self, image):
        return _gray(image, self.num_output_channels, "Grayscale")


class RandomGrayscale(Transform):
    """torchvision's ``RandomGrayscale(p=0.1)``: gray with probability `p`, keeping the number of
    channels (one draw per image of a batch)."""

    def __init__(self, p=0.1):
        self.p = p

    def _apply(self, image):
        import torch
        if image.is_batch:
            draws = [torch.rand(1).item() < self.p for _ in image.sizes()]
            if not any(draws):
                return image
            gray = _gray(image, 3, "RandomGrayscale").data
            tensors = [gray.select(i) if d else image.data.select(i) for i, d in enumerate(draws)]
            return image.replace(ndd.as_batch(tensors, layout=image.layout))
        if torch.rand(1).item() < self.p:
            return _gray(image, 3, "RandomGrayscale")
        return image
