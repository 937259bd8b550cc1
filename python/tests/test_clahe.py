"""clahe against OpenCV's cv2.createCLAHE (what DALI's CPU clahe calls) on photographs: gray,
per-channel (luma_only=False) and RGB luma_only images (OpenCV's 8-bit RGB2Lab -> CLAHE on L ->
Lab2RGB, as DALI) bit-exact, for tile grids that divide the image and grids that do not (OpenCV's
reflected padding). OpenCV 4.6 (installed here) and 5.0 (DALI 2.4's) give the same bytes for all of
these; the DALI goldens (test_dali_goldens_image.py) check the same against DALI itself."""
import os

import cv2
import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, pipeline_def

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PHOTOS = [os.path.join(ROOT, "tests", "data", "images", "photo_500x375.jpg"),
          os.path.join(ROOT, "tests", "data", "images", "s420.jpg")]
GRIDS = [(8, 8, 2.0), (7, 5, 3.0), (4, 4, 40.0), (16, 3, 1.0), (1, 1, 0.0), (3, 9, 0.5)]


def run(images, threads=1, **kwargs):
    layout = "HWC" if images[0].ndim == 3 else "HW"

    @pipeline_def(batch_size=len(images), num_threads=threads, device_id=None)
    def pipe():
        return fn.clahe(fn.external_source(source=lambda: images, batch=True, layout=layout), **kwargs)

    p = pipe()
    p.build()
    out = p.run()[0]
    return [out.at(i) for i in range(len(images))]


def opencv(gray, tx, ty, clip):
    return cv2.createCLAHE(clipLimit=clip, tileGridSize=(tx, ty)).apply(np.ascontiguousarray(gray))


@pytest.mark.parametrize("tx, ty, clip", GRIDS)
def test_gray_and_per_channel_are_bit_exact_with_opencv(tx, ty, clip):
    rgb = [np.asarray(Image.open(p).convert("RGB")) for p in PHOTOS]
    gray = [np.asarray(Image.open(p).convert("L")) for p in PHOTOS]
    for ours, g in zip(run(gray, tiles_x=tx, tiles_y=ty, clip_limit=clip), gray):
        np.testing.assert_array_equal(ours, opencv(g, tx, ty, clip))
    for ours, im in zip(run(rgb, tiles_x=tx, tiles_y=ty, clip_limit=clip, luma_only=False), rgb):
        np.testing.assert_array_equal(ours, np.stack([opencv(im[..., c], tx, ty, clip) for c in range(3)], -1))


@pytest.mark.parametrize("tx, ty, clip", GRIDS)
def test_luma_only_is_bit_exact_with_opencvs_8bit_lab_lightness(tx, ty, clip):
    rgb = [np.asarray(Image.open(p).convert("RGB")) for p in PHOTOS]
    rgb.append(np.random.default_rng(5).integers(0, 256, (61, 83, 3), dtype=np.uint8))  # every kind of colour
    for ours, im in zip(run(rgb, tiles_x=tx, tiles_y=ty, clip_limit=clip), rgb):
        lab = cv2.cvtColor(im, cv2.COLOR_RGB2Lab)
        lab[..., 0] = opencv(lab[..., 0], tx, ty, clip)
        np.testing.assert_array_equal(ours, cv2.cvtColor(lab, cv2.COLOR_Lab2RGB))


def test_same_for_any_thread_count():
    gray = [np.asarray(Image.open(p).convert("L")) for p in PHOTOS] * 3
    assert all(np.array_equal(a, b) for a, b in zip(run(gray, 1, tiles_x=8, tiles_y=8, clip_limit=2.0),
                                                   run(gray, 3, tiles_x=8, tiles_y=8, clip_limit=2.0)))


def test_bad_input_and_arguments():
    with pytest.raises(sluice.SluiceError, match="1 or 3 channels"):
        run([np.zeros((8, 8, 4), np.uint8)], tiles_x=2, tiles_y=2, clip_limit=2.0)
    data = fn.external_source(source=lambda: [], batch=True)
    with pytest.raises(sluice.ArgumentError, match="tiles_x"):
        fn.clahe(data, tiles_x=0, tiles_y=2, clip_limit=2.0)
    with pytest.raises(sluice.ArgumentError, match="bins"):
        fn.clahe(data, tiles_x=2, tiles_y=2, clip_limit=2.0, bins=100)
    with pytest.raises(sluice.ArgumentError, match="clip_limit"):
        fn.clahe(data, tiles_x=2, tiles_y=2)
