"""The audio feature operators against librosa 0.11 (computed in float64) on real signals: chirps,
tones, noise and silence made here, and the freedesktop speech recordings read with soundfile.

- fn.spectrogram vs |librosa.stft|^power (center / pad_mode matched, DALI's Hann passed as the window),
- fn.mel_filter_bank vs librosa.filters.mel (the matrix itself) and librosa.feature.melspectrogram,
- fn.to_decibels vs librosa.power_to_db / amplitude_to_db (ref=np.max, top_db = -cutoff_db),
- fn.mfcc vs librosa.feature.mfcc on a dB mel spectrogram (DCT-II ortho, lifter),
- fn.nonsilent_region vs a NumPy implementation of DALI's documented rule,
- and the tensor operators DALI pipelines put around them on audio layouts ("t", "ft", "tf"):
  normalize over "t", pad with fill_value and align, slice by nonsilent_region's outputs.

Errors are normwise: max |ours - reference| / max |reference| per sample, required <= 1e-4. The
worst one measured for each comparison is printed (pytest -s).
"""
import glob

import numpy as np
import pytest

import sluice
from sluice import fn

librosa = pytest.importorskip("librosa")
sf = pytest.importorskip("soundfile")

SOUNDS = "/usr/share/sounds/freedesktop/stereo"
SPEECH = sorted(glob.glob(f"{SOUNDS}/audio-channel-*.oga"))
WORST = {}


def check(name, ours, ref, tol=1e-4):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    assert ours.shape == ref.shape, f"{name}: shape {ours.shape} vs {ref.shape}"
    err = np.max(np.abs(ours - ref)) / max(np.max(np.abs(ref)), 1e-30)
    WORST[name] = max(WORST.get(name, 0.0), err)
    assert err <= tol, f"{name}: normwise error {err:.3g} > {tol}"


def dali_hann(n):
    """DALI's Hann window: sampled at the middle of each sample interval."""
    return 0.5 * (1 - np.cos(2 * np.pi * (np.arange(n) + 0.5) / n))


def run(signals, build, layout="", threads=2):
    """Feeds `signals` (one batch) and returns each output as a list of arrays."""
    pipe = sluice.Pipeline(batch_size=len(signals), num_threads=threads, seed=1)
    with pipe:
        out = build(fn.external_source(source=lambda: list(signals), layout=layout))
        out = out if isinstance(out, (list, tuple)) else [out]
        pipe.set_outputs(*out)
    outs = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(signals))] for o in outs]


def chirp(sr=16000, seconds=1.0, f0=100, f1=6000):
    t = np.arange(int(sr * seconds)) / sr
    return (0.5 * np.sin(2 * np.pi * (f0 + (f1 - f0) * t / (2 * seconds)) * t)).astype(np.float32)


def tones(sr=16000, n=12345):
    t = np.arange(n) / sr
    return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 3000 * t + 1)).astype(np.float32)


def noise(n=20000, seed=0):
    return (0.1 * np.random.default_rng(seed).standard_normal(n)).astype(np.float32)


def speech(path):
    x, sr = sf.read(path, dtype="float32")
    return (x if x.ndim == 1 else x[:, 0]).copy(), sr


@pytest.fixture(scope="module")
def recordings():
    assert SPEECH, f"no freedesktop recordings in {SOUNDS}"
    return [speech(p) for p in SPEECH[:4]]


def librosa_power(x, nfft, wl, step, center, pad_mode, power, window=None):
    w = dali_hann(wl) if window is None else window
    S = librosa.stft(x.astype(np.float64), n_fft=nfft, hop_length=step, win_length=wl, window=w, center=center,
                     pad_mode=pad_mode)
    return np.abs(S) ** power


# --- spectrogram ---------------------------------------------------------------------------------
@pytest.mark.parametrize("nfft, wl, step, center, reflect, power", [
    (512, 400, 160, True, True, 2),     # the usual ASR framing: 25 ms windows, 10 ms apart, at 16 kHz
    (512, 512, 256, True, True, 1),     # DALI's defaults, magnitude
    (1024, 1024, 300, True, False, 2),  # zero padding
    (256, 256, 100, False, True, 2),    # windows inside the signal only
])
def test_spectrogram_matches_librosa_stft(nfft, wl, step, center, reflect, power):
    signals = [chirp(), tones(), noise()]
    ft, tf = run(signals, lambda x: [
        fn.spectrogram(x, nfft=nfft, window_length=wl, window_step=step, center_windows=center,
                       reflect_padding=reflect, power=power),
        fn.spectrogram(x, nfft=nfft, window_length=wl, window_step=step, center_windows=center,
                       reflect_padding=reflect, power=power, layout="tf")])
    for x, a, b in zip(signals, ft, tf):
        ref = librosa_power(x, nfft, wl, step, center, "reflect" if reflect else "constant", power)
        check("spectrogram", a, ref)
        np.testing.assert_array_equal(b, a.T)


def test_spectrogram_of_speech_and_a_periodic_hann(recordings):
    xs = [x for x, _ in recordings]
    hann = librosa.filters.get_window("hann", 2048, fftbins=True).astype(np.float32)  # librosa's default
    default, periodic = run(xs, lambda x: [fn.spectrogram(x, nfft=2048, window_length=2048, window_step=480),
                                           fn.spectrogram(x, nfft=2048, window_length=2048, window_step=480,
                                                          window_fn=hann.tolist())])
    for x, a, b in zip(xs, default, periodic):
        check("spectrogram speech", a, librosa_power(x, 2048, 2048, 480, True, "reflect", 2))
        check("spectrogram speech", b, np.abs(librosa.stft(x.astype(np.float64), n_fft=2048, hop_length=480,
                                                                      pad_mode="reflect")) ** 2)


def test_spectrogram_of_silence_is_zero():
    (out,) = run([np.zeros(5000, np.float32)], lambda x: fn.spectrogram(x))
    assert out[0].shape == (257, 5000 // 256 + 1) and not out[0].any()


# --- mel_filter_bank -----------------------------------------------------------------------------
@pytest.mark.parametrize("sr, nfft, nmels, fmin, fmax, htk, norm", [
    (16000, 512, 64, 0.0, None, False, "slaney"),
    (16000, 400, 40, 20.0, 7600.0, True, "slaney"),
    (22050, 2048, 128, 0.0, None, False, None),
    (48000, 1024, 80, 300.0, 12000.0, True, None),
])
def test_mel_filter_bank_is_librosas_matrix(sr, nfft, nmels, fmin, fmax, htk, norm):
    # The identity as an "ft" spectrogram: bin k's column of the output is the filters' weights of bin k.
    bins = nfft // 2 + 1
    (out,) = run([np.eye(bins, dtype=np.float32)], lambda x: fn.mel_filter_bank(
        x, sample_rate=sr, nfilter=nmels, freq_low=fmin, freq_high=fmax or 0.0,
        mel_formula="htk" if htk else "slaney", normalize=norm == "slaney"), layout="ft")
    ref = librosa.filters.mel(sr=sr, n_fft=nfft, n_mels=nmels, fmin=fmin, fmax=fmax, htk=htk, norm=norm,
                              dtype=np.float64)
    check("mel matrix", out[0], ref)


def test_mel_spectrogram_matches_librosa(recordings):
    signals = [(chirp(), 16000), (noise(), 16000)] + recordings
    for x, sr in signals:
        (mel,) = run([x], lambda s: fn.mel_filter_bank(
            fn.spectrogram(s, nfft=1024, window_length=1024, window_step=256), sample_rate=sr, nfilter=64))
        ref = librosa.feature.melspectrogram(y=x.astype(np.float64), sr=sr, n_fft=1024, hop_length=256,
                                             window=dali_hann(1024), n_mels=64, pad_mode="reflect")
        check("melspectrogram", mel[0], ref)


def test_mel_filter_bank_tf_is_ft_transposed():
    S = np.abs(np.random.default_rng(3).standard_normal((257, 50))).astype(np.float32)
    (ft,) = run([S], lambda x: fn.mel_filter_bank(x, sample_rate=16000, nfilter=40), layout="ft")
    (tf,) = run([S.T.copy()], lambda x: fn.mel_filter_bank(x, sample_rate=16000, nfilter=40), layout="tf")
    np.testing.assert_array_equal(tf[0], ft[0].T)


# --- to_decibels ---------------------------------------------------------------------------------
def test_to_decibels_matches_power_and_amplitude_to_db(recordings):
    mels = [librosa.feature.melspectrogram(y=x.astype(np.float64), sr=sr, n_fft=1024, hop_length=256)
            for x, sr in recordings]
    mels = [m.astype(np.float32) for m in mels]
    db, db20, dbref = run(mels, lambda m: [fn.to_decibels(m, cutoff_db=-80),
                                           fn.to_decibels(m, multiplier=20, cutoff_db=-80),
                                           fn.to_decibels(m, reference=1.0, cutoff_db=-120)])
    for m, a, b, c in zip(mels, db, db20, dbref):
        m64 = m.astype(np.float64)
        check("to_decibels", a, librosa.power_to_db(m64, ref=np.max, amin=1e-30, top_db=80))
        check("to_decibels", b, librosa.amplitude_to_db(m64, ref=np.max, amin=1e-30, top_db=80))
        check("to_decibels", c, np.maximum(librosa.power_to_db(m64, ref=1.0, amin=1e-30, top_db=None), -120))


def test_to_decibels_of_silence_is_the_cutoff():
    # DALI: the reference (the maximum) is 0, and every ratio saturates at the cutoff.
    (out,) = run([np.zeros((4, 5), np.float32)], lambda m: fn.to_decibels(m, cutoff_db=-70))
    np.testing.assert_allclose(out[0], -70, rtol=1e-6)


# --- mfcc ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_mfcc, dct_type, lifter", [(13, 2, 0), (20, 2, 22), (40, 3, 0)])
def test_mfcc_matches_librosa(recordings, n_mfcc, dct_type, lifter):
    signals = [(chirp(), 16000), (tones(), 16000)] + recordings
    for x, sr in signals:
        (out,) = run([x], lambda s: fn.mfcc(
            fn.to_decibels(fn.mel_filter_bank(fn.spectrogram(s, nfft=1024, window_length=800, window_step=320),
                                              sample_rate=sr, nfilter=40), cutoff_db=-80),
            n_mfcc=n_mfcc, dct_type=dct_type, normalize=True, lifter=lifter))
        mel = librosa.feature.melspectrogram(y=x.astype(np.float64), sr=sr, n_fft=1024, hop_length=320, win_length=800,
                                             window=dali_hann(800), n_mels=40, pad_mode="reflect")
        S = librosa.power_to_db(mel, ref=np.max, amin=1e-30, top_db=80)
        check("mfcc", out[0], librosa.feature.mfcc(S=S, n_mfcc=n_mfcc, dct_type=dct_type, norm="ortho", lifter=lifter))


def test_mfcc_unnormalized_is_half_of_scipy():
    scipy_fft = pytest.importorskip("scipy.fft")
    S = np.random.default_rng(5).standard_normal((32, 17)).astype(np.float32)
    for t in (1, 2, 3, 4):
        (out,) = run([S], lambda x: fn.mfcc(x, n_mfcc=32, dct_type=t))
        check("dct", out[0], scipy_fft.dct(S.astype(np.float64), type=t, axis=0) / 2)


# --- nonsilent_region ----------------------------------------------------------------------------
def nonsilent_numpy(x, cutoff_db=-60.0, window_length=2048, reference_power=None):
    """DALI's documented rule: the short-term power is the mean square over window_length samples; a
    window is silent when 10 * log10(power / reference_power) < cutoff_db (reference: the maximum)."""
    x = np.asarray(x, np.float64)
    w = min(window_length, len(x))
    c = np.concatenate([[0.0], np.cumsum(x * x)])
    power = (c[w:] - c[:-w]) / w
    ref = power.max() if reference_power is None else reference_power
    with np.errstate(divide="ignore", invalid="ignore"):
        loud = ~(10 * np.log10(power / ref) < cutoff_db)
    idx = np.flatnonzero(loud)
    return (0, 0) if idx.size == 0 else (int(idx[0]), int(idx[-1] - idx[0] + w))


def expect_region(ours, x, **kw):
    """Ours equals the rule's, or lies between the rule's at cutoff_db +- 0.01 dB (a window within
    rounding of the threshold may go either way)."""
    ref = nonsilent_numpy(x, **kw)
    if tuple(ours) == ref:
        return
    c = kw.pop("cutoff_db", -60.0)
    lo, hi = nonsilent_numpy(x, cutoff_db=c - 0.01, **kw), nonsilent_numpy(x, cutoff_db=c + 0.01, **kw)
    assert lo[0] <= ours[0] <= hi[0] and hi[0] + hi[1] <= ours[0] + ours[1] <= lo[0] + lo[1], (ours, ref)


def padded_speech(recordings):
    # Each recording between 0.3 s of silence and 0.2 s of faint noise: a region to find.
    out = []
    for k, (x, sr) in enumerate(recordings):
        tail = 1e-4 * np.random.default_rng(k).standard_normal(sr // 5)
        out.append(np.concatenate([np.zeros(int(0.3 * sr)), x, tail]).astype(np.float32))
    return out


@pytest.mark.parametrize("kw", [{}, {"cutoff_db": -30.0}, {"window_length": 512},
                                {"cutoff_db": -40.0, "reference_power": 1e-3}])
def test_nonsilent_region_follows_dalis_rule_on_speech(recordings, kw):
    signals = padded_speech(recordings) + [chirp(), noise(), tones()]
    begin, length = run(signals, lambda x: fn.nonsilent_region(x, **kw))
    for x, b, n in zip(signals, begin, length):
        assert b.dtype == np.int32 and b.shape == ()
        expect_region((int(b), int(n)), x, **dict(kw))


def test_nonsilent_region_int16_silence_and_short_signals(recordings):
    pcm = [np.round(x * 32767).astype(np.int16) for x in padded_speech(recordings)]
    begin, length = run(pcm, lambda x: fn.nonsilent_region(x, cutoff_db=-50))
    for x, b, n in zip(pcm, begin, length):
        expect_region((int(b), int(n)), x, cutoff_db=-50.0)
    quiet = [np.zeros(3000, np.float32), np.full(100, 0.5, np.float32), 1e-6 * np.ones(3000, np.float32)]
    begin, length = run(quiet, lambda x: fn.nonsilent_region(x, reference_power=1.0))
    assert [(int(b), int(n)) for b, n in zip(begin, length)] == [(0, 0), (0, 100), (0, 0)]
    begin, length = run(quiet[:1], lambda x: fn.nonsilent_region(x))  # reference 0: nothing is below it
    assert (int(begin[0]), int(length[0])) == (0, 3000)


# --- the tensor operators on audio layouts -------------------------------------------------------
def test_slice_by_nonsilent_region_on_t_and_frames(recordings):
    signals = padded_speech(recordings)
    for kw in ({"axes": [0]}, {"axis_names": "t"}):
        trimmed, begin, length = run(signals, lambda x: [fn.slice(x, *fn.nonsilent_region(x), **kw)]
                                     + list(fn.nonsilent_region(x)), layout="t")
        for x, y, b, n in zip(signals, trimmed, begin, length):
            np.testing.assert_array_equal(y, x[int(b):int(b) + int(n)])
    # The region in frames of a "ft" and a "tf" spectrogram (hop 256), sliced along "t".
    def frames(x, layout, kw):
        b, n = fn.nonsilent_region(x)
        spec = fn.spectrogram(x, layout=layout)
        return [fn.slice(spec, b // 256, n // 256, out_of_bounds_policy="trim_to_shape", **kw), spec, b, n]
    for layout, kw in (("ft", {"axis_names": "t"}), ("tf", {"axes": [0]}), ("tf", {"axis_names": "t"})):
        cut, spec, begin, length = run(signals, lambda x: frames(x, layout, kw), layout="t")
        for y, s, b, n in zip(cut, spec, begin, length):
            f0, nf = int(b) // 256, int(n) // 256
            np.testing.assert_array_equal(y, s[:, f0:f0 + nf] if layout == "ft" else s[f0:f0 + nf])


def test_normalize_over_t_of_ft_tf_and_t():
    specs = [np.abs(np.random.default_rng(k).standard_normal((40, 30 + 7 * k))).astype(np.float32) for k in range(3)]
    (ft,) = run(specs, lambda m: fn.normalize(m, axis_names="t"), layout="ft")
    (tf,) = run([s.T.copy() for s in specs], lambda m: fn.normalize(m, axis_names="t"), layout="tf")
    (t,) = run([s[0].copy() for s in specs], lambda m: fn.normalize(m, axis_names="t"), layout="t")
    for s, a, b, c in zip(specs, ft, tf, t):
        ref = (s - s.mean(axis=1, keepdims=True)) / s.std(axis=1, keepdims=True)
        np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b, ref.T, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(c, ref[0], rtol=1e-4, atol=1e-5)


def test_pad_t_with_fill_value_and_align():
    specs = [np.ones((4, n), np.float32) for n in (10, 23, 17)]
    (ft,) = run(specs, lambda m: fn.pad(m, axis_names="t", fill_value=-80.0, align=8), layout="ft")
    (tf,) = run([s.T.copy() for s in specs], lambda m: fn.pad(m, axis_names="t", fill_value=-80.0, align=8),
                layout="tf")
    (t,) = run([s[0].copy() for s in specs], lambda m: fn.pad(m, axes=[0], fill_value=-1.0, align=[16]), layout="t")
    for s, a, b, c in zip(specs, ft, tf, t):
        n = s.shape[1]
        assert a.shape == (4, 24) and b.shape == (24, 4) and c.shape == (32,)  # max 23 -> 24 (align 8), 32
        assert (a[:, :n] == 1).all() and (a[:, n:] == -80).all()
        np.testing.assert_array_equal(b, a.T)
        assert (c[:n] == 1).all() and (c[n:] == -1).all()


def test_report_worst_errors():
    print("\nworst normwise errors against librosa / NumPy:")
    for name, err in sorted(WORST.items()):
        print(f"  {name:20s} {err:.2e}")
