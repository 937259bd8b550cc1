"""readers.tfrecord: records written by an independent writer (TensorFlow's documented TFRecord
framing with a pure-Python CRC32C, and tf.train.Example protobuf bytes built by hand here) read back
exactly; sluice.tfrecord.write_index writes DALI's tfrecord2idx format ("offset size" per record);
a corrupted record (bad CRC, truncated) is a clear error naming the file and the byte offset."""
import struct

import numpy as np
import pytest

import sluice
import sluice.tfrecord as tfrec  # as DALI users write `import nvidia.dali.tfrecord as tfrec`
from sluice import fn


def test_fn_readers_tfrecord_is_the_features_wrapper():
    assert fn.readers.tfrecord is tfrec.tfrecord


# ---- An independent writer: TFRecord framing and tf.train.Example wire format ----

def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data):
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))


def varint(v):
    v &= (1 << 64) - 1  # negative int64: two's complement, 10 bytes
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    tag = varint((num << 3) | wire)
    if wire == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


KINDS = {"image/encoded": bytes, "label": int, "bbox": float, "matrix": float, "big": int}


def feature(value, kind, packed=True):
    """A tf.train.Feature: bytes -> bytes_list, float -> float_list, int -> int64_list."""
    if kind is bytes:
        return field(1, 2, b"".join(field(1, 2, v) for v in value))
    if kind is float:
        if packed:
            body = field(1, 2, b"".join(struct.pack("<f", v) for v in value))
        else:
            body = b"".join(field(1, 5, struct.pack("<f", v)) for v in value)
        return field(2, 2, body)
    if packed:
        body = field(1, 2, b"".join(varint(v) for v in value))
    else:
        body = b"".join(field(1, 0, varint(v)) for v in value)
    return field(3, 2, body)


def example(features, packed=True):
    entries = b"".join(field(1, 2, field(1, 2, k.encode()) + field(2, 2, feature(v, KINDS[k], packed)))
                       for k, v in features.items())
    return field(1, 2, entries)


def records(n):
    out = []
    for i in range(n):
        out.append({
            "image/encoded": [bytes([i % 256]) * (3 + i)],
            "label": [i * 7 - 3],
            "bbox": [float(i) + 0.5 * k for k in range(i % 4)],
            "matrix": [float(i * 6 + k) for k in range(6)],
            "big": [-(2 ** 63) + i, 2 ** 62],
        })
    return out


def write_file(path, recs, packed=True):
    offsets = []
    with open(path, "wb") as f:
        for r in recs:
            data = frame(example(r, packed))
            offsets.append((f.tell(), len(data)))
            f.write(data)
    return offsets


FEATURES = {
    "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
    "label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    "bbox": tfrec.VarLenFeature(tfrec.float32, 0.0),
    "matrix": tfrec.FixedLenFeature([2, 3], tfrec.float32, 0.0),
    "big": tfrec.VarLenFeature(tfrec.int64, 0),
    "absent": tfrec.FixedLenFeature([2], tfrec.int64, 42),
    "absent_var": tfrec.VarLenFeature(tfrec.float32, 1.5),
}


def read_all(path, index_path, n, batch_size=4, features=FEATURES, **kwargs):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    with pipe:
        out = fn.readers.tfrecord(path=path, index_path=index_path, features=features, name="Reader", **kwargs)
        assert isinstance(out, dict) and list(out) == list(features)
        pipe.set_outputs(*out.values())
    pipe.build()
    rows = []
    while len(rows) < n:
        tls = pipe.run()
        for i in range(len(tls[0])):
            rows.append({k: np.array(tl.at(i)) for k, tl in zip(features, tls)})
    return rows[:n]


def check(row, r):
    assert row["image/encoded"].dtype == np.uint8 and row["image/encoded"].tobytes() == r["image/encoded"][0]
    assert row["label"].dtype == np.int64 and row["label"].tolist() == r["label"]
    assert row["bbox"].dtype == np.float32
    assert row["bbox"].shape == (len(r["bbox"]),)  # an empty list stays empty
    np.testing.assert_array_equal(row["bbox"], np.float32(r["bbox"]))
    assert row["matrix"].shape == (2, 3)
    np.testing.assert_array_equal(row["matrix"].ravel(), np.float32(r["matrix"]))
    assert row["big"].dtype == np.int64 and row["big"].tolist() == r["big"]
    assert row["absent"].tolist() == [42, 42]  # absent FixedLenFeature: its shape of defaults
    assert row["absent_var"].tolist() == [1.5]  # absent VarLenFeature: one default value


@pytest.mark.parametrize("packed", [True, False])
def test_independently_written_records_read_back_exactly(tmp_path, packed):
    recs = records(10)
    path = tmp_path / "data.tfrecord"
    write_file(path, recs, packed)
    idx = tmp_path / "data.idx"
    tfrec.write_index(path, idx)
    rows = read_all(str(path), str(idx), len(recs))
    for row, r in zip(rows, recs):
        check(row, r)


def test_without_an_index_the_file_is_scanned(tmp_path):
    recs = records(5)
    path = tmp_path / "data.tfrecord"
    write_file(path, recs)
    rows = read_all(str(path), None, len(recs), batch_size=5)
    for row, r in zip(rows, recs):
        check(row, r)


def test_several_files_with_sharding(tmp_path):
    recs = records(12)
    paths, idxs = [], []
    for k in range(2):
        p = tmp_path / f"part{k}.tfrecord"
        write_file(p, recs[k * 6:(k + 1) * 6])
        tfrec.write_index(p, tmp_path / f"part{k}.idx")
        paths.append(str(p))
        idxs.append(str(tmp_path / f"part{k}.idx"))
    seen = []
    for shard in range(2):
        rows = read_all(paths, idxs, 6, batch_size=3, features={"label": FEATURES["label"]},
                        num_shards=2, shard_id=shard)
        seen += [int(r["label"][0]) for r in rows]
    assert sorted(seen) == sorted(r["label"][0] for r in recs)


def test_write_index_is_dalis_tfrecord2idx_format(tmp_path):
    recs = records(7)
    path = tmp_path / "data.tfrecord"
    offsets = write_file(path, recs)
    idx = tmp_path / "data.idx"
    tfrec.write_index(path, idx)
    # DALI's tools/tfrecord2idx writes str(offset) + ' ' + str(record size incl. framing) + '\n'.
    assert idx.read_bytes() == "".join(f"{o} {s}\n" for o, s in offsets).encode()
    # The pure-Python fallback writes the same bytes.
    assert tfrec._index_python(str(path)) == idx.read_bytes()


def corrupt(tmp_path, how):
    recs = records(4)
    path = tmp_path / "bad.tfrecord"
    offsets = write_file(path, recs)
    good_idx = tmp_path / "good.idx"
    good_idx.write_text("".join(f"{o} {s}\n" for o, s in offsets))
    data = bytearray(path.read_bytes())
    off = offsets[2][0]
    if how == "data_crc":
        data[off + 14] ^= 0xFF  # a byte of the record's data
    elif how == "length_crc":
        data[off + 9] ^= 0x01
    elif how == "truncated":
        data = data[:offsets[3][0] + 20]
        off = offsets[3][0]
    path.write_bytes(bytes(data))
    return path, good_idx, off


@pytest.mark.parametrize("how", ["data_crc", "length_crc", "truncated"])
def test_a_corrupted_record_is_an_error_naming_file_and_offset(tmp_path, how):
    path, good_idx, off = corrupt(tmp_path, how)
    with pytest.raises(sluice.errors.SluiceError) as e:
        tfrec.write_index(path, tmp_path / "x.idx")
    assert str(path) in str(e.value) and f"byte offset {off}" in str(e.value)
    assert not (tmp_path / "x.idx").exists()
    with pytest.raises(sluice.errors.SluiceError) as e:
        tfrec._index_python(str(path))
    assert str(path) in str(e.value) and f"byte offset {off}" in str(e.value)
    # Read through an index (the good file's): the reader checks both CRCs or the index's bounds.
    with pytest.raises(RuntimeError) as e:
        read_all(str(path), str(good_idx), 4)
    msg = str(e.value)
    if how == "truncated":
        assert str(good_idx) in msg and "past the end" in msg
    else:
        assert str(path) in msg and f"byte offset {off}" in msg and "CRC" in msg


def test_bad_index_and_bad_feature_types(tmp_path):
    path = tmp_path / "data.tfrecord"
    write_file(path, records(3))
    idx = tmp_path / "data.idx"
    idx.write_text("0 abc\n")
    with pytest.raises(RuntimeError, match="line 1"):
        read_all(str(path), str(idx), 1)
    tfrec.write_index(path, idx)
    with pytest.raises(RuntimeError, match="declared int64 but the record holds a float_list"):
        read_all(str(path), str(idx), 1, features={"bbox": tfrec.FixedLenFeature([], tfrec.int64, 0),
                                                   "matrix": tfrec.VarLenFeature(tfrec.int64, 0)})
    with pytest.raises(RuntimeError, match="needs 4"):
        read_all(str(path), str(idx), 1, features={"matrix": tfrec.FixedLenFeature([4], tfrec.float32, 0.0)})
    with pytest.raises(TypeError):
        tfrec.FixedLenFeature([], "int32", 0)
    with pytest.raises(TypeError):
        read_all(str(path), str(idx), 1, features={"label": "int64"})


def test_native_index_writer_and_the_cli(tmp_path):
    """write_index uses the C++ writer of the installed module; `sluice tfrecord2idx` (DALI's
    FILE INDEX form, and several files) writes the same bytes; a corrupt file fails with status 1."""
    from sluice import _sluice
    from sluice.tools import cli

    assert hasattr(_sluice, "tfrecord_index")
    a, b = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    offs_a, offs_b = write_file(a, records(5)), write_file(b, records(3), packed=False)
    want = lambda offs: "".join(f"{o} {s}\n" for o, s in offs).encode()  # noqa: E731
    assert cli.main(["tfrecord2idx", str(a), str(tmp_path / "a.idx")]) == 0
    assert (tmp_path / "a.idx").read_bytes() == want(offs_a)
    out = tmp_path / "out"
    out.mkdir()
    assert cli.main(["tfrecord2idx", str(a), str(b), "--output-dir", str(out)]) == 0
    assert (out / "a.tfrecord.idx").read_bytes() == want(offs_a)
    assert (out / "b.tfrecord.idx").read_bytes() == want(offs_b)
    path, _, off = corrupt(tmp_path, "data_crc")
    assert cli.main(["tfrecord2idx", str(path), str(tmp_path / "bad.idx")]) == 1
    assert not (tmp_path / "bad.idx").exists()
