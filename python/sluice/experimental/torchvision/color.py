"""Color: ``Grayscale``, ``RandomGrayscale`` and ``ColorJitter``, with torchvision's formulas for
each kind of image, as Sluice arithmetic expressions over the channel planes.

Luma: Pillow's integer formula for PIL images (``convert("L")``: ``(19595 R + 38470 G + 7471 B +
2^15) >> 16``), torch's float formula truncated for tensors (``0.2989 R + 0.587 G + 0.114 B``).
ColorJitter's brightness, contrast and saturation blend the image with black, its mean luma or its
luma (Pillow's ``ImageEnhance``: ``d + f (x - d)`` with the mean rounded to an integer; torch's
``_blend``: ``f x + (1 - f) d``), clamped and truncated as each library does: exact, except that
contrast's mean is summed in another order than torch's (a pixel may differ by one level). Hue is
Sluice's ``hsv`` (DALI's linear approximation in YIQ), not torchvision's HSV round trip: pixels
differ by a few levels (the tests bound it)."""
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd
from sluice import math as smath
from sluice.experimental.dynamic._ops import call_expression as _call_expression

from ._base import Transform, _per_call


def _channels(image):
    """The R, G, B planes (each keeps its channel axis, of extent 1)."""
    axis = 2 if image.layout == "HWC" else 0
    index = [slice(None)] * 3
    planes = []
    for c in range(3):
        index[axis] = slice(c, c + 1)
        planes.append(image.data.slice[tuple(index)] if image.is_batch else image.data[tuple(index)])
    return planes


def _check_rgb_u8(image, what):
    c = image.data.shape[0][2 if image.layout == "HWC" else 0] if image.is_batch else \
        image.data.shape[2 if image.layout == "HWC" else 0]
    if c != 3:
        raise TypeError(f"{what}: takes RGB images (3 channels), got {c}")
    if image.data.dtype != ndd.uint8:
        raise NotImplementedError(f"{what}: takes uint8 images in this version of Sluice")


def _expr(func, *operands):
    """`func` (DataNode arithmetic and sluice.math) over Tensors and numbers, run as ONE cached graph
    (one fused expression), its integral result converted to uint8: each color step is one call, not
    one per arithmetic operator. The conversion is NumPy's (exact: the values are integers in
    [0, 255]); Sluice's ``cast`` from float rounds each element with ``roundf`` and takes about 15
    times as long as the expression here."""
    out = _call_expression(f"torchvision.color.{func.__name__}", func, operands)
    if isinstance(out, ndd.Batch):
        return ndd.Batch._from_arrays([a.astype(np.uint8) for a in out._samples()], out.layout)
    return ndd.Tensor._wrap(np.asarray(out).astype(np.uint8), out.layout)


def _u8_node(e):
    """Clamped to [0, 255] and truncated (as a float), as torch's ``.clamp(0, 255).to(uint8)`` and
    Pillow's blend."""
    return smath.floor(smath.clamp(e, 0.0, 255.0))


def _pil_luma(r, g, b):
    return (r * 19595 + g * 38470 + b * 7471 + 32768) // 65536


def _tensor_luma(r, g, b):
    return smath.floor(0.2989 * r + 0.587 * g + 0.114 * b)


def _luma(image, channels=1):
    """The uint8 luma plane (each kind's formula), repeated to `channels` channels."""
    luma = _expr(_pil_luma if image.kind == "pil" else _tensor_luma, *_channels(image))
    if channels == 3:  # NumPy's repeat: a copy of bytes (Sluice's cat interleaves HWC element by element)
        axis = 2 if image.layout == "HWC" else 0
        if isinstance(luma, ndd.Batch):
            return ndd.Batch._from_arrays([np.repeat(a, 3, axis=axis) for a in luma._samples()], luma.layout)
        return ndd.Tensor._wrap(np.repeat(np.asarray(luma), 3, axis=axis), luma.layout)
    return luma


def _gray(image, num_output_channels, what):
    _check_rgb_u8(image, what)
    luma = _luma(image, num_output_channels)
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


def _scaled(x, f):
    return _u8_node(f * x)


def _pil_blend(x, d, f):
    """Pillow's blend of the degenerate image `d` and `x`: ``d + f (x - d)`` in float (``x + 0``: the
    difference in int32, as Pillow's, not wrapping in uint8)."""
    return _u8_node(d + f * ((x + 0) - d))


def _torch_blend(x, d, f, one_minus_f):
    """torch's ``_blend(x, d, f)``: ``f x + (1 - f) d`` (1 - f computed in double, as Python does)."""
    return _u8_node(f * x + one_minus_f * d)


def _brightness(image, f):
    return image.replace(_expr(_scaled, image.data, _per_call(f)))


def _blend(image, degenerate, f):
    if image.kind == "pil":
        return image.replace(_expr(_pil_blend, image.data, degenerate, _per_call(f)))
    return image.replace(_expr(_torch_blend, image.data, degenerate, _per_call(f), _per_call(1.0 - f)))


def _contrast(image, f):
    luma = np.asarray(_luma(image))
    if image.kind == "pil":  # ImageEnhance.Contrast: the mean luma rounded to an integer
        return _blend(image, ndd.tensor(np.int32(int(luma.mean(dtype=np.float64) + 0.5))), f)
    return _blend(image, _per_call(luma.astype(np.float32).mean(dtype=np.float32)), f)


def _saturation(image, f):
    return _blend(image, _luma(image, 3), f)


def _hue(image, f):
    x = image.data
    if image.layout == "CHW":
        hwc = ndd.transpose(x, perm=[1, 2, 0], output_layout="HWC")
        out = ndd.hsv(hwc, hue=_per_call(360.0 * f))
        return image.replace(ndd.transpose(out, perm=[2, 0, 1], output_layout="CHW"))
    return image.replace(ndd.hsv(x, hue=_per_call(360.0 * f)))


def _jitter_range(value, name, center=1.0, bound=(0.0, float("inf")), clip_first_on_zero=True):
    """torchvision's ColorJitter._check_input: a number v -> [center - v, center + v]; None when off."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - float(value), center + float(value)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    return None if value[0] == value[1] == center else value


class ColorJitter(Transform):
    """torchvision's ``ColorJitter(brightness=0, contrast=0, saturation=0, hue=0)``: the order and the
    factors drawn from torch's generator as torchvision draws them (per image of a batch, in order)."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self.brightness = _jitter_range(brightness, "brightness")
        self.contrast = _jitter_range(contrast, "contrast")
        self.saturation = _jitter_range(saturation, "saturation")
        self.hue = _jitter_range(hue, "hue", center=0.0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _apply(self, image):
        _check_rgb_u8(image, "ColorJitter")
        if image.is_batch:
            parts = [self._apply(image.replace(t))  # one draw per image, in order
                     for t in image.data.tensors]
            return image.replace(ndd.as_batch([p.data for p in parts], layout=image.layout))
        import torch
        order = torch.randperm(4).tolist()
        factors = [None if r is None else float(torch.empty(1).uniform_(r[0], r[1]))
                   for r in (self.brightness, self.contrast, self.saturation, self.hue)]
        ops = (_brightness, _contrast, _saturation, _hue)
        for k in order:
            if factors[k] is not None:
                image = ops[k](image, factors[k])
        return image
