"""The base of the torchvision-style transforms: ``Transform`` (torchvision's data in and out, an
``Image`` inside) and helpers shared by the transform modules."""
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd

from ._image import from_image, to_image


def _pair(size, what):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{what}: size must be an int or a sequence of one or two ints, got {size!r}")


def _hw_axes(image):
    return (0, 1) if image.layout == "HWC" else (1, 2)


class Transform:
    """A transform: ``__call__`` converts torchvision's data, ``_apply`` works on an Image."""

    def __call__(self, inpt):
        return from_image(self._apply(to_image(inpt, type(self).__name__)))

    def _apply(self, image):
        raise NotImplementedError

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


def _per_call(values):
    """A value that changes from call to call (a size, a window, a random factor) as a float32 Tensor
    fed to the operator, not as a constant argument: dynamic mode caches one graph per constant
    arguments, so a new constant each call would build a new graph each call."""
    return ndd.tensor(np.asarray(values, np.float32))
