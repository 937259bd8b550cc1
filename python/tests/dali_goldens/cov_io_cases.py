"""Decoder, reader and audio cases added for argument coverage (issue 40). Recorded by
`scripts/record_dali_goldens.py cov_io` into cov_io.npz; compared by test_dali_goldens_coverage.py.
CASES: name -> (input kind, build(fn, types, x)); kind None: a reader, x is None (BATCH samples).

The readers read files that data_dir() writes (the same bytes on every run: NumPy arrays, a
webdataset tar, WAV files with a NeMo manifest, a COCO annotation file over tests/data/images), so
DALI's recorded outputs and Sluice's come from identical files.
"""
import io
import json
import os
import shutil
import tarfile
import tempfile
import wave

import numpy as np

BATCH = 3
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
IMAGES = os.path.join(ROOT, "tests", "data", "images")
JPEGS = ["orient_6.jpg", "orient_3.jpg", "s420.jpg"]


def _wav(samples, rate, channels=1):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, "<i2").tobytes())
    return buf.getvalue()


def _png(pixels):
    """A PNG (8-bit RGB, no filtering) of an HxWx3 uint8 array: square images for image_random_crop."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    h, w, _ = pixels.shape
    raw = b"".join(b"\0" + pixels[y].tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _tone(n, freq, rate, channels=1):
    t = np.arange(n) / rate
    x = np.round(8000 * np.sin(2 * np.pi * freq * t)).astype(np.int16)
    return np.repeat(x[:, None], channels, axis=1).reshape(-1) if channels > 1 else x


def _arrays():
    rng = np.random.default_rng(9)
    return [rng.integers(0, 100, (6, 8)).astype(np.int16), rng.uniform(-1, 1, (5, 7)).astype(np.float32),
            rng.integers(0, 100, (9, 4)).astype(np.int16)]


def data_dir():
    """Writes (once) and returns the readers' files, under the system's temporary directory."""
    path = os.path.join(tempfile.gettempdir(), "sluice_dali_goldens_cov_io_v2")
    if os.path.exists(os.path.join(path, "done")):
        return path
    tmp = path + f".{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "npy"))
    for i, a in enumerate(_arrays()):
        np.save(os.path.join(tmp, "npy", f"a{i}.npy"), a if i != 1 else a.astype(np.float32))
    with open(os.path.join(tmp, "npy", "list.txt"), "w") as f:
        f.write("a2.npy\na0.npy\n")
    # images in class folders (readers.file), and a file list
    for cls, names in (("alpha", ["rgb.png", "gray.png"]), ("beta", ["palette.png", "rgb.ppm"]),
                       ("Beta2", ["rgba.png"])):
        os.makedirs(os.path.join(tmp, "img", cls))
        for n in names:
            shutil.copy(os.path.join(IMAGES, n), os.path.join(tmp, "img", cls, n))
    with open(os.path.join(tmp, "img", "list.txt"), "w") as f:
        f.write("beta/rgb.ppm 5\nalpha/gray.png 2\nBeta2/rgba.png 9\n")
    # webdataset: samples with a png and a cls; the third lacks its cls
    with tarfile.open(os.path.join(tmp, "shard.tar"), "w", format=tarfile.USTAR_FORMAT) as tar:
        for i, (img, cls) in enumerate((("rgb.png", b"3"), ("gray.png", b"7"), ("palette.png", None),
                                        ("rgba.png", b"1"))):
            for ext, data in (("PNG" if i == 3 else "png", open(os.path.join(IMAGES, img), "rb").read()),
                              ("cls", cls)):
                if data is None:
                    continue
                info = tarfile.TarInfo(f"s{i}.{ext}")
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                tar.addfile(info, io.BytesIO(data))
    # NeMo ASR: WAVs (mono 16 kHz, stereo 8 kHz) and a manifest
    os.makedirs(os.path.join(tmp, "wav"))
    lines = []
    for i, (n, rate, ch) in enumerate(((1600, 16000, 1), (800, 8000, 2), (2400, 16000, 1), (4000, 16000, 1))):
        name = os.path.join(tmp, "wav", f"w{i}.wav")
        with open(name, "wb") as f:
            f.write(_wav(_tone(n, 300 + 100 * i, rate, ch), rate, ch))
        final = os.path.join(path, "wav", f"w{i}.wav")  # where the file is once the folder is renamed
        lines.append(json.dumps({"audio_filepath": final, "duration": n / rate, "text": f"Sample {i} Text"}))
    with open(os.path.join(tmp, "wav", "manifest.json"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # COCO: three images, categories 3 and 7, an iscrowd object, a tiny one, one image without objects
    os.makedirs(os.path.join(tmp, "coco"))
    imgs = [("rgb.png", 1), ("resize_linear_roi.png", 2), ("gray.png", 3), ("palette.png", 4)]
    for n, _ in imgs:
        shutil.copy(os.path.join(IMAGES, n), os.path.join(tmp, "coco", n))
    images = []
    for n, i in imgs:
        ihdr = open(os.path.join(IMAGES, n), "rb").read(24)  # PNG: width and height at bytes 16-24
        w, h = int.from_bytes(ihdr[16:20], "big"), int.from_bytes(ihdr[20:24], "big")
        images.append({"id": i, "file_name": n, "width": w, "height": h})
    anns = [
        {"id": 1, "image_id": 1, "category_id": 3, "bbox": [2, 3, 10, 8], "area": 80, "iscrowd": 0,
         "segmentation": [[2, 3, 12, 3, 12, 11, 2, 11]]},
        {"id": 2, "image_id": 1, "category_id": 7, "bbox": [5, 1, 6, 9], "area": 54, "iscrowd": 1,
         "segmentation": [[5, 1, 11, 1, 8, 10]]},
        {"id": 3, "image_id": 2, "category_id": 7, "bbox": [1, 1, 0.05, 0.05], "area": 0.0025, "iscrowd": 0,
         "segmentation": [[1, 1, 1.05, 1, 1.05, 1.05]]},
        {"id": 4, "image_id": 2, "category_id": 3, "bbox": [4, 4, 12, 6], "area": 72, "iscrowd": 0,
         "segmentation": [[4, 4, 16, 4, 16, 10, 4, 10], [5, 5, 7, 5, 6, 7]]},
        {"id": 5, "image_id": 4, "category_id": 7, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0,
         "segmentation": [[0, 0, 5, 0, 5, 5, 0, 5]]},
    ]
    with open(os.path.join(tmp, "coco", "ann.json"), "w") as f:
        json.dump({"images": images, "annotations": anns,
                   "categories": [{"id": 3, "name": "three"}, {"id": 7, "name": "seven"}]}, f)
    open(os.path.join(tmp, "done"), "w").close()
    try:
        os.rename(tmp, path)
    except OSError:  # another process wrote it first
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def inputs():
    jpegs = [np.fromfile(os.path.join(IMAGES, f), dtype=np.uint8) for f in JPEGS]
    npys = []
    for a in _arrays():
        buf = io.BytesIO()
        np.save(buf, a)
        npys.append(np.frombuffer(buf.getvalue(), np.uint8))
    wavs = [np.frombuffer(_wav(_tone(n, f, 16000, c), 16000, c), np.uint8)
            for n, f, c in ((1600, 440, 1), (1000, 1000, 2), (2000, 3000, 1))]
    rng = np.random.default_rng(4)
    signals = [(0.5 * np.sin(np.arange(n) * 0.05) + 0.01 * rng.standard_normal(n)).astype(np.float32)
               for n in (1200, 900, 1500)]
    squares = [np.frombuffer(_png(rng.integers(0, 255, (n, n, 3)).astype(np.uint8)), np.uint8) for n in (12, 16, 9)]
    return {"squares": (None, squares), "jpegs": (None, jpegs), "npys": (None, npys), "wavs": (None, wavs), "signals": (None, signals)}


def _d(*parts):
    return os.path.join(data_dir(), *parts)


def _hann(n):
    return list(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n))


CASES = {
    # image decoders
    "cov_decode_no_orientation": ("jpegs", lambda fn, types, x: [
        fn.decoders.image(x, adjust_orientation=False), fn.peek_image_shape(x, adjust_orientation=False),
        fn.peek_image_shape(x, dtype=types.INT32), fn.peek_image_shape(x, image_type=types.GRAY)]),
    "cov_decode_fancy_upsampling": ("jpegs", lambda fn, types, x: [
        fn.decoders.image(x, jpeg_fancy_upsampling=True)]),
    "cov_decode_ycbcr": ("jpegs", lambda fn, types, x: [fn.decoders.image(x, output_type=types.YCbCr)]),
    "cov_decode_crop_hw": ("jpegs", lambda fn, types, x: [
        fn.decoders.image_crop(x, crop_h=10, crop_w=12, crop_pos_x=0.1, rounding="truncate",
                               output_type=types.GRAY, adjust_orientation=False),
        fn.decoders.image_crop(x, crop=(9, 9), jpeg_fancy_upsampling=True)]),
    "cov_decode_slice_start_end": ("jpegs", lambda fn, types, x: [
        fn.decoders.image_slice(x, start=[2, 3], end=[20, 25], axis_names="HW", output_type=types.BGR)]),
    "cov_decode_slice_rel": ("jpegs", lambda fn, types, x: [
        fn.decoders.image_slice(x, rel_start=[0.1, 0.2], rel_shape=[0.5, 0.4], axes=[0, 1]),
        fn.decoders.image_slice(x, rel_end=[0.6, 0.7], adjust_orientation=False, jpeg_fancy_upsampling=True),
        fn.decoders.image_slice(x, shape=[5, 6], start=[1, 1])]),
    "cov_decode_slice_inputs": ("jpegs", lambda fn, types, x: [
        fn.decoders.image_slice(x, np.float32([3, 2]), np.float32([7, 8]), normalized_anchor=False,
                                normalized_shape=False)]),
    # square images, a crop of the whole area and aspect 1: the one possible window is the whole image
    "cov_decode_random_crop_whole": ("squares", lambda fn, types, x: [
        fn.decoders.image_random_crop(x, random_area=[1.0, 1.0], random_aspect_ratio=[1.0, 1.0], num_attempts=2,
                                      output_type=types.GRAY, adjust_orientation=False, jpeg_fancy_upsampling=True)]),
    "cov_decode_numpy": ("npys", lambda fn, types, x: [fn.decoders.numpy(x, dtype=types.INT16)]),
    # audio
    "cov_decode_audio_quality": ("wavs", lambda fn, types, x: [
        *fn.decoders.audio(x, sample_rate=22050, quality=10)]),
    "cov_audio_resample_length_int16": ("signals", lambda fn, types, x: [
        fn.audio_resample(x, out_length=1600, dtype=types.INT16)]),
    "cov_audio_resample_scale_float": ("signals", lambda fn, types, x: [
        fn.audio_resample(x, scale=1.25, dtype=types.FLOAT)]),
    "cov_spectrogram_window_fn": ("signals", lambda fn, types, x: [
        fn.spectrogram(x, nfft=64, window_length=48, window_step=16, window_fn=_hann(48))]),
    "cov_audio_axes": ("signals", lambda fn, types, x: [
        fn.mfcc(fn.to_decibels(fn.mel_filter_bank(fn.spectrogram(x, nfft=64, window_length=64, window_step=32,
                                                                  layout="tf"), nfilter=16, sample_rate=16000)),
                axis=1, n_mfcc=8),
        fn.power_spectrum(fn.reshape(fn.slice(x, 0, 800, axes=[0]), shape=[8, 100]), axis=1, nfft=128),
        fn.preemphasis_filter(x, dtype=types.FLOAT64)]),
    # readers
    "cov_readers_file": (None, lambda fn, types, x: [
        *fn.readers.file(file_root=_d("img"), file_filters=["*.png"], case_sensitive_filter=True),
        *fn.readers.file(file_list=_d("img", "list.txt"), file_root=_d("img")),
        *fn.readers.file(files=[_d("img", "alpha", "rgb.png"), _d("img", "beta", "rgb.ppm"),
                                _d("img", "alpha", "gray.png")], labels=[4, 5, 6])]),
    "cov_readers_file_dir_filters": (None, lambda fn, types, x: [
        *fn.readers.file(file_root=_d("img"), dir_filters=["beta", "Beta2"])]),
    "cov_readers_numpy_roi": (None, lambda fn, types, x: [
        fn.readers.numpy(file_root=_d("npy"), files=["a0.npy", "a2.npy", "a0.npy"], roi_start=[1, 2],
                         roi_end=[4, 4], cache_header_information=True),
        fn.readers.numpy(file_root=_d("npy"), file_list=_d("npy", "list.txt"), rel_roi_start=[0.25],
                         rel_roi_end=[0.75], roi_axes=[1]),
        fn.readers.numpy(files=[_d("npy", "a0.npy"), _d("npy", "a2.npy"), _d("npy", "a2.npy")], roi_start=[-1, 2],
                         roi_shape=[4, 9], out_of_bounds_policy="pad", fill_value=-3),
        fn.readers.numpy(file_root=_d("npy"), file_filter="a[02].npy", rel_roi_shape=[0.5, 0.5])]),
    "cov_readers_webdataset": (None, lambda fn, types, x: [
        *fn.readers.webdataset(paths=[_d("shard.tar")], ext=["png", "cls"], missing_component_behavior="empty",
                               case_sensitive_extensions=False),
        *fn.readers.webdataset(paths=[_d("shard.tar")], ext=["png;PNG", "cls"], missing_component_behavior="skip",
                               dtypes=[types.UINT8, types.UINT8])]),
    "cov_readers_nemo_asr": (None, lambda fn, types, x: [
        *fn.readers.nemo_asr(manifest_filepaths=[_d("wav", "manifest.json")], sample_rate=22050, downmix=False,
                             dtype=types.INT16, read_idxs=True, read_sample_rate=False, quality=20),
        *fn.readers.nemo_asr(manifest_filepaths=[_d("wav", "manifest.json")], max_duration=0.15, min_duration=0.05,
                             read_text=False)]),
    "cov_readers_coco": (None, lambda fn, types, x: [
        *fn.readers.coco(file_root=_d("coco"), annotations_file=_d("coco", "ann.json"), ltrb=True, ratio=True,
                         skip_empty=True, image_ids=True, include_iscrowd=False, size_threshold=0.5),
        *fn.readers.coco(file_root=_d("coco"), annotations_file=_d("coco", "ann.json"), avoid_class_remapping=True,
                         images=["gray.png", "rgb.png", "resize_linear_roi.png"])]),
    "cov_readers_coco_polygons": (None, lambda fn, types, x: [
        *fn.readers.coco(file_root=_d("coco"), annotations_file=_d("coco", "ann.json"), polygon_masks=True)]),
    "cov_readers_coco_pixelwise": (None, lambda fn, types, x: [
        *fn.readers.coco(file_root=_d("coco"), annotations_file=_d("coco", "ann.json"), pixelwise_masks=True)]),
}
