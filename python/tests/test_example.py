"""examples/pytorch_imagenet.py trains a few steps on a tiny generated ImageNet-style folder."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SLUICE_PYTHONPATH, registered

PIL = pytest.importorskip("PIL.Image")
NEEDED = ["readers.file", "decoders.image_random_crop", "resize", "crop_mirror_normalize", "random.coin_flip"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def make_dataset(root, seed):
    """3 class folders of 4 random JPEGs under `root`; returns the environment to run an example in."""
    rng = np.random.default_rng(seed)
    for c in range(3):
        (root / f"class{c}").mkdir()
        for i in range(4):
            pixels = rng.integers(0, 255, size=(40 + 8 * i, 48, 3), dtype=np.uint8)
            PIL.fromarray(pixels).save(root / f"class{c}" / f"{i}.jpg", quality=90)
    env = {**os.environ, "PYTHONPATH": SLUICE_PYTHONPATH}
    env.pop("RANK", None)
    env.pop("WORLD_SIZE", None)
    return env


@pytest.mark.skipif(not all(registered(op) for op in NEEDED), reason="the image operators are not registered")
def test_example_trains_a_few_steps(tmp_path):
    env = make_dataset(tmp_path, seed=0)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pytorch_imagenet.py"), str(tmp_path),
                             "--steps", "2", "--batch-size", "4", "--crop", "32", "--threads", "1"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "3 classes, 12 images" in result.stdout
    assert "step 2/2: loss" in result.stdout


def test_randaugment_mixup_example_trains_a_few_steps(tmp_path):
    """examples/randaugment_mixup_train.py: RandAugment + MixUp in the pipeline, soft targets."""
    env = make_dataset(tmp_path, seed=1)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "randaugment_mixup_train.py"), str(tmp_path),
                             "--steps", "2", "--batch-size", "4", "--crop", "32", "--threads", "1"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "3 classes, 12 images, RandAugment n=2 m=9" in result.stdout
    assert "step 2/2: loss" in result.stdout
    assert "busiest operators" in result.stdout


def test_speech_example_trains_a_few_steps(tmp_path):
    """examples/speech_features.py: DALI's ASR pipeline (nemo_asr ... pad) into a small torch model."""
    pytest.importorskip("soundfile")
    pytest.importorskip("soxr")
    env = {**os.environ, "PYTHONPATH": SLUICE_PYTHONPATH}
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_speech_data.py"), str(tmp_path), "--count", "12",
                    "--seconds", "1.5", "3"], check=True, capture_output=True, env=env)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "speech_features.py"), str(tmp_path),
                             "--steps", "6", "--batch-size", "4", "--threads", "2"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if line.startswith("step ")]
    assert len(steps) == 6 and all("features (4, 64, " in s for s in steps), result.stdout
    losses = [float(s.rsplit("loss ", 1)[1]) for s in steps]
    assert losses[-1] < losses[0], losses  # 12 utterances: 3 batches per epoch, so two epochs and a reset
    assert "speech_features: OK" in result.stdout
