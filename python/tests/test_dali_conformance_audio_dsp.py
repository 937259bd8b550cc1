"""DALI's documented call forms of the audio feature operators (fn.spectrogram, fn.power_spectrum,
fn.mel_filter_bank, fn.to_decibels, fn.mfcc, fn.nonsilent_region and their ops classes), one test per
argument, written from DALI's operator pages in our own words: each form is accepted and, on inputs
small enough to work out by hand, has DALI's meaning. The numerics against librosa are
test_audio_features.py's.
"""
import numpy as np
import pytest

import sluice
from sluice import fn, ops, types


def run(build, *samples, layout=""):
    """One batch of `samples` through `build`; every output's samples as arrays."""
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=1, seed=3)
    with pipe:
        out = build(fn.external_source(source=lambda: [np.asarray(s) for s in samples], layout=layout))
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    return [[np.asarray(o.at(i)) for i in range(len(samples))] for o in pipe.run()]


def first(build, *samples, layout=""):
    return run(build, *samples, layout=layout)[0][0]


ONES = np.ones(1000, np.float32)
HANN = 0.5 * (1 - np.cos(2 * np.pi * (np.arange(512) + 0.5) / 512))  # DALI's default window


# --- spectrogram -----------------------------------------------------------------------------
def test_spectrogram_defaults():
    out = run(lambda x: fn.spectrogram(x), ONES)[0][0]
    assert out.dtype == np.float32 and out.shape == (257, 1000 // 256 + 1)
    # A constant signal, reflected: every window sees ones; DC = (sum of DALI's Hann)^2, the rest ~0.
    np.testing.assert_allclose(out[0], HANN.sum() ** 2, rtol=1e-5)
    assert np.abs(out[2:]).max() < 1e-3 * out[0].max()


@pytest.mark.parametrize("kwargs, shape", [
    ({"nfft": None}, (257, 4)),
    ({"nfft": 1024}, (513, 4)),
    ({"window_length": 256, "window_step": 128}, (129, 8)),
    ({"window_length": 100, "window_step": 50, "nfft": 128}, (65, 21)),
    ({"center_windows": False}, (257, (1000 - 512) // 256 + 1)),
    ({"layout": "tf"}, (4, 257)),
])
def test_spectrogram_shapes(kwargs, shape):
    assert first(lambda x: fn.spectrogram(x, **kwargs), ONES).shape == shape


def test_spectrogram_window_fn_and_power():
    rect = first(lambda x: fn.spectrogram(x, window_length=4, window_step=2, window_fn=[1.0, 1.0, 1.0, 1.0]), ONES)
    np.testing.assert_allclose(rect[0], 16.0)  # DC of four ones, squared
    mag = first(lambda x: fn.spectrogram(x, window_length=4, window_step=2, window_fn=[1.0] * 4, power=1), ONES)
    np.testing.assert_allclose(mag[0], 4.0)


def test_spectrogram_reflect_padding_false_pads_with_zeros():
    zero = first(lambda x: fn.spectrogram(x, reflect_padding=False), ONES)
    # Window 0 is centered on sample 0: its first half falls on zeros.
    np.testing.assert_allclose(zero[0, 0], HANN[256:].sum() ** 2, rtol=1e-5)
    np.testing.assert_allclose(zero[0, 1], HANN.sum() ** 2, rtol=1e-5)


def test_spectrogram_layout_and_ops_class():
    spec = ops.Spectrogram(window_length=256, window_step=128, layout="tf")
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pipe:
        pipe.set_outputs(spec(fn.external_source(source=lambda: [ONES])))
    (out,) = pipe.run()
    assert out.layout() == "tf" and np.asarray(out.at(0)).shape == (8, 129)


# --- power_spectrum --------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, x, expected", [
    ({}, [1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),                 # an impulse: flat, nfft = the length
    ({"nfft": 8}, [1.0, 0.0, 0.0, 0.0], [1.0] * 5),               # padded to 8: nfft // 2 + 1 bins
    ({"power": 1}, [2.0, 0.0, 0.0, 0.0], [2.0, 2.0, 2.0]),        # magnitude
    ({"power": 2}, [1.0, 1.0, 1.0, 1.0], [16.0, 0.0, 0.0]),       # power: re^2 + im^2
])
def test_power_spectrum_forms(kwargs, x, expected):
    np.testing.assert_allclose(first(lambda s: fn.power_spectrum(s, **kwargs), np.float32(x)), expected, atol=1e-6)


def test_power_spectrum_axis_and_ops_class():
    x = np.zeros((4, 3), np.float32)
    x[0] = 1.0
    out = first(lambda s: fn.power_spectrum(s, axis=0), x)
    np.testing.assert_allclose(out, np.ones((3, 3)))
    assert first(lambda s: fn.power_spectrum(s, axis=-1), x).shape == (4, 2)
    assert first(lambda s: ops.PowerSpectrum(nfft=16)(s), x).shape == (4, 9)


# --- mel_filter_bank -------------------------------------------------------------------------
def eye(bins):
    return np.eye(bins, dtype=np.float32)


def test_mel_filter_bank_defaults():
    out = first(lambda s: fn.mel_filter_bank(s), eye(1025), layout="ft")  # nfft 2048 at 44.1 kHz
    assert out.shape == (128, 1025)
    # normalize=True: each filter's area over Hz is 1 (Slaney).
    np.testing.assert_allclose(out.sum(axis=1) * 44100 / 2048, 1.0, rtol=0.15)


@pytest.mark.parametrize("kwargs", [{"nfilter": 10}, {"sample_rate": 16000.0}, {"freq_low": 300.0},
                                    {"freq_high": 4000.0}, {"normalize": False}, {"mel_formula": "htk"},
                                    {"mel_formula": "slaney"}])
def test_mel_filter_bank_arguments(kwargs):
    args = {"sample_rate": 16000.0, "nfilter": 20, **kwargs}
    out = first(lambda s: fn.mel_filter_bank(s, **args), eye(257), layout="ft")  # nfft 512
    assert out.shape == (args["nfilter"], 257)
    hz = np.arange(257) * args["sample_rate"] / 512
    used = out.any(axis=0)
    assert hz[used].min() > args.get("freq_low", 0.0)
    assert hz[used].max() < args.get("freq_high", 0.0) or args.get("freq_high", 0.0) == 0.0
    if not args.get("normalize", True):
        assert out.max() <= 1.0 and out.max() > 0.9  # unit peaks


def test_mel_filter_bank_freq_high_zero_is_nyquist_and_ops_class():
    a = first(lambda s: fn.mel_filter_bank(s, sample_rate=16000.0, freq_high=0.0), eye(257), layout="ft")
    b = first(lambda s: ops.MelFilterBank(sample_rate=16000.0, freq_high=8000.0)(s), eye(257), layout="ft")
    np.testing.assert_array_equal(a, b)
    htk = first(lambda s: fn.mel_filter_bank(s, sample_rate=16000.0, mel_formula="htk"), eye(257), layout="ft")
    assert not np.array_equal(a, htk)


# --- to_decibels -----------------------------------------------------------------------------
X = np.float32([1.0, 10.0, 100.0])


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [-20.0, -10.0, 0.0]),                           # reference: the sample's maximum
    ({"multiplier": 20.0}, [-40.0, -20.0, 0.0]),
    ({"reference": 1.0}, [0.0, 10.0, 20.0]),
    ({"cutoff_db": -15.0}, [-15.0, -10.0, 0.0]),
    ({"multiplier": 20.0, "reference": 10.0, "cutoff_db": -10.0}, [-10.0, 0.0, 20.0]),
])
def test_to_decibels_forms(kwargs, expected):
    np.testing.assert_allclose(first(lambda s: fn.to_decibels(s, **kwargs), X), expected, atol=1e-5)


def test_to_decibels_ops_class():
    np.testing.assert_allclose(first(lambda s: ops.ToDecibels(reference=100.0)(s), X), [-20.0, -10.0, 0.0], atol=1e-5)


# --- mfcc ------------------------------------------------------------------------------------
MEL = np.arange(1, 41, dtype=np.float32)[:, None] * np.float32([1.0, 2.0, 0.5])  # (40 mels, 3 frames)


def test_mfcc_defaults():
    out = first(lambda s: fn.mfcc(s), MEL)
    assert out.shape == (20, 3)  # n_mfcc 20 along axis 0
    np.testing.assert_allclose(out[0], MEL.sum(axis=0), rtol=1e-5)  # DCT-II, not normalized: X[0] = sum


@pytest.mark.parametrize("kwargs, shape", [
    ({"n_mfcc": 13}, (13, 3)), ({"n_mfcc": 64}, (40, 3)), ({"axis": 1}, (40, 3)), ({"axis": 1, "n_mfcc": 2}, (40, 2)),
])
def test_mfcc_shapes(kwargs, shape):
    assert first(lambda s: fn.mfcc(s, **kwargs), MEL).shape == shape


@pytest.mark.parametrize("dct_type", [1, 2, 3, 4])
def test_mfcc_dct_types(dct_type):
    scipy_fft = pytest.importorskip("scipy.fft")
    out = first(lambda s: fn.mfcc(s, dct_type=dct_type, n_mfcc=40), MEL)
    np.testing.assert_allclose(out, scipy_fft.dct(MEL.astype(np.float64), type=dct_type, axis=0) / 2, rtol=1e-4,
                               atol=1e-3)


def test_mfcc_normalize_and_lifter_and_ops_class():
    out = first(lambda s: fn.mfcc(s, normalize=True), MEL)
    np.testing.assert_allclose(out[0], MEL.sum(axis=0) / np.sqrt(40), rtol=1e-5)
    plain = first(lambda s: ops.MFCC(n_mfcc=5)(s), MEL)
    liftered = first(lambda s: fn.mfcc(s, n_mfcc=5, lifter=10.0), MEL)
    k = np.arange(5)[:, None]
    np.testing.assert_allclose(liftered, plain * (1 + 5 * np.sin(np.pi * (k + 1) / 10)), rtol=1e-5)


# --- nonsilent_region ------------------------------------------------------------------------
def burst():
    x = np.zeros(10000, np.float32)
    x[4000:6000] = np.sin(np.arange(2000) * 0.3)
    return x


def test_nonsilent_region_defaults_and_slice():
    begin, length, trimmed = [o[0] for o in run(lambda s: [*fn.nonsilent_region(s),
                                                           fn.slice(s, *fn.nonsilent_region(s), axes=[0])], burst())]
    assert begin.dtype == np.int32 and begin.shape == () and length.shape == ()
    # Windows of 2048 that reach the burst (sample 4000 is sin(0) = 0): from the one starting at
    # 4001 - 2047 to the end of the one starting at 5999.
    assert (int(begin), int(length)) == (4001 - 2047, 5999 + 2048 - (4001 - 2047))
    np.testing.assert_array_equal(trimmed, burst()[int(begin):int(begin) + int(length)])


REGION_128 = (4001 - 127, 5999 + 128 - (4001 - 127))


@pytest.mark.parametrize("kwargs, expected", [
    ({"window_length": 128}, REGION_128),
    ({"window_length": 128, "cutoff_db": -10.0}, None),              # a stricter threshold: a shorter region
    ({"window_length": 128, "reference_power": 1e6}, (0, 0)),      # a power of 0.5 is 63 dB below 1e6
    ({"window_length": 128, "reset_interval": -1}, REGION_128),
    ({"window_length": 128, "reset_interval": 256}, REGION_128),
])
def test_nonsilent_region_arguments(kwargs, expected):
    begin, length = [o[0] for o in run(lambda s: fn.nonsilent_region(s, **kwargs), burst())]
    if expected is None:
        assert int(begin) > REGION_128[0] and int(begin) + int(length) < sum(REGION_128)
    else:
        assert (int(begin), int(length)) == expected


def test_nonsilent_region_reset_interval_must_divide_for_float_input_only():
    # DALI: for floating-point input, reset_interval (default 8192) is -1 or a multiple of window_length.
    with pytest.raises(sluice.SluiceError, match="reset_interval"):
        run(lambda s: fn.nonsilent_region(s, window_length=100), burst())
    pcm = np.round(burst() * 20000).astype(np.int16)
    begin, length = [o[0] for o in run(lambda s: ops.NonsilentRegion(window_length=100)(s), pcm)]
    assert (int(begin), int(length)) == (4001 - 99, 5999 + 100 - (4001 - 99))


def test_audio_operators_take_types_dtypes_and_layout_constants():
    # DALI code passes types.FLOAT and layouts from types; the float32-only operators reject others.
    x = np.ones(600, np.float32)
    assert first(lambda s: fn.spectrogram(fn.cast(s, dtype=types.FLOAT), layout="ft"), x).shape == (257, 3)
    with pytest.raises(sluice.SluiceError, match="float32"):
        first(lambda s: fn.spectrogram(s), x.astype(np.int16))
