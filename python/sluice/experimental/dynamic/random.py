"""Random generators of dynamic mode (DALI's ``ndd.random``): :class:`RNG`, the thread's default
generator (``set_seed``, ``get_default_rng``), and the random operators (``uniform``, ``normal``,
``coin_flip``, ``choice``, ...), which ``dynamic/__init__`` adds to this module.

How a random operator uses its generator: the first call of an operator with a given signature
(arguments, fed inputs, batch size) draws that graph's seed from the generator; later calls with
the same signature continue that graph's stream (Sluice's per-sample generators derive from the
graph seed, the call's number and the sample's index). Setting the seed (``set_seed``,
``RNG.seed = ...``, ``RNG.state = ...``) starts new streams for every signature, so the same
sequence of calls after the same seed gives the same values. An explicit ``seed=`` argument makes
every call with it start from that seed (the same values each time).
"""
import itertools
import random as _random
import threading

_uids = itertools.count()
_MASK64 = (1 << 64) - 1


def _mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


class RNG:
    """A random generator for dynamic mode's random operators: ``RNG(seed=None, state=None)``
    (no seed: a random one). ``rng()`` draws a uint32; ``clone()`` continues the same sequence
    independently; ``state`` (a string) can be read and set."""

    def __init__(self, seed=None, state=None):
        self._uid = next(_uids)
        self._version = 0
        if state is not None:
            if seed is not None:
                raise ValueError("Cannot specify both `seed` and `state`")
            self.state = state
        else:
            self.seed = _random.SystemRandom().getrandbits(64) if seed is None else seed

    @property
    def seed(self):
        raise AttributeError("seed is write-only")

    @seed.setter
    def seed(self, value):
        self._key = int(value) & _MASK64
        self._counter = 0
        self._version += 1

    def _next64(self):
        self._counter += 1
        return _mix64(self._key ^ _mix64(self._counter))

    def __call__(self):
        """A random uint32 (as a Python int)."""
        return self._next64() >> 32

    def _draw_seed(self):
        """A seed for a new graph (a non-negative int64, as the ``seed`` argument takes)."""
        return self._next64() & 0x7FFFFFFFFFFFFFFF

    @property
    def state(self):
        return f"{self._key:016x}:{self._counter:016x}"

    @state.setter
    def state(self, value):
        key, counter = str(value).split(":")
        self._key, self._counter = int(key, 16), int(counter, 16)
        self._version += 1

    def clone(self):
        return RNG(state=self.state)

    def __repr__(self):
        return f"RNG(state='{self.state}')"


_local = threading.local()


def get_default_rng():
    """The calling thread's default RNG (used by random operators called without ``rng``)."""
    rng = getattr(_local, "rng", None)
    if rng is None:
        rng = _local.rng = RNG()
    return rng


def set_seed(seed):
    """Seeds the calling thread's default RNG."""
    get_default_rng().seed = seed


def _resolve_rng(rng):
    if rng is None:
        return get_default_rng()
    if not isinstance(rng, RNG):
        raise ValueError(f"rng must be an instance of {RNG.__module__}.RNG, but got {type(rng).__module__}."
                         f"{type(rng).__qualname__}")
    return rng
