"""DALI's speech-recognition input pipeline (the RNN-T / Jasper chain of DALI's ASR examples), ported
by changing the import, end to end on scripts/make_speech_data.py's utterances (16-bit WAV and FLAC
written by python-soundfile from freedesktop's spoken words, noise and tones):

    readers.nemo_asr -> nonsilent_region -> slice -> preemphasis_filter -> spectrogram ->
    mel_filter_bank -> to_decibels -> normalize over time -> pad (align 16)

- every sample equals the same chain computed in float64 from python-soundfile's decode with
  librosa (STFT, the Slaney mel matrix) and NumPy (the silence rule, pre-emphasis, logarithm,
  normalisation, padding);
- the batches are the same whatever num_threads is, shuffled, over two epochs;
- the process's memory is flat over 20 epochs.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sluice
from sluice import fn, types

librosa = pytest.importorskip("librosa")
sf = pytest.importorskip("soundfile")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RATE, NFFT, NFILTER, WINDOW, STEP, PREEMPH, CUTOFF_DB, ALIGN = 16000, 512, 64, 320, 160, 0.97, -60.0, 16


@pytest.fixture(scope="module")
def speech_data(tmp_path_factory):
    out = tmp_path_factory.mktemp("speech")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_speech_data.py"), str(out), "--count", "12",
                    "--seconds", "1.5", "4"], check=True, capture_output=True)
    rows = [json.loads(line) for line in open(out / "manifest.json")]
    return str(out / "manifest.json"), rows


def asr_pipeline(manifest, batch, threads, shuffle=False, seed=3):
    """DALI's ASR pipeline body, argument for argument (dali/examples: the RNN-T data pipeline)."""
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=seed, device_id=None)
    with pipe:
        audio, text = fn.readers.nemo_asr(manifest_filepaths=[manifest], sample_rate=RATE, dtype=types.FLOAT,
                                          downmix=True, read_sample_rate=False, read_text=True,
                                          random_shuffle=shuffle, name="Reader")
        begin, length = fn.nonsilent_region(audio, cutoff_db=CUTOFF_DB)
        trimmed = fn.slice(audio, begin, length, axes=[0])
        emphasized = fn.preemphasis_filter(trimmed, preemph_coeff=PREEMPH)
        spec = fn.spectrogram(emphasized, nfft=NFFT, window_length=WINDOW, window_step=STEP)
        mel = fn.mel_filter_bank(spec, sample_rate=RATE, nfilter=NFILTER, normalize=True)
        log_mel = fn.to_decibels(mel, multiplier=np.log(10), reference=1.0, cutoff_db=math.log(1e-20))
        length_frames = fn.shapes(log_mel)
        features = fn.normalize(log_mel, axes=[1])
        features = fn.pad(features, axes=[1], fill_value=0, align=ALIGN, shape=(-1,))
        pipe.set_outputs(features, length_frames, text, begin, length)
    pipe.build()
    return pipe


def nonsilent_numpy(x, cutoff_db, window_length=2048):
    """DALI's rule: mean square over a window; loud where 10 log10(power / max power) >= cutoff_db."""
    w = min(window_length, len(x))
    c = np.concatenate([[0.0], np.cumsum(x.astype(np.float64) ** 2)])
    power = (c[w:] - c[:-w]) / w
    with np.errstate(divide="ignore"):
        loud = np.flatnonzero(10 * np.log10(power / power.max()) >= cutoff_db)
    return (0, 0) if loud.size == 0 else (int(loud[0]), int(loud[-1] - loud[0] + w))


def reference_features(x):
    """The chain after the trim, in float64: pre-emphasis (border 'clamp': x[-1] = x[0]), librosa's
    centred STFT with DALI's Hann window (sampled at t + 0.5) zero-padded to nfft, |.|^2, the Slaney
    mel matrix with area normalisation, ln(max(x, 1e-20)), mean 0 and deviation 1 per mel band."""
    x = x.astype(np.float64)
    y = x - PREEMPH * np.concatenate([[x[0]], x[:-1]])
    hann = 0.5 * (1 - np.cos(2 * np.pi * (np.arange(WINDOW) + 0.5) / WINDOW))
    power = np.abs(librosa.stft(y, n_fft=NFFT, hop_length=STEP, win_length=WINDOW, window=hann, center=True,
                                pad_mode="reflect")) ** 2
    mel = librosa.filters.mel(sr=RATE, n_fft=NFFT, n_mels=NFILTER, norm="slaney", htk=False, dtype=np.float64) @ power
    log_mel = np.log(np.maximum(mel, 1e-20))
    mean = log_mel.mean(axis=1, keepdims=True)
    return (log_mel - mean) / np.sqrt(((log_mel - mean) ** 2).mean(axis=1, keepdims=True))


def test_asr_chain_matches_librosa_and_numpy(speech_data):
    manifest, rows = speech_data
    batch = 4
    pipe = asr_pipeline(manifest, batch, threads=2)
    worst = 0.0
    for first in range(0, len(rows), batch):
        features, lengths, texts, begins, sizes = pipe.run()
        dense = np.asarray(features.as_array())
        assert dense.shape[2] % ALIGN == 0 and dense.shape[1] == NFILTER
        for i in range(batch):
            row = rows[first + i]
            assert bytes(np.asarray(texts.at(i))).decode("utf-8") == row["text"]
            x, rate = sf.read(os.path.join(os.path.dirname(manifest), row["audio_filepath"]), dtype="float32")
            assert rate == RATE
            begin, size = int(np.asarray(begins.at(i))), int(np.asarray(sizes.at(i)))
            assert (begin, size) == nonsilent_numpy(x, CUTOFF_DB), row["audio_filepath"]
            ref = reference_features(x[begin:begin + size])
            frames = int(np.asarray(lengths.at(i))[1])
            assert frames == ref.shape[1] == 1 + size // STEP
            ours = dense[i]
            assert not ours[:, frames:].any(), "the padding is not zero"
            # Unit variance per band: absolute is relative. The float32 transform's rounding (~1e-7 of
            # a frame's peak) is ~1e-3 of the quietest mel bands in the trimmed -55 dB background, and
            # a logarithm turns relative error into absolute: 1.3e-3 measured, 4e-3 allowed.
            err = np.max(np.abs(ours[:, :frames] - ref))
            worst = max(worst, err)
            assert err < 4e-3, (row["audio_filepath"], err)
    print(f"worst absolute error of the normalised log-mel features: {worst:.2e}")


def _epochs(manifest, threads, epochs, batch=5):
    pipe = asr_pipeline(manifest, batch, threads, shuffle=True, seed=11)
    steps = math.ceil(pipe.epoch_size("Reader") / batch)
    out = []
    for _ in range(epochs):
        for _ in range(steps):
            features, lengths, texts, _, _ = pipe.run()
            out.append((np.asarray(features.as_array()).copy(), np.asarray(lengths.as_array()).copy(),
                        [bytes(np.asarray(texts.at(i))) for i in range(batch)]))
        pipe.reset()
    return out


def test_same_batches_for_any_thread_count(speech_data):
    manifest, _ = speech_data
    one, three = _epochs(manifest, 1, 2), _epochs(manifest, 3, 2)
    assert len(one) == len(three)
    for (fa, la, ta), (fb, lb, tb) in zip(one, three):
        np.testing.assert_array_equal(fa, fb)
        np.testing.assert_array_equal(la, lb)
        assert ta == tb
    # Shuffled: the two epochs differ in order.
    half = len(one) // 2
    assert [t for _, _, t in one[:half]] != [t for _, _, t in one[half:]]


def test_memory_is_flat_over_epochs(speech_data):
    from sluice.tools.bench_measure import rss_bytes

    manifest, _ = speech_data
    batch = 4
    pipe = asr_pipeline(manifest, batch, threads=2, shuffle=True)
    steps = math.ceil(pipe.epoch_size("Reader") / batch)
    rss = []
    for _ in range(20):
        for _ in range(steps):
            pipe.run()
        pipe.reset()
        rss.append(rss_bytes())
    growth = rss[-1] - rss[3]
    assert growth < 4 * 2**20, f"RSS grew {growth / 2**20:.1f} MiB from epoch 4 to 20: {[r >> 20 for r in rss]}"
