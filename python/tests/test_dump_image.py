"""dump_image writes DALI's files: the expected bytes below are what DALI 2.4.0's fn.dump_image wrote
for the same two images (ASCII PPM/PGM named <sample>-<suffix>-0.ppm in the working directory);
Pillow reads a dumped photograph back equal to it; the images pass through unchanged."""
import os

import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, pipeline_def

IMAGES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images")
# DALI 2.4.0's files for np.arange(18).reshape(2, 3, 3) and np.full((2, 2, 1), 7), suffix "dbg".
DALI_FILES = {
    "0-dbg-0.ppm": b"P3\n3 2\n255\n0 1 2 3 4 5 6 7 8 \n9 10 11 12 13 14 15 16 17 \n",
    "1-dbg-0.ppm": b"P2\n2 2\n255\n7 7 \n7 7 \n",
}


def run(images, tmp_path, monkeypatch, **kwargs):
    monkeypatch.chdir(tmp_path)

    @pipeline_def(batch_size=len(images), num_threads=2, device_id=None)
    def pipe():
        return fn.dump_image(fn.external_source(source=lambda: images, batch=True, layout="HWC"), **kwargs)

    p = pipe()
    p.build()
    return p.run()[0]


def test_files_are_dalis_and_images_pass_through(tmp_path, monkeypatch):
    images = [np.arange(18, dtype=np.uint8).reshape(2, 3, 3), np.full((2, 2, 1), 7, np.uint8)]
    out = run(images, tmp_path, monkeypatch, suffix="dbg")
    for name, expected in DALI_FILES.items():
        assert (tmp_path / name).read_bytes() == expected
    for i, a in enumerate(images):
        np.testing.assert_array_equal(out.at(i), a)


def test_a_photograph_reads_back_with_pillow(tmp_path, monkeypatch):
    photo = np.asarray(Image.open(os.path.join(IMAGES, "photo_500x375.jpg")).convert("RGB"))[:60, :80].copy()
    run([photo], tmp_path, monkeypatch)
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "0--0.ppm")), photo)


def test_only_gray_and_rgb_images(tmp_path, monkeypatch):
    with pytest.raises(sluice.SluiceError, match="3-channel and gray"):
        run([np.zeros((2, 2, 4), np.uint8)], tmp_path, monkeypatch)
    with pytest.raises(sluice.ArgumentError, match="input_layout"):
        fn.dump_image(fn.external_source(source=lambda: [], batch=True), input_layout="CHW")
