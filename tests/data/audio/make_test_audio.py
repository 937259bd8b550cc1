#!/usr/bin/env python3
"""Writes the small audio files of the C++ tests (tests/data/audio/), the audio decoder fuzzer's seed
corpus (fuzz/audio_seeds/), with Python's `wave` and python-soundfile (libsndfile), and the NeMo
manifest fuzzer's (fuzz/nemo_seeds/), with Python's `json`.

Run with the project's venv: .venv/bin/python tests/data/audio/make_test_audio.py
The content is deterministic (no random samples; the encoders are), the bytes not quite: libsndfile
stamps float WAVs' PEAK chunk with the time and gives Ogg streams random serial numbers.
"""
import io
import json
import os
import wave

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "..", "..", "fuzz", "audio_seeds")
NEMO_SEEDS = os.path.join(HERE, "..", "..", "..", "fuzz", "nemo_seeds")


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


def nemo_seed(name, rows, flags=1, sep="\n", extra=""):
    """A manifest for fuzz_nemo_manifest: its first byte picks the filter and read_text."""
    body = sep.join(json.dumps(r, ensure_ascii=False) for r in rows) + sep + extra
    with open(os.path.join(NEMO_SEEDS, name), "wb") as f:
        f.write(bytes([flags]) + body.encode("utf-8"))


def nemo_seeds():
    os.makedirs(NEMO_SEEDS, exist_ok=True)
    nemo_seed("plain.json", [{"audio_filepath": "a.wav", "duration": 3.45, "text": "this is a nemo tutorial"},
                             {"audio_filepath": "a.wav", "offset": 3.45, "duration": 1.45,
                              "text": "same audio file but using offset"},
                             {"audio_filepath": "/abs/b.flac", "duration": 2, "text": ""}])
    nemo_seed("utf8.json", [{"audio_filepath": "c.ogg", "text": "dzie\u0144 dobry"},
                            {"audio_filepath": "d.ogg", "text": "\u0434\u043e\u0431\u0440\u043e\u0435 \u0443\u0442\u0440\u043e"},
                            {"audio_filepath": "e.ogg", "text": "\u8fd9\u662f\u4e00\u4e2a\u6d4b\u8bd5"}], flags=7)
    nemo_seed("crlf_blank.json", [{"audio_filepath": "a.wav"}, {"audio_filepath": "b.wav", "duration": 0.25}],
              flags=3, sep="\r\n", extra="\r\n  \n")
    nemo_seed("extra_keys.json", [{"audio_filepath": "x.wav", "duration": 12.5, "lang": "en", "speaker": 7,
                                   "tags": [1, {"k": None}]}, {"text": "no path", "duration": 1.0}], flags=5)


if __name__ == "__main__":
    main()
    nemo_seeds()
