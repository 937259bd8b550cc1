#!/usr/bin/env python3
"""Writes the small audio files of the C++ tests (tests/data/audio/) and the decoder fuzzer's seed
corpus (fuzz/audio_seeds/), with Python's `wave` and python-soundfile (libsndfile).

Run with the project's venv: .venv/bin/python tests/data/audio/make_test_audio.py
Deterministic (no randomness; libvorbis and libFLAC encode the same input the same way), so
re-running it reproduces the committed files for the same library versions.
"""
import io
import os
import wave

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "..", "..", "fuzz", "audio_seeds")


def tone(frames, rate, freqs, amp=0.5):
    """One sine per channel (frames x channels), float64 in [-amp, amp]."""
    t = np.arange(frames) / rate
    return np.stack([amp * np.sin(2 * np.pi * f * t) for f in freqs], axis=1)


def wav_pcm16(path, x, rate):
    with wave.open(path, "wb") as w:
        w.setnchannels(x.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.rint(x * 32767).astype("<i2").tobytes())


def main():
    os.makedirs(SEEDS, exist_ok=True)
    # C++ test files: 0.1 s stereo tones (440 Hz left, 660 Hz right) at 16 kHz.
    # The same int16 samples in each (soundfile writes int16 data unscaled).
    x = tone(1600, 16000, [440, 660])
    wav_pcm16(os.path.join(HERE, "tone_s16_stereo.wav"), x, 16000)
    x16 = np.rint(x * 32767).astype(np.int16)
    sf.write(os.path.join(HERE, "tone_stereo.flac"), x16, 16000, format="FLAC", subtype="PCM_16")
    sf.write(os.path.join(HERE, "tone_stereo.ogg"), x16, 16000, format="OGG", subtype="VORBIS")
    # Two audio pages (6 s of an 8 kHz tone): the stream's length is told by its last page's granule
    # position, less the samples before the first audio page's.
    sf.write(os.path.join(HERE, "tone_two_pages.ogg"), np.rint(tone(48000, 8000, [440]) * 32767).astype(np.int16),
             8000, format="OGG", subtype="VORBIS")

    # Fuzz seeds: tiny files of every container and encoding the decoder reads.
    y = tone(64, 8000, [1000, 1500])
    wav_pcm16(os.path.join(SEEDS, "s16_stereo.wav"), y, 8000)
    for name, fmt, sub in [("u8.wav", "WAV", "PCM_U8"), ("s24.wav", "WAV", "PCM_24"), ("s32.wav", "WAV", "PCM_32"),
                           ("f32.wav", "WAV", "FLOAT"), ("f64.wav", "WAV", "DOUBLE"), ("ulaw.wav", "WAV", "ULAW"),
                           ("ima_adpcm.wav", "WAV", "IMA_ADPCM"), ("s16.aiff", "AIFF", "PCM_16"),
                           ("s16.au", "AU", "PCM_16"), ("s16.flac", "FLAC", "PCM_16"), ("s24.flac", "FLAC", "PCM_24")]:
        sf.write(os.path.join(SEEDS, name), y[:, :1] if sub == "IMA_ADPCM" else y, 8000, format=fmt, subtype=sub)
    sf.write(os.path.join(SEEDS, "vorbis.ogg"), tone(256, 8000, [1000]), 8000, format="OGG", subtype="VORBIS")
    if "MPEG_LAYER_III" in sf.available_subtypes("MP3"):
        try:
            b = io.BytesIO()
            sf.write(b, tone(1152, 8000, [1000]), 8000, format="MP3", subtype="MPEG_LAYER_III")
            open(os.path.join(SEEDS, "layer3.mp3"), "wb").write(b.getvalue())
        except sf.LibsndfileError:
            pass  # libsndfile reads MP3 but was built without an encoder


if __name__ == "__main__":
    main()
