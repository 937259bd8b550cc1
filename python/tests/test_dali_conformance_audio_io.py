"""DALI's documented call forms of decoders.audio, audio_resample and readers.nemo_asr (from DALI's
operator pages, in our own words): every argument is accepted with DALI's name, default and types
(types.* enums included), outputs come in DALI's number and order, per-sample arguments take
DataNodes, and the ops classes and legacy names exist. docs/dali-compatibility.md says what differs.
"""
import json
import wave

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

RATE = 16000


def pcm(frames=800, channels=2):
    t = np.arange(frames)[:, None] / RATE
    return np.round(0.5 * np.sin(2 * np.pi * np.array([440.0, 660.0])[:channels] * t) * 32767).astype("<i2")


@pytest.fixture(scope="module")
def wav_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("conf") / "tone.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm().tobytes())
    return str(path)


def run(build, batch=1, threads=1):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=3)
    with pipe:
        out = build()
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    return [[np.asarray(o.at(i)) for i in range(batch)] for o in pipe.run()]


def encoded(path):
    return fn.readers.file(files=[path])[0]


# --- decoders.audio ----------------------------------------------------------------------------
def test_decoders_audio_defaults_two_outputs(wav_file):
    audio, rate = run(lambda: fn.decoders.audio(encoded(wav_file)))
    assert audio[0].dtype == np.float32 and audio[0].shape == (800, 2)  # dtype=FLOAT, downmix=False: 2-D
    assert rate[0].dtype == np.float32 and rate[0].shape == () and float(rate[0]) == RATE


@pytest.mark.parametrize("dtype, np_dtype", [(types.INT16, np.int16), (types.INT32, np.int32), (types.FLOAT, np.float32),
                                             ("int16", np.int16)])
def test_decoders_audio_dtype(wav_file, dtype, np_dtype):
    audio, _ = run(lambda: fn.decoders.audio(encoded(wav_file), dtype=dtype))
    assert audio[0].dtype == np_dtype


def test_decoders_audio_downmix_is_1d(wav_file):
    audio, _ = run(lambda: fn.decoders.audio(encoded(wav_file), downmix=True, dtype=types.INT16))
    assert audio[0].shape == (800,)
    # DALI 2.4's integer downmix: the mean of the decoded floats (x / 32768), times 32767, rounded.
    floats = pcm().astype(np.float32) / np.float32(32768)
    mean = floats[:, 0] * np.float32(0.5) + floats[:, 1] * np.float32(0.5)
    np.testing.assert_array_equal(audio[0], np.rint(mean.astype(np.float64) * 32767).astype(np.int16))


@pytest.mark.parametrize("sample_rate, frames", [(8000.0, 400), (8000, 400), (44100.0, 2205), (0.0, 800)])
def test_decoders_audio_sample_rate(wav_file, sample_rate, frames):
    audio, rate = run(lambda: fn.decoders.audio(encoded(wav_file), sample_rate=sample_rate))
    assert audio[0].shape == (frames, 2)
    assert float(rate[0]) == (sample_rate or RATE)


def test_decoders_audio_per_sample_sample_rate_and_quality(wav_file):
    def build():
        data, _ = fn.readers.file(files=[wav_file] * 3)
        target = fn.external_source(source=lambda: [np.float32(8000), np.float32(16000), np.float32(32000)], batch=True)
        return fn.decoders.audio(data, sample_rate=target, quality=100)
    audio, rate = run(build, batch=3)
    assert [a.shape[0] for a in audio] == [400, 800, 1600]
    assert [float(r) for r in rate] == [8000, 16000, 32000]


def test_decoders_audio_ops_class_and_legacy_name(wav_file):
    dec = ops.decoders.Audio(dtype=types.INT16, downmix=True)
    a, _ = run(lambda: dec(encoded(wav_file)))
    b, _ = run(lambda: fn.audio_decoder(encoded(wav_file), dtype=types.INT16, downmix=True))
    np.testing.assert_array_equal(a[0], b[0])
    assert ops.AudioDecoder is ops.decoders.Audio


def test_decoders_audio_bad_arguments_name_them(wav_file):
    for kwargs, arg in [({"dtype": types.UINT8}, "dtype"), ({"quality": 150.0}, "quality")]:
        with pytest.raises(sluice.SluiceError, match=arg):
            run(lambda: fn.decoders.audio(encoded(wav_file), **kwargs))


# --- audio_resample ----------------------------------------------------------------------------
def signal(n=1000):
    return (0.5 * np.sin(0.02 * np.arange(n))).astype(np.float32)


def resample(**kwargs):
    return run(lambda: fn.audio_resample(fn.external_source(source=lambda: [signal()], batch=True), **kwargs))[0][0]


@pytest.mark.parametrize("kwargs, length", [
    ({"in_rate": 16000.0, "out_rate": 8000.0}, 500),
    ({"in_rate": 16000, "out_rate": 22050}, 1379),   # ceil(1378.1)
    ({"scale": 1.5}, 1500),
    ({"scale": 0.333}, 333),
    ({"out_length": 123}, 123),
])
def test_audio_resample_ratio_forms(kwargs, length):
    assert resample(**kwargs).shape == (length,)


@pytest.mark.parametrize("dtype, np_dtype", [(types.INT16, np.int16), (types.UINT8, np.uint8), (types.INT8, np.int8),
                                             (types.UINT16, np.uint16), (types.INT32, np.int32), (types.FLOAT, np.float32),
                                             (None, np.float32)])
def test_audio_resample_dtype(dtype, np_dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    assert resample(scale=2.0, **kwargs).dtype == np_dtype


def test_audio_resample_float_to_uint8_is_dalis_example():
    out = run(lambda: fn.audio_resample(fn.external_source(source=lambda: [np.array([-1, 0, 1], np.float32)], batch=True),
                                        scale=1.0, dtype=types.UINT8))[0][0]
    np.testing.assert_array_equal(out, [0, 128, 255])


def test_audio_resample_quality_and_per_sample_rates():
    def build():
        x = fn.external_source(source=lambda: [signal(), signal(500)], batch=True)
        rate = fn.external_source(source=lambda: [np.float32(2.0), np.float32(3.0)], batch=True)
        return fn.audio_resample(x, in_rate=1.0, out_rate=rate, quality=0)
    out = run(build, batch=2)[0]
    assert [o.shape[0] for o in out] == [2000, 1500]


def test_audio_resample_channels_ops_class_and_argument_rules():
    x = np.stack([signal(), signal()], axis=1)
    op = ops.AudioResample(scale=0.5)
    out = run(lambda: op(fn.external_source(source=lambda: [x], batch=True, layout="TC")))[0][0]
    assert out.shape == (500, 2)
    np.testing.assert_array_equal(out[:, 0], out[:, 1])
    for kwargs in [{}, {"in_rate": 1.0}, {"scale": 2.0, "out_length": 5}]:
        with pytest.raises(sluice.SluiceError):
            resample(**kwargs)


# --- readers.nemo_asr --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def manifest(tmp_path_factory, wav_file):
    d = tmp_path_factory.mktemp("nemo")
    path = d / "manifest.json"
    with open(path, "w") as f:
        for k, text in enumerate(["this is a nemo tutorial", "same audio file but using offset", "third"]):
            entry = {"audio_filepath": wav_file, "duration": 0.05 - 0.01 * k, "text": text}
            if k == 1:
                entry["offset"] = 0.01
            f.write(json.dumps(entry) + "\n")
    return str(path)


@pytest.mark.parametrize("flags, count", [
    ({}, 3),                                                          # audio, sample rate, text
    ({"read_sample_rate": False}, 2),
    ({"read_text": False}, 2),
    ({"read_sample_rate": False, "read_text": False}, 1),
    ({"read_idxs": True}, 4),
    ({"read_sample_rate": False, "read_text": False, "read_idxs": True}, 2),
])
def test_nemo_asr_outputs(manifest, flags, count):
    outs = run(lambda: fn.readers.nemo_asr(manifest_filepaths=[manifest], **flags), batch=3)
    assert len(outs) == count
    audio = outs[0]
    assert audio[0].ndim == 1 and audio[0].dtype == np.float32  # downmix=True, dtype=FLOAT by default
    assert [a.shape[0] for a in audio] == [800, 640, 480]          # duration (and offset) cut the audio


def test_nemo_asr_arguments(manifest):
    audio, rate, text = run(lambda: fn.readers.nemo_asr(
        manifest_filepaths=manifest, sample_rate=8000.0, quality=60.0, downmix=False, dtype=types.INT16,
        min_duration=0.035, max_duration=0.06, random_shuffle=False, shard_id=0, num_shards=1, seed=1,
        initial_fill=16, lazy_init=True, pad_last_batch=True, prefetch_queue_depth=2, read_ahead=False,
        dont_use_mmap=True, skip_cached_images=False, stick_to_shard=False, tensor_init_bytes=1 << 16,
        shuffle_after_epoch=False), batch=2)
    assert audio[0].dtype == np.int16 and audio[0].shape == (400, 2)
    assert [float(r) for r in rate] == [8000.0, 8000.0]
    assert bytes(text[1]) == b"same audio file but using offset"


def test_nemo_asr_ops_class_and_legacy_name(manifest):
    reader = ops.readers.NemoAsr(manifest_filepaths=[manifest], read_text=False)
    a = run(lambda: reader(), batch=3)
    b = run(lambda: fn.nemo_asr_reader(manifest_filepaths=[manifest], read_text=False), batch=3)
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    assert ops.NemoAsrReader is ops.readers.NemoAsr


def test_nemo_asr_not_supported_arguments_are_errors(manifest):
    with pytest.raises(sluice.SluiceError, match="normalize_text"):
        run(lambda: fn.readers.nemo_asr(manifest_filepaths=[manifest], normalize_text=True))
