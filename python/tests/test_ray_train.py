"""examples/ray_train.py: Ray Train's TorchTrainer, 2 CPU workers, 10 steps of a ResNet-18 fed by sluice.ray
on a local Ray cluster of 2 CPUs (its own, started by the example); the loss falls."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("ray.train.torch")
pytest.importorskip("torchvision")

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
sys.path.insert(0, str(TESTS))
import ray_helpers as h  # noqa: E402


def test_torch_trainer_two_workers_ten_steps_loss_falls(tmp_path):
    shards = tmp_path / "shards"
    shards.mkdir()
    h.make_shards(str(shards), shards=8, per_shard=16, classes=4)
    result = tmp_path / "result.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "RAY_DEDUP_LOGS": "0"}
    cmd = [sys.executable, str(ROOT / "examples" / "ray_train.py"), "--shards", str(shards), "--workers", "2",
           "--cpus-per-worker", "0.5", "--actors", "1", "--steps", "10", "--batch-size", "8", "--image-size", "32",
           "--num-cpus", "2", "--object-store-mb", "150", "--storage", str(tmp_path / "train"),
           "--result", str(result)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=420)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = json.loads(result.read_text())
    losses = out["losses"]
    assert len(losses) == 10
    assert abs(losses[0] - 1.3863) < 1e-3  # ln(4): the zero-initialised classifier's first loss
    assert sum(losses[-3:]) / 3 < 0.8 * sum(losses[:3]) / 3, losses
    stats = out["statistics"]["total"]
    assert stats["images"] >= 2 * 10 * 8 and stats["images_per_s"] > 0
    assert out["data_images_seen_by_trainer"] > 0  # statistics() answered on a Ray Train worker
