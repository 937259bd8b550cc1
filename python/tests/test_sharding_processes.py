"""Two processes (RANK/WORLD_SIZE, as torchrun sets them) read disjoint shards covering the
dataset every epoch, following the shard rotation, with the same number of batches each."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import make_files, requires_file_reader

WORKER = textwrap.dedent("""
    import json, sys
    import sluice
    from sluice import fn
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy, shard_info

    files, policy, epochs = json.loads(sys.argv[1]), LastBatchPolicy[sys.argv[2]], int(sys.argv[3])
    shard_id, num_shards = shard_info()
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        _, label = fn.readers.file(files=files, labels=list(range(len(files))), shard_id=shard_id,
                                   num_shards=num_shards, pad_last_batch=True, name="Reader")
        pipe.set_outputs(label)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", last_batch_policy=policy, auto_reset=True)
    print(json.dumps([[b[0]["label"].ravel().tolist() for b in it] for _ in range(epochs)]))
""")


def run_workers(files, policy, world=2, epochs=3):
    root = os.path.join(os.path.dirname(__file__), "..")
    env_base = {**os.environ, "PYTHONPATH": os.path.abspath(root), "WORLD_SIZE": str(world)}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, json.dumps(files), policy, str(epochs)],
                              env={**env_base, "RANK": str(r)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for r in range(world)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


@requires_file_reader
@pytest.mark.parametrize("n", [10, 11])
def test_two_processes_read_disjoint_shards_covering_the_dataset(tmp_path, n):
    files = make_files(tmp_path, n)
    rank0, rank1 = run_workers(files, "PARTIAL")
    for epoch, (a, b) in enumerate(zip(rank0, rank1)):
        flat_a = [x for batch in a for x in batch]
        flat_b = [x for batch in b for x in batch]
        assert len(a) == len(b)  # the same number of steps in every process
        assert not set(flat_a) & set(flat_b)
        assert sorted(flat_a + flat_b) == list(range(n))
        # Shard rotation: in epoch e, rank r reads shard (r + e) % 2.
        first_shard = [list(range(0, n // 2)), list(range(n // 2, n))]
        assert flat_a == first_shard[epoch % 2]
        assert flat_b == first_shard[(epoch + 1) % 2]


@requires_file_reader
def test_two_processes_fill_padded_have_equal_steps(tmp_path):
    files = make_files(tmp_path, 11)
    rank0, rank1 = run_workers(files, "FILL")
    for a, b in zip(rank0, rank1):
        assert len(a) == len(b) == 2  # ceil(ceil(11 / 2) / 3)
        assert all(len(batch) == 3 for batch in a + b)
        assert set(x for batch in a + b for x in batch) == set(range(11))
