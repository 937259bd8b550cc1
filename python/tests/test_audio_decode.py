"""fn.decoders.audio against independent readers of the same files:

- Python's `wave` for the integer PCM it writes (8-bit unsigned, 16, 24, 32-bit): bit-exact, with the
  conversions of the contract (libsndfile's) written out here from the raw samples;
- python-soundfile (which uses the same libsndfile) for float WAV, FLAC, Ogg Vorbis and Opus, AIFF and MP3, and for
  freedesktop's Ogg Vorbis recordings: equal within 1e-6;
- downmix: the mean of the channels;
- sample_rate: librosa.resample (soxr, "soxr_hq") on recordings, within an SNR measured on the band
  both keep (below 0.75 of the lower Nyquist frequency: both filters roll off differently above).
"""
import glob
import io
import os
import struct
import wave

import numpy as np
import pytest

import sluice
from sluice import fn, types

sf = pytest.importorskip("soundfile")

SOUNDS = "/usr/share/sounds/freedesktop/stereo"
SPEECH = os.path.join(SOUNDS, "audio-channel-front-center.oga")  # a voice, 48 kHz mono
needs_sounds = pytest.mark.skipif(not os.path.exists(SPEECH), reason="freedesktop sounds not installed")


def signal(frames, channels, seed):
    """A chord with noise in [-0.9, 0.9], frames x channels (float64)."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames)[:, None] / 16000.0
    f = np.array([220.0, 330.0, 495.0, 660.0])[:channels]
    return 0.6 * np.sin(2 * np.pi * f * t) + 0.3 * rng.uniform(-1, 1, (frames, channels))


def write_wave(path, width, channels, frames, seed):
    """PCM written by `wave`; returns the samples as the integers stored (unsigned for 8 bits)."""
    x = signal(frames, channels, seed)
    if width == 1:
        pcm = np.round(x * 127 + 128).astype(np.uint8)
        raw = pcm.tobytes()
    else:
        bits = 8 * width
        pcm = np.round(x * (2 ** (bits - 1) - 1)).astype(np.int64)
        raw = b"".join(int(v).to_bytes(width, "little", signed=True) for v in pcm.ravel())
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(16000)
        w.writeframes(raw)
    return pcm


def decode(paths, threads=2, batch=None, **kwargs):
    """(audio arrays, sample rates) of decoders.audio over the files, read by readers.file."""
    pipe = sluice.Pipeline(batch_size=batch or len(paths), num_threads=threads, seed=1)
    with pipe:
        data, _ = fn.readers.file(files=[str(p) for p in paths])
        audio, rate = fn.decoders.audio(data, **kwargs)
        pipe.set_outputs(audio, rate)
    audio, rate = pipe.run()
    n = len(paths)
    return [np.array(audio.at(i)) for i in range(n)], [float(np.array(rate.at(i))) for i in range(n)]


# libsndfile's conversions of integer PCM, from the stored integers (s: signed, `bits` wide).
def expected_int16(s, bits):
    return (s << (16 - bits) if bits <= 16 else s >> (bits - 16)).astype(np.int16)


def expected_int32(s, bits):
    return (s.astype(np.int64) << (32 - bits)).astype(np.int32)


def expected_float(s, bits):
    return (s.astype(np.float64) / 2.0 ** (bits - 1)).astype(np.float32)


@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("channels", [1, 2])
def test_wave_pcm_bit_exact(tmp_path, width, channels):
    path = tmp_path / f"w{width}_{channels}.wav"
    pcm = write_wave(path, width, channels, 1237, seed=width * 10 + channels)
    s = pcm.astype(np.int64) - 128 if width == 1 else pcm  # 8-bit WAV is unsigned around 128
    bits = 8 * width
    for dtype, expect in [(types.INT16, expected_int16), (types.INT32, expected_int32), (types.FLOAT, expected_float)]:
        (audio,), (rate,) = decode([path], dtype=dtype)
        assert rate == 16000
        assert audio.shape == (1237, channels)
        np.testing.assert_array_equal(audio, expect(s, bits))
        # The same libsndfile read by python-soundfile agrees.
        ref, _ = sf.read(str(path), dtype={types.INT16: "int16", types.INT32: "int32", types.FLOAT: "float32"}[dtype],
                         always_2d=True)
        np.testing.assert_array_equal(audio, ref)


@pytest.fixture(scope="module")
def soundfile_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sf")
    x = signal(4000, 2, 7).astype(np.float32)
    files = {}
    for name, fmt, sub in [("f32.wav", "WAV", "FLOAT"), ("f64.wav", "WAV", "DOUBLE"), ("s16.flac", "FLAC", "PCM_16"),
                           ("s24.flac", "FLAC", "PCM_24"), ("vorbis.ogg", "OGG", "VORBIS"), ("opus.ogg", "OGG", "OPUS"),
                           ("s16.aiff", "AIFF", "PCM_16")]:
        sf.write(str(d / name), x, 16000, format=fmt, subtype=sub)
        files[name] = d / name
    return files, x


@pytest.mark.parametrize("name", ["f32.wav", "f64.wav", "s16.flac", "s24.flac", "vorbis.ogg", "opus.ogg", "s16.aiff"])
def test_soundfile_formats_match_soundfile(soundfile_files, name):
    files, x = soundfile_files
    (audio,), (rate,) = decode([files[name]])
    ref, ref_rate = sf.read(str(files[name]), dtype="float32", always_2d=True)
    assert rate == ref_rate == 16000
    assert audio.shape == ref.shape
    np.testing.assert_allclose(audio, ref, rtol=0, atol=1e-6)
    if name.endswith(".flac"):
        (i16,), _ = decode([files[name]], dtype=types.INT16)
        np.testing.assert_array_equal(i16, sf.read(str(files[name]), dtype="int16", always_2d=True)[0])


def test_float_wav_to_integers_scales_by_the_maximum(soundfile_files):
    """libsndfile alone would round the float samples themselves (to -1, 0 or 1); Sluice scales them as
    DALI's ConvertSatNorm does: x * 32767 (x * 2147483647), rounded to nearest even, saturated."""
    files, x = soundfile_files
    (i16,), _ = decode([files["f32.wav"]], dtype=types.INT16)
    np.testing.assert_array_equal(i16, np.clip(np.rint(x.astype(np.float64) * 32767), -32768, 32767).astype(np.int16))
    (i32,), _ = decode([files["f32.wav"]], dtype=types.INT32)
    np.testing.assert_array_equal(i32, np.rint(x.astype(np.float64) * 2147483647).astype(np.int32))
    assert np.abs(sf.read(str(files["f32.wav"]), dtype="int16")[0]).max() <= 1  # what libsndfile gives


def test_mp3_where_libsndfile_reads_it(tmp_path):
    if "MPEG_LAYER_III" not in sf.available_subtypes("MP3"):
        pytest.skip("this libsndfile has no MP3")
    path = tmp_path / "a.mp3"
    try:
        sf.write(str(path), signal(22050, 1, 3), 22050, format="MP3", subtype="MPEG_LAYER_III")
    except sf.LibsndfileError:
        pytest.skip("this libsndfile reads MP3 but cannot write it")
    (audio,), (rate,) = decode([path])
    ref, ref_rate = sf.read(str(path), dtype="float32", always_2d=True)
    assert rate == ref_rate
    assert audio.shape == ref.shape
    np.testing.assert_allclose(audio, ref, rtol=0, atol=1e-6)


def recordings():
    return sorted(p for p in glob.glob(os.path.join(SOUNDS, "*.oga")) if not os.path.islink(p))


@needs_sounds
def test_freedesktop_recordings_match_soundfile():
    paths = recordings()
    assert len(paths) >= 20
    audio, rates = decode(paths, threads=3)
    for path, a, r in zip(paths, audio, rates):
        ref, ref_rate = sf.read(path, dtype="float32", always_2d=True)
        assert r == ref_rate, path
        assert a.shape == ref.shape, path
        np.testing.assert_allclose(a, ref, rtol=0, atol=1e-6, err_msg=path)


@needs_sounds
def test_downmix_is_the_mean_of_the_channels():
    stereo = [p for p in recordings() if sf.info(p).channels == 2][:6]
    audio, _ = decode(stereo, downmix=True)
    audio16, _ = decode(stereo, downmix=True, dtype=types.INT16)
    for path, a, a16 in zip(stereo, audio, audio16):
        ref = sf.read(path, dtype="float32")[0].astype(np.float64)
        assert a.ndim == 1 and a.shape[0] == ref.shape[0]
        np.testing.assert_array_equal(a, ref.mean(axis=1).astype(np.float32))
        # int16, as DALI 2.4: the mean of the decoded float samples, times 32767, rounded.
        floats = sf.read(path, dtype="float32")[0]
        mean = floats[:, 0] * np.float32(0.5) + floats[:, 1] * np.float32(0.5)
        np.testing.assert_array_equal(a16, np.rint(mean.astype(np.float64) * 32767).astype(np.int16))


def band_snr_db(x, ref, rate, band_hz):
    """SNR of x against ref over [0, band_hz]: energies of their spectra and of the difference's."""
    n = min(len(x), len(ref))
    X, R = np.fft.rfft(x[:n].astype(np.float64)), np.fft.rfft(ref[:n].astype(np.float64))
    keep = np.fft.rfftfreq(n, 1.0 / rate) <= band_hz
    return 10 * np.log10(np.sum(np.abs(R[keep]) ** 2) / np.sum(np.abs(X[keep] - R[keep]) ** 2))


# (file, target rate, smallest SNR in dB on the band both keep, at the default quality 50)
RESAMPLE_CASES = [
    ("audio-channel-front-center.oga", 16000, 60),  # a voice, 48 kHz -> 16 kHz
    ("audio-channel-rear-left.oga", 22050, 60),     # a voice, 48 kHz -> 22.05 kHz (147/320)
    ("phone-outgoing-busy.oga", 16000, 60),         # 8 kHz -> 16 kHz
    ("service-login.oga", 16000, 60),               # 22.05 kHz stereo, downmixed, -> 16 kHz
    ("complete.oga", 12345.6, 60),                  # 44.1 kHz -> a rate that is not an integer
]


@needs_sounds
@pytest.mark.parametrize("name, target, min_snr", RESAMPLE_CASES)
def test_sample_rate_matches_librosa_soxr(name, target, min_snr):
    librosa = pytest.importorskip("librosa")
    path = os.path.join(SOUNDS, name)
    (audio,), (rate,) = decode([path], downmix=True, sample_rate=target)
    ref, orig = sf.read(path, dtype="float32")
    if ref.ndim == 2:
        ref = ref.mean(axis=1)
    want = librosa.resample(ref, orig_sr=orig, target_sr=target, res_type="soxr_hq")
    assert rate == pytest.approx(target)
    assert audio.shape == want.shape  # both ceil(n * target / orig)
    band = 0.75 * min(orig, target) / 2
    snr = band_snr_db(audio, want, target, band)
    print(f"{name} {orig} -> {target} Hz: SNR {snr:.1f} dB on 0..{band:.0f} Hz")
    assert snr > min_snr


@needs_sounds
def test_higher_quality_is_closer_to_soxr():
    librosa = pytest.importorskip("librosa")
    ref, orig = sf.read(SPEECH, dtype="float32")
    want = librosa.resample(ref, orig_sr=orig, target_sr=16000, res_type="soxr_vhq")
    snrs = [band_snr_db(decode([SPEECH], sample_rate=16000.0, downmix=True, quality=q)[0][0], want, 16000, 6000)
            for q in (0, 50, 100)]
    print("quality 0, 50, 100: SNR %.1f, %.1f, %.1f dB" % tuple(snrs))
    assert snrs[0] < snrs[1] < snrs[2]
    assert snrs[2] > 90


@needs_sounds
def test_same_output_for_any_thread_count():
    paths = recordings()[:8]
    one = decode(paths, threads=1, sample_rate=16000.0)[0]
    four = decode(paths, threads=4, sample_rate=16000.0)[0]
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a, b)


def test_bad_files_name_the_file_and_replace_logs_it(tmp_path):
    good = tmp_path / "good.wav"
    write_wave(good, 2, 1, 500, seed=1)
    bad = tmp_path / "bad.wav"
    bad.write_bytes(good.read_bytes()[:200])  # the data chunk cut short
    with pytest.raises(sluice.SluiceError, match=r"truncated WAV stream.*bad\.wav"):
        decode([good, bad])
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1)
    with pipe:
        data, _ = fn.readers.file(files=[str(bad), str(good)])
        audio, _ = fn.decoders.audio(data, on_error="replace", name="dec")
        pipe.set_outputs(audio)
    (out,) = pipe.run()
    np.testing.assert_array_equal(np.array(out.at(0)), np.array(out.at(1)))
    log = pipe.error_log()
    assert log and log[0].op == "dec" and log[0].path == str(bad) and "truncated" in log[0].message


def test_rf64_whose_ds64_declares_2_to_the_40_samples_is_refused_naming_the_file(tmp_path):
    """RF64 keeps its sizes in the ds64 chunk (written here by libsndfile through soundfile), which
    libsndfile clamps to the file silently: a ds64 declaring 2^40 frames (2^41 data bytes) is refused
    from the header, before anything is allocated, with the declared and the actual data size; the
    sample count alone past max_samples likewise."""
    good = tmp_path / "good.wav"
    frames = (np.arange(100, dtype=np.int16).reshape(50, 2) * 300).astype(np.int16)
    sf.write(good, frames, 8000, format="RF64", subtype="PCM_16")
    raw = good.read_bytes()
    assert raw[:4] == b"RF64" and raw[12:16] == b"ds64"
    (audio,), _ = decode([good], dtype=types.INT16, downmix=False)
    np.testing.assert_array_equal(audio, frames)
    data_bytes = struct.unpack_from("<Q", raw, 28)[0]
    huge = tmp_path / "huge.wav"
    huge.write_bytes(raw[:28] + struct.pack("<QQ", 1 << 41, 1 << 40) + raw[44:])
    with pytest.raises(sluice.SluiceError, match=rf"ds64 chunk declares 2199023255552 data bytes, the input holds "
                                                 rf"{data_bytes}.*huge\.wav"):
        decode([good, huge])
    count = tmp_path / "count.wav"
    count.write_bytes(raw[:36] + struct.pack("<Q", 1 << 40) + raw[44:])
    with pytest.raises(sluice.SluiceError, match=r"declares 1099511627776 frames of 2 channels, more than "
                                                 r"max_samples.*count\.wav"):
        decode([count])
