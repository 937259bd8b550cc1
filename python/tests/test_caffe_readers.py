"""readers.caffe and readers.caffe2 (DALI's LMDB readers) on databases written here with the `lmdb`
package (py-lmdb, its own bundled LMDB) holding messages encoded by the `protobuf` package's
dynamic message classes, built from the Caffe / Caffe2 .proto definitions below (an encoder
independent of Sluice's wire-format parser): images and labels read back byte for byte, every
label_type, additional inputs and boxes; sharding, shuffling, padding, checkpoints; reader faults
(a database truncated or rewritten in place mid-epoch, a missing one, a malformed message); and,
where DALI 2.4 is installed in a side venv (SLUICE_DALI_PYTHON, else /tmp/dali-venv), DALI's own
outputs on the same databases.
"""
import json
import os
import struct
import subprocess

import numpy as np
import pytest

import sluice
from sluice import fn

lmdb = pytest.importorskip("lmdb")
descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
from google.protobuf import descriptor_pool, message_factory  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto


def _messages():
    """caffe.Datum and caffe2.TensorProto(s) as in caffe.proto and caffe2.proto (proto2)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="sluice_test_caffe.proto", package="t", syntax="proto2")

    def msg(name, fields):
        m = fdp.message_type.add(name=name)
        for fname, number, ftype, label, type_name, packed in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
        return m

    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    msg("Datum", [("channels", 1, F.TYPE_INT32, opt, None, False), ("height", 2, F.TYPE_INT32, opt, None, False),
                  ("width", 3, F.TYPE_INT32, opt, None, False), ("data", 4, F.TYPE_BYTES, opt, None, False),
                  ("label", 5, F.TYPE_INT32, opt, None, False), ("float_data", 6, F.TYPE_FLOAT, rep, None, False),
                  ("encoded", 7, F.TYPE_BOOL, opt, None, False)])
    tp = msg("TensorProto", [("dims", 1, F.TYPE_INT64, rep, None, False),
                             ("data_type", 2, F.TYPE_INT32, opt, None, False),
                             ("float_data", 3, F.TYPE_FLOAT, rep, None, True),
                             ("int32_data", 4, F.TYPE_INT32, rep, None, True),
                             ("byte_data", 5, F.TYPE_BYTES, opt, None, False),
                             ("string_data", 6, F.TYPE_BYTES, rep, None, False),
                             ("name", 7, F.TYPE_STRING, opt, None, False),
                             ("int64_data", 10, F.TYPE_INT64, rep, None, True)])
    tp.field[1].default_value = "1"  # data_type defaults to FLOAT
    msg("TensorProtos", [("protos", 1, F.TYPE_MESSAGE, rep, ".t.TensorProto", False)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    get = message_factory.GetMessageClass
    return (get(pool.FindMessageTypeByName("t.Datum")), get(pool.FindMessageTypeByName("t.TensorProto")),
            get(pool.FindMessageTypeByName("t.TensorProtos")))


Datum, TensorProto, TensorProtos = _messages()
FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


def write_db(path, values):
    """values: serialized messages, stored under keys 00000000, 00000001, ... (key order = order)."""
    env = lmdb.open(str(path), map_size=1 << 24)
    with env.begin(write=True) as txn:
        for k, v in enumerate(values):
            txn.put(f"{k:08d}".encode(), v)
    env.close()
    return str(path)


def image_bytes(k):
    return np.random.default_rng(k).integers(0, 256, 40 + 7 * k, dtype=np.uint8).tobytes()


def caffe_db(tmp_path, n=10, name="caffe"):
    datums = []
    for k in range(n):
        d = Datum(data=image_bytes(k), label=100 + k, encoded=True, channels=3, height=0, width=0)
        datums.append(d.SerializeToString())
    return write_db(tmp_path / name, datums), datums


def run(pipe, n_batches):
    out = []
    for _ in range(n_batches):
        tls = pipe.run()
        out += [tuple(np.array(t.at(i)) for t in tls) for i in range(len(tls[0]))]
    return out


def pipe_of(reader, batch_size=4, checkpoint=None, **kwargs):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=5,
                           enable_checkpointing=True, checkpoint=checkpoint)
    with pipe:
        out = reader(name="Reader", **kwargs)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    pipe.build()
    return pipe


# ----------------------------------------------------------------------------- readers.caffe
def test_caffe_encoded_images_and_labels_read_back(tmp_path):
    db, _ = caffe_db(tmp_path)
    rows = run(pipe_of(fn.readers.caffe, path=[db], batch_size=5), 2)
    for k, (img, label) in enumerate(rows):
        assert img.dtype == np.uint8 and img.tobytes() == image_bytes(k)
        assert label.dtype == np.int32 and label.tolist() == [100 + k]


def test_caffe_raw_images_label_less_entries_and_output_selection(tmp_path):
    rng = np.random.default_rng(1)
    pixels = [rng.integers(0, 256, (5 + k, 4, 3), dtype=np.uint8) for k in range(4)]
    vals = [Datum(data=p.tobytes(), height=p.shape[0], width=p.shape[1], channels=3, encoded=False,
                  **({"label": k} if k != 2 else {})).SerializeToString() for k, p in enumerate(pixels)]
    db = write_db(tmp_path / "raw", vals)
    rows = run(pipe_of(fn.readers.caffe, path=[db]), 1)
    for k, (img, label) in enumerate(rows):
        assert img.shape == pixels[k].shape and np.array_equal(img, pixels[k])
        assert label.tolist() == ([] if k == 2 else [k])
    only_labels = run(pipe_of(fn.caffe_reader, path=[db], image_available=False), 1)
    assert [r[0].tolist() for r in only_labels] == [[0], [1], [], [3]]
    with pytest.raises(sluice.SluiceError, match="label_available"):
        pipe_of(fn.readers.caffe, path=[db], image_available=False, label_available=False)


def test_caffe_several_databases_sharded_padded_shuffled(tmp_path):
    db1, _ = caffe_db(tmp_path, 6, "a")
    db2, _ = caffe_db(tmp_path, 6, "b")
    labels = [int(r[1][0]) for s in range(2)
              for r in run(pipe_of(fn.readers.caffe, path=[db1, db2], batch_size=3, num_shards=2, shard_id=s), 2)]
    assert labels == [100 + k for k in range(6)] * 2
    db, _ = caffe_db(tmp_path, 10, "ten")
    padded = [int(r[1][0]) - 100 for r in run(pipe_of(fn.readers.caffe, path=[db], num_shards=2, shard_id=1,
                                                      pad_last_batch=True, stick_to_shard=True), 3)]
    assert padded == [5, 6, 7, 8, 9, 9, 9, 9, 5, 6, 7, 8]
    shuffled = [int(r[1][0]) - 100 for r in run(pipe_of(fn.readers.caffe, path=[db], batch_size=5,
                                                        random_shuffle=True, initial_fill=4), 4)]
    assert sorted(shuffled[:10]) == sorted(shuffled[10:]) == list(range(10)) and shuffled[:10] != list(range(10))


def test_caffe_checkpoint_resumes(tmp_path):
    db, _ = caffe_db(tmp_path, 10)
    kw = dict(path=[db], random_shuffle=True, initial_fill=3)
    pipe = pipe_of(fn.readers.caffe, **kw)
    pipe.run()
    text = pipe.checkpoint()
    want = run(pipe, 4)
    got = run(pipe_of(fn.readers.caffe, checkpoint=text, **kw), 4)
    assert [(a.tobytes(), b.tolist()) for a, b in got] == [(a.tobytes(), b.tolist()) for a, b in want]


# ----------------------------------------------------------------------------- readers.caffe2
def t(data_type, **kw):
    return TensorProto(data_type=data_type, **kw)


def caffe2_db(tmp_path, entries, name="c2"):
    return write_db(tmp_path / name, [TensorProtos(protos=e).SerializeToString() for e in entries])


def test_caffe2_single_label_encoded_and_raw_images(tmp_path):
    enc = [[t(STRING, string_data=[image_bytes(k)]), t(INT32, int32_data=[k])] for k in range(4)]
    rows = run(pipe_of(fn.readers.caffe2, path=[caffe2_db(tmp_path, enc)]), 1)
    for k, (img, label) in enumerate(rows):
        assert img.tobytes() == image_bytes(k) and label.dtype == np.int32 and label.tolist() == [k]
    px = [np.random.default_rng(k).integers(0, 256, (3, 2 + k, 3), dtype=np.uint8) for k in range(4)]
    raw = [[t(BYTE, dims=list(p.shape), byte_data=p.tobytes()), t(FLOAT, float_data=[0.5 * k])] for k, p in enumerate(px)]
    rows = run(pipe_of(fn.caffe2_reader, path=[caffe2_db(tmp_path, raw, "raw")]), 1)
    for k, (img, label) in enumerate(rows):
        assert np.array_equal(img, px[k]) and label.dtype == np.float32 and label.tolist() == [0.5 * k]


def test_caffe2_label_types_additional_inputs_and_bbox(tmp_path):
    img = t(STRING, string_data=[b"jpeg"])
    # Caffe2's ImageInputOp layout: image, label indices, (label_type 3: their weights), additional
    # inputs, box.
    sparse = [[img, t(INT32, int32_data=[0, 3]), t(INT64, int64_data=[7, 8, 9]), t(INT32, int32_data=[1, 2, 3, 4])]] * 4
    (im, lab, extra, box), *_ = run(pipe_of(fn.readers.caffe2, path=[caffe2_db(tmp_path, sparse, "sparse")],
                                            label_type=1, num_labels=5, additional_inputs=1, bbox=True), 1)
    assert im.tobytes() == b"jpeg" and lab.dtype == np.int32 and lab.tolist() == [1, 0, 0, 1, 0]
    assert extra.dtype == np.int64 and extra.tolist() == [7, 8, 9] and box.tolist() == [1, 2, 3, 4]
    weighted = [[img, t(FLOAT, float_data=[0, 3]), t(FLOAT, float_data=[0.25, 0.75]),
                 t(INT64, int64_data=[7, 8, 9]), t(INT32, int32_data=[1, 2, 3, 4])]] * 4
    db = caffe2_db(tmp_path, weighted)
    (_, wlab, extra, box), *_ = run(pipe_of(fn.readers.caffe2, path=[db], label_type=3, num_labels=5,
                                            additional_inputs=1, bbox=True), 1)
    assert wlab.dtype == np.float32 and wlab.tolist() == [0.25, 0, 0, 0.75, 0]
    assert extra.tolist() == [7, 8, 9] and box.tolist() == [1, 2, 3, 4]
    with pytest.raises(sluice.SluiceError, match=r"label index 3\.0+ is outside \[0, num_labels = 3\)"):
        pipe_of(fn.readers.caffe2, path=[db], label_type=3, num_labels=3).run()
    dense = [[img, t(FLOAT, float_data=[0.1, 0.2, 0.3])]] * 4
    (_, dlab), *_ = run(pipe_of(fn.readers.caffe2, path=[caffe2_db(tmp_path, dense, "dense")], label_type=2), 1)
    assert dlab.dtype == np.float32 and np.array_equal(dlab, np.float32([0.1, 0.2, 0.3]))
    (only,), *_ = run(pipe_of(fn.readers.caffe2, path=[db], label_type=4), 1)
    assert only.tobytes() == b"jpeg"
    with pytest.raises(sluice.SluiceError, match=r"key '00000000'.*label_type 0 \(single label\) needs one label"):
        pipe_of(fn.readers.caffe2, path=[db]).run()
    with pytest.raises(sluice.SluiceError, match="label_type"):
        pipe_of(fn.readers.caffe2, path=[db], label_type=5)


def test_caffe2_checkpoint_and_sharding(tmp_path):
    entries = [[t(STRING, string_data=[image_bytes(k)]), t(INT32, int32_data=[k])] for k in range(8)]
    db = caffe2_db(tmp_path, entries)
    labels = [int(r[1][0]) for s in range(2) for r in run(pipe_of(fn.readers.caffe2, path=[db], num_shards=2, shard_id=s), 1)]
    assert labels == list(range(8))
    kw = dict(path=[db], random_shuffle=True, initial_fill=2)
    pipe = pipe_of(fn.readers.caffe2, **kw)
    pipe.run()
    text = pipe.checkpoint()
    want = [r[1].tolist() for r in run(pipe, 3)]
    assert [r[1].tolist() for r in run(pipe_of(fn.readers.caffe2, checkpoint=text, **kw), 3)] == want


# ----------------------------------------------------------------------------- faults
def data_file(db):
    return os.path.join(db, "data.mdb")


def test_database_truncated_mid_epoch_is_an_error_naming_it(tmp_path):
    db, _ = caffe_db(tmp_path, 12)
    pipe = pipe_of(fn.readers.caffe, path=[db])
    pipe.run()
    os.truncate(data_file(db), 8192)
    with pytest.raises(sluice.SluiceError) as e:
        for _ in range(4):
            pipe.run()
    msg = str(e.value)
    assert "[Reader]" in msg and db in msg and "changed size since it was opened" in msg


def test_database_rewritten_in_place_is_an_error(tmp_path):
    db, _ = caffe_db(tmp_path, 12)
    pipe = pipe_of(fn.readers.caffe, path=[db])
    pipe.run()
    with open(data_file(db), "r+b") as f:
        f.write(f.read())
    os.truncate(data_file(db), os.path.getsize(data_file(db)) // 2)
    os.utime(data_file(db), (2_000_000_000, 2_000_000_000))
    with pytest.raises(sluice.SluiceError, match="since it was opened"):
        for _ in range(4):
            pipe.run()


def test_database_modified_in_place_same_size_is_an_error(tmp_path):
    db, _ = caffe_db(tmp_path, 12)
    pipe = pipe_of(fn.readers.caffe, path=[db])
    pipe.run()
    os.utime(data_file(db), (2_000_000_000, 2_000_000_000))
    with pytest.raises(sluice.SluiceError, match="was modified since it was opened"):
        for _ in range(4):
            pipe.run()


def test_missing_database_and_malformed_messages(tmp_path):
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*nowhere"):
        pipe_of(fn.readers.caffe, path=[str(tmp_path / "nowhere")])
    db = write_db(tmp_path / "bad", [Datum(data=b"ok", label=1).SerializeToString(), b"\x22\x7f" + b"x" * 3,
                                     Datum(data=b"ok2", label=3).SerializeToString()])
    with pytest.raises(sluice.SluiceError, match=r"key '00000001'.*malformed caffe\.Datum: length-delimited field"):
        pipe_of(fn.readers.caffe, path=[db], batch_size=3).run()
    pipe = pipe_of(fn.readers.caffe, path=[db], batch_size=3, on_error="replace")
    _, labels = pipe.run()
    assert [np.array(labels.at(i)).tolist() for i in range(3)] == [[1], [3], [3]]
    empty = write_db(tmp_path / "empty", [])
    with pytest.raises(sluice.SluiceError, match="no entries found"):
        pipe_of(fn.readers.caffe, path=[empty])


# ----------------------------------------------------------------------------- corrupt databases
CORRUPT_SCRIPT = r"""
import json, os, struct, sys
import numpy as np
import sluice
from sluice import fn
db, cases = sys.argv[1], json.loads(sys.argv[2])
path = os.path.join(db, "data.mdb")
good = open(path, "rb").read()
out = []
for kind, a, b in cases:
    data = bytearray(good)
    if kind == "flip":
        data[a] ^= b
    elif kind == "truncate":
        data = data[:a]
    elif kind == "u64":  # a page number (8 bytes) overwritten
        data[a:a + 8] = struct.pack("<Q", b)
    open(path, "wb").write(bytes(data))
    try:
        pipe = sluice.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=1)
        with pipe:
            images, labels = fn.readers.caffe(path=[db], name="Reader")
            pipe.set_outputs(images, labels)
        pipe.build()
        for _ in range(4):
            pipe.run()
        out.append([kind, a, b, None])
    except sluice.SluiceError as e:
        out.append([kind, a, b, str(e)])
open(path, "wb").write(good)
print(json.dumps(out))
"""


def corrupt_runs(db, cases):
    """Runs readers.caffe over each corruption of the database in a child process (a crash there is a
    failed test here, with its signal, not a dead test run); returns [kind, a, b, error or None]."""
    import sys
    r = subprocess.run([sys.executable, "-c", CORRUPT_SCRIPT, db, json.dumps(cases)], capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, f"the reader crashed (exit {r.returncode}): {r.stderr[-3000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_corrupt_database_is_an_error_naming_the_file_never_a_crash(tmp_path):
    """An LMDB written by the `lmdb` package, then damaged: bytes flipped in every page (headers,
    entry offsets, nodes, values), the file truncated, page numbers pointing outside the file, at a
    meta page, back at their own page. liblmdb (DALI's reader) trusts its pages and dies with SIGSEGV
    on such files; readers.caffe raises an error naming the data file (or reads values that are
    still well-formed: a flipped byte inside an image is not detectable)."""
    values = [Datum(data=image_bytes(k) * (40 if k % 5 == 0 else 1), label=k, encoded=True).SerializeToString()
              for k in range(60)]
    db = write_db(tmp_path / "db", values)
    path = data_file(db)
    size = os.path.getsize(path)
    psize = 4096
    assert size % psize == 0 and size // psize >= 5
    cases = []
    for page in range(size // psize):
        for off in (0, 8, 10, 12, 14, 16, 18, 24, 40, 128, 144, 2048, 4094):
            for x in (0xFF, 0x01):
                cases.append(["flip", page * psize + off, x])
    for length in range(0, size, 1543):
        cases.append(["truncate", length, 0])
    # The newer meta page's root (MDB_meta at 16: magic, version, address, mapsize, dbs[2] of 48
    # bytes; the main database's md_root at 16 + 24 + 48 + 40) and its transaction id at 144.
    raw = open(path, "rb").read()
    meta = psize if struct.unpack_from("<Q", raw, 144)[0] < struct.unpack_from("<Q", raw, psize + 144)[0] else 0
    root = struct.unpack_from("<Q", raw, meta + 128)[0]
    for bad in (0, 1, size // psize, 1 << 40, 2 ** 64 - 2, root):
        cases.append(["u64", meta + 128, bad])
    # The root's first child pointed back at the root (a cycle) when the root is a branch page.
    if struct.unpack_from("<H", raw, root * psize + 10)[0] & 1:
        node = struct.unpack_from("<H", raw, root * psize + 16)[0]
        cases.append(["u64", root * psize + node, root])  # mn_lo, mn_hi, mn_flags: the child's page number
    results = corrupt_runs(db, cases)
    assert len(results) == len(cases)
    errors = [r for r in results if r[3] is not None]
    for kind, a, b, msg in errors:
        # A transaction id raised on the older meta page makes it the newer one: a well-formed,
        # earlier (here empty) tree, as liblmdb would read it too; the reader then finds no entries
        # in the database folder it was given.
        assert "[Reader]" in msg and (path in msg or f"no entries found in LMDB [{db}]" in msg), (kind, a, b, msg)
    by_case = {(k, a, b): m for k, a, b, m in results}
    for length in range(0, size, 1543):
        assert by_case[("truncate", length, 0)] is not None, length  # a cut file is never read as a shorter one
    for bad in (1 << 40, 2 ** 64 - 2):
        assert "past the end of the file" in by_case[("u64", meta + 128, bad)], bad
    assert "a meta page" in by_case[("u64", meta + 128, 1)]
    assert "not an LMDB data file" in by_case[("flip", 16, 0xFF)]
    print(f"{len(cases)} corruptions: {len(errors)} errors naming the file, {len(cases) - len(errors)} read")


# ----------------------------------------------------------------------------- DALI itself
DALI_PYTHON = os.environ.get("SLUICE_DALI_PYTHON", "/tmp/dali-venv/bin/python")

DALI_SCRIPT = r"""
import json, sys
import numpy as np
from nvidia.dali import pipeline_def, fn
op, kwargs, n, out = json.loads(sys.argv[1])
@pipeline_def(batch_size=n, num_threads=1, device_id=None)
def p():
    r = getattr(fn.readers, op)(**kwargs)
    return tuple(r) if isinstance(r, (list, tuple)) else r
pipe = p()
pipe.build()
outs = pipe.run()
np.savez(out, **{f"o{o}_{i}": np.array(outs[o][i]) for o in range(len(outs)) for i in range(n)})
"""


def dali_outputs(tmp_path, op, n, **kwargs):
    out = str(tmp_path / f"dali_{op}.npz")
    subprocess.run([DALI_PYTHON, "-c", DALI_SCRIPT, json.dumps([op, kwargs, n, out])], check=True, timeout=300)
    return np.load(out)


def same_as_dali(tmp_path, op, n, **kwargs):
    want = dali_outputs(tmp_path, op, n, **kwargs)
    got = run(pipe_of(getattr(fn.readers, op), batch_size=n, **kwargs), 1)
    assert len(want.files) == n * len(got[0])
    for i, row in enumerate(got):
        for o, x in enumerate(row):
            y = want[f"o{o}_{i}"]
            assert x.dtype == y.dtype and x.shape == y.shape, (op, kwargs, o, i)
            np.testing.assert_array_equal(x, y)


@pytest.mark.skipif(not os.path.exists(DALI_PYTHON), reason="no DALI side venv (SLUICE_DALI_PYTHON)")
def test_same_outputs_as_dali(tmp_path):
    db, _ = caffe_db(tmp_path, 6)
    same_as_dali(tmp_path, "caffe", 6, path=[db])
    rng = np.random.default_rng(1)
    pixels = [rng.integers(0, 256, (5, 4, 3), dtype=np.uint8) for k in range(3)]
    raw = write_db(tmp_path / "raw", [Datum(data=p.tobytes(), height=5, width=4, channels=3, encoded=False,
                                            **({"label": k} if k != 1 else {})).SerializeToString()
                                      for k, p in enumerate(pixels)])
    same_as_dali(tmp_path, "caffe", 3, path=[raw])
    img = t(STRING, string_data=[b"jpegbytes"])
    single = caffe2_db(tmp_path, [[img, t(INT32, int32_data=[k])] for k in range(3)], "single")
    same_as_dali(tmp_path, "caffe2", 3, path=[single])
    # (DALI 2.4 fails on label_type 1 and 3 on the CPU: its label tensor is resized without a type.)
    rich = caffe2_db(tmp_path, [[img, t(FLOAT, float_data=[0.5, 1.5]), t(INT64, int64_data=[7, 8, 9]),
                                 t(INT32, int32_data=[1, 2, 3, 4])]] * 3, "rich")
    same_as_dali(tmp_path, "caffe2", 3, path=[rich], label_type=2, additional_inputs=1, bbox=True)
    # (DALI reads a box whenever one TensorProto follows what it reads, whatever `bbox` says.)
    same_as_dali(tmp_path, "caffe2", 3, path=[caffe2_db(tmp_path, [[img]] * 3, "nolabel")], label_type=4)
    px = [np.random.default_rng(k).integers(0, 256, (3, 4, 3), dtype=np.uint8) for k in range(3)]
    rawc2 = caffe2_db(tmp_path, [[t(BYTE, dims=[3, 4, 3], byte_data=p.tobytes()), t(FLOAT, float_data=[0.1, 0.2])]
                                 for p in px], "rawc2")
    same_as_dali(tmp_path, "caffe2", 3, path=[rawc2], label_type=2)
