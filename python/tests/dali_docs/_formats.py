"""Small writers for the container formats DALI's examples read (written from the formats' public
descriptions, independent of Sluice): MXNet RecordIO (.rec/.idx), TFRecord with tf.train.Example
records, Caffe's Datum in LMDB, and WebDataset tars."""
import io
import struct
import tarfile
import wave

import numpy as np
from PIL import Image

MXNET_MAGIC = 0xCED7230A


# --- MXNet RecordIO (dmlc recordio + mxnet.recordio IRHeader) ----------------------------------
def _recordio_record(payload):
    magic = struct.pack("<I", MXNET_MAGIC)
    assert magic not in payload, "keep the test payloads free of the magic word"
    return magic + struct.pack("<I", len(payload)) + payload + b"\0" * (-len(payload) % 4)


def write_recordio(rec_path, idx_path, samples):
    """samples: [(label: float, jpeg bytes)]. Writes MXIndexedRecordIO's .rec and .idx."""
    lines = []
    with open(rec_path, "wb") as f:
        for k, (label, data) in enumerate(samples):
            lines.append(f"{k}\t{f.tell()}\n")
            f.write(_recordio_record(struct.pack("<IfQQ", 0, float(label), k, 0) + data))
    with open(idx_path, "w") as f:
        f.writelines(lines)


# --- protobuf wire format -------------------------------------------------------------------------
def _varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, wire, payload):
    key = _varint((num << 3) | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


# --- TFRecord of tf.train.Example ------------------------------------------------------------------
def _crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _feature(values, kind):
    if kind == "bytes":
        inner = b"".join(_field(1, 2, v) for v in values)
        return _field(1, 2, inner)
    if kind == "float":
        inner = _field(1, 2, struct.pack(f"<{len(values)}f", *values))
        return _field(2, 2, inner)
    inner = _field(1, 2, b"".join(_varint(v & 0xFFFFFFFFFFFFFFFF) for v in values))
    return _field(3, 2, inner)


def tf_example(features):
    """features: {name: (kind, [values])} with kind in bytes/float/int64."""
    entries = b""
    for name, (kind, values) in features.items():
        entry = _field(1, 2, name.encode()) + _field(2, 2, _feature(values, kind))
        entries += _field(1, 2, entry)
    return _field(1, 2, entries)


def write_tfrecord(path, examples, index_path=None):
    """Writes the records and, when index_path is given, DALI's tfrecord2idx index ("offset size")."""
    lines = []
    with open(path, "wb") as f:
        for ex in examples:
            start = f.tell()
            length = struct.pack("<Q", len(ex))
            f.write(length + struct.pack("<I", _masked(_crc32c(length))) + ex
                    + struct.pack("<I", _masked(_crc32c(ex))))
            lines.append(f"{start} {f.tell() - start}\n")
    if index_path:
        with open(index_path, "w") as f:
            f.writelines(lines)


# --- Caffe Datum in LMDB -----------------------------------------------------------------------------
def caffe_datum(jpeg, label):
    """caffe.proto Datum: channels=1, height=2, width=3, data=4, label=5, encoded=7."""
    return (_field(1, 0, _varint(3)) + _field(4, 2, jpeg) + _field(5, 0, _varint(label))
            + _field(7, 0, _varint(1)))


def write_caffe_lmdb(path, samples):
    import lmdb
    env = lmdb.open(str(path), map_size=1 << 26)
    with env.begin(write=True) as txn:
        for k, (jpeg, label) in enumerate(samples):
            txn.put(f"{k:08d}".encode(), caffe_datum(jpeg, label))
    env.close()


# --- WebDataset ----------------------------------------------------------------------------------------
def write_wds_tar(path, samples):
    """samples: [(key, {ext: bytes})]"""
    with tarfile.open(path, "w") as tar:
        for key, files in samples:
            for ext, data in files.items():
                info = tarfile.TarInfo(f"{key}.{ext}")
                info.size = len(data)
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))


# --- images and audio -------------------------------------------------------------------------------
def decode_rgb(path):
    return np.asarray(Image.open(path).convert("RGB"))


def write_wav(path, samples, rate):
    """int16 PCM WAV (mono or interleaved (n, channels))."""
    samples = np.asarray(samples, np.int16)
    channels = 1 if samples.ndim == 1 else samples.shape[1]
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def jpeg_bytes(arr, quality=95):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()




# --- Caffe2 TensorProtos in LMDB -----------------------------------------------------------------
def caffe2_tensor_protos(jpeg, label):
    """caffe2.proto TensorProtos{protos: [image TensorProto (STRING=4, string_data=6),
    label TensorProto (INT32=2, int32_data=4, packed)]}."""
    image = _field(1, 0, _varint(1)) + _field(2, 0, _varint(4)) + _field(6, 2, jpeg)
    lab = _field(1, 0, _varint(1)) + _field(2, 0, _varint(2)) + _field(4, 2, _varint(label))
    return _field(1, 2, image) + _field(1, 2, lab)


def write_caffe2_lmdb(path, samples):
    import lmdb
    env = lmdb.open(str(path), map_size=1 << 26)
    with env.begin(write=True) as txn:
        for k, (jpeg, label) in enumerate(samples):
            txn.put(f"{k:08d}".encode(), caffe2_tensor_protos(jpeg, label))
    env.close()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()
