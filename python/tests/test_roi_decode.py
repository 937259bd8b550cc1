"""ROI decode for validation (decoders.image's ``roi_decode``, src/pipeline/roi_decode.h).

A decoder that feeds only a resize that feeds only a fixed crop decodes only the part of each JPEG
that reaches the crop. The final output must be the same bytes as with a whole decode, on the real
photographs of sample_data/ (every one of them), for several resize sizes and crops, RGB and GRAY,
uint8 and float crop_mirror_normalize outputs, with scaled decode on and off; the pass can be
turned off, and steps aside when the decoded images are themselves an output.
"""
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import sluice
from sluice import fn, types

ROOT = pathlib.Path(__file__).resolve().parents[2]
IMAGES = ROOT / "tests" / "data" / "images"


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """Every JPEG of sample_data/ (`make demo` builds it); a small set built the same way without it."""
    data = pathlib.Path(os.environ.get("SLUICE_DATA", ROOT / "sample_data"))
    files = sorted(str(p) for p in data.glob("train/*/*.jpg"))
    if not files:
        data = tmp_path_factory.mktemp("roi_photos")
        subprocess.run(["bash", str(ROOT / "scripts" / "make_sample_data.sh"), "--small", "--force", str(data)],
                       check=True, stdout=subprocess.DEVNULL, timeout=300,
                       env=dict(os.environ, SLUICE_SAMPLE_DATA_NO_APT="1"))
        files = sorted(str(p) for p in data.glob("train/*/*.jpg"))
    assert files
    return files


# (output_type, resize arguments, crop, crop operator, crop_mirror_normalize dtype)
CHAINS = [
    ("RGB", dict(resize_shorter=256), 224, "cmn", types.FLOAT),
    ("RGB", dict(size=256, mode="not_smaller"), 224, "cmn", types.UINT8),
    ("GRAY", dict(resize_shorter=160, interp_type=types.INTERP_CUBIC), 128, "cmn", types.FLOAT),
    ("GRAY", dict(resize_shorter=320), 288, "crop", None),
    ("RGB", dict(resize_shorter=96, interp_type=types.INTERP_LANCZOS3), 64, "crop", None),
    ("RGB", dict(resize_shorter=144, antialias=False), 112, "cmn", types.FLOAT16),
]


def validation_pipe(files, roi, scaled, batch_size=64, chains=CHAINS):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, seed=0, enable_memory_stats=True)
    with pipe:
        jpegs, _ = fn.readers.file(files=files, name="Reader")
        outs = []
        for k, (color, resize_args, crop, crop_op, dtype) in enumerate(chains):
            color_type = types.RGB if color == "RGB" else types.GRAY
            images = fn.decoders.image(jpegs, output_type=color_type, roi_decode=roi, scaled_decode=scaled,
                                       name=f"dec{k}")
            images = fn.resize(images, **resize_args)
            if crop_op == "crop":
                outs.append(fn.crop(images, crop=(crop, crop)))
            else:
                outs.append(fn.crop_mirror_normalize(images, crop=(crop, crop), dtype=dtype, output_layout="CHW",
                                                     mean=[114.0], std=[57.0]))
        pipe.set_outputs(*outs)
    pipe.build()
    return pipe


def arrays(out):
    return [np.array(out.at(i)) if hasattr(out, "at") else np.array(out[i]) for i in range(len(out))]


@pytest.mark.parametrize("scaled", [False, True], ids=["full_scale", "scaled_decode"])
def test_same_bytes_with_and_without_roi_decode_on_every_photograph(photos, scaled):
    with_roi = validation_pipe(photos, True, scaled)
    without = validation_pipe(photos, False, scaled)
    for _ in range(math.ceil(len(photos) / 64)):
        a, b = with_roi.run(), without.run()
        for k, (x, y) in enumerate(zip(a, b)):
            for i, (u, v) in enumerate(zip(arrays(x), arrays(y))):
                assert u.dtype == v.dtype and u.shape == v.shape
                assert u.tobytes() == v.tobytes(), f"chain {CHAINS[k]}, sample {i}"
    # The pass applied to every chain: the decoders produced less (and a second, window, output).
    s_with, s_without = with_roi.executor_statistics(), without.executor_statistics()
    for k in range(len(CHAINS)):
        w, wo = s_with[f"dec{k}"]["real_memory_size"], s_without[f"dec{k}"]["real_memory_size"]
        assert len(w) == 2 and len(wo) == 1
        assert w[0] < wo[0], CHAINS[k]


def test_composes_with_scaled_decode(photos):
    # resize_shorter=96 of ~500x375 photos: scaled decode picks 1/2 or 1/4; ROI decode then takes its
    # window of that scaled image, so the result is the scaled-decode result, not the full-scale one.
    chains = [("RGB", dict(resize_shorter=96), 64, "crop", None)]
    files = photos[:64]
    scaled_roi = validation_pipe(files, True, True, chains=chains)
    scaled_only = validation_pipe(files, False, True, chains=chains)
    full_roi = validation_pipe(files, True, False, chains=chains)
    a, b, c = (arrays(p.run()[0]) for p in (scaled_roi, scaled_only, full_roi))
    assert all(u.tobytes() == v.tobytes() for u, v in zip(a, b))
    assert any(u.tobytes() != w.tobytes() for u, w in zip(a, c))  # scaled decode did apply
    # Less decoded with both passes than with scaled decode alone or ROI decode alone.
    bytes_of = lambda p: p.executor_statistics()["dec0"]["real_memory_size"][0]  # noqa: E731
    assert bytes_of(scaled_roi) < bytes_of(scaled_only)
    assert bytes_of(scaled_roi) < bytes_of(full_roi)


def test_off_switch_and_a_returned_decoder_output_decode_whole_images(photos):
    files = photos[:8]

    def pipe(roi, return_decoded):
        p = sluice.Pipeline(batch_size=8, num_threads=2, seed=0, enable_memory_stats=True)
        with p:
            jpegs, _ = fn.readers.file(files=files)
            # scaled_decode off: returning the decoded images turns it off too (it would change them)
            images = fn.decoders.image(jpegs, roi_decode=roi, scaled_decode=False, name="dec")
            out = fn.crop(fn.resize(images, resize_shorter=128), crop=(112, 112))
            p.set_outputs(out, images) if return_decoded else p.set_outputs(out)
        p.build()
        return p

    on, off, returned = pipe(True, False), pipe(False, False), pipe(True, True)
    a, b, (c, decoded) = on.run(), off.run(), returned.run()
    assert [u.tobytes() for u in arrays(a[0])] == [u.tobytes() for u in arrays(b[0])]
    assert [u.tobytes() for u in arrays(a[0])] == [u.tobytes() for u in arrays(c)]
    assert len(off.executor_statistics()["dec"]["real_memory_size"]) == 1  # off: no window output
    assert len(on.executor_statistics()["dec"]["real_memory_size"]) == 2
    assert len(returned.executor_statistics()["dec"]["real_memory_size"]) == 1  # stepped aside
    whole = arrays(decoded)
    reference = sluice.Pipeline(batch_size=8, num_threads=1, seed=0)
    with reference:
        jpegs, _ = fn.readers.file(files=files)
        reference.set_outputs(fn.decoders.image(jpegs, roi_decode=False))
    reference.build()
    for u, v in zip(whole, arrays(reference.run()[0])):
        assert u.shape == v.shape and u.tobytes() == v.tobytes()  # the whole image, not the window


def test_png_and_other_formats_decode_whole_and_match():
    files = [str(IMAGES / n) for n in ("palette.png", "gray.png", "gray8.bmp", "gray.pgm", "photo_500x375.jpg")]
    chains = [("RGB", dict(resize_shorter=64), 48, "cmn", types.FLOAT)]
    a = validation_pipe(files, True, False, batch_size=len(files), chains=chains)
    b = validation_pipe(files, False, False, batch_size=len(files), chains=chains)
    assert [u.tobytes() for u in arrays(a.run()[0])] == [u.tobytes() for u in arrays(b.run()[0])]
