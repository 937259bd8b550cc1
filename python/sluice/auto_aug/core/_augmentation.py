"""Augmentation: an operation on a batch plus the mapping from a magnitude bin to its parameter.

The parameter of every bin is computed once, in Python, when the graph is built (``as_param`` of
each magnitude of ``linspace(mag_range[0], mag_range[1], num_magnitude_bins)``, negated for odd
signed bins); per sample, the bin picks its entry from that table inside the pipeline
(``_select.table``), so each sample of a batch can have its own magnitude and sign.
"""
import inspect
import warnings

import numpy as np

from ... import fn, types
from ...graph import DataNode, call_operator


class _UndefinedParam:
    """Default of `Augmentation.augmentation` arguments: tells "not given" apart from None."""


class MissingArgException(Exception):
    def __init__(self, message, augmentation, missing_args):
        super().__init__(message)
        self.augmentation = augmentation
        self.missing_args = missing_args


class _SignedMagnitudeBin:
    """A magnitude bin with a random sign per sample: `signed_magnitude_idx` = 2 * bin + sign."""

    def __init__(self, magnitude_bin, random_sign=None, seed=None, shape=None):
        if not isinstance(magnitude_bin, (int, DataNode)) or isinstance(magnitude_bin, bool):
            raise TypeError(f"magnitude_bin must be an int or a DataNode of integers in "
                            f"[0, num_magnitude_bins - 1], got {magnitude_bin!r}")
        if random_sign is None:
            random_sign = fn.random.uniform(values=[0, 1], dtype=types.INT32, seed=seed,
                                            shape=shape if shape else None)
        self._bin = magnitude_bin
        self._random_sign = random_sign
        # Made now, before any split, so that a split batch carries it along.
        self._signed_idx = 2 * magnitude_bin + random_sign

    @property
    def bin(self):
        return self._bin

    @property
    def random_sign(self):
        return self._random_sign

    @property
    def signed_magnitude_idx(self):
        return self._signed_idx

    def __getitem__(self, level):
        """The bin of one level of a (n,)-shaped signed bin (RandAugment's n operations)."""
        bin_ = self._bin if isinstance(self._bin, int) else self._bin[level]
        return _SignedMagnitudeBin(bin_, self._random_sign[level])

    def _with(self, bin_, random_sign, signed_idx):
        out = object.__new__(_SignedMagnitudeBin)
        out._bin, out._random_sign, out._signed_idx = bin_, random_sign, signed_idx
        return out


def signed_bin(magnitude_bin, random_sign=None, seed=None, shape=None):
    """DALI's ``signed_bin``: a magnitude bin with a random sign, drawn once for the whole batch
    (before a split), for augmentations declared with ``randomly_negate=True``."""
    return _SignedMagnitudeBin(magnitude_bin, random_sign, seed, shape)


_PARAM_DTYPES = {"f": "float32", "b": "bool"}


def _sluice_dtype(arr):
    if arr.dtype.kind in _PARAM_DTYPES:
        return _PARAM_DTYPES[arr.dtype.kind]
    if arr.dtype == np.uint8:
        return "uint8"
    if arr.dtype.kind in "iu":
        return "int32"
    raise TypeError(f"augmentation parameters must be numeric, got {arr.dtype}")


def _param_table(params, index, like=None, entry=-1):
    """Per-sample parameter: params[index[i]] (or params[entry] for every sample of `like`)."""
    params = np.asarray(params)
    return call_operator("_select.table", [index if like is None else like],
                         {"values": [float(v) for v in params.reshape(-1)],
                          "shape": list(params.shape[1:]), "dtype": _sluice_dtype(params),
                          "entry": entry})[0]


def _positional_count(op):
    params = inspect.signature(op).parameters.values()
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


class Augmentation:
    """An operation for automatic augmentation; made with the ``@augmentation`` decorator."""

    def __init__(self, op, mag_range=None, randomly_negate=None, as_param=None, param_device=None, name=None):
        self._op = op
        self._mag_range = mag_range
        self._randomly_negate = randomly_negate
        self._as_param = as_param
        self._param_device = param_device
        self._name = name
        if _positional_count(op) < 2:
            raise TypeError(f"{op} takes fewer than two positional arguments; an @augmentation must take "
                            f"the samples and the parameter")
        if self.param_device not in ("cpu", "gpu"):
            raise ValueError(f"param_device must be 'cpu' or 'gpu', got {param_device!r}")

    @property
    def op(self):
        return self._op

    @property
    def mag_range(self):
        return self._mag_range

    @property
    def as_param(self):
        return self._as_param or np.array

    @property
    def randomly_negate(self):
        return bool(self._randomly_negate)

    @property
    def param_device(self):
        return self._param_device or "cpu"

    @property
    def name(self):
        return self._name or self._op.__name__

    def _config(self):
        return {"mag_range": self._mag_range, "randomly_negate": self._randomly_negate,
                "as_param": self._as_param, "param_device": self._param_device, "name": self._name}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._config().items() if v is not None)
        return f"Augmentation({self._op!r}{', ' + args if args else ''})"

    def augmentation(self, mag_range=_UndefinedParam, randomly_negate=_UndefinedParam, as_param=_UndefinedParam,
                     param_device=_UndefinedParam, name=_UndefinedParam, augmentation_cls=None):
        """A copy of this augmentation with the given settings changed."""
        config = self._config()
        given = dict(mag_range=mag_range, randomly_negate=randomly_negate, as_param=as_param,
                     param_device=param_device, name=name)
        config.update({k: v for k, v in given.items() if v is not _UndefinedParam})
        return (augmentation_cls or type(self))(self._op, **config)

    def __call__(self, sample, *, magnitude_bin=None, num_magnitude_bins=None, **kwargs):
        """``op(sample, param, **kwargs)`` with param = as_param(magnitudes[bin] * (-1) ** sign)."""
        param = self._get_param(sample, magnitude_bin, num_magnitude_bins)
        sig = inspect.signature(self._op).parameters
        extra = list(sig)[2:]
        takes_var_kw = any(p.kind == p.VAR_KEYWORD for p in sig.values())
        op_kwargs = {k: v for k, v in kwargs.items() if takes_var_kw or k in extra}
        missing = [k for k in extra if sig[k].default is inspect.Parameter.empty and
                   sig[k].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
                   and k not in op_kwargs]
        if missing:
            raise MissingArgException(
                f"The augmentation `{self.name}` requires the argument(s) {', '.join(missing)}, which were not "
                f"given to the call.", augmentation=self, missing_args=missing)
        return self._op(sample, param, **op_kwargs)

    def _magnitudes(self, num_magnitude_bins):
        if self._mag_range is None:
            return None
        if isinstance(self._mag_range, np.ndarray):
            if num_magnitude_bins is not None and len(self._mag_range) != num_magnitude_bins:
                raise ValueError(f"augmentation `{self.name}`: mag_range has {len(self._mag_range)} magnitudes, "
                                 f"num_magnitude_bins is {num_magnitude_bins}")
            return self._mag_range
        if num_magnitude_bins is None:
            raise ValueError(f"augmentation `{self.name}`: num_magnitude_bins is missing in the call")
        if not hasattr(self._mag_range, "__len__") or len(self._mag_range) != 2:
            raise ValueError(f"augmentation `{self.name}`: mag_range must be (low, high) or an ndarray of "
                             f"magnitudes, got {self._mag_range!r}")
        lo, hi = self._mag_range
        return np.linspace(lo, hi, num_magnitude_bins, dtype=np.float32)

    def _params(self, magnitudes):
        params = []
        for m in magnitudes:
            p = self.as_param(m)
            if isinstance(p, DataNode) or isinstance(p, (list, tuple)) and any(isinstance(x, DataNode) for x in p):
                raise TypeError(f"augmentation `{self.name}`: as_param returned a DataNode; it must return "
                                f"values convertible to an ndarray (they are computed once, in Python)")
            params.append(np.asarray(p))
        for p, m in zip(params, magnitudes):
            if p.shape != params[0].shape or p.dtype != params[0].dtype:
                raise ValueError(f"augmentation `{self.name}`: as_param returned {params[0].shape} {params[0].dtype} "
                                 f"for magnitude {magnitudes[0]} but {p.shape} {p.dtype} for {m}")
        return np.stack(params)

    def _get_param(self, sample, magnitude_bin, num_magnitude_bins):
        magnitudes = self._magnitudes(num_magnitude_bins)
        if magnitudes is None:
            return None
        if magnitude_bin is None:
            raise ValueError(f"augmentation `{self.name}` has a mag_range, so its call needs magnitude_bin")
        if self.randomly_negate and not isinstance(magnitude_bin, _SignedMagnitudeBin):
            warnings.warn(f"augmentation `{self.name}` negates magnitudes at random but got an unsigned "
                          f"magnitude_bin: the sign is drawn here (pass signed_bin(...) to draw it once, before "
                          f"a split)", Warning)
            magnitude_bin = signed_bin(magnitude_bin)
        if self.randomly_negate:
            if isinstance(magnitude_bin.bin, int):
                _check_bin(self, magnitude_bin.bin, len(magnitudes))
                magnitudes = [magnitudes[magnitude_bin.bin]]
                index = magnitude_bin.random_sign
            else:
                index = magnitude_bin.signed_magnitude_idx
            signed = [s * m for m in magnitudes for s in (1, -1)]
            return _param_table(self._params(signed), index)
        bin_ = magnitude_bin.bin if isinstance(magnitude_bin, _SignedMagnitudeBin) else magnitude_bin
        if isinstance(bin_, int):
            _check_bin(self, bin_, len(magnitudes))
            return _param_table(self._params([magnitudes[bin_]]), None, like=sample, entry=0)
        return _param_table(self._params(magnitudes), bin_)


def _check_bin(aug, bin_, count):
    if not 0 <= bin_ < count:
        raise ValueError(f"augmentation `{aug.name}`: magnitude_bin {bin_} is outside [0, {count - 1}]")
