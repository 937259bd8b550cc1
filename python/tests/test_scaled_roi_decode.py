"""Scaled ROI decode: ``scaled_decode=True`` on decoders.image_random_crop / image_crop / image_slice.

Opt-in: by default the windowed decoders decode their window exactly (bit for bit the full-scale
decode's pixels of that window). With it, a window that feeds a fixed-size resize and is at least
about twice that size is decoded at a reduced DCT scale; the window drawn is the same, only the
pixels differ. Accuracy is measured on 12-megapixel photographs (scripts/make_sample_data.sh
--hires; $SLUICE_HIRES_DATA or sample_data_hires/ when present, else 4 images made here) after the
resize to 224, as PSNR against the exact path.
"""
import io
import os
import pathlib
import subprocess

import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, types

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Accuracy thresholds (dB) of the scaled path against the exact one, train recipe, uint8 224x224.
# Measured on the 64-image --hires set: docs/benchmarks.md, "Scaled ROI decode on 12-megapixel photographs".
MEDIAN_PSNR_MIN = 38.0
WORST_PSNR_MIN = 27.0


@pytest.fixture(scope="module")
def hires(tmp_path_factory):
    data = pathlib.Path(os.environ.get("SLUICE_HIRES_DATA", ROOT / "sample_data_hires"))
    files = sorted(str(p) for p in data.glob("train/*/*.jpg"))
    if not files:
        data = tmp_path_factory.mktemp("hires")
        subprocess.run(["bash", str(ROOT / "scripts" / "make_sample_data.sh"), "--hires", "--classes", "2",
                        "--per-class", "2", "--force", str(data)],
                       check=True, stdout=subprocess.DEVNULL, timeout=600,
                       env=dict(os.environ, SLUICE_SAMPLE_DATA_NO_APT="1"))
        files = sorted(str(p) for p in data.glob("train/*/*.jpg"))
    assert files
    return files


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    """A 2400x1800 JPEG (4:2:0) cut from tests/data/images/photo_500x375.jpg, and its truncated copy."""
    d = tmp_path_factory.mktemp("scaled_roi")
    img = Image.open(ROOT / "tests" / "data" / "images" / "photo_500x375.jpg").convert("RGB")
    img = img.resize((2400, 1800), Image.BICUBIC)
    rng = np.random.default_rng(5)
    a = np.clip(np.asarray(img, np.float32) + rng.normal(0, 3, (1800, 2400, 1)), 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, "JPEG", quality=92)
    good, bad = d / "big.jpg", d / "big_truncated.jpg"
    good.write_bytes(buf.getvalue())
    bad.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    return str(good), str(bad)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def run(files, decoder, batch_size=4, iterations=1, resize=224, seed=1234, **kw):
    """uint8 outputs of files -> decoder -> (resize to resize x resize), seed fixed."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=seed)
    with pipe:
        jpegs, _ = fn.readers.file(files=files, name="Reader")
        if decoder == "image_slice":
            anchor = fn.random.uniform(range=[0.0, 0.4], shape=[2])
            images = fn.decoders.image_slice(jpegs, anchor, fn.constant(fdata=[0.55, 0.6]), name="dec", **kw)
        else:
            images = getattr(fn.decoders, decoder)(jpegs, name="dec", **kw)
        if resize:
            images = fn.resize(images, resize_x=resize, resize_y=resize)
        pipe.set_outputs(images)
    pipe.build()
    out = []
    for _ in range(iterations):
        out += [np.array(a) for a in pipe.run()[0]]
    return out


DECODERS = [("image_random_crop", {}), ("image_crop", dict(crop=(1500, 2000))), ("image_slice", {})]


@pytest.mark.parametrize("decoder,kw", DECODERS, ids=[d for d, _ in DECODERS])
def test_default_is_the_exact_decode(photo, decoder, kw):
    """Without scaled_decode the windowed decoders decode exactly, even before a resize."""
    files = [photo[0]] * 2
    default = run(files, decoder, batch_size=2, **kw)
    exact = run(files, decoder, batch_size=2, scaled_decode=False, **kw)
    assert all(np.array_equal(a, b) for a, b in zip(default, exact))
    scaled = run(files, decoder, batch_size=2, scaled_decode=True, **kw)
    assert not all(np.array_equal(a, b) for a, b in zip(default, scaled)), "scaled_decode=True changed nothing"


def test_default_window_equals_a_crop_of_the_full_decode(photo):
    """image_crop's default output is the full decode's window, bit for bit (decoded windows are
    compared before the resize, and a resize after it does not change the decode)."""
    full = run([photo[0]], "image", batch_size=1, resize=0, scaled_decode=False)[0]
    window = run([photo[0]], "image_crop", batch_size=1, resize=0, crop=(1500, 2000))[0]
    y, x = (1800 - 1500) // 2, (2400 - 2000) // 2
    assert np.array_equal(window, full[y:y + 1500, x:x + 2000])
    resized = run([photo[0]], "image_crop", batch_size=1, crop=(1500, 2000))[0]
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None, seed=1)
    with pipe:
        jpegs, _ = fn.readers.file(files=[photo[0]])
        img = fn.crop(fn.decoders.image(jpegs, scaled_decode=False), crop=(1500, 2000))
        pipe.set_outputs(fn.resize(img, resize_x=224, resize_y=224))
    pipe.build()
    assert np.array_equal(resized, np.array(pipe.run()[0][0]))


def test_decoders_image_keeps_scaled_decode_on_by_default(photo):
    default = run([photo[0]], "image", batch_size=1)[0]
    off = run([photo[0]], "image", batch_size=1, scaled_decode=False)[0]
    assert not np.array_equal(default, off)


def test_same_windows_with_and_without_scaled_decode(photo):
    """The same seed draws the same windows: the decoded extents agree up to the DCT scale."""
    files = [photo[0]] * 8
    exact = run(files, "image_random_crop", batch_size=8, iterations=2, resize=0, seed=77)
    hinted = run(files, "image_random_crop", batch_size=8, iterations=2, resize=0, seed=77,
                 decode_size_hint=[224, 224])
    other_seed = run(files, "image_random_crop", batch_size=8, iterations=2, resize=0, seed=78)
    assert [a.shape for a in exact] != [a.shape for a in other_seed]
    reduced = 0
    for a, b in zip(exact, hinted):
        (h, w), (sh, sw) = a.shape[:2], b.shape[:2]
        scale = min((8 // k for k in (1, 2, 4, 8) if abs(sh - h * k / 8) <= 1 and abs(sw - w * k / 8) <= 1), default=0)
        assert scale, f"{(h, w)} decoded as {(sh, sw)}: not a DCT scale of the window"
        reduced += sh < h
        ra = np.asarray(Image.fromarray(a).resize((224, 224), Image.BILINEAR), np.uint8)
        rb = np.asarray(Image.fromarray(b).resize((224, 224), Image.BILINEAR), np.uint8)
        assert psnr(ra, rb) > 30, "different part of the image"
    assert reduced >= 4


def test_psnr_against_the_exact_path_on_12mp_photographs(hires):
    """The train recipe's crop + resize to 224: scaled against exact, median and worst PSNR."""
    batch = min(8, len(hires))
    iterations = max(2, 32 // batch)
    exact = run(hires, "image_random_crop", batch_size=batch, iterations=iterations)
    scaled = run(hires, "image_random_crop", batch_size=batch, iterations=iterations, scaled_decode=True)
    values = [psnr(a, b) for a, b in zip(exact, scaled)]
    finite = [v for v in values if np.isfinite(v)]
    assert len(finite) >= len(values) // 2, "scaled decode applied to fewer than half the crops"
    median, worst = float(np.median(values)), min(values)
    print(f"PSNR scaled vs exact over {len(values)} crops: median {median:.2f} dB, worst {worst:.2f} dB")
    assert median >= MEDIAN_PSNR_MIN
    assert worst >= WORST_PSNR_MIN


@pytest.mark.parametrize("scaled", [False, True], ids=["exact", "scaled"])
def test_truncated_jpeg_raises_the_same_error(photo, scaled):
    with pytest.raises(Exception) as err:
        run([photo[1]], "image_crop", batch_size=1, crop=(1500, 2000), scaled_decode=scaled)
    msg = str(err.value)
    assert "truncated or corrupt JPEG" in msg and "big_truncated.jpg" in msg and "dec" in msg


@pytest.mark.parametrize("scaled", [False, True], ids=["exact", "scaled"])
def test_truncated_jpeg_is_replaced_the_same_way(photo, scaled):
    pipe = sluice.Pipeline(batch_size=2, num_threads=2, device_id=None, seed=3)
    with pipe:
        jpegs, _ = fn.readers.file(files=[photo[0], photo[1]])
        img = fn.decoders.image_crop(jpegs, crop=(1500, 2000), scaled_decode=scaled, on_error="replace", name="dec")
        pipe.set_outputs(fn.resize(img, resize_x=224, resize_y=224))
    pipe.build()
    out = [np.array(a) for a in pipe.run()[0]]
    assert np.array_equal(out[0], out[1])
    log = pipe.error_log()
    assert [(r.sample, r.replaced_by, os.path.basename(r.path)) for r in log] == [(1, 0, "big_truncated.jpg")]
    assert "truncated or corrupt JPEG" in log[0].message
    assert pipe.executor_statistics()["dec"]["replaced_samples"] == 1


def test_scaled_only_with_a_known_target_and_a_window_twice_its_size(photo):
    files = [photo[0]] * 2
    # No resize after the decoder: no target, nothing changes.
    assert all(np.array_equal(a, b) for a, b in zip(run(files, "image_crop", batch_size=2, resize=0, crop=(1500, 2000)),
                                                    run(files, "image_crop", batch_size=2, resize=0, crop=(1500, 2000),
                                                        scaled_decode=True)))
    # A 440x600 window before a 224x224 resize: 1/2 would give 220 rows, below the target: exact.
    assert all(np.array_equal(a, b) for a, b in zip(run(files, "image_crop", batch_size=2, crop=(440, 600)),
                                                    run(files, "image_crop", batch_size=2, crop=(440, 600),
                                                        scaled_decode=True)))
    # 448x600: 1/2 gives 224x300, at or above the target: reduced.
    assert not all(np.array_equal(a, b) for a, b in zip(run(files, "image_crop", batch_size=2, crop=(448, 600)),
                                                        run(files, "image_crop", batch_size=2, crop=(448, 600),
                                                            scaled_decode=True)))
