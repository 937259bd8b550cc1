"""sluice.ray.from_pipeline on a local Ray cluster: exactly once per epoch across consumers, determinism,
epochs, resume, statistics, faults (an actor killed mid-shard, an actor that always dies, a bad shard,
a pipeline function that cannot be pickled).

8 shards of 10 samples (batches of 4, 4, 2), 2 actors, 2 consumers; each sample's label is its id."""
import collections
import functools
import os
import pathlib
import sys
import threading

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

import sluice.ray  # noqa: E402
from sluice.ray import EpochTracker  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ray_helpers as h  # noqa: E402

IDS = list(range(h.SHARDS * h.PER_SHARD))
TESTS = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of 2 CPUs whose workers import sluice and ray_helpers (absolute PYTHONPATH)."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), str(TESTS)] + ([old] if old else []))
    ray.init(num_cpus=2, object_store_memory=150 * 2**20, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()
    if old is None:
        del os.environ["PYTHONPATH"]
    else:
        os.environ["PYTHONPATH"] = old


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    return h.make_shards(str(tmp_path_factory.mktemp("shards")))


def dataset(shards, **kw):
    kw.setdefault("actors", 2)
    kw.setdefault("seed", 7)
    return sluice.ray.from_pipeline(h.pipeline, shards, output_names=["image", "label"], cpus_per_actor=1,
                                    postprocess=h.labels_to_int, **kw)


def consume_split(ds, n=2):
    """Rows per consumer of ds.streaming_split(n, equal=True), each consumer on its own thread (as
    trainers are): [[batch dict, ...] per consumer]."""
    its = ds.streaming_split(n, equal=True)
    out = [[] for _ in range(n)]
    errors = []

    def consume(i):
        try:
            out[i].extend(its[i].iter_batches(batch_size=None))
        except Exception as e:  # re-raised below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=consume, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads), "a consumer hung"
    if errors:
        raise errors[0]
    return out


def column(batches, name):
    return np.concatenate([b[name] for b in batches]) if batches else np.zeros(0, np.int64)


def per_shard_order(batches):
    """{shard: [labels in read order]} from the rows' sample keys (shard << 32 | position)."""
    keys = column(batches, "sample_key")
    labels = column(batches, "label")
    shard, pos = sluice.ray.split_key(keys)
    order = collections.defaultdict(dict)
    for s, p, lab in zip(shard.tolist(), pos.tolist(), labels.tolist()):
        order[s][p] = lab
    return {s: [d[p] for p in sorted(d)] for s, d in order.items()}


def test_import_sluice_does_not_import_ray():
    import subprocess
    code = "import sys, sluice; assert 'ray' not in sys.modules, 'ray imported'; print('ok')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(TESTS.parent)})
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_two_actors_two_consumers_every_sample_once(cluster, shards):
    parts = consume_split(dataset(shards))
    labels = [column(p, "label") for p in parts]
    assert all(len(lab) for lab in labels), "a consumer got nothing"
    assert sorted(np.concatenate(labels).tolist()) == IDS  # every sample exactly once across consumers
    # equal=True: the consumers get the same number of rows (80 splits evenly, so nothing is dropped)
    assert len(labels[0]) == len(labels[1]) == len(IDS) // 2
    # The keys identify the samples: (shard, position) is unique and the label's shard is the key's.
    keys = np.concatenate([column(p, "sample_key") for p in parts])
    assert len(set(keys.tolist())) == len(IDS)
    shard, pos = sluice.ray.split_key(keys)
    assert (np.concatenate(labels) // h.PER_SHARD == shard).all() and pos.max() == h.PER_SHARD - 1
    image = parts[0][0]["image"]
    assert image.dtype == np.uint8 and image.shape[1:] == (h.SIZE, h.SIZE, 3)


def test_same_seed_same_content_other_epoch_other_order(cluster, shards):
    a = list(dataset(shards, seed=3).iter_batches(batch_size=None))
    b = list(dataset(shards, seed=3, actors=1).iter_batches(batch_size=None))  # any actor count
    c = list(dataset(shards, seed=3, epoch=1).iter_batches(batch_size=None))
    order_a, order_b, order_c = per_shard_order(a), per_shard_order(b), per_shard_order(c)
    assert sorted(column(a, "label").tolist()) == sorted(column(b, "label").tolist()) == IDS
    assert order_a == order_b  # the same order within every shard
    # the same images too (the random crops derive from the same seeds)
    img_a = {int(k): im for k, im in zip(column(a, "sample_key"), column(a, "image"))}
    img_b = {int(k): im for k, im in zip(column(b, "sample_key"), column(b, "image"))}
    assert all(np.array_equal(img_a[k], img_b[k]) for k in img_a)
    assert sorted(column(c, "label").tolist()) == IDS
    assert order_c != order_a  # another epoch: another order within the shards...
    assert sluice.ray.shard_order(3, 1, h.SHARDS) != sluice.ray.shard_order(3, 0, h.SHARDS)  # ...and of them
    assert sorted(sluice.ray.shard_order(3, 0, h.SHARDS)) == list(range(h.SHARDS))
    assert (column(c, "epoch") == 1).all()


def test_preserve_order_follows_the_epochs_shard_order(cluster, shards):
    rows = list(dataset(shards, seed=5, epochs=2, preserve_order=True).iter_batches(batch_size=None))
    keys, epochs = column(rows, "sample_key"), column(rows, "epoch")
    expected = [(e, s) for e in (0, 1) for s in sluice.ray.shard_order(5, e, h.SHARDS)]
    seen = []
    for e, s in zip(epochs.tolist(), sluice.ray.split_key(keys)[0].tolist()):
        if not seen or seen[-1] != (e, s):
            seen.append((e, s))
    assert seen == expected
    for e in (0, 1):
        assert sorted(column(rows, "label")[epochs == e].tolist()) == IDS


def test_resume_from_a_partial_epoch_delivers_the_rest_exactly(cluster, shards):
    ds = dataset(shards, seed=9)
    tracker = EpochTracker()
    taken = []
    for batch in ds.iter_batches(batch_size=None):
        batch = tracker.filter(batch)
        taken.extend(batch["label"].tolist())
        if len(taken) >= 35:  # stop mid-epoch: some shards complete, one partly read
            break
    sizes = [h.PER_SHARD] * h.SHARDS
    state = EpochTracker.merge([tracker.state(shard_sizes=sizes)])
    assert state["complete"] and state["partial"] or len(taken) % h.PER_SHARD == 0
    rest = list(dataset(shards, seed=9, resume=state).iter_batches(batch_size=None))
    rest_labels = column(rest, "label").tolist()
    assert sorted(taken + rest_labels) == IDS  # nothing lost, nothing twice
    # the resumed rows are the ones the uninterrupted epoch had at those keys (same seed, same order)
    full = {int(k): int(v) for b in dataset(shards, seed=9).iter_batches(batch_size=None)
            for k, v in zip(b["sample_key"], b["label"])}
    assert all(full[int(k)] == v for k, v in zip(column(rest, "sample_key"), rest_labels))


def test_statistics_per_actor(cluster, shards):
    sluice.ray.statistics("stats_test", clear=True) if _has_stats("stats_test") else None
    n = sum(len(b["label"]) for b in dataset(shards, stats_name="stats_test").iter_batches(batch_size=None))
    stats = sluice.ray.statistics("stats_test")
    assert stats["total"]["images"] == n == len(IDS)
    assert stats["total"]["shards"] == h.SHARDS and stats["total"]["batches"] == 3 * h.SHARDS
    assert 1 <= len(stats["actors"]) <= 2
    for s in stats["actors"].values():
        assert s["images_per_s"] > 0 and s["ray_ms_per_batch"] >= 0 and s["pipeline_s"] <= s["wall_s"]


def _has_stats(name):
    try:
        sluice.ray.statistics(name)
        return True
    except ValueError:
        return False


def test_actor_killed_mid_shard_still_yields_every_sample(cluster, shards, tmp_path):
    marker = str(tmp_path / "killed")
    ds = sluice.ray.from_pipeline(h.pipeline, shards, output_names=["image", "label"], actors=2, seed=11,
                                  cpus_per_actor=1, postprocess=h.KillOnce(marker, after=2))
    # One Ray block per Sluice batch (4 rows of ~0.8 kB; Ray's default merges up to 128 MiB), so the
    # killed run has handed its first batch to Ray before it dies.
    ds.context.target_max_block_size = 2500
    parts = consume_split(ds)
    assert max(len(b["label"]) for p in parts for b in p) <= h.BATCH
    assert os.path.exists(marker), "the fault was not injected"
    trackers = [EpochTracker() for _ in parts]
    kept = [[t.filter(b) for b in p] for t, p in zip(trackers, parts)]
    raw = np.concatenate([column(p, "label") for p in parts])
    labels = np.concatenate([column(p, "label") for p in kept])
    # Every sample arrives. Ray 2.60 replays the killed shard's task and drops the outputs the first
    # run had already reported (by their index in the generator: the replay must yield the same
    # blocks, which the per-(seed, epoch, shard) seeds make so), so no row arrives twice; the trackers
    # are the guard should one (per consumer: filter; across consumers: merged keys).
    assert set(raw.tolist()) == set(IDS)
    assert len(raw) == len(IDS), f"{len(raw) - len(IDS)} rows delivered twice"
    merged = set().union(*(t.keys(0) for t in trackers))
    assert len(merged) == len(IDS)
    dups_across = len(labels) - len(set(labels.tolist()))
    print(f"rows delivered {len(raw)}, after per-consumer filtering {len(labels)}, "
          f"repeats across consumers {dups_across}")


def test_actor_that_always_dies_fails_after_the_retry_budget(cluster, shards):
    ds = sluice.ray.from_pipeline(h.pipeline, shards[:2], output_names=["image", "label"], actors=1, seed=1,
                                  cpus_per_actor=1, postprocess=h.AlwaysDie(), max_restarts=1, max_task_retries=1)
    result = {}

    def consume():
        try:
            list(ds.iter_batches(batch_size=None))
            result["error"] = None
        except Exception as e:
            result["error"] = e

    t = threading.Thread(target=consume)
    t.start()
    t.join(timeout=180)
    assert not t.is_alive(), "iteration hung after the actor's retry budget"
    assert result["error"] is not None
    assert "died" in str(result["error"]).lower() or "actor" in str(result["error"]).lower(), result["error"]


def test_unreadable_shard_names_the_shard_and_actor(cluster, shards, tmp_path):
    bad = tmp_path / "shard-bad.tar"
    good = pathlib.Path(shards[0]).read_bytes()
    bad.write_bytes(good[: len(good) // 2])  # truncated mid-archive
    (tmp_path / "shard-bad.idx").write_bytes(pathlib.Path(shards[0][:-4] + ".idx").read_bytes())
    ds = sluice.ray.from_pipeline(h.pipeline, [str(bad)], output_names=["image", "label"], actors=1, seed=1,
                                  cpus_per_actor=1, postprocess=h.labels_to_int)
    with pytest.raises(Exception) as e:
        list(ds.iter_batches(batch_size=None))
    msg = str(e.value)
    assert "shard 0" in msg and "shard-bad.tar" in msg and "actor" in msg and "pid" in msg, msg
    missing = sluice.ray.from_pipeline(h.pipeline, [str(tmp_path / "nope.tar")], output_names=["image", "label"],
                                       actors=1, cpus_per_actor=1)
    with pytest.raises(Exception) as e:
        list(missing.iter_batches(batch_size=None))
    assert "nope.tar" in str(e.value) and "could not be opened" in str(e.value), str(e.value)


def test_unpicklable_pipeline_function_fails_at_from_pipeline(shards):
    lock = threading.Lock()

    def uses_a_lock(shard, seed):
        with lock:
            return h.pipeline(shard, seed)

    with pytest.raises(TypeError, match="pipeline_fn 'test_unpicklable.*uses_a_lock' cannot be pickled"):
        sluice.ray.from_pipeline(uses_a_lock, shards, output_names=["image", "label"], cpus_per_actor=1)


def test_equal_split_drops_the_remainder_only(cluster, shards):
    # 80 rows over 3 consumers: 26 each, 2 rows dropped (equal=True drops, never pads or repeats)
    parts = consume_split(dataset(shards, seed=13), n=3)
    labels = [column(p, "label").tolist() for p in parts]
    assert [len(lab) for lab in labels] == [len(IDS) // 3] * 3
    everything = sum(labels, [])
    assert len(set(everything)) == len(everything) and set(everything) <= set(IDS)


def test_ragged_output_without_postprocess_is_an_error_naming_it(cluster, tmp_path):
    # one shard of ids 0..11, shuffled with a buffer of 64: a batch holds 1- and 2-digit ASCII labels
    mixed = h.make_shards(str(tmp_path), shards=1, per_shard=12)
    ds = sluice.ray.from_pipeline(functools.partial(h.pipeline, batch_size=12), mixed,
                                  output_names=["image", "label"], actors=1, cpus_per_actor=1)
    with pytest.raises(Exception, match="output 'label' is not dense"):
        list(ds.iter_batches(batch_size=None))
