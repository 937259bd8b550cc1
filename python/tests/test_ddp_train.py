"""examples/ddp_train.py under the torch.distributed launcher: 2 ranks, gloo on CPU, DDP ResNet-18.

Builds a small sample set (scripts/make_sample_data.sh: 3 classes x 15 images, so the 2 shards hold
22 and 23 samples and pad_last_batch pads one of them), trains 20 steps of 8 per rank and checks
from each rank's --log-samples file that every rank ran the same steps, that the ranks' samples of
each epoch are disjoint and cover the data set (the padding never reaches the model), and that the
loss went down. The run is deterministic (fixed seeds, one thread per rank). About 40 s on 2 cores.
"""
import collections
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")  # Debian's python3-torch: in the test venv (--system-site-packages)
pytest.importorskip("torchvision")
import torch.distributed  # noqa: E402

from conftest import SLUICE_PYTHONPATH  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLASSES, PER_CLASS, BATCH, STEPS, WORLD = 3, 15, 8, 20, 2


def launcher_workaround():
    """torch 1.13's launcher on Python 3.11 (Debian 12) reads --redirects/--tee "0" as None and fails
    ('NoneType' object has no attribute 'get'); a non-zero value works on every version."""
    return ["--redirects", "1", "--tee", "1"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    # SLUICE_DDP_DATA: the same set made beforehand with these arguments (scripts/test_wheel_matrix.sh
    # makes it on the host, whose Debian 12 photo packages and Pillow the set is cut with, for a chroot).
    if os.environ.get("SLUICE_DDP_DATA"):
        return pathlib.Path(os.environ["SLUICE_DDP_DATA"])
    d = tmp_path_factory.mktemp("ddp_data")
    subprocess.run(["bash", str(ROOT / "scripts" / "make_sample_data.sh"), "--force", "--classes", str(CLASSES),
                    "--per-class", str(PER_CLASS), "--shard-size", "16", str(d)],
                   check=True, stdout=subprocess.DEVNULL, timeout=300,
                   # No apt-get from a test: scripts/install_deps.sh (make test) installs the photo
                   # packages; without them the script names what is missing and this test fails.
                   env=dict(os.environ, SLUICE_SAMPLE_DATA_NO_APT="1"))
    return d


@pytest.fixture(scope="module")
def run(dataset, tmp_path_factory):
    assert torch.distributed.is_available() and torch.distributed.is_gloo_available()
    out = tmp_path_factory.mktemp("ddp_run")
    # torch >= 2.4's TCPStore uses libuv by default, and Debian's torch (2.6 in Debian 13) is built
    # without it ("use_libuv was requested but PyTorch was build without libuv support"). The
    # launcher's own stores ignore USE_LIBUV (--standalone's c10d rendezvous, the static one and the
    # TCPStore it shares with the ranks are made without the argument), so its rendezvous goes through
    # a FileStore (store_type=file), TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 keeps it from serving a
    # TCPStore to the ranks, and the ranks' own env:// store reads USE_LIBUV=0. Older torch ignores
    # both variables.
    env = dict(os.environ, PYTHONPATH=SLUICE_PYTHONPATH, OMP_NUM_THREADS="1", USE_LIBUV="0",
               TORCH_DISABLE_SHARE_RDZV_TCP_STORE="1")
    env.pop("SLUICE_DATA", None)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--rdzv_backend", "c10d",
           "--rdzv_endpoint", str(out / "rendezvous"), "--rdzv_conf", "store_type=file",
           "--nproc_per_node", str(WORLD),
           "--log_dir", str(out / "logs"), *launcher_workaround(),
           str(ROOT / "examples" / "ddp_train.py"), "--data", str(dataset), "--steps", str(STEPS),
           "--batch-size", str(BATCH), "--log-samples", str(out / "samples")]
    p = subprocess.run(cmd, env=env, cwd=out, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    logs = {}
    for rank in range(WORLD):
        lines = (out / f"samples.rank{rank}").read_text().splitlines()
        logs[rank] = [json.loads(line) for line in lines]
    return p.stdout + p.stderr, logs


def all_files(dataset):
    return {f"{c.name}/{f.name}" for c in (dataset / "train").iterdir() for f in c.glob("*.jpg")}


def test_both_ranks_finish_the_same_steps(run):
    output, logs = run
    for rank in range(WORLD):
        assert f"rank {rank}/{WORLD}: finished {STEPS} steps" in output, output[-3000:]
        assert [r["step"] for r in logs[rank]] == list(range(1, STEPS + 1))
    # Same epochs at the same steps: pad_last_batch gives every shard ceil(ceil(N / 2) / 8) batches.
    per_epoch = math.ceil(math.ceil(CLASSES * PER_CLASS / WORLD) / BATCH)
    for rank in range(WORLD):
        assert [r["epoch"] for r in logs[rank]] == [(s - 1) // per_epoch for s in range(1, STEPS + 1)]


def test_each_epoch_is_split_between_the_ranks(run, dataset):
    _, logs = run
    files = all_files(dataset)
    assert len(files) == CLASSES * PER_CLASS
    epochs = collections.defaultdict(lambda: {r: [] for r in range(WORLD)})
    for rank in range(WORLD):
        for r in logs[rank]:
            assert 0 < len(r["samples"]) <= BATCH
            epochs[r["epoch"]][rank].extend(r["samples"])
    per_epoch = math.ceil(math.ceil(CLASSES * PER_CLASS / WORLD) / BATCH)
    complete = [e for e in epochs if sum(1 for r in logs[0] if r["epoch"] == e) == per_epoch]
    assert len(complete) == STEPS // per_epoch >= 2
    for e, seen in epochs.items():
        for rank in range(WORLD):
            # No sample twice in one epoch of one rank: the padding (the shard's last sample repeated)
            # is trimmed by LastBatchPolicy.PARTIAL.
            assert len(seen[rank]) == len(set(seen[rank])), (e, rank)
            assert set(seen[rank]) <= files
        assert not set(seen[0]) & set(seen[1]), e
        if e in complete:
            assert set(seen[0]) | set(seen[1]) == files, e
            assert sorted(len(s) for s in seen.values()) == [22, 23], e
    # The shards move between the ranks from one epoch to the next (stick_to_shard=False).
    assert set(epochs[0][0]) != set(epochs[1][0])


def test_the_loss_goes_down(run):
    output, logs = run
    losses = [r["loss"] for r in logs[0]]
    assert losses == [r["loss"] for r in logs[1]]  # the loss logged is the mean over the ranks
    # The classifier starts at zero: the first loss is ln(classes) exactly.
    assert losses[0] == pytest.approx(math.log(CLASSES), abs=1e-4)
    assert losses[-1] < losses[0], losses
    assert f"step {STEPS}/{STEPS}: loss {losses[-1]:.4f}" in output
