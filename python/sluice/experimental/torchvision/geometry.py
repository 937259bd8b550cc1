"""Geometry: ``Resize``, ``CenterCrop``, ``RandomResizedCrop``, ``RandomCrop``, ``Pad`` and the
random flips, with torchvision's sizes, windows and random draws (see the package's doc)."""
import enum
import math
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd
from sluice import types

from ._base import Transform, _hw_axes, _pair, _per_call


class InterpolationMode(enum.Enum):
    """torchvision's interpolation modes (a torchvision ``InterpolationMode`` is accepted too)."""
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_INTERP = {"nearest": types.INTERP_NN, "bilinear": types.INTERP_LINEAR, "bicubic": types.INTERP_CUBIC,
           "lanczos": types.DALIInterpType.INTERP_LANCZOS3}
_PIL_CODES = {0: "nearest", 1: "lanczos", 2: "bilinear", 3: "bicubic", 4: "box", 5: "hamming"}


def _interp(interpolation, what):
    value = getattr(interpolation, "value", interpolation)
    if isinstance(value, int) and not isinstance(value, bool):
        value = _PIL_CODES.get(value, value)
    if value not in _INTERP:
        raise NotImplementedError(f"{what}: interpolation {interpolation!r} is not supported (nearest, bilinear, "
                                  "bicubic and lanczos are)")
    return _INTERP[value]


def _output_size(h, w, size, max_size):
    """torchvision's resized size: `size` (h, w) exactly, or the shorter edge to `size` (the longer
    truncated, as ``int``), bounded by `max_size`."""
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    short, long = (h, w) if h <= w else (w, h)
    if size is None:
        new_long = max_size
        new_short = int(max_size * short / long)
    else:
        s = size[0] if isinstance(size, (list, tuple)) else size
        new_short, new_long = s, int(s * long / short)
        if max_size is not None and new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return (new_short, new_long) if h <= w else (new_long, new_short)


def _resize(image, out_sizes, interp, antialias):
    """Resizes each image to its (h, w) in `out_sizes`."""
    kwargs = dict(interp_type=interp, antialias=bool(antialias))
    if not image.is_batch:
        kwargs["size"] = _per_call(out_sizes[0])
    else:
        kwargs["size"] = ndd.batch(np.array(out_sizes, np.float32))
    return image.replace(ndd.resize(image.data, **kwargs))


def _crop_windows(image, windows):
    """Each image's window (top, left, h, w), cut exactly. The crop is made before resizing (not as
    the resize's ROI), as torchvision does: a ROI's filter would read pixels beyond the window."""
    hw = _hw_axes(image)

    def cut(array, window):
        top, left, h, w = window
        index = [slice(None)] * array.ndim
        index[hw[0]], index[hw[1]] = slice(top, top + h), slice(left, left + w)
        return np.ascontiguousarray(array[tuple(index)])

    if image.is_batch:
        samples = image.data._samples()
        return image.replace(ndd.Batch._from_arrays([cut(a, win) for a, win in zip(samples, windows)],
                                                     image.layout))
    return image.replace(ndd.Tensor._wrap(cut(image.data._array, windows[0]), image.layout))


class Resize(Transform):
    """torchvision's ``Resize(size, interpolation=BILINEAR, max_size=None, antialias=True)``."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True, device="cpu"):
        if size is None and max_size is None:
            raise ValueError("Must provide max_size if size is None.")
        if isinstance(size, (list, tuple)) and len(size) not in (1, 2):
            raise ValueError(f"size sequence must have length 1 or 2, got {len(size)}")
        if isinstance(size, (list, tuple)) and len(size) == 2 and max_size is not None:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, i.e. "
                             "size should be an int")
        self.size, self.interpolation, self.max_size, self.antialias = size, interpolation, max_size, antialias
        self._interp = _interp(interpolation, "Resize")

    def _apply(self, image):
        sizes = [_output_size(h, w, self.size, self.max_size) for h, w in image.sizes()]
        return _resize(image, sizes, self._interp, self.antialias)


def _crop(image, top, left, h, w):
    """A window of every image (one window for all: torchvision's crops of a batch), exact."""
    hw = _hw_axes(image)
    index = [slice(None)] * 3
    index[hw[0]], index[hw[1]] = slice(top, top + h), slice(left, left + w)
    if image.is_batch:
        return image.replace(image.data.slice[tuple(index)])
    return image.replace(image.data[tuple(index)])


class CenterCrop(Transform):
    """torchvision's ``CenterCrop(size)`` (the window's corner rounded as torchvision rounds it)."""

    def __init__(self, size):
        self.size = size
        self._hw = _pair(size, "CenterCrop")

    def _apply(self, image):
        ch, cw = self._hw
        sizes = set(image.sizes())
        if len(sizes) > 1:
            raise ValueError("CenterCrop: the images of a batch differ in size")
        h, w = sizes.pop()
        if ch > h or cw > w:
            raise NotImplementedError(f"CenterCrop: a crop ({ch}, {cw}) larger than the image ({h}, {w}) needs "
                                      "padding, which Sluice's transforms do not do yet")
        return _crop(image, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw)


def _rrc_window(h, w, scale, ratio, torch):
    """torchvision's RandomResizedCrop.get_params, drawing from torch's generator in the same order."""
    area = h * w
    log_ratio = torch.log(torch.tensor(ratio))
    for _ in range(10):
        target_area = area * torch.empty(1).uniform_(scale[0], scale[1]).item()
        aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        cw = int(round(math.sqrt(target_area * aspect_ratio)))
        ch = int(round(math.sqrt(target_area / aspect_ratio)))
        if 0 < cw <= w and 0 < ch <= h:
            top = torch.randint(0, h - ch + 1, size=(1,)).item()
            left = torch.randint(0, w - cw + 1, size=(1,)).item()
            return top, left, ch, cw
    in_ratio = float(w) / float(h)
    if in_ratio < min(ratio):
        cw, ch = w, int(round(w / min(ratio)))
    elif in_ratio > max(ratio):
        ch, cw = h, int(round(h * max(ratio)))
    else:
        cw, ch = w, h
    return (h - ch) // 2, (w - cw) // 2, ch, cw


class RandomResizedCrop(Transform):
    """torchvision's ``RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=BILINEAR, antialias=True)``: the window drawn as torchvision draws it, cut, then
    resized."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias=True, device="cpu"):
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        self.size, self.scale, self.ratio = size, tuple(scale), tuple(ratio)
        self.interpolation, self.antialias = interpolation, antialias
        self._hw = _pair(size, "RandomResizedCrop")
        self._interp = _interp(interpolation, "RandomResizedCrop")

    def _apply(self, image):
        import torch
        windows = [_rrc_window(h, w, self.scale, self.ratio, torch) for h, w in image.sizes()]
        return _resize(_crop_windows(image, windows), [self._hw] * len(windows), self._interp, self.antialias)


class _RandomFlip(Transform):
    _axis = None

    def __init__(self, p=0.5):
        if not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"p should be a floating point value in the interval [0.0, 1.0]. Got: {p!r}")
        self.p = p

    def _apply(self, image):
        import torch
        n = len(image.sizes())
        flips = [int(torch.rand(1).item() < self.p) for _ in range(n)]
        if not any(flips):
            return image
        # flip's horizontal defaults to 1 (DALI's default): both axes are given
        other = "vertical" if self._axis == "horizontal" else "horizontal"
        flag = 1 if not image.is_batch else ndd.batch(np.array(flips, np.int32))
        return image.replace(ndd.flip(image.data, **{self._axis: flag, other: 0}))


class RandomHorizontalFlip(_RandomFlip):
    """torchvision's ``RandomHorizontalFlip(p=0.5)``."""
    _axis = "horizontal"


class RandomVerticalFlip(_RandomFlip):
    """torchvision's ``RandomVerticalFlip(p=0.5)``."""
    _axis = "vertical"


def _padding(padding, what):
    """torchvision's padding: an int (every side), (left/right, top/bottom) or (left, top, right,
    bottom) -> (left, top, right, bottom)."""
    if isinstance(padding, numbers.Integral):
        p = int(padding)
        return p, p, p, p
    if isinstance(padding, (list, tuple)) and len(padding) in (1, 2, 4):
        if len(padding) == 1:
            return (int(padding[0]),) * 4
        if len(padding) == 2:
            return int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])
        return tuple(int(p) for p in padding)
    raise ValueError(f"{what}: padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")


def _pad(image, left, top, right, bottom, fill, what):
    """Constant padding as one ``slice`` with a window reaching outside the image (out_of_bounds_policy
    "pad"); `fill` is one value or one per channel."""
    if min(left, top, right, bottom) < 0:
        raise NotImplementedError(f"{what}: negative padding (cropping) is not supported")
    if not any((left, top, right, bottom)):
        return image
    fill = [float(v) for v in fill] if isinstance(fill, (list, tuple)) else [float(fill)]
    sizes = image.sizes()
    if image.is_batch:
        start = ndd.batch(np.array([[-top, -left]] * len(sizes), np.float32))
        shape = ndd.batch(np.array([[h + top + bottom, w + left + right] for h, w in sizes], np.float32))
    else:
        (h, w), = sizes
        start, shape = _per_call([-top, -left]), _per_call([h + top + bottom, w + left + right])
    return image.replace(ndd.slice(image.data, start=start, shape=shape, axis_names="HW", out_of_bounds_policy="pad",
                                   fill_values=fill))


class Pad(Transform):
    """torchvision's ``Pad(padding, fill=0, padding_mode="constant")`` (constant mode only)."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        if padding_mode != "constant":
            raise NotImplementedError(f"Pad: padding_mode={padding_mode!r} is not supported yet (constant is)")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode
        self._sides = _padding(padding, "Pad")

    def _apply(self, image):
        return _pad(image, *self._sides, self.fill, "Pad")


class RandomCrop(Transform):
    """torchvision's ``RandomCrop(size, padding=None, pad_if_needed=False, fill=0,
    padding_mode="constant")``: padded as torchvision pads, the window drawn as torchvision draws it
    (one window per image of a batch, in order)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        if padding_mode != "constant":
            raise NotImplementedError(f"RandomCrop: padding_mode={padding_mode!r} is not supported yet (constant is)")
        self.size, self.padding, self.pad_if_needed, self.fill = size, padding, pad_if_needed, fill
        self._hw = _pair(size, "RandomCrop")
        self._sides = _padding(padding, "RandomCrop") if padding is not None else None

    def _apply(self, image):
        import torch
        th, tw = self._hw
        if self._sides is not None:
            image = _pad(image, *self._sides, self.fill, "RandomCrop")
        if self.pad_if_needed:
            sizes = image.sizes()
            if len(set(sizes)) > 1:
                raise NotImplementedError("RandomCrop: pad_if_needed on a batch of images of different sizes")
            h, w = sizes[0]
            image = _pad(image, max(0, tw - w), max(0, th - h), max(0, tw - w), max(0, th - h), self.fill,
                         "RandomCrop")
        windows = []
        for h, w in image.sizes():
            if h < th or w < tw:
                raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
            if h == th and w == tw:
                windows.append((0, 0, h, w))
                continue
            top = torch.randint(0, h - th + 1, size=(1,)).item()
            left = torch.randint(0, w - tw + 1, size=(1,)).item()
            windows.append((top, left, th, tw))
        return _crop_windows(image, windows)
