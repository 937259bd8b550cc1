#!/usr/bin/env python3
"""Trains a tiny speech model for a few steps on log-mel features from a Sluice pipeline in the shape
of DALI's speech-recognition (Jasper/RNN-T) input pipeline, with only the imports changed:

    nemo_asr reader -> decoders.audio -> nonsilent_region -> slice -> preemphasis_filter ->
    spectrogram -> mel_filter_bank -> to_decibels -> normalize over time -> pad

    PYTHONPATH=python .venv/bin/python examples/speech_features.py [DATA_DIR] --steps 5

DATA_DIR holds a NeMo manifest (manifest.json: audio_filepath, duration, text per line), as
scripts/make_speech_data.py writes (default: build/speech_data, made if missing). The model predicts
the number of words of each utterance from its features (a stand-in for a real acoustic model: it
only shows the batches reaching torch through the PyTorch iterator, with their lengths).
"""
import argparse
import math
import os
import subprocess
import sys

import numpy as np
import torch

from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_RATE = 16000


@pipeline_def
def speech_pipeline(manifest, nfeatures=64, nfft=512, window_size=0.02, window_stride=0.01, preemph_coeff=0.97,
                    silence_threshold=-60, pad_align=16):
    audio, text = fn.readers.nemo_asr(manifest_filepaths=[manifest], sample_rate=SAMPLE_RATE, dtype=types.FLOAT,
                                      downmix=True, read_sample_rate=False, read_text=True, random_shuffle=True,
                                      pad_last_batch=True, name="Reader")
    begin, length = fn.nonsilent_region(audio, cutoff_db=silence_threshold)
    audio = fn.slice(audio, begin, length, axes=[0])
    audio = fn.preemphasis_filter(audio, preemph_coeff=preemph_coeff)
    spec = fn.spectrogram(audio, nfft=nfft, window_length=window_size * SAMPLE_RATE,
                          window_step=window_stride * SAMPLE_RATE)
    mel = fn.mel_filter_bank(spec, sample_rate=SAMPLE_RATE, nfilter=nfeatures, normalize=True)
    log_features = fn.to_decibels(mel, multiplier=np.log(10), reference=1.0, cutoff_db=math.log(1e-20))
    log_features_len = fn.shapes(log_features)
    log_features = fn.normalize(log_features, axes=[1])
    log_features = fn.pad(log_features, axes=[1], fill_value=0, align=pad_align, shape=(-1,))
    return log_features, log_features_len, fn.pad(text)  # UTF-8 bytes, zero-padded to a dense batch


class TinySpeechModel(torch.nn.Module):
    """Conv over time, masked mean over the valid frames, one output: the number of words."""

    def __init__(self, nfeatures):
        super().__init__()
        self.conv = torch.nn.Conv1d(nfeatures, 32, kernel_size=5, padding=2)
        self.head = torch.nn.Linear(32, 1)

    def forward(self, features, lengths):
        h = torch.relu(self.conv(features))                      # (N, 32, T)
        valid = (torch.arange(h.shape[-1])[None, :] < lengths[:, None]).to(h.dtype)
        pooled = (h * valid[:, None, :]).sum(-1) / lengths[:, None].clamp(min=1)
        return self.head(pooled).squeeze(-1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", default=os.path.join(ROOT, "build", "speech_data"))
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    manifest = os.path.join(args.data_dir, "manifest.json")
    if not os.path.exists(manifest):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_speech_data.py"), args.data_dir,
                        "--count", "64"], check=True)
    pipe = speech_pipeline(manifest, batch_size=args.batch_size, num_threads=args.threads, device_id=None, seed=1)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["features", "lengths", "text"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.DROP)
    model = TinySpeechModel(64)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step = 0
    while step < args.steps:
        for batch in loader:
            b = batch[0]
            features, lengths = b["features"], b["lengths"][:, 1].long()  # shapes: (nfeatures, frames)
            words = torch.tensor([len(bytes(t.numpy().astype(np.uint8)).rstrip(b"\0").split()) for t in b["text"]],
                                 dtype=torch.float32)
            loss = torch.nn.functional.mse_loss(model(features, lengths), words)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"step {step}: features {tuple(features.shape)}, loss {loss.item():.3f}")
            step += 1
            if step >= args.steps:
                break
        else:  # the epoch ran out before the steps did
            loader.reset()
    print("speech_features: OK")


if __name__ == "__main__":
    main()
