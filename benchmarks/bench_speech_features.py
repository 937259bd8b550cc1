"""Log-mel features from audio files, side by side in one run: Sluice against what a speech user would
pick instead, torchaudio and librosa inside a PyTorch DataLoader.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_speech_features.py [--data DIR] [--threads 2]
        [--batch 32] [--repeat 3] [--count 200]

The data set is scripts/make_speech_data.py's (made in --data if missing: 16 kHz mono utterances of
2-12 s, 70% 16-bit WAV, 30% FLAC). Every contender does the same work per file: read and decode the
file, a 512-point STFT of 25 ms Hann windows every 10 ms (centred, reflect padding), power, an
80-filter mel bank (Slaney), decibels, then batches padded to the longest utterance:

- sluice:     readers.file -> decoders.audio -> spectrogram -> mel_filter_bank -> to_decibels -> pad,
              num_threads = --threads;
- torchaudio: soundfile decode + torchaudio.transforms.MelSpectrogram + AmplitudeToDB per item, in a
              DataLoader with --threads workers (torch's own threads: 1 per worker, its default);
- librosa:    soundfile decode + librosa.feature.melspectrogram + power_to_db, the same DataLoader;
- dali:       (with --dali-python) the same pipeline as Sluice's in DALI, CPU only (device_id=None).

Each repeat starts each contender in a fresh process, the contenders alternating: it builds the
pipeline or the DataLoader (persistent workers), runs one warm-up epoch (worker start-up, imports,
librosa's JIT compilation) and times the next. Reported per contender: the median over repeats of
seconds of audio turned into features per wall second, the process tree's CPU milliseconds per
second of audio (robust to other load on a shared machine), and ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE, NFFT, WIN, HOP, NMELS = 16000, 512, 400, 160, 80


def ensure_data(path, count):
    if not os.path.exists(os.path.join(path, "manifest.json")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_speech_data.py"), path,
                        "--count", str(count)], check=True)
    entries = [json.loads(line) for line in open(os.path.join(path, "manifest.json"))]
    return [os.path.join(path, e["audio_filepath"]) for e in entries], sum(e["duration"] for e in entries)


def sluice_epochs(files, batch, threads, dali=False):
    """Builds the pipeline (Sluice's, or the same one in DALI when `dali`); returns a function that runs
    one epoch and returns the frames made."""
    if dali:
        from nvidia.dali import Pipeline, fn, types
    else:
        from sluice import Pipeline, fn, types

    pipe = Pipeline(batch_size=batch, num_threads=threads, seed=0, device_id=None)
    with pipe:
        encoded, _ = fn.readers.file(files=files, name="Reader", pad_last_batch=True)
        audio, _ = fn.decoders.audio(encoded, sample_rate=RATE, downmix=True, dtype=types.FLOAT)
        spec = fn.spectrogram(audio, nfft=NFFT, window_length=WIN, window_step=HOP)
        mel = fn.mel_filter_bank(spec, sample_rate=RATE, nfilter=NMELS)
        db = fn.to_decibels(mel, multiplier=10.0, cutoff_db=-80.0)
        pipe.set_outputs(fn.pad(db, axes=[1]))
    pipe.build()
    n_batches = (len(files) + batch - 1) // batch

    def epoch():
        frames = 0
        for _ in range(n_batches):
            (out,) = pipe.run()
            frames += (np.asarray(out.as_tensor()) if dali else np.asarray(out.as_array())).shape[-1]
        pipe.reset()
        return frames

    return epoch


class _Decoded:
    """A map-style dataset: file -> log-mel features (in a DataLoader worker)."""

    def __init__(self, files, which):
        self.files, self.which, self.transform = files, which, None

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        import soundfile
        import torch

        x, sr = soundfile.read(self.files[i], dtype="float32", always_2d=True)
        x = x.mean(axis=1)
        assert sr == RATE
        if self.which == "librosa":
            import librosa

            mel = librosa.feature.melspectrogram(y=x, sr=RATE, n_fft=NFFT, win_length=WIN, hop_length=HOP,
                                                 n_mels=NMELS, power=2.0, center=True, pad_mode="reflect")
            return torch.from_numpy(librosa.power_to_db(mel, ref=1.0, top_db=None).astype(np.float32))
        if self.transform is None:  # built in the worker
            import torchaudio

            self.transform = torch.nn.Sequential(
                torchaudio.transforms.MelSpectrogram(sample_rate=RATE, n_fft=NFFT, win_length=WIN, hop_length=HOP,
                                                     n_mels=NMELS, power=2.0, center=True, pad_mode="reflect",
                                                     norm="slaney", mel_scale="slaney"),
                torchaudio.transforms.AmplitudeToDB(stype="power"))
        with torch.no_grad():
            return self.transform(torch.from_numpy(x))


def _pad_collate(items):
    import torch

    longest = max(t.shape[-1] for t in items)
    return torch.stack([torch.nn.functional.pad(t, (0, longest - t.shape[-1])) for t in items])


def loader_epochs(files, batch, threads, which):
    """A DataLoader with persistent workers (started by the warm-up epoch, as in training)."""
    import torch

    loader = torch.utils.data.DataLoader(_Decoded(files, which), batch_size=batch, num_workers=threads,
                                         collate_fn=_pad_collate, persistent_workers=True)

    def epoch():
        frames = 0
        for b in loader:
            frames += b.shape[-1]
        return frames

    return epoch


def tree_cpu_seconds(pid=None):
    """User + system CPU seconds of this process and its live descendants (DataLoader workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0, [pid or os.getpid()]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def timed_epoch(which, files, batch, threads):
    """In a fresh process: build, one warm-up epoch (worker start, imports, librosa's JIT), then one
    timed epoch; returns (wall s, CPU s of the process tree) of the timed one."""
    if which in ("sluice", "dali"):
        epoch = sluice_epochs(files, batch, threads, dali=which == "dali")
    else:
        epoch = loader_epochs(files, batch, threads, which)
    epoch()
    t0, c0 = time.perf_counter(), tree_cpu_seconds()
    epoch()
    return time.perf_counter() - t0, tree_cpu_seconds() - c0


def run_one(which, files, batch, threads, dali_python=None):
    code = ("import json, sys; sys.path.insert(0, %r); import bench_speech_features as b; "
            "print(json.dumps(b.timed_epoch(%r, json.loads(sys.argv[1]), %d, %d)))") % (
        os.path.dirname(os.path.abspath(__file__)), which, batch, threads)
    python = dali_python if which == "dali" else sys.executable
    out = subprocess.run([python, "-c", code, json.dumps(files)], check=True, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"),
                                                                          os.environ.get("PYTHONPATH", "")])))
    wall, cpu = json.loads(out.stdout.strip().splitlines()[-1])
    return wall, cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "speech_data"))
    ap.add_argument("--count", type=int, default=200, help="utterances to make when --data has none")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--contenders", default="sluice,torchaudio,librosa")
    ap.add_argument("--dali-python", help="a Python with DALI (nvidia.dali) installed: adds DALI's CPU pipeline, "
                    "the same operators as Sluice's (see scripts/record_dali_goldens.py for the install)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    files, seconds = ensure_data(args.data, args.count)
    contenders = args.contenders.split(",")
    if args.dali_python:
        contenders.append("dali")
    runs = {c: [] for c in contenders}
    for _ in range(args.repeat):
        for which in contenders:
            runs[which].append(run_one(which, files, args.batch, args.threads, args.dali_python))
    print(f"speech features: {len(files)} files, {seconds:.0f} s of audio, {args.threads} threads, "
          f"batch {args.batch}, median of {args.repeat}")
    print(f"{'contender':<11} {'audio s/s':>10} {'CPU ms/audio s':>15}  vs")
    result = {}
    for which in contenders:
        wall = statistics.median(w for w, _ in runs[which])
        cpu = statistics.median(c for _, c in runs[which])
        result[which] = {"audio_seconds_per_second": seconds / wall, "cpu_ms_per_audio_second": 1000 * cpu / seconds}
    base = result[contenders[0]]["audio_seconds_per_second"]
    for which in contenders:
        r = result[which]
        vs = "" if which == contenders[0] else f"{contenders[0]} {base / r['audio_seconds_per_second']:.2f}x faster"
        print(f"{which:<11} {r['audio_seconds_per_second']:>10.0f} {r['cpu_ms_per_audio_second']:>15.2f}  {vs}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"files": len(files), "audio_seconds": seconds, "threads": args.threads, "batch": args.batch,
                       "results": result}, f, indent=2)


if __name__ == "__main__":
    main()
