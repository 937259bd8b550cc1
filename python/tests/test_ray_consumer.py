"""sluice.ray's trainer-side helpers without a cluster: EpochTracker (repeats, checkpoint state, merge),
normalize (uint8 HWC/CHW to normalised float CHW), the schedule's seeds and keys."""
import numpy as np
import pytest

pytest.importorskip("ray")
torch = pytest.importorskip("torch")

import sluice.ray  # noqa: E402
from sluice.ray import EpochTracker, schedule  # noqa: E402


def batch(epoch, shard, positions, labels=None):
    keys = np.array([schedule.sample_key(shard, p) for p in positions], np.int64)
    return {"epoch": np.full(len(positions), epoch, np.int32), "sample_key": keys,
            "label": np.array(labels if labels is not None else positions, np.int64)}


def test_tracker_drops_repeats_and_keeps_epochs_apart():
    t = EpochTracker()
    b = batch(0, 3, [0, 1, 2])
    assert t.filter(b) is b  # nothing dropped: the batch itself
    again = t.filter(batch(0, 3, [2, 3, 3, 4]))
    assert again["label"].tolist() == [3, 4]  # 2 seen before, the second 3 within the batch
    assert t.filter(batch(1, 3, [0, 1]))["label"].tolist() == [0, 1]  # another epoch: not repeats
    assert t.count(0) == 5 and t.count(1) == 2
    tb = {k: torch.as_tensor(v) for k, v in batch(0, 3, [4, 5]).items()}  # torch batches too
    assert t.filter(tb)["label"].tolist() == [5]


def test_tracker_state_and_merge():
    a, b = EpochTracker(), EpochTracker()
    a.filter(batch(0, 0, [0, 1, 2]))
    a.filter(batch(0, 1, [0]))
    b.filter(batch(0, 1, [1, 2]))
    b.filter(batch(0, 2, [5]))
    sizes = [3, 3, 10]
    merged = EpochTracker.merge([a.state(sizes), b.state(sizes)])
    # shard 0 complete on a; shard 1 split over a and b: partial in each state, its 3 rows in the merge
    assert [0, 0] in merged["complete"]
    assert merged["partial"]["0:1"] == [0, 1, 2] and merged["partial"]["0:2"] == [5]
    assert a.state()["partial"]["0:0"] == [0, 1, 2] and a.state()["complete"] == []


@pytest.mark.parametrize("layout", ["HWC", "CHW"])
def test_normalize(layout):
    rng = np.random.default_rng(0)
    hwc = rng.integers(0, 256, (2, 5, 7, 3), dtype=np.uint8)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    x = hwc if layout == "HWC" else np.ascontiguousarray(hwc.transpose(0, 3, 1, 2))
    out = sluice.ray.normalize(torch.as_tensor(x), mean, std, layout=layout, device="cpu")
    expected = (hwc.transpose(0, 3, 1, 2).astype(np.float32) - np.array(mean, np.float32)[:, None, None]) \
        / np.array(std, np.float32)[:, None, None]
    assert out.dtype == torch.float32 and tuple(out.shape) == (2, 3, 5, 7) and out.is_contiguous()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="layout"):
        sluice.ray.normalize(torch.as_tensor(x), mean, std, layout="NHWC")


def test_schedule_is_a_function_of_seed_epoch_shard():
    assert schedule.shard_order(1, 0, 100) == schedule.shard_order(1, 0, 100)
    assert sorted(schedule.shard_order(1, 0, 100)) == list(range(100))
    assert schedule.shard_order(1, 0, 100) != schedule.shard_order(2, 0, 100)
    seeds = {schedule.shard_seed(1, e, s) for e in range(4) for s in range(50)}
    assert len(seeds) == 200 and all(0 <= v < 2**31 for v in seeds)
    shard, pos = sluice.ray.split_key(np.array([schedule.sample_key(7, 123456)]))
    assert shard[0] == 7 and pos[0] == 123456
    with pytest.raises(ValueError):
        schedule.shard_seed(-1, 0, 0)
