#!/usr/bin/env python3
"""Writes a deterministic speech-like sample set: utterances made of the spoken words that Debian's
sound-theme-freedesktop package ships (/usr/share/sounds/freedesktop/stereo/audio-channel-*.oga:
"front left", "rear center", ...), with silences, background noise and the odd tone or chirp.

    .venv/bin/python scripts/make_speech_data.py OUT_DIR [--count 200] [--seconds 2 12] [--rate 16000]
        [--flac 0.3] [--seed 0]

OUT_DIR gets audio/<k>.wav (16-bit PCM) or .flac, `manifest.json` (NeMo's JSON lines:
audio_filepath relative to OUT_DIR, duration, text), `file_list.txt` ("audio/<k>.wav <label>",
readers.file's form; the label is the number of words) and `fingerprint.txt` (a hash of every file).
The same arguments give the same bytes. Needs soundfile (python3-soundfile) and soxr (with librosa,
scripts/python_env.sh) to bring the 48 kHz recordings to --rate.
"""
import argparse
import glob
import hashlib
import json
import os
import sys

import numpy as np

WORDS_GLOB = "/usr/share/sounds/freedesktop/stereo/audio-channel-*.oga"


def load_words(rate):
    import soundfile
    import soxr

    files = sorted(glob.glob(WORDS_GLOB))
    if not files:
        sys.exit(f"make_speech_data: no recordings at {WORDS_GLOB} (apt-get install sound-theme-freedesktop)")
    words = []
    for f in files:
        x, sr = soundfile.read(f, dtype="float32", always_2d=True)
        x = x.mean(axis=1)
        if sr != rate:
            x = soxr.resample(x, sr, rate, quality="HQ").astype(np.float32)
        name = os.path.basename(f)[len("audio-channel-"):-len(".oga")].replace("-", " ")
        words.append((name, x))
    return words


def utterance(rng, words, rate, seconds):
    """One utterance of about `seconds`: silence, words with gaps, sometimes a tone or a chirp."""
    total = int(rate * seconds)
    out = np.zeros(total, np.float32)
    pos = int(rate * rng.uniform(0.1, 0.6))  # leading silence
    said = []
    while True:
        if rng.random() < 0.15:  # a tone or a chirp instead of a word
            n = int(rate * rng.uniform(0.2, 0.6))
            t = np.arange(n) / rate
            f0, f1 = rng.uniform(150, 3000, 2)
            seg = (0.3 * np.sin(2 * np.pi * (f0 + (f1 - f0) * t / (2 * t[-1])) * t)).astype(np.float32)
            text = None
        else:
            text, seg = words[rng.integers(len(words))]
            seg = seg * np.float32(rng.uniform(0.3, 1.0))
        if pos + len(seg) > total - int(0.1 * rate):
            break
        out[pos:pos + len(seg)] += seg
        if text:
            said.append(text)
        pos += len(seg) + int(rate * rng.uniform(0.05, 0.4))
    out += (rng.standard_normal(total) * 10 ** (-55 / 20)).astype(np.float32)  # background at -55 dB
    return np.clip(out, -1.0, 1.0), " ".join(said)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seconds", type=float, nargs=2, default=(2.0, 12.0), metavar=("MIN", "MAX"))
    ap.add_argument("--rate", type=int, default=16000)
    ap.add_argument("--flac", type=float, default=0.3, help="fraction written as FLAC (the rest 16-bit WAV)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    import soundfile

    rng = np.random.default_rng(args.seed)
    words = load_words(args.rate)
    os.makedirs(os.path.join(args.out, "audio"), exist_ok=True)
    digest = hashlib.sha256()
    with open(os.path.join(args.out, "manifest.json"), "w") as manifest, \
            open(os.path.join(args.out, "file_list.txt"), "w") as file_list:
        for k in range(args.count):
            x, text = utterance(rng, words, args.rate, rng.uniform(*args.seconds))
            flac = rng.random() < args.flac
            rel = f"audio/{k:05d}.{'flac' if flac else 'wav'}"
            path = os.path.join(args.out, rel)
            soundfile.write(path, x, args.rate, subtype="PCM_16", format="FLAC" if flac else "WAV")
            with open(path, "rb") as f:
                digest.update(f.read())
            manifest.write(json.dumps({"audio_filepath": rel, "duration": len(x) / args.rate,
                                       "text": text}) + "\n")
            file_list.write(f"{rel} {len(text.split())}\n")
    with open(os.path.join(args.out, "fingerprint.txt"), "w") as f:
        f.write(digest.hexdigest() + "\n")
    print(f"make_speech_data: {args.count} utterances in {args.out} (fingerprint {digest.hexdigest()[:16]})")


if __name__ == "__main__":
    main()
