"""The ``@augmentation`` decorator (DALI's ``nvidia.dali.auto_aug.core.augmentation``)."""
from ._augmentation import Augmentation


def augmentation(function=None, *, mag_range=None, randomly_negate=None, mag_to_param=None,
                 param_device=None, name=None, augmentation_cls=None):
    """Turns ``f(sample, parameter, **extra)`` into an :class:`Augmentation`.

    mag_range: (low, high) split into ``num_magnitude_bins`` at the call, or an ndarray of magnitudes;
    randomly_negate: negate the magnitude for half the samples (a random sign per sample);
    mag_to_param: magnitude -> the parameter passed to ``f`` (default: the magnitude);
    param_device: "cpu" (Sluice computes parameters on the CPU; "gpu" is accepted for DALI code);
    name: defaults to the function's name.
    """
    def decorator(f):
        cls = augmentation_cls or Augmentation
        return cls(f, mag_range=mag_range, randomly_negate=randomly_negate, as_param=mag_to_param,
                   param_device=param_device, name=name)

    return decorator(function) if function is not None else decorator
