"""fn.readers.nemo_asr end to end, on manifests written by Python's `json` and audio written by `wave`
and python-soundfile (or freedesktop's recordings): the audio equals python-soundfile's decode
(downmixed: the mean of the channels), transcripts come out as their UTF-8 bytes, the index is the
entry's, offset/duration cut as NeMo's fields say, min/max_duration filter, shards split the data,
shuffling is deterministic, checkpoints resume, and bad manifests name the line.
"""
import json
import os
import wave

import numpy as np
import pytest

import sluice
from sluice import fn, types

sf = pytest.importorskip("soundfile")

SOUNDS = "/usr/share/sounds/freedesktop/stereo"
TEXTS = ["hello world", "dzień dobry", "доброе утро", "这是一个测试", "", "the quick brown fox"]


def write_wav(path, frames, channels, rate, seed):
    rng = np.random.default_rng(seed)
    pcm = np.round(rng.uniform(-0.5, 0.5, (frames, channels)) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def write_manifest(path, rows, ensure_ascii=False):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=ensure_ascii) + "\n")


@pytest.fixture()
def dataset(tmp_path):
    """Six utterances in tmp_path/audio (WAV and FLAC, mono and stereo), the manifest in tmp_path with
    paths relative to it; returns (manifest path, the rows written)."""
    (tmp_path / "audio").mkdir()
    rows = []
    for k, text in enumerate(TEXTS):
        frames, channels = 1600 + 400 * k, 1 + k % 2
        name = f"audio/u{k}.wav"
        write_wav(tmp_path / name, frames, channels, 16000, seed=k)
        if k % 3 == 2:  # some as FLAC
            data, rate = sf.read(str(tmp_path / name), dtype="int16")
            os.remove(tmp_path / name)
            name = f"audio/u{k}.flac"
            sf.write(str(tmp_path / name), data, rate, format="FLAC")
        rows.append({"audio_filepath": name, "duration": frames / 16000, "text": text})
    manifest = tmp_path / "manifest.json"
    write_manifest(manifest, rows)
    return str(manifest), rows


def reader_pipe(manifests, batch, threads=2, seed=5, **kwargs):
    @sluice.pipeline_def(batch_size=batch, num_threads=threads, seed=seed, enable_checkpointing=True)
    def pipe():
        return fn.readers.nemo_asr(manifest_filepaths=manifests, name="Reader", **kwargs)
    p = pipe()
    p.build()
    return p


def samples(batch):
    return [np.array(batch.at(i)) for i in range(len(batch))]


def test_audio_text_rate_and_index_match_soundfile(dataset):
    manifest, rows = dataset
    audio, rate, text, idx = reader_pipe([manifest], 6, read_idxs=True).run()
    base = os.path.dirname(manifest)
    for i, row in enumerate(rows):
        ref, ref_rate = sf.read(os.path.join(base, row["audio_filepath"]), dtype="float32")
        if ref.ndim == 2:
            ref = ref.astype(np.float64).mean(axis=1).astype(np.float32)  # downmix=True by default
        np.testing.assert_array_equal(np.array(audio.at(i)), ref)
        assert float(np.array(rate.at(i))) == ref_rate
        assert bytes(np.array(text.at(i))) == row["text"].encode("utf-8")  # no terminating zero
        assert np.array(idx.at(i)).tolist() == [i]
        assert np.array(idx.at(i)).dtype == np.int64


def test_outputs_follow_the_flags_and_types(dataset):
    manifest, rows = dataset
    out = reader_pipe([manifest], 2, read_sample_rate=False, read_text=False).run()
    assert len(out) == 1
    audio, text = reader_pipe([manifest], 2, read_sample_rate=False, downmix=False, dtype=types.INT16).run()
    a = np.array(audio.at(1))
    assert a.dtype == np.int16 and a.shape == (2000, 2)
    ref = sf.read(os.path.join(os.path.dirname(manifest), rows[1]["audio_filepath"]), dtype="int16")[0]
    np.testing.assert_array_equal(a, ref)
    assert bytes(np.array(text.at(1))).decode("utf-8") == "dzień dobry"


def test_ascii_escaped_manifest_gives_the_same_text(dataset, tmp_path):
    manifest, rows = dataset
    escaped = tmp_path / "escaped.json"
    write_manifest(escaped, rows, ensure_ascii=True)  # "\\u0144" instead of the UTF-8 bytes
    _, _, text = reader_pipe([str(escaped)], 6).run()
    assert [bytes(t).decode("utf-8") for t in samples(text)] == TEXTS


def test_duration_filters_and_offsets(dataset, tmp_path):
    manifest, rows = dataset
    durations = [r["duration"] for r in rows]  # 0.1, 0.125, ... 0.225 s
    audio, _, idx = reader_pipe([manifest], 4, min_duration=0.12, max_duration=0.2, read_text=False,
                                read_idxs=True).run()
    kept = [k for k, d in enumerate(durations) if 0.12 <= d <= 0.2]
    assert kept == [1, 2, 3, 4]
    assert [len(a) for a in samples(audio)] == [1600 + 400 * k for k in kept]
    # The index is the position among the kept entries.
    assert [int(v[0]) for v in samples(idx)] == [0, 1, 2, 3]
    # offset / duration: DALI's frames floor(offset * rate) .. + floor(duration * rate), cut at the end.
    clip = tmp_path / "clip.json"
    src = os.path.join(os.path.dirname(manifest), rows[0]["audio_filepath"])
    write_manifest(clip, [{"audio_filepath": src, "offset": 0.01, "duration": 0.05},
                          {"audio_filepath": src, "offset": 0.05}])
    audio, _, _ = reader_pipe([str(clip)], 2).run()
    ref = sf.read(src, dtype="float32")[0]
    np.testing.assert_array_equal(np.array(audio.at(0)), ref[160:160 + 800])
    np.testing.assert_array_equal(np.array(audio.at(1)), ref[800:])


def test_duration_is_floored_as_dali_does(tmp_path):
    # floor(duration * rate) frames, a bare floor as DALI 2.4's reader (checked against it): a duration
    # written as frames / rate whose product with the rate lands just below the integer (float
    # rounding, about 1% of them) gives one frame less; the others give exactly their frames.
    below = [n for n in range(1000, 60000) if int(n / 16000 * 16000) != n][:2]
    exact = [n for n in range(1000, 60000) if int(n / 16000 * 16000) == n][:2]
    rows = []
    for k, n in enumerate(below + exact):
        write_wav(tmp_path / f"u{k}.wav", n + 50, 1, 16000, seed=k)
        rows.append({"audio_filepath": f"u{k}.wav", "duration": n / 16000})
    write_manifest(tmp_path / "m.json", rows)
    audio, _ = reader_pipe([str(tmp_path / "m.json")], len(rows), read_text=False).run()
    assert [len(a) for a in samples(audio)] == [n - 1 for n in below] + exact


def indices(pipe, batches):
    out = []
    for _ in range(batches):
        *_, idx = pipe.run()
        out += [int(v[0]) for v in samples(idx)]
    return out


def test_shards_split_the_data(dataset):
    manifest, _ = dataset
    shards = [indices(reader_pipe([manifest], 3, read_idxs=True, num_shards=2, shard_id=s, read_text=False), 1)
              for s in (0, 1)]
    assert sorted(shards[0] + shards[1]) == list(range(6))
    assert not set(shards[0]) & set(shards[1])
    # pad_last_batch: a shard of 3 in batches of 2 repeats its last sample.
    padded = indices(reader_pipe([manifest], 2, read_idxs=True, num_shards=2, shard_id=1, pad_last_batch=True,
                                 read_text=False), 2)
    assert padded == [3, 4, 5, 5]


def test_shuffling_is_deterministic(dataset):
    manifest, _ = dataset
    kw = dict(read_idxs=True, random_shuffle=True, initial_fill=3, read_text=False)
    a = indices(reader_pipe([manifest], 3, seed=7, **kw), 4)
    b = indices(reader_pipe([manifest], 3, seed=7, threads=4, **kw), 4)
    assert a == b
    assert sorted(a[:6]) == sorted(a[6:]) == list(range(6))  # each utterance once per epoch
    assert a != indices(reader_pipe([manifest], 3, seed=8, **kw), 4) or a[:6] != list(range(6))
    # shuffle_after_epoch: the same on every shard (a fixed permutation per epoch).
    s = indices(reader_pipe([manifest], 6, read_idxs=True, shuffle_after_epoch=True, read_text=False), 2)
    assert sorted(s[:6]) == list(range(6)) and s[:6] != s[6:]


def test_checkpoint_resumes(dataset, tmp_path):
    manifest, _ = dataset
    kw = dict(read_idxs=True, random_shuffle=True, initial_fill=2, sample_rate=8000.0)
    pipe = reader_pipe([manifest], 4, **kw)
    pipe.run()
    text = pipe.checkpoint()
    expected = [[np.array(t.at(i)) for t in pipe.run() for i in range(4)] for _ in range(3)]

    @sluice.pipeline_def(batch_size=4, num_threads=2, seed=-1, enable_checkpointing=True, checkpoint=text)
    def restored():
        return fn.readers.nemo_asr(manifest_filepaths=[manifest], name="Reader", **kw)
    r = restored()
    r.build()
    for want in expected:
        got = [np.array(t.at(i)) for t in r.run() for i in range(4)]
        for x, y in zip(got, want):
            np.testing.assert_array_equal(x, y)


@pytest.mark.skipif(not os.path.exists(SOUNDS), reason="freedesktop sounds not installed")
def test_resampled_speech_matches_librosa(tmp_path):
    librosa = pytest.importorskip("librosa")
    names = ["audio-channel-front-center.oga", "audio-channel-rear-left.oga", "service-login.oga"]
    write_manifest(tmp_path / "m.json", [{"audio_filepath": os.path.join(SOUNDS, n), "text": n} for n in names])
    audio, rate, _ = reader_pipe([str(tmp_path / "m.json")], 3, sample_rate=16000).run()
    for i, n in enumerate(names):
        ref, orig = sf.read(os.path.join(SOUNDS, n), dtype="float32")
        if ref.ndim == 2:
            ref = ref.mean(axis=1)
        want = librosa.resample(ref, orig_sr=orig, target_sr=16000, res_type="soxr_hq")
        got = np.array(audio.at(i))
        assert got.shape == want.shape and float(np.array(rate.at(i))) == 16000
        X, R = np.fft.rfft(got.astype(np.float64)), np.fft.rfft(want.astype(np.float64))
        keep = np.fft.rfftfreq(len(got), 1 / 16000) <= 6000
        snr = 10 * np.log10(np.sum(np.abs(R[keep]) ** 2) / np.sum(np.abs(X[keep] - R[keep]) ** 2))
        assert snr > 60, (n, snr)


@pytest.mark.parametrize("line, why", [
    ('{"audio_filepath": "audio/u0.wav"', "not valid JSON"),
    ('["audio/u0.wav"]', "not a JSON object"),
    ('{"text": "no path"}', 'no "audio_filepath"'),
    ('{"audio_filepath": "audio/missing.wav"}', "audio file 'audio/missing.wav' not found"),
    # DALI reads a negative duration as the whole stream; Sluice refuses it, as a negative offset.
    ('{"audio_filepath": "audio/u0.wav", "duration": -1.5}', '"duration" is negative (-1.5 s)'),
    ('{"audio_filepath": "audio/u0.wav", "offset": -0.5}', '"offset" is negative (-0.5 s)'),
])
def test_bad_manifest_lines_name_the_manifest_and_line(dataset, line, why):
    manifest, _ = dataset
    with open(manifest, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    with pytest.raises(sluice.SluiceError) as e:
        reader_pipe([manifest], 2)
    assert f"manifest '{manifest}' line 7: {why}" in str(e.value)
    assert "Reader" in str(e.value)


def test_relative_paths_use_the_manifest_folder_from_any_working_directory(dataset, tmp_path, monkeypatch):
    manifest, _ = dataset
    monkeypatch.chdir("/")
    audio, _, _ = reader_pipe([manifest], 6).run()
    assert len(audio) == 6
