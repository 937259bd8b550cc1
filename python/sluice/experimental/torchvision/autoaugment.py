"""torchvision's automatic augmentations: ``TrivialAugmentWide`` and ``RandAugment``, with their
arguments, operation tables and random draws (torch's generator, torchvision 0.14's order: the
op index, then the magnitude bin, then the sign), each operation run on Sluice's operators.

The operations (``_OPS``) and how they compare with torchvision's ``_apply_op``:

- Brightness, Color, Contrast: ``color``'s blends (Pillow's or torch's formula per kind of image):
  exact, contrast within one level (its mean).
- Sharpness: Sluice's ``filter`` with torchvision's 3x3 smoothing kernel (rounded to uint8), the
  one-pixel border kept, then the same blend: within one level (the filter's float sum).
- Posterize, Solarize: one arithmetic expression each: exact.
- AutoContrast: per-channel minimum and maximum, then one expression per channel: within one level
  (torch's float32 scale vs Pillow's float64 table).
- Equalize: torchvision's and Pillow's table (``(cdf + step // 2) // step``) per channel, applied
  with NumPy indexing: exact (Sluice's ``equalize`` follows OpenCV's formula, which differs).
- ShearX/Y, TranslateX/Y, Rotate: Sluice's ``warp_affine`` with the inverse matrix torchvision
  computes (``_inverse_affine``), sampling pixel centers as Pillow does. Nearest (the default):
  a few pixels at exact ties differ (torch rounds half to even, Pillow and Sluice floor); bilinear:
  Sluice's linear filter, within a few levels. ``fill`` is one value for all channels.
"""
import math
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd
from sluice import types

from ._base import Transform, _per_call
from .color import _blend, _brightness, _check_rgb_u8, _contrast, _expr, _saturation, _u8_node
from .geometry import InterpolationMode

_WARP_INTERP = {"nearest": types.INTERP_NN, "bilinear": types.INTERP_LINEAR}
_PIL_CODES = {0: "nearest", 2: "bilinear"}


def _warp_interp(interpolation, what):
    value = getattr(interpolation, "value", interpolation)
    if isinstance(value, int) and not isinstance(value, bool):
        value = _PIL_CODES.get(value, value)
    if value not in _WARP_INTERP:
        raise ValueError(f"{what}: interpolation {interpolation!r} is not supported (nearest and bilinear are)")
    return _WARP_INTERP[value]


def _inverse_affine(center, angle, translate, shear):
    """torchvision's ``_get_inverse_affine_matrix`` (scale 1): the 2x3 matrix taking an output
    point to the input point, about `center` (pixel coordinates, the origin at the top-left corner)."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [d, -b, 0.0, -c, a, 0.0]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _hwc_call(image, func):
    """`func` on the HWC form of a single image (Sluice's warp_affine and filter take HWC)."""
    if image.layout == "HWC":
        return image.replace(func(image.data))
    hwc = ndd.transpose(image.data, perm=[1, 2, 0], output_layout="HWC")
    return image.replace(ndd.transpose(func(hwc), perm=[2, 0, 1], output_layout="CHW"))


def _warp(image, angle, translate, shear, center, interp, fill):
    (h, w), = image.sizes()
    c = (w * 0.5, h * 0.5) if center is None else center
    matrix = _per_call(_inverse_affine(c, angle, translate, shear))
    return _hwc_call(image, lambda x: ndd.warp_affine(x, matrix=matrix, interp_type=interp, fill_value=fill))


def _sharpness(image, f):
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 5.0
    kernel /= kernel.sum()
    blurred = np.array(_hwc_call(image, lambda x: ndd.filter(x, kernel)).data)  # uint8, rounded
    orig = np.asarray(image.data)
    inner = (slice(1, -1), slice(1, -1)) if image.layout == "HWC" else (slice(None), slice(1, -1), slice(1, -1))
    degenerate = orig.copy()
    degenerate[inner] = blurred[inner]  # torchvision and Pillow keep the border pixels
    return _blend(image, ndd.Tensor._wrap(degenerate, image.layout), f)


def _posterize_expr(x, d):
    return (x // d) * d


def _posterize(image, bits):
    return image.replace(_expr(_posterize_expr, image.data, ndd.tensor(np.int32(1 << (8 - int(bits))))))


def _solarize_expr(x, t):
    return x + (x >= t) * (255 - 2 * x)


def _solarize(image, threshold):
    return image.replace(_expr(_solarize_expr, image.data, _per_call(threshold)))


def _stretch_expr(x, lo, scale):
    """torch's autocontrast: ``((x - lo) * scale).clamp(0, 255)``, truncated."""
    return _u8_node((x - lo) * scale)


def _per_channel(image, func):
    """`func(plane, channel array)` on each channel plane, the results stacked back."""
    arr = np.asarray(image.data)
    axis = 2 if image.layout == "HWC" else 0
    planes = [np.take(arr, [c], axis=axis) for c in range(arr.shape[axis])]
    out = np.concatenate([func(ndd.Tensor._wrap(np.ascontiguousarray(p), image.layout), p) for p in planes],
                         axis=axis)
    return image.replace(ndd.Tensor._wrap(np.ascontiguousarray(out), image.layout))


def _autocontrast(image):
    pil = image.kind == "pil"

    def stretch(plane, p):
        lo, hi = int(p.min()), int(p.max())
        if hi <= lo:
            return p
        if pil:  # Pillow's table: int(i * scale + offset) in double
            scale = 255.0 / (hi - lo)
            table = np.clip(np.floor(np.arange(256) * scale - lo * scale), 0, 255).astype(np.uint8)
            return table[p]
        scale = np.float32(255.0) / np.float32(hi - lo)  # torch: float32
        return np.asarray(_expr(_stretch_expr, plane, _per_call(lo),
                                _per_call(scale)))
    return _per_channel(image, stretch)


def _equalize(image):
    def equalize(plane, p):
        hist = np.bincount(p.ravel(), minlength=256)
        nonzero = hist[hist != 0]
        step = int(nonzero[:-1].sum()) // 255
        if step == 0:
            return p
        lut = (np.cumsum(hist) + step // 2) // step
        lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255).astype(np.uint8)
        return lut[p]
    return _per_channel(image, equalize)


def _apply_op(image, op, magnitude, interp, fill):
    """torchvision's ``_apply_op`` on an Image of one image."""
    if op == "Identity":
        return image
    if op in ("ShearX", "ShearY"):
        s = math.degrees(math.atan(magnitude))
        return _warp(image, 0.0, (0, 0), (s, 0.0) if op == "ShearX" else (0.0, s), (0.0, 0.0), interp, fill)
    if op in ("TranslateX", "TranslateY"):
        t = (int(magnitude), 0) if op == "TranslateX" else (0, int(magnitude))
        return _warp(image, 0.0, t, (0.0, 0.0), None, interp, fill)
    if op == "Rotate":  # torchvision's rotate turns counter-clockwise: the inverse matrix of -angle
        return _warp(image, -magnitude, (0, 0), (0.0, 0.0), None, interp, fill)
    if op == "Brightness":
        return _brightness(image, 1.0 + magnitude)
    if op == "Color":
        return _saturation(image, 1.0 + magnitude)
    if op == "Contrast":
        return _contrast(image, 1.0 + magnitude)
    if op == "Sharpness":
        return _sharpness(image, 1.0 + magnitude)
    if op == "Posterize":
        return _posterize(image, int(magnitude))
    if op == "Solarize":
        return _solarize(image, magnitude)
    if op == "AutoContrast":
        return _autocontrast(image)
    if op == "Equalize":
        return _equalize(image)
    raise ValueError(f"The provided operator {op} is not recognized.")


def _fill_value(fill, what):
    if fill is None:
        return 0.0
    if isinstance(fill, numbers.Number):
        return float(fill)
    values = {float(v) for v in fill}
    if len(values) != 1:
        raise NotImplementedError(f"{what}: fill {fill!r} differs per channel; Sluice's warp_affine takes one value")
    return values.pop()


class _AutoAugmentBase(Transform):
    def __init__(self, interpolation, fill):
        self.interpolation, self.fill = interpolation, fill
        name = type(self).__name__
        self._interp = _warp_interp(interpolation, name)
        self._fill = _fill_value(fill, name)

    def _apply(self, image):
        if image.is_batch:  # one draw per image, in order
            parts = [self._apply(image.replace(t)) for t in image.data.tensors]
            return image.replace(ndd.as_batch([p.data for p in parts], layout=image.layout))
        _check_rgb_u8(image, type(self).__name__)
        for op, magnitude in self._draw():
            image = _apply_op(image, op, magnitude, self._interp, self._fill)
        return image


def _linspace(a, b, n):
    import torch
    return torch.linspace(a, b, n)


class TrivialAugmentWide(_AutoAugmentBase):
    """torchvision's ``TrivialAugmentWide(num_magnitude_bins=31, interpolation=NEAREST, fill=None)``."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__(interpolation, fill)
        self.num_magnitude_bins = num_magnitude_bins
        self._space = self._augmentation_space(num_magnitude_bins)

    @staticmethod
    def _augmentation_space(num_bins):
        import torch
        return {
            "Identity": (torch.tensor(0.0), False),
            "ShearX": (_linspace(0.0, 0.99, num_bins), True),
            "ShearY": (_linspace(0.0, 0.99, num_bins), True),
            "TranslateX": (_linspace(0.0, 32.0, num_bins), True),
            "TranslateY": (_linspace(0.0, 32.0, num_bins), True),
            "Rotate": (_linspace(0.0, 135.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.99, num_bins), True),
            "Color": (_linspace(0.0, 0.99, num_bins), True),
            "Contrast": (_linspace(0.0, 0.99, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.99, num_bins), True),
            "Posterize": (8 - (torch.arange(num_bins) / ((num_bins - 1) / 6)).round().int(), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (torch.tensor(0.0), False),
            "Equalize": (torch.tensor(0.0), False),
        }

    def _draw(self):
        import torch
        names = list(self._space)
        op = names[int(torch.randint(len(names), (1,)).item())]
        magnitudes, signed = self._space[op]
        magnitude = (float(magnitudes[torch.randint(len(magnitudes), (1,), dtype=torch.long)].item())
                     if magnitudes.ndim > 0 else 0.0)
        if signed and torch.randint(2, (1,)):
            magnitude *= -1.0
        return [(op, magnitude)]


class RandAugment(_AutoAugmentBase):
    """torchvision's ``RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31,
    interpolation=NEAREST, fill=None)``; translations are relative to the image's size, as
    torchvision's (150/331 of it)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__(interpolation, fill)
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins

    def _augmentation_space(self, num_bins, h, w):
        import torch
        return {
            "Identity": (torch.tensor(0.0), False),
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * w, num_bins), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * h, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.9, num_bins), True),
            "Color": (_linspace(0.0, 0.9, num_bins), True),
            "Contrast": (_linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
            "Posterize": (8 - (torch.arange(num_bins) / ((num_bins - 1) / 4)).round().int(), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (torch.tensor(0.0), False),
            "Equalize": (torch.tensor(0.0), False),
        }

    def _apply(self, image):
        self._hw = image.sizes()[0] if not image.is_batch else None
        return super()._apply(image)

    def _draw(self):
        import torch
        h, w = self._hw
        space = self._augmentation_space(self.num_magnitude_bins, h, w)
        names = list(space)
        ops = []
        for _ in range(self.num_ops):
            op = names[int(torch.randint(len(names), (1,)).item())]
            magnitudes, signed = space[op]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            if signed and torch.randint(2, (1,)):
                magnitude *= -1.0
            ops.append((op, magnitude))
        return ops
