"""torchvision-style transforms on Sluice's operators (DALI's ``nvidia.dali.experimental.torchvision``).

Each transform is a callable taking what torchvision's takes (a PIL image, a ``[C, H, W]`` tensor, a
``[N, C, H, W]`` batch) and giving the same kind back; ``Compose`` chains them, converting once.
The work is dynamic-mode calls (``sluice.experimental.dynamic``): ``resize``, ``flip``,
``crop_mirror_normalize``, ``transpose``, ``cast``, arithmetic; crops are exact slices. Sizes and crop windows are computed as
torchvision computes them, and random parameters are drawn from torch's generator in torchvision's
order, so with the same ``torch.manual_seed`` a transform picks the same crops and flips as
torchvision's (``python/tests/test_torchvision_api.py``); in a DataLoader each worker's torch seed
applies. A ``[N, C, H, W]`` batch gets parameters drawn per image, in order (as DALI's transforms;
torchvision's v2 applies one draw to the whole batch).

Pixels: resizing is Sluice's resampling (antialiased with ``antialias=True``, the default of
torchvision's v2). On PIL images it gives Pillow's pixels (Sluice's resize follows Pillow's
filters); on tensors it differs from torch's antialiased interpolation by at most one level
(torch rounds its intermediate values differently), and for bicubic by up to 8 levels (torch's
tensor kernel has a = -0.75, Pillow's a = -0.5). The tests bound both. Crops, flips,
normalization and dtype conversion are exact.
"""
import enum
import math
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd
from sluice import types

from ._image import Image, from_image, to_image


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


def _pair(size, what):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{what}: size must be an int or a sequence of one or two ints, got {size!r}")


class Transform:
    """A transform: ``__call__`` converts torchvision's data, ``_apply`` works on an Image."""

    def __call__(self, inpt):
        return from_image(self._apply(to_image(inpt, type(self).__name__)))

    def _apply(self, image):
        raise NotImplementedError

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


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


def _hw_axes(image):
    return (0, 1) if image.layout == "HWC" else (1, 2)


def _resize(image, out_sizes, interp, antialias):
    """Resizes each image to its (h, w) in `out_sizes`."""
    kwargs = dict(interp_type=interp, antialias=bool(antialias))
    if not image.is_batch:
        kwargs["size"] = [float(v) for v in out_sizes[0]]
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
