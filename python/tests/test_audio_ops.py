"""fn.preemphasis_filter on 16-bit PCM written by Python's `wave` module, against SciPy's
`scipy.signal.lfilter([1, -coeff], [1], x, zi=...)` (the filter with DALI's border as the initial
state) for float output, and NumPy's float32 arithmetic rounded to even and clipped for int16 output.
"""
import math
import wave

import numpy as np
import pytest

import sluice
from sluice import fn

RATE = 16000


def write_pcm(path, seconds, seed):
    """A gliding tone with harmonics and noise, as 16-bit mono PCM (`wave`)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(RATE * seconds)) / RATE
    f = 200 + 300 * t
    x = 0.5 * np.sin(2 * np.pi * f * t) + 0.2 * np.sin(6 * np.pi * f * t) + 0.05 * rng.standard_normal(t.size)
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def read_pcm(path):
    with wave.open(str(path), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").copy()


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    d = tmp_path_factory.mktemp("wav")
    out = []
    for k, seconds in enumerate([0.5, 0.3127, 1.0]):
        write_pcm(d / f"{k}.wav", seconds, seed=k)
        out.append(read_pcm(d / f"{k}.wav"))
    return out


def run(signals, threads=2, **kwargs):
    pipe = sluice.Pipeline(batch_size=len(signals), num_threads=threads, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(signals))
        coeff = fn.random.uniform(range=[0.5, 0.99])
        pipe.set_outputs(fn.preemphasis_filter(src, preemph_coeff=coeff, **kwargs), coeff)
    out, coeffs = pipe.run()
    return [np.array(out.at(i)) for i in range(len(signals))], [float(np.array(coeffs.at(i))) for i in range(len(signals))]


@pytest.mark.parametrize("border", ["zero", "clamp", "reflect"])
def test_float_output_matches_scipy_lfilter(recordings, border):
    signal = pytest.importorskip("scipy.signal")
    outs, coeffs = run(recordings, border=border)
    for x, y, c in zip(recordings, outs, coeffs):
        assert y.dtype == np.float32 and y.shape == x.shape
        c = float(np.float32(c))
        xd = x.astype(np.float64)
        prev = {"zero": 0.0, "clamp": xd[0], "reflect": xd[1]}[border]
        zi = [0.0] if border == "zero" else [-c * prev]
        ref, _ = signal.lfilter([1.0, -c], [1.0], xd, zi=zi)
        # float32 arithmetic on values up to ~65,000: a few float32 ulps of that scale.
        np.testing.assert_allclose(y, ref, rtol=0, atol=65536 * 2 ** -23 * 2)
        if border == "zero":
            assert y[0] == x[0]


def test_int16_output_rounds_to_even_and_saturates(recordings):
    outs, coeffs = run(recordings, dtype=sluice.types.INT16, border="clamp")
    for x, y, c in zip(recordings, outs, coeffs):
        assert y.dtype == np.int16
        xf = x.astype(np.float32)
        prev = np.concatenate([xf[:1], xf[:-1]])
        ref = xf - np.float32(c) * prev
        np.testing.assert_array_equal(y, np.clip(np.rint(ref), -32768, 32767).astype(np.int16))


def test_same_output_for_any_thread_count(recordings):
    one, _ = run(recordings, threads=1)
    three, _ = run(recordings, threads=3)
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)


def test_bad_border_names_the_argument():
    with pytest.raises(sluice.ArgumentError, match="border"):
        pipe = sluice.Pipeline(batch_size=1, num_threads=1)
        with pipe:
            fn.preemphasis_filter(fn.external_source(source=lambda: [np.zeros(4, np.float32)]), border="mirror")
