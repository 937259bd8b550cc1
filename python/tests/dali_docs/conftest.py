"""Local stand-ins for the data DALI's documentation examples download.

DALI's notebooks read `docs/examples/data/images` (a `dog/` and a `kitten/` folder of JPEGs and a
`file_list.txt` of "path label" lines), `DALI_EXTRA_PATH` (TFRecord, RecordIO, LMDB, COCO, WAV files)
and the like. The fixtures here make small equivalents in a temporary folder, once per session, so
that every example keeps its own structure and arguments and only its paths change.
"""
import json
import os

import numpy as np
import pytest

from PIL import Image

from ._formats import write_wav


def _pattern_image(w, h, seed):
    """An RGB image with gradients and a few blocks: varied content that JPEG keeps recognisable."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.empty((h, w, 3), np.float32)
    img[..., 0] = 255 * x / max(w - 1, 1)
    img[..., 1] = 255 * y / max(h - 1, 1)
    img[..., 2] = 128 + 100 * np.sin((x + y) / 7.0 + seed)
    for _ in range(3):
        x0, y0 = rng.integers(0, w // 2), rng.integers(0, h // 2)
        img[y0:y0 + h // 4, x0:x0 + w // 4] = rng.integers(0, 256, 3)
    return np.clip(img, 0, 255).astype(np.uint8)


# (folder, name, width, height): a dog/kitten split as in DALI's docs/examples/data/images
IMAGE_SPECS = [
    ("dog", "dog_1.jpg", 64, 48), ("dog", "dog_2.jpg", 80, 60), ("dog", "dog_3.jpg", 48, 64),
    ("dog", "dog_4.jpg", 72, 56), ("kitten", "cat_1.jpg", 60, 80), ("kitten", "cat_2.jpg", 64, 64),
    ("kitten", "cat_3.jpg", 96, 72), ("kitten", "cat_4.jpg", 56, 40),
]


@pytest.fixture(scope="session")
def image_dir(tmp_path_factory):
    """`docs/examples/data/images`: dog/*.jpg (label 0), kitten/*.jpg (label 1), file_list.txt."""
    root = tmp_path_factory.mktemp("images")
    lines = []
    for i, (folder, name, w, h) in enumerate(IMAGE_SPECS):
        (root / folder).mkdir(exist_ok=True)
        Image.fromarray(_pattern_image(w, h, i)).save(root / folder / name, quality=95)
        lines.append(f"{folder}/{name} {0 if folder == 'dog' else 1}")
    (root / "file_list.txt").write_text("\n".join(lines) + "\n")
    return str(root)


@pytest.fixture(scope="session")
def image_files(image_dir):
    """[(path, label, (h, w))] of the images in image_dir, in file_list.txt order."""
    out = []
    for folder, name, w, h in IMAGE_SPECS:
        out.append((os.path.join(image_dir, folder, name), 0 if folder == "dog" else 1, (h, w)))
    return out


@pytest.fixture(scope="session")
def speech_dir(tmp_path_factory):
    """Short 16 kHz WAVs standing in for DALI_EXTRA's `db/audio/wav` speech clips: a tone burst
    between stretches of silence, so that nonsilent_region and the spectrograms have structure."""
    root = tmp_path_factory.mktemp("wav")
    rate = 16000
    files = []
    for i, (freq, dur) in enumerate([(440.0, 0.5), (880.0, 0.4), (660.0, 0.6)]):
        n = int(rate * dur)
        t = np.arange(n) / rate
        sig = np.zeros(n)
        on = slice(n // 4, 3 * n // 4)
        sig[on] = 0.5 * np.sin(2 * np.pi * freq * t[on])
        path = root / f"clip_{i}.wav"
        write_wav(path, (sig * 32767).astype(np.int16), rate)
        files.append(str(path))
    return files


@pytest.fixture(scope="session")
def coco_dir(tmp_path_factory):
    """A COCO-style dataset (images + instances JSON with bboxes, categories and polygons) standing
    in for DALI_EXTRA's `db/coco`."""
    root = tmp_path_factory.mktemp("coco")
    (root / "images").mkdir()
    images, annotations = [], []
    ann_id = 1
    sizes = [(64, 48), (80, 60), (72, 72), (96, 64)]
    for i, (w, h) in enumerate(sizes):
        name = f"{i:012d}.jpg"
        Image.fromarray(_pattern_image(w, h, 10 + i)).save(root / "images" / name, quality=95)
        images.append({"id": i + 1, "file_name": name, "width": w, "height": h})
        for k in range(1 + i % 3):
            x, y, bw, bh = 4 + 6 * k, 5 + 4 * k, w // 3, h // 4
            annotations.append({
                "id": ann_id, "image_id": i + 1, "category_id": 1 + (k % 2), "iscrowd": 0,
                "bbox": [x, y, bw, bh], "area": bw * bh,
                "segmentation": [[x, y, x + bw, y, x + bw, y + bh, x, y + bh]],
            })
            ann_id += 1
    categories = [{"id": 1, "name": "dog", "supercategory": "animal"},
                  {"id": 2, "name": "cat", "supercategory": "animal"}]
    ann_file = root / "instances.json"
    ann_file.write_text(json.dumps({"images": images, "annotations": annotations, "categories": categories}))
    return {"file_root": str(root / "images"), "annotations_file": str(ann_file), "images": images,
            "annotations": annotations}
