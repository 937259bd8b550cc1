"""Pipeline serialization (DALI's API, Sluice's format): serialize(), serialize(filename=...),
Pipeline.deserialize(serialized_pipeline=... | filename=..., **kwargs), deserialize_and_build(),
save_graph_to_dot_file(); round trips give the same outputs batch for batch."""
import json
import warnings

import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, ops, types
from sluice.pipeline import StreamPolicy


@pytest.fixture
def image_root(tmp_path):
    """Two classes of small JPEG and PNG images of different sizes."""
    rng = np.random.default_rng(0)
    for c in range(2):
        d = tmp_path / f"class_{c}"
        d.mkdir()
        for i in range(5):
            h, w = 20 + 3 * i, 24 + 2 * i + c
            Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(
                d / f"img_{i}.{'png' if i % 2 else 'jpg'}")
    return str(tmp_path)


def define(root, **kw):
    """A reader over files, a decoder, random operators, arithmetic and an external_source fed by
    feed_input."""
    pipe = sluice.Pipeline(batch_size=3, num_threads=2, **kw)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=5, name="Reader")
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=16, resize_y=12)
        images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
        scale = fn.random.uniform(range=[0.5, 1.5])
        offset = fn.external_source(name="offset", dtype=types.FLOAT)
        out = fn.cast(images, dtype=types.FLOAT) * scale + offset
        pipe.set_outputs(out, labels, fn.random.normal(shape=[2]), scale)
    return pipe


def offsets(k):
    return [np.full((1,), 10.0 * k + i, np.float32) for i in range(3)]


def run(pipe, n, start=0):
    """n iterations from iteration `start`, feeding "offset" one batch per iteration, prefetch_queue_depth
    iterations ahead (a run() schedules up to that many)."""
    fed = getattr(pipe, "_test_next_feed", start)
    out = []
    for k in range(start, start + n):
        while fed < k + pipe.prefetch_queue_depth:
            pipe.feed_input("offset", offsets(fed))
            fed += 1
        pipe._test_next_feed = fed
        out.append([np.array(o.as_tensor()) if o.is_dense_tensor() else [np.array(t) for t in o]
                    for o in pipe.run()])
    return out


def assert_same(a, b):
    assert len(a) == len(b)
    for batch_a, batch_b in zip(a, b):
        for x, y in zip(batch_a, batch_b):
            np.testing.assert_array_equal(x, y)


def test_round_trip_gives_the_same_outputs_batch_for_batch(image_root, tmp_path):
    pipe = define(image_root, seed=None, prefetch_queue_depth=1)  # a random seed: fixed by serialize()
    data = pipe.serialize()
    assert isinstance(data, bytes) and json.loads(data)["format"] == "sluice.pipeline"
    expected = run(pipe, 5)
    assert pipe.seed == json.loads(data)["pipeline"]["seed"]
    # the random operators do vary (the comparison below is not of constants)
    assert len({float(b[3].ravel()[0]) for b in expected}) > 1

    restored = sluice.Pipeline.deserialize(serialized_pipeline=data)
    assert restored.max_batch_size == 3 and restored.num_threads == 2 and restored.seed == pipe.seed
    assert restored.prefetch_queue_depth == 1
    assert_same(run(restored, 5), expected)

    path = tmp_path / "pipe.sluice"
    assert pipe.serialize(filename=str(path)) == data == path.read_bytes()
    from_file = sluice.Pipeline.deserialize(filename=str(path), prefetch_queue_depth=2, num_threads=1)
    assert from_file.prefetch_queue_depth == 2 and from_file.num_threads == 1  # kwargs override
    assert_same(run(from_file, 5), expected)
    assert sluice.Pipeline.deserialize(data.decode()).seed == pipe.seed  # str is accepted too


def test_a_serialized_pipeline_keeps_names_and_reader_metadata(image_root):
    restored = sluice.Pipeline.deserialize(define(image_root, seed=5).serialize())
    assert restored.epoch_size("Reader") == 10
    assert restored.reader_meta("Reader")["epoch_size"] == 10
    with pytest.raises(sluice.SluiceError, match="no external_source"):
        restored.feed_input("not_there", offsets(0))


def test_deserialize_with_a_checkpoint_resumes_where_it_was_taken(image_root):
    pipe = define(image_root, seed=3, enable_checkpointing=True)
    data = pipe.serialize()
    run(pipe, 2)
    checkpoint = pipe.checkpoint()
    expected = run(pipe, 3, start=2)
    for ckpt in (checkpoint, checkpoint.encode()):
        restored = sluice.Pipeline.deserialize(data, checkpoint=ckpt)
        assert restored.is_restored_from_checkpoint
        assert_same(run(restored, 3, start=2), expected)
    fresh = sluice.Pipeline.deserialize(data)  # without the checkpoint: from the start, other batches
    assert not fresh.is_restored_from_checkpoint
    got = run(fresh, 3, start=2)
    with pytest.raises(AssertionError):
        assert_same(got, expected)


def test_deserialize_and_build_takes_the_instance_arguments_over_the_serialized_ones(image_root):
    pipe = define(image_root, seed=9, prefetch_queue_depth=3)
    data = pipe.serialize()
    expected = run(pipe, 3)
    target = sluice.Pipeline(prefetch_queue_depth=1)
    target.deserialize_and_build(data)
    assert target.prefetch_queue_depth == 1 and target.max_batch_size == 3 and target.seed == 9
    assert_same(run(target, 3), expected)
    with pytest.raises(sluice.SluiceError, match="not built yet"):
        target.deserialize_and_build(data)


def test_options_external_source_settings_and_output_descriptions_survive():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1, prefetch_queue_depth=1, exec_dynamic=True,
                           stream_policy=StreamPolicy.SINGLE, output_dtype=[types.INT32, None],
                           output_ndim=1, output_layout=["", "X"])
    with pipe:
        a = fn.external_source(name="a", repeat_last=True)
        b = fn.external_source(name="b", layout="X")
        pipe.set_outputs(a, b + 1)
    restored = sluice.Pipeline.deserialize(pipe.serialize())
    assert restored.output_dtype() == [types.INT32, None] and restored.output_ndim() == [1, 1]
    assert restored.stream_policy is StreamPolicy.SINGLE and restored.exec_dynamic is True
    restored.feed_input("a", [np.array([1, 2], np.int32), np.array([3], np.int32)])
    for k in range(3):  # "a" repeats its last batch (repeat_last survived); "b" is fed each time
        restored.feed_input("b", [np.array([k], np.int64)] * 2)
        a_out, b_out = restored.run()
        assert [t.tolist() for t in map(np.array, a_out)] == [[1, 2], [3]]
        assert np.array(b_out.as_tensor()).ravel().tolist() == [k + 1, k + 1] and b_out.layout() == "X"
    restored.feed_input("a", [np.array([1.5], np.float32)] * 2)
    restored.feed_input("b", [np.array([0], np.int64)] * 2)
    with pytest.raises(sluice.SluiceError, match="output_dtype INT32"):
        restored.run()  # the output checks survived too


@pytest.mark.parametrize("make", ["python_function", "source", "ops_source"])
def test_python_code_cannot_be_serialized_and_the_error_names_the_operator(make):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1)
    with pipe:
        if make == "python_function":
            x = fn.python_function(fn.testing.counter(), function=lambda v: v * 2, name="doubler")
            name = "doubler"
        elif make == "source":
            x = fn.external_source(source=lambda: [np.zeros(1)] * 2, name="feeder")
            name = "feeder"
        else:
            x = ops.ExternalSource(source=[[np.zeros(1)] * 2], name="legacy")()
            name = "legacy"
        pipe.set_outputs(x)
    with pytest.raises(sluice.SluiceError, match=f"'{name}'") as e:
        pipe.serialize()
    assert "cannot serialize" in str(e.value)


def test_bad_serialized_data_and_arguments_are_clear_errors(tmp_path):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1)
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    data = pipe.serialize()
    with pytest.raises(ValueError, match="mutually exclusive"):
        sluice.Pipeline.deserialize()
    with pytest.raises(ValueError, match="mutually exclusive"):
        sluice.Pipeline.deserialize(data, filename=str(tmp_path / "x"))
    with pytest.raises(sluice.SluiceError, match="not a serialized Sluice pipeline"):
        sluice.Pipeline.deserialize(b"\x0a\x05DALI\xff protobuf")
    with pytest.raises(sluice.SluiceError, match="not a serialized Sluice pipeline"):
        sluice.Pipeline.deserialize('{"a": 1}')
    newer = json.loads(data)
    newer["version"] = 99
    with pytest.raises(sluice.SluiceError, match="version 99"):
        sluice.Pipeline.deserialize(json.dumps(newer))
    broken = json.loads(data)
    broken["outputs"] = [[3, 0]]
    with pytest.raises(sluice.SluiceError, match="does not exist"):
        sluice.Pipeline.deserialize(json.dumps(broken))
    with pytest.raises(TypeError, match="unexpected keyword"):
        sluice.Pipeline.deserialize(data, batch_sise=4)
    with pytest.raises(TypeError, match="serialize\\(filename=...\\)"):
        pipe.serialize("pipe.bin")


def test_serialize_with_define_graph_and_a_subclass():
    class Counter(sluice.Pipeline):
        def define_graph(self):
            return fn.testing.counter(shape=[2])

    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    data = pipe.serialize(define_graph=lambda: fn.testing.add_constant(fn.testing.counter(), value=5))
    out, = sluice.Pipeline.deserialize(data).run()
    assert np.array(out.as_tensor()).ravel().tolist() == [5, 6]
    with pytest.raises(sluice.SluiceError, match="Duplicate graph definition"):
        defined = sluice.Pipeline(batch_size=2, num_threads=1)
        with defined:
            defined.set_outputs(fn.testing.counter())
        defined.serialize(define_graph=lambda: fn.testing.counter())
    restored = Counter.deserialize(Counter(batch_size=2, num_threads=1, seed=0).serialize())
    assert isinstance(restored, Counter)
    assert np.array(restored.run()[0].as_tensor()).tolist() == [[0, 0], [1, 1]]


def test_save_graph_to_dot_file(tmp_path):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        c = fn.testing.counter(name="counter")
        u = fn.random.uniform(range=[0.0, 1.0])
        pipe.set_outputs(fn.testing.add_constant(c, value=u), u)
    path = tmp_path / "graph.dot"
    pipe.save_graph_to_dot_file(str(path))
    text = path.read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0] == "digraph pipeline {" and lines[-1] == "}"
    assert '"counter" [label="counter\\ntesting.counter (cpu)"];' in lines
    assert '"counter" -> "testing.add_constant#0" [label="counter[0]"];' in lines
    assert '"random.uniform#0" -> "testing.add_constant#0" [label="random.uniform#0[0] -> value"];' in lines
    assert '"random.uniform#0" -> "output 1" [label="random.uniform#0[0]"];' in lines

    pipe.save_graph_to_dot_file(str(path), show_tensors=True, use_colors=True)
    lines = [line.strip() for line in path.read_text().splitlines()]
    assert '"counter[0]" [shape=box];' in lines and '"counter" -> "counter[0]";' in lines
    assert '"random.uniform#0[0]" -> "testing.add_constant#0" [label="value"];' in lines
    assert lines.count('"random.uniform#0[0]" [shape=box];') == 1  # one node per tensor, read twice
    assert any(line.startswith('"counter" [') and 'fillcolor="#5b9bd5"' in line for line in lines)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe.save_graph_to_dot_file(str(path), show_ids=True)
    assert any(issubclass(w.category, DeprecationWarning) and "show_ids" in str(w.message) for w in caught)
