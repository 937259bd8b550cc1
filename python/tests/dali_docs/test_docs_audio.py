"""DALI's audio tutorials (docs/examples/audio_processing/audio_decoder and spectrogram, pipeline
mode), with `nvidia.dali` changed to `sluice` in the imports. The notebooks read
`docs/examples/data/audio` and DALI_extra's `db/audio/wav/237-134500-0000.wav` (speech); here short
WAVs written by the test. The spectrogram notebook runs its DALI pipelines with device="gpu"; they
run with device="cpu" here (the notebook's pipelines take `device` as a parameter)."""
import numpy as np
import pytest

from sluice import pipeline_def
import sluice.fn as fn
import sluice.types as types

from ._formats import write_wav

librosa = pytest.importorskip("librosa")


# --- docs/examples/audio_processing/audio_decoder (pipeline mode) -------------------------------

def test_audio_decoder(tmp_path):
    rate = 16000
    t = np.arange(rate // 2) / rate
    pcm = (3000 * np.sin(2 * np.pi * 300 * t)).astype(np.int16)
    (tmp_path / "speech").mkdir()
    write_wav(tmp_path / "speech" / "clip.wav", pcm, rate)

    batch_size = 1
    audio_files = str(tmp_path)  # "../../data/audio" in the notebook

    @pipeline_def
    def audio_decoder_pipe():
        encoded, _ = fn.readers.file(file_root=audio_files)
        audio, sr = fn.decoders.audio(encoded, dtype=types.INT16)
        return audio, sr

    pipe = audio_decoder_pipe(batch_size=batch_size, num_threads=1, device_id=0)
    pipe.build()
    cpu_output = pipe.run()
    # the notebook prints "Sampling rate: 16000.0 [Hz]" and the data as an (N, 1) int16 array
    sampling_rate, audio_data = cpu_output[1].at(0), cpu_output[0].at(0)
    assert float(sampling_rate) == 16000.0
    assert audio_data.dtype == np.int16 and audio_data.shape == (len(pcm), 1)
    audio_data = audio_data.flatten()
    np.testing.assert_array_equal(audio_data, pcm)


# --- docs/examples/audio_processing/spectrogram (pipeline mode) ----------------------------------

@pytest.fixture(scope="module")
def sample_data(tmp_path_factory):
    """A one-second speech-like clip at librosa's default rate (22050 Hz): two chirps and noise."""
    rate = 22050
    t = np.arange(rate) / rate
    rng = np.random.default_rng(0)
    sig = 0.3 * np.sin(2 * np.pi * (200 + 600 * t) * t) + 0.2 * np.sin(2 * np.pi * 1800 * t) * (t > 0.5)
    sig += 0.01 * rng.standard_normal(rate)
    path = tmp_path_factory.mktemp("spectrogram") / "speech.wav"
    write_wav(path, (sig * 32767).astype(np.int16), rate)
    return str(path)


n_fft = 2048  # Size of the FFT, which will also be used as the window length
hop_length = 512  # Step or stride between windows


def test_spectrogram_matches_librosa(sample_data):
    y, sr = librosa.load(sample_data)
    spectrogram_librosa = np.abs(librosa.stft(y, n_fft=n_fft, hop_length=hop_length, win_length=n_fft,
                                              window="hann", pad_mode="reflect")) ** 2
    spectrogram_librosa_db = librosa.power_to_db(spectrogram_librosa, ref=np.max)

    @pipeline_def
    def spectrogram_pipe(nfft, window_length, window_step, device="cpu"):
        audio = types.Constant(device=device, value=y)
        spectrogram = fn.spectrogram(audio, device=device, nfft=nfft, window_length=window_length,
                                     window_step=window_step)
        return spectrogram

    pipe = spectrogram_pipe(device="cpu", batch_size=1, num_threads=3, device_id=0, nfft=n_fft,
                            window_length=n_fft, window_step=hop_length)
    pipe.build()
    outputs = pipe.run()
    spectrogram_dali = outputs[0].at(0)
    assert spectrogram_dali.shape == spectrogram_librosa.shape
    spectrogram_dali_db = librosa.power_to_db(spectrogram_dali, ref=np.max)
    # the notebook compares the two dB spectrograms
    assert np.allclose(spectrogram_dali_db, spectrogram_librosa_db, atol=0.5)
    np.testing.assert_allclose(spectrogram_dali, spectrogram_librosa, rtol=1e-3,
                               atol=1e-3 * spectrogram_librosa.max())


def test_mel_spectrogram_and_mfcc_match_librosa(sample_data):
    y, sr = librosa.load(sample_data)
    # pad_mode="reflect": the default of the librosa the notebook was written with (0.10 changed it
    # to "constant"); DALI's spectrogram pads by reflection
    mel_spectrogram_librosa = librosa.feature.melspectrogram(y=y, sr=sr, n_mels=128, fmax=8000, pad_mode="reflect")
    mel_spectrogram_librosa_db = librosa.power_to_db(mel_spectrogram_librosa, ref=np.max)
    mfccs_librosa = librosa.feature.mfcc(S=mel_spectrogram_librosa_db, n_mfcc=40)

    @pipeline_def
    def mel_spectrogram_pipe(nfft, window_length, window_step, device="cpu"):
        audio = types.Constant(device=device, value=y)
        spectrogram = fn.spectrogram(audio, device=device, nfft=nfft, window_length=window_length,
                                     window_step=window_step)
        mel_spectrogram = fn.mel_filter_bank(spectrogram, sample_rate=sr, nfilter=128, freq_high=8000.0)
        mel_spectrogram_dB = fn.to_decibels(mel_spectrogram, multiplier=10.0, cutoff_db=-80)
        mfccs = fn.mfcc(mel_spectrogram_dB, n_mfcc=40, normalize=True)
        return mel_spectrogram_dB, mfccs

    pipe = mel_spectrogram_pipe(device="cpu", batch_size=1, num_threads=3, device_id=0, nfft=n_fft,
                                window_length=n_fft, window_step=hop_length)
    pipe.build()
    outputs = pipe.run()
    mel_spectrogram_dali_db = outputs[0].at(0)
    mfccs_dali = outputs[1].at(0)
    assert mel_spectrogram_dali_db.shape == mel_spectrogram_librosa_db.shape == (128, 44)
    assert np.allclose(mel_spectrogram_dali_db, mel_spectrogram_librosa_db, atol=1)
    assert mfccs_dali.shape == mfccs_librosa.shape == (40, 44)
    assert np.allclose(mfccs_dali, mfccs_librosa, atol=1)
