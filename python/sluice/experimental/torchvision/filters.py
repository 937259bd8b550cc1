"""Filters: ``GaussianBlur``, torchvision's kernel (a Gaussian over ``kernel_size`` taps, reflect-101
borders) run by Sluice's separable ``gaussian_blur``; sigma drawn from torch's generator as
torchvision draws it (one draw per image of a batch, in order)."""
import numbers

import numpy as np

import sluice.experimental.dynamic as ndd

from ._base import Transform, _per_call


class GaussianBlur(Transform):
    """torchvision's ``GaussianBlur(kernel_size, sigma=(0.1, 2.0))``: `kernel_size` an odd int or
    (kx, ky); `sigma` a number or (min, max)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, numbers.Integral) else tuple(kernel_size)
        if len(ks) != 2 or any(k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (float(sigma), float(sigma))
        elif not (isinstance(sigma, (list, tuple)) and len(sigma) == 2 and 0 < sigma[0] <= sigma[1]):
            raise ValueError("sigma values should be positive and of the form (min, max).")
        self.kernel_size, self.sigma = ks, (float(sigma[0]), float(sigma[1]))

    def _apply(self, image):
        import torch
        draws = [torch.empty(1).uniform_(self.sigma[0], self.sigma[1]).item() for _ in image.sizes()]
        window = [int(self.kernel_size[1]), int(self.kernel_size[0])]  # Sluice's order: (H, W)
        if image.is_batch:
            sigma = ndd.batch(np.array([[s, s] for s in draws], np.float32))
        else:
            sigma = _per_call([draws[0], draws[0]])
        return image.replace(ndd.gaussian_blur(image.data, window_size=window, sigma=sigma))
