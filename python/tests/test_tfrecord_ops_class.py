"""ops.readers.TFRecord (and DALI's legacy ops.TFRecordReader): fn.readers.tfrecord's arguments at
construction, the dict of DataNodes when called; the same records as the functional form, read
from a file written by test_tfrecord_reader's independent writer."""
import numpy as np
import pytest

import sluice
from sluice import ops

from test_tfrecord_reader import FEATURES, check, read_all, records, write_file  # noqa: F401 (fixture below)
import sluice.tfrecord as tfrec


def read_with_class(cls, path, index_path, n, batch_size=4, **kwargs):
    reader = cls(path=[str(path)], index_path=[str(index_path)], features=FEATURES, **kwargs)
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    with pipe:
        out = reader(name="Reader")
        assert isinstance(out, dict) and list(out) == list(FEATURES)
        pipe.set_outputs(*out.values())
    pipe.build()
    assert pipe.reader_meta("Reader")["shard_id"] == kwargs.get("shard_id", 0)
    rows = []
    while len(rows) < n:
        tls = pipe.run()
        for i in range(len(tls[0])):
            rows.append({k: np.array(tl.at(i)) for k, tl in zip(FEATURES, tls)})
    return rows[:n]


@pytest.mark.parametrize("name", ["readers.TFRecord", "TFRecordReader"])
def test_class_form_reads_what_the_functional_form_reads(tmp_path, name):
    cls = ops.readers.TFRecord if name == "readers.TFRecord" else ops.TFRecordReader
    assert cls is ops.readers.TFRecord
    recs = records(9)
    path, index = tmp_path / "data.tfrecord", tmp_path / "data.idx"
    write_file(path, recs)
    tfrec.write_index(path, index)
    rows = read_with_class(cls, path, index, 9)
    for row, r in zip(rows, recs):
        check(row, r)
    functional = read_all([str(path)], [str(index)], 9)
    for a, b in zip(rows, functional):
        for k in FEATURES:
            np.testing.assert_array_equal(a[k], b[k])


def test_reader_arguments_are_passed_and_checked(tmp_path):
    recs = records(8)
    path, index = tmp_path / "data.tfrecord", tmp_path / "data.idx"
    write_file(path, recs)
    tfrec.write_index(path, index)
    rows = read_with_class(ops.readers.TFRecord, path, index, 4, num_shards=2, shard_id=1)
    assert [int(r["label"][0]) for r in rows] == [r["label"][0] for r in recs[4:]]
    with pytest.raises(sluice.ArgumentError, match="shard_idd"):
        ops.readers.TFRecord(path=[str(path)], features=FEATURES, shard_idd=1)
    with pytest.raises(TypeError, match="feature .x. is 3"):
        ops.readers.TFRecord(path=[str(path)], features={"x": 3})
