"""The audio cases whose outputs real DALI 2.4 recorded (python/tests/dali_goldens/audio.npz, written by
scripts/record_dali_goldens.py) and test_dali_goldens_audio.py compares Sluice with. One definition
serves both sides: each case is a function of DALI's or Sluice's `fn` and `types` modules and the
input DataNode, returning the outputs to record. Inputs are fed by external_source: SIGNALS (float32
signals made here, deterministic) or the encoded files of fuzz/audio_seeds (bytes).
"""
import math

import numpy as np

RATE = 16000
BATCH = 4
ENCODED_FILES = ["s16.flac", "s16_stereo.wav", "s24.wav", "u8.wav", "f32.wav", "vorbis.ogg", "ulaw.wav", "s16.aiff"]


def signals():
    """Four float32 signals of 0.3-0.6 s: a chirp, two tones, noise, and a tone burst between silences."""
    rng = np.random.default_rng(2024)
    t = np.arange(int(0.5 * RATE)) / RATE
    chirp = 0.5 * np.sin(2 * np.pi * (100 + 5900 * t / 1.0) * t)
    t2 = np.arange(int(0.37 * RATE) + 3) / RATE
    tones = 0.3 * np.sin(2 * np.pi * 440 * t2) + 0.2 * np.sin(2 * np.pi * 3000 * t2 + 1)
    noise = 0.1 * rng.standard_normal(int(0.6 * RATE) - 7)
    burst = np.zeros(int(0.45 * RATE))
    burst[2000:4500] = 0.4 * np.sin(2 * np.pi * 700 * np.arange(2500) / RATE)
    burst += 1e-4 * rng.standard_normal(burst.size)
    # A noise floor under the chirp and the tones (as any recording has): without one, their spectra
    # have bins at the float32 transform's rounding noise (~-140 dB), where two correct FFTs disagree.
    chirp += 1e-3 * rng.standard_normal(chirp.size)
    tones += 1e-3 * rng.standard_normal(tones.size)
    return [x.astype(np.float32) for x in (chirp, tones, noise, burst)]


def arrays():
    """Inputs of the cases that take a spectrum-like array instead of a signal: positive powers spanning
    14 decades (to_decibels), decibels (mfcc), and a power spectrogram (mel_filter_bank), "ft" layout."""
    rng = np.random.default_rng(7)
    shapes = [(257, 31), (257, 7), (129, 50), (257, 1)]
    powers = [(10.0 ** rng.uniform(-12, 2, s)).astype(np.float32) for s in shapes]
    dbs = [rng.uniform(-90, 20, (40, 20 + 7 * i)).astype(np.float32) for i in range(4)]
    # Magnitudes from the smallest subnormal float to 100, and zeros (to_decibels with reference=1.0).
    tiny = [(10.0 ** np.linspace(-45.8, 2, 1500)).astype(np.float32), np.zeros(9, np.float32),
            (10.0 ** rng.uniform(-44, -30, 300)).astype(np.float32), np.float32([1.0, 1e-20, 1e-10, 2.0])]
    # Pure tones with no noise floor: their spectra reach the float32 transform's rounding (issue 40).
    t = np.arange(8000) / RATE
    tones = [(0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32),
             (0.3 * np.sin(2 * np.pi * 1000 * t) + 0.1 * np.sin(2 * np.pi * 3000 * t)).astype(np.float32)]
    return {"powers": powers, "dbs": dbs, "tiny": tiny, "tones": tones}


def _asr_chain(fn, types, x):
    begin, length = fn.nonsilent_region(x, cutoff_db=-60)
    x = fn.preemphasis_filter(fn.slice(x, begin, length, axes=[0]), preemph_coeff=0.97)
    spec = fn.spectrogram(x, nfft=512, window_length=320, window_step=160)
    mel = fn.mel_filter_bank(spec, sample_rate=RATE, nfilter=64, normalize=True)
    logm = fn.to_decibels(mel, multiplier=math.log(10), reference=1.0, cutoff_db=math.log(1e-20))
    feats = fn.pad(fn.normalize(logm, axes=[1]), axes=[1], fill_value=0, align=16, shape=(-1,))
    return [begin, length, feats]


# name -> (input kind, function(fn, types, x) -> list of outputs)
SIGNAL_CASES = {
    "spectrogram_defaults": lambda fn, types, x: [fn.spectrogram(x)],
    "spectrogram_asr_tf_magnitude": lambda fn, types, x: [
        fn.spectrogram(x, nfft=512, window_length=400, window_step=160, power=1, layout="tf")],
    "spectrogram_not_centered": lambda fn, types, x: [
        fn.spectrogram(x, nfft=256, window_length=256, window_step=100, center_windows=False)],
    "spectrogram_zero_padding_odd_nfft": lambda fn, types, x: [
        fn.spectrogram(x, nfft=301, window_length=250, window_step=128, reflect_padding=False)],
    "mel_slaney": lambda fn, types, x: [
        fn.mel_filter_bank(fn.spectrogram(x, nfft=512, window_length=400, window_step=160), sample_rate=RATE,
                           nfilter=80)],
    "mel_htk_band_unnormalized": lambda fn, types, x: [
        fn.mel_filter_bank(fn.spectrogram(x, nfft=400, window_length=400, window_step=160, layout="tf"),
                           sample_rate=RATE, nfilter=40, freq_low=20, freq_high=7600, mel_formula="htk",
                           normalize=False)],
    "to_decibels_default_reference_max": lambda fn, types, x: [
        fn.to_decibels(fn.spectrogram(x, nfft=256, window_length=256, window_step=128))],
    "to_decibels_power_ref1_cutoff": lambda fn, types, x: [
        fn.to_decibels(fn.spectrogram(x, nfft=256, window_length=256, window_step=128), multiplier=10.0,
                       reference=1.0, cutoff_db=-80.0)],
    "mfcc_defaults": lambda fn, types, x: [
        fn.mfcc(fn.to_decibels(fn.mel_filter_bank(fn.spectrogram(x, nfft=512, window_length=400, window_step=160),
                                                  sample_rate=RATE, nfilter=40)))],
    "mfcc_dct_types_lifter": lambda fn, types, x: [
        fn.mfcc(m, n_mfcc=13, dct_type=t, normalize=t != 1, lifter=22.0) for t in (1, 2, 3, 4)
        for m in [fn.to_decibels(fn.mel_filter_bank(fn.spectrogram(x, nfft=512, window_length=400, window_step=160),
                                                     sample_rate=RATE, nfilter=40))]],
    "nonsilent_region_variants": lambda fn, types, x: [
        *fn.nonsilent_region(x), *fn.nonsilent_region(x, cutoff_db=-40, window_length=512),
        *fn.nonsilent_region(x, cutoff_db=-30, reference_power=0.01, window_length=256, reset_interval=1024)],
    "preemphasis_borders": lambda fn, types, x: [
        fn.preemphasis_filter(x, border=b, preemph_coeff=0.9) for b in ("clamp", "zero", "reflect")],
    "power_spectrum_whole_signal": lambda fn, types, x: [fn.power_spectrum(fn.slice(x, 0, 1000, axes=[0]))],
    "power_spectrum_nfft_power1": lambda fn, types, x: [
        fn.power_spectrum(fn.slice(x, 0, 700, axes=[0]), nfft=1024, power=1)],
    "audio_resample_up": lambda fn, types, x: [fn.audio_resample(x, in_rate=RATE, out_rate=22050)],
    "audio_resample_scale_quality": lambda fn, types, x: [fn.audio_resample(x, scale=1.5, quality=80)],
    "asr_chain": _asr_chain,
}

# name -> (input name in arrays(), layout, function(fn, types, x) -> list of outputs)
ARRAY_CASES = {
    "to_decibels_of_powers": ("powers", "ft", lambda fn, types, x: [
        fn.to_decibels(x), fn.to_decibels(x, multiplier=10.0, reference=1.0, cutoff_db=-80.0),
        fn.to_decibels(x, multiplier=20.0, reference=3.0, cutoff_db=-100.0)]),
    "mel_of_powers_257": ("powers", "ft", lambda fn, types, x: [
        fn.mel_filter_bank(fn.slice(x, 0, 257, axes=[0], out_of_bounds_policy="pad"), sample_rate=RATE, nfilter=64),
        fn.mel_filter_bank(fn.slice(x, 0, 257, axes=[0], out_of_bounds_policy="pad"), sample_rate=22050, nfilter=40,
                           mel_formula="htk", normalize=False, freq_low=50, freq_high=8000)]),
    "to_decibels_reference_1_tiny": ("tiny", None, lambda fn, types, x: [
        fn.to_decibels(x, reference=1.0), fn.to_decibels(x, reference=1.0, multiplier=20.0),
        fn.to_decibels(x, reference=1.0, cutoff_db=-400.0), fn.to_decibels(x, reference=1.0, cutoff_db=-80.0),
        fn.to_decibels(x, reference=1.0, multiplier=math.log(10), cutoff_db=math.log(1e-20)), fn.to_decibels(x)]),
    "to_decibels_reference_1_of_pure_tones": ("tones", None, lambda fn, types, x: [
        fn.to_decibels(fn.mel_filter_bank(fn.spectrogram(x, nfft=512, window_length=400, window_step=160),
                                          sample_rate=RATE), reference=1.0),
        fn.mel_filter_bank(fn.spectrogram(x, nfft=512, window_length=400, window_step=160), sample_rate=RATE)]),
    "mfcc_of_dbs": ("dbs", "ft", lambda fn, types, x: [
        fn.mfcc(x), fn.mfcc(x, n_mfcc=13, dct_type=2, normalize=True, lifter=22.0),
        fn.mfcc(x, n_mfcc=13, dct_type=1), fn.mfcc(x, n_mfcc=10, dct_type=3, normalize=True),
        fn.mfcc(x, n_mfcc=12, dct_type=4, lifter=5.0)]),
}

ENCODED_CASES = {
    "decode_int16": lambda fn, types, x: list(fn.decoders.audio(x, dtype=types.INT16)),
    "decode_float": lambda fn, types, x: list(fn.decoders.audio(x, dtype=types.FLOAT)),
    "decode_int16_downmix": lambda fn, types, x: list(fn.decoders.audio(x, dtype=types.INT16, downmix=True)),
    "decode_resampled_22050": lambda fn, types, x: list(fn.decoders.audio(x, dtype=types.FLOAT, downmix=True,
                                                                          sample_rate=22050)),
}
