"""readers.mxnet (DALI's MXNet RecordIO reader): .rec + .idx files written here by an independent
writer that follows MXNet's documented format (dmlc-core recordio: magic 0xced7230a, a length/cflag
word, data padded to 4 bytes, records containing the magic word split into parts; mxnet.recordio's
IRHeader: flag, label, id, id2, then `flag` float labels when flag > 0), read back byte for byte,
multi-label records included; sharding, shuffling, padding, checkpoints; reader faults (truncated,
rewritten in place, missing files, bad indices); and, where DALI 2.4 is installed in a side venv
(SLUICE_DALI_PYTHON, else /tmp/dali-venv), DALI's own outputs on the same files.
"""
import json
import os
import struct
import subprocess

import numpy as np
import pytest

import sluice
from sluice import fn

MAGIC = 0xCED7230A


# ----------------------------------------------------------------------------- independent writer
def irheader(labels, rid):
    """mxnet.recordio.pack: IRHeader(flag, label, id, id2) as '<IfQQ', the labels after it if many."""
    if len(labels) == 1:
        return struct.pack("<IfQQ", 0, labels[0], rid, 0)
    return struct.pack("<IfQQ", len(labels), 0.0, rid, 0) + struct.pack(f"<{len(labels)}f", *labels)


def recordio_record(payload):
    """dmlc::RecordIOWriter::WriteRecord: split at every 4-aligned magic word (cflag 1 first part,
    2 middle, 3 last; the magic word itself dropped), each part header + data, the last padded."""
    out = b""
    start = 0
    magic = struct.pack("<I", MAGIC)
    for i in range(0, len(payload) - 3, 4):
        if payload[i:i + 4] == magic:
            out += magic + struct.pack("<I", ((1 if start == 0 else 2) << 29) | (i - start)) + payload[start:i]
            start = i + 4
    tail = payload[start:]
    out += magic + struct.pack("<I", ((3 if start else 0) << 29) | len(tail)) + tail
    return out + b"\0" * (-len(tail) % 4)


def write_rec(rec_path, idx_path, samples, first_key=0):
    """samples: (labels, image bytes) pairs. MXIndexedRecordIO's .idx: 'key\\toffset' per record.
    Returns the offsets and the file's size."""
    lines, offsets = [], []
    with open(rec_path, "wb") as f:
        for k, (labels, image) in enumerate(samples):
            offsets.append(f.tell())
            lines.append(f"{first_key + k}\t{f.tell()}\n")
            f.write(recordio_record(irheader(labels, first_key + k) + image))
        size = f.tell()
    with open(idx_path, "w") as f:
        f.writelines(lines)
    return offsets, size


def make_samples(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        image = rng.integers(0, 256, int(rng.integers(1, 300)), dtype=np.uint8).tobytes()
        if k % 3 == 1:  # a record holding the magic word (aligned and not): written in parts
            image = image[:8] + struct.pack("<I", MAGIC) + image[8:] + struct.pack("<I", MAGIC)
        labels = [float(k)] if k % 2 == 0 else [float(k), 0.5 * k, -1.25]
        out.append((labels, image))
    return out


def dataset(tmp_path, n=10, parts=1, dali_index=False):
    """`parts` .rec files with one .idx each, or (dali_index) one index of offsets into the files'
    concatenation, the form DALI takes (its rec2idx)."""
    samples = make_samples(n)
    recs, idxs, merged = [], [], []
    per = n // parts
    base = 0
    for p in range(parts):
        rec, idx = str(tmp_path / f"part{p}.rec"), str(tmp_path / f"part{p}.idx")
        offsets, size = write_rec(rec, idx, samples[p * per:(p + 1) * per], first_key=p * per)
        merged += [f"{p * per + k} {base + o}\n" for k, o in enumerate(offsets)]
        base += size
        recs.append(rec)
        idxs.append(idx)
    if dali_index:
        (tmp_path / "all.idx").write_text("".join(merged))
        idxs = [str(tmp_path / "all.idx")]
    return recs, idxs, samples


def reader_pipe(recs, idxs, batch_size=4, **kwargs):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=3,
                           enable_checkpointing=True, checkpoint=kwargs.pop("checkpoint", None))
    with pipe:
        pipe.set_outputs(*fn.readers.mxnet(path=recs, index_path=idxs, name="Reader", **kwargs))
    pipe.build()
    return pipe


def rows(pipe, n_batches):
    out = []
    for _ in range(n_batches):
        data, label = pipe.run()
        out += [(np.array(data.at(i)), np.array(label.at(i))) for i in range(len(data))]
    return out


def key_of(label):
    return int(label[0])


# ----------------------------------------------------------------------------- reading back
def test_independently_written_records_read_back_exactly(tmp_path):
    recs, idxs, samples = dataset(tmp_path, 10)
    got = rows(reader_pipe(recs, idxs, batch_size=5), 2)
    for (data, label), (labels, image) in zip(got, samples):
        assert data.dtype == np.uint8 and data.tobytes() == image
        assert label.dtype == np.float32 and label.tolist() == labels


def test_legacy_name_and_ops_class(tmp_path):
    recs, idxs, samples = dataset(tmp_path, 4)
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, device_id=None)
    with pipe:
        a = fn.mxnet_reader(path=recs, index_path=idxs)
        b = sluice.ops.readers.MXNet(path=recs, index_path=idxs)()
        pipe.set_outputs(a[0], b[1])
    pipe.build()
    data, label = pipe.run()
    assert np.array(data.at(3)).tobytes() == samples[3][1] and np.array(label.at(3)).tolist() == samples[3][0]


@pytest.mark.parametrize("dali_index", [False, True])
def test_several_files_one_index_or_one_each(tmp_path, dali_index):
    recs, idxs, samples = dataset(tmp_path, 12, parts=3, dali_index=dali_index)
    got = rows(reader_pipe(recs, idxs, batch_size=6), 2)
    for (data, label), (labels, image) in zip(got, samples):
        assert data.tobytes() == image and label.tolist() == labels


def test_several_files_sharded_padded_and_shuffled(tmp_path):
    recs, idxs, samples = dataset(tmp_path, 12, parts=2)
    keys = [key_of(l) for shard in range(2)
            for _, l in rows(reader_pipe(recs, idxs, batch_size=3, num_shards=2, shard_id=shard), 2)]
    assert keys == list(range(12))
    # pad_last_batch: 5 samples per shard of 10 -> the last batch of 4 repeats the shard's last one;
    # the next epoch reads shard (1 + 1) % 2.
    (tmp_path / "ten").mkdir()
    recs10, idxs10, _ = dataset(tmp_path / "ten", 10)
    padded = [key_of(l) for _, l in rows(reader_pipe(recs10, idxs10, num_shards=2, shard_id=1, pad_last_batch=True), 3)]
    assert padded == [5, 6, 7, 8, 9, 9, 9, 9, 0, 1, 2, 3]
    # random_shuffle with initial_fill: each epoch a permutation of the dataset, not the file order.
    shuffled = [key_of(l) for _, l in rows(reader_pipe(recs, idxs, batch_size=6, random_shuffle=True, initial_fill=4), 4)]
    assert sorted(shuffled[:12]) == sorted(shuffled[12:]) == list(range(12)) and shuffled[:12] != list(range(12))
    # shuffle_after_epoch: a fresh permutation every epoch.
    s = [key_of(l) for _, l in rows(reader_pipe(recs, idxs, batch_size=6, shuffle_after_epoch=True), 4)]
    assert sorted(s[:12]) == sorted(s[12:]) == list(range(12)) and s[:12] != s[12:]


def test_stick_to_shard_and_epoch_rotation(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 8)
    moving = [key_of(l) for _, l in rows(reader_pipe(recs, idxs, num_shards=2, shard_id=0), 2)]
    stuck = [key_of(l) for _, l in rows(reader_pipe(recs, idxs, num_shards=2, shard_id=0, stick_to_shard=True), 2)]
    assert moving == [0, 1, 2, 3, 4, 5, 6, 7] and stuck == [0, 1, 2, 3, 0, 1, 2, 3]


def test_checkpoint_resumes(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 10)
    kw = dict(random_shuffle=True, initial_fill=3)
    pipe = reader_pipe(recs, idxs, **kw)
    pipe.run()
    text = pipe.checkpoint()
    want = rows(pipe, 4)
    got = rows(reader_pipe(recs, idxs, checkpoint=text, **kw), 4)
    for (d1, l1), (d2, l2) in zip(got, want):
        assert d1.tobytes() == d2.tobytes() and l1.tolist() == l2.tolist()


# ----------------------------------------------------------------------------- faults
def test_rec_truncated_mid_epoch_is_an_error_naming_the_file(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 12)
    pipe = reader_pipe(recs, idxs)
    pipe.run()
    os.truncate(recs[0], 64)
    with pytest.raises(sluice.SluiceError) as e:
        for _ in range(4):
            pipe.run()
    msg = str(e.value)
    assert "[Reader]" in msg and recs[0] in msg
    assert "changed size since it was opened" in msg or "the file shrank while being read" in msg


def test_rec_rewritten_in_place_is_an_error(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 12)
    pipe = reader_pipe(recs, idxs)
    pipe.run()
    with open(recs[0], "rb") as f:
        data = bytearray(f.read())
    data[:] = data[::-1]
    with open(recs[0], "r+b") as f:
        f.write(data)
    os.utime(recs[0], (2_000_000_000, 2_000_000_000))
    with pytest.raises(sluice.SluiceError, match="was modified since it was opened"):
        for _ in range(4):
            pipe.run()


def test_missing_files_and_bad_indices_name_the_reader_and_the_file(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 4)
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*missing\.rec"):
        reader_pipe([str(tmp_path / "missing.rec")], idxs)
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*index_path.*missing\.idx"):
        reader_pipe(recs, [str(tmp_path / "missing.idx")])
    with pytest.raises(sluice.SluiceError, match=r"index_path.*one \.idx file per \.rec file"):
        reader_pipe(recs * 3, idxs * 2)
    bad = tmp_path / "bad.idx"
    bad.write_text("0\t0\n1\t99999\n")
    with pytest.raises(sluice.SluiceError, match=r"bad\.idx', line 2: offset 99999 lies outside"):
        reader_pipe(recs, [str(bad)])
    bad.write_text("0\tzero\n")
    with pytest.raises(sluice.SluiceError, match=r"bad\.idx', line 1: expected"):
        reader_pipe(recs, [str(bad)])
    # An index that points between records: a bad magic word, named with the file and the offset.
    bad.write_text("0\t4\n")
    with pytest.raises(sluice.SluiceError, match=r"part0\.rec', record at byte offset 4: bad magic word"):
        reader_pipe(recs, [str(bad)]).run()


def test_on_error_replace_skips_a_corrupt_record(tmp_path):
    recs, idxs, samples = dataset(tmp_path, 4)
    with open(recs[0], "r+b") as f:  # the second record's magic word
        f.seek(int(open(idxs[0]).read().splitlines()[1].split("\t")[1]))
        f.write(b"\0\0\0\0")
    pipe = reader_pipe(recs, idxs, on_error="replace")
    data, label = pipe.run()
    keys = [key_of(np.array(label.at(i))) for i in range(4)]
    assert keys == [0, 2, 2, 3]
    assert pipe.error_log() and "bad magic word" in pipe.error_log()[0].message


# ----------------------------------------------------------------------------- DALI itself
DALI_PYTHON = os.environ.get("SLUICE_DALI_PYTHON", "/tmp/dali-venv/bin/python")

DALI_SCRIPT = r"""
import json, sys
import numpy as np
from nvidia.dali import pipeline_def, fn
recs, idxs, n, out = json.loads(sys.argv[1])
@pipeline_def(batch_size=n, num_threads=1, device_id=None)
def p():
    return tuple(fn.readers.mxnet(path=recs, index_path=idxs))
pipe = p()
pipe.build()
data, label = pipe.run()
np.savez(out, **{f"d{i}": np.array(data[i]) for i in range(n)}, **{f"l{i}": np.array(label[i]) for i in range(n)})
"""


@pytest.mark.skipif(not os.path.exists(DALI_PYTHON), reason="no DALI side venv (SLUICE_DALI_PYTHON)")
def test_same_outputs_as_dali(tmp_path):
    recs, idxs, _ = dataset(tmp_path, 9, parts=3, dali_index=True)
    out = str(tmp_path / "dali.npz")
    subprocess.run([DALI_PYTHON, "-c", DALI_SCRIPT, json.dumps([recs, idxs, 9, out])], check=True, timeout=300)
    want = np.load(out)
    got = rows(reader_pipe(recs, idxs, batch_size=9), 1)
    for i, (data, label) in enumerate(got):
        assert data.tobytes() == want[f"d{i}"].tobytes() and data.dtype == want[f"d{i}"].dtype
        assert label.dtype == want[f"l{i}"].dtype and label.shape == want[f"l{i}"].shape
        np.testing.assert_array_equal(label, want[f"l{i}"])
