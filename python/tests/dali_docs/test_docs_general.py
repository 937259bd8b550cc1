"""DALI's general tutorials (docs/examples/general/*.ipynb and docs/examples/general/advanced/*),
with `nvidia.dali` changed to `sluice` in the imports. Where a notebook decodes with
device="mixed" or runs an operator with device="gpu" only to show the GPU, the CPU variant is used
(said at the line)."""
import os

import numpy as np
import pytest

import sluice as dali
import sluice.fn as fn
import sluice.ops as ops
import sluice.types as types
import sluice.backend as backend
from sluice import pipeline_def
from sluice.pipeline import Pipeline

from ._formats import decode_rgb, read_bytes, write_recordio


# --- docs/examples/general/reductions.ipynb ----------------------------------------------------

batch_size = 2


def get_batch():
    return [np.reshape(np.arange(9), (3, 3)) * (i + 1) for i in range(batch_size)]


def get_batch_3d():
    return [np.reshape(np.arange(8, dtype=np.int32), (2, 2, 2)) * (i + 1) for i in range(batch_size)]


def run_and_print(pipe):
    """The notebook's helper, returning the arrays instead of printing them."""
    pipe.build()
    output = pipe.run()
    arrays = []
    for i, out in enumerate(output):
        if type(out) == backend.TensorListGPU:
            out = out.as_cpu()
        arrays.append(out.as_array())
    return arrays


def test_reductions_min_max_sum_and_axes():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch)
        max = fn.reductions.max(input)
        pipe.set_outputs(max)
    assert run_and_print(pipe)[0].tolist() == [8, 16]

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch)
        min = fn.reductions.min(input)
        sum = fn.reductions.sum(input)
        pipe.set_outputs(min, sum)
    mn, sm = run_and_print(pipe)
    assert mn.tolist() == [0, 0] and sm.tolist() == [36, 72]

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch)
        min_axis_0 = fn.reductions.min(input, axes=0)
        min_axis_1 = fn.reductions.min(input, axes=1)
        pipe.set_outputs(min_axis_0, min_axis_1)
    a0, a1 = run_and_print(pipe)
    assert a0.tolist() == [[0, 1, 2], [0, 2, 4]] and a1.tolist() == [[0, 3, 6], [0, 6, 12]]

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch, layout='AB')
        min_axis_0 = fn.reductions.min(input, axis_names='A')
        min_axis_1 = fn.reductions.min(input, axis_names='B')
        pipe.set_outputs(min_axis_0, min_axis_1)
    a0, a1 = run_and_print(pipe)
    assert a0.tolist() == [[0, 1, 2], [0, 2, 4]] and a1.tolist() == [[0, 3, 6], [0, 6, 12]]


def test_reductions_full_and_empty_axes():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch, layout='AB')
        min_axes_full = fn.reductions.min(input, axes=(0, 1))
        min_axes_empty = fn.reductions.min(input, axes=())
        min_layout_full = fn.reductions.min(input, axis_names='AB')
        min_layout_empty = fn.reductions.min(input, axis_names='')
        pipe.set_outputs(min_axes_full, min_axes_empty, min_layout_full, min_layout_empty)
    full, empty, lfull, lempty = run_and_print(pipe)
    assert full.tolist() == [0, 0] and lfull.tolist() == [0, 0]
    np.testing.assert_array_equal(empty, np.stack(get_batch()))
    np.testing.assert_array_equal(lempty, np.stack(get_batch()))

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch_3d, layout='ABC')
        min_axes_empty = fn.reductions.min(input, axes=())
        min_axes_0_1 = fn.reductions.min(input, axes=(0, 1))
        min_layout_A_C = fn.reductions.min(input, axis_names='AC')
        pipe.set_outputs(min_axes_empty, min_axes_0_1, min_layout_A_C)
    empty, a01, ac = run_and_print(pipe)
    np.testing.assert_array_equal(empty, np.stack(get_batch_3d()))
    assert a01.tolist() == [[0, 1], [0, 2]] and ac.tolist() == [[0, 2], [0, 4]]


def test_reductions_mean_std_dev_variance_keep_dims_dtype():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch_3d)
        mean = fn.reductions.mean(input)
        std_dev = fn.reductions.std_dev(input, mean)
        variance = fn.reductions.variance(input, mean)
        pipe.set_outputs(mean, std_dev, variance)
    mean, std, var = run_and_print(pipe)
    np.testing.assert_allclose(mean, [3.5, 7.0])
    np.testing.assert_allclose(std, [2.291288, 4.582576], rtol=1e-6)
    np.testing.assert_allclose(var, [5.25, 21.0], rtol=1e-6)
    assert mean.dtype == np.float32  # "for the input type INT32 ... the default output type of a mean is FLOAT"

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch_3d)
        mean = fn.reductions.mean(input)
        std_dev = fn.reductions.std_dev(input, mean, keep_dims=True)
        variance = fn.reductions.variance(input, mean)
        pipe.set_outputs(mean, std_dev, variance)
    _, std, _ = run_and_print(pipe)
    assert std.shape == (2, 1, 1, 1)

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        input = fn.external_source(source=get_batch_3d)
        sum_int_64 = fn.reductions.sum(input, dtype=types.INT64)
        sum_float = fn.reductions.sum(input, dtype=types.FLOAT)
        pipe.set_outputs(sum_int_64, sum_float)
    s64, sf = run_and_print(pipe)
    assert s64.dtype == np.int64 and sf.dtype == np.float32
    assert s64.tolist() == [28, 56] and sf.tolist() == [28.0, 56.0]


# --- docs/examples/general/tensor_join.ipynb ---------------------------------------------------

arr = np.array(
    [
        [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
        [[13, 14, 15, 16], [17, 18, 19, 20], [21, 22, 23, 24]],
    ]
)


def test_tensor_join_concatenation():
    src1 = dali.types.Constant(arr)
    src2 = dali.types.Constant(arr + 100)
    src3 = dali.types.Constant(arr + 200)

    pipe_cat = dali.pipeline.Pipeline(batch_size=1, num_threads=3, device_id=0)
    with pipe_cat:
        cat_outer = fn.cat(src1, src2, src3, axis=0)
        cat_middle = fn.cat(src1, src2, src3, axis=1)
        cat_inner = fn.cat(src1, src2, src3, axis=2)
        pipe_cat.set_outputs(cat_outer, cat_middle, cat_inner)
    pipe_cat.build()
    o = pipe_cat.run()
    for k, axis in enumerate((0, 1, 2)):
        expected = np.concatenate([arr, arr + 100, arr + 200], axis=axis)
        assert o[k].at(0).shape == expected.shape
        np.testing.assert_array_equal(o[k].at(0), expected)
    assert o[0].at(0).shape == (6, 3, 4) and o[1].at(0).shape == (2, 9, 4) and o[2].at(0).shape == (2, 3, 12)


def test_tensor_join_stacking():
    src1 = dali.types.Constant(arr)
    src2 = dali.types.Constant(arr + 100)
    src3 = dali.types.Constant(arr + 200)

    pipe_stack = dali.pipeline.Pipeline(batch_size=1, num_threads=3, device_id=0)
    with pipe_stack:
        st_outermost = fn.stack(src1, src2, src3, axis=0)
        st_1 = fn.stack(src1, src2, src3, axis=1)
        st_2 = fn.stack(src1, src2, src3, axis=2)
        st_new_inner = fn.stack(src1, src2, src3, axis=3)
        pipe_stack.set_outputs(st_outermost, st_1, st_2, st_new_inner)
    pipe_stack.build()
    o = pipe_stack.run()
    for k in range(4):
        np.testing.assert_array_equal(o[k].at(0), np.stack([arr, arr + 100, arr + 200], axis=k))
    assert o[3].at(0).shape == (2, 3, 4, 3)


# --- docs/examples/general/reinterpret.ipynb ---------------------------------------------------

def rand_shape(dims, lo, hi):
    return list(np.random.randint(lo, hi, [dims]))


def test_reinterpret_fixed_and_wildcard_reshape():
    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example1(input_data):
        np.random.seed(1234)
        inp = fn.external_source(input_data, batch=False, dtype=types.INT32)
        return inp, fn.reshape(inp, shape=[5, 5], layout="HW")

    pipe1 = example1(lambda: np.random.randint(0, 10, size=[25], dtype=np.int32))
    pipe1.build()
    inp, out = pipe1.run()
    assert out.layout() == "HW"
    for i in range(3):
        np.testing.assert_array_equal(np.array(out[i]), np.array(inp[i]).reshape(5, 5))

    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example2(input_data):
        np.random.seed(12345)
        inp = fn.external_source(input_data, batch=False, dtype=types.INT32)
        return inp, fn.reshape(inp, shape=[-1, 5])

    pipe2 = example2(lambda: np.random.randint(0, 10, size=[5 * np.random.randint(3, 10)], dtype=np.int32))
    pipe2.build()
    inp, out = pipe2.run()
    for i in range(3):
        a = np.array(inp[i])
        np.testing.assert_array_equal(np.array(out[i]), a.reshape(-1, 5))


def test_reinterpret_squeeze_expand_and_src_dims():
    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example_squeeze_expand(input_data):
        np.random.seed(4321)
        inp = fn.external_source(input_data, batch=False, layout="CHW", dtype=types.INT32)
        squeezed = fn.squeeze(inp, axes=[0])
        expanded = fn.expand_dims(squeezed, axes=[0, 3], new_axis_names="FC")
        return inp, fn.squeeze(inp, axes=[0]), expanded

    def single_channel_generator():
        return np.random.randint(0, 10, size=[1] + rand_shape(2, 1, 7), dtype=np.int32)

    pipe = example_squeeze_expand(single_channel_generator)
    pipe.build()
    inp, sq, ex = pipe.run()
    assert inp.layout() == "CHW" and sq.layout() == "HW" and ex.layout() == "FHWC"
    for i in range(3):
        a = np.array(inp[i])
        np.testing.assert_array_equal(np.array(sq[i]), a[0])
        np.testing.assert_array_equal(np.array(ex[i]), a[0][np.newaxis, :, :, np.newaxis])

    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example_reorder(input_data):
        np.random.seed(4321)
        inp = fn.external_source(input_data, batch=False, dtype=types.INT32)
        return inp, fn.reshape(inp, src_dims=[1, 0])

    pipe = example_reorder(lambda: np.random.randint(0, 10, size=rand_shape(2, 1, 7), dtype=np.int32))
    pipe.build()
    inp, out = pipe.run()
    for i in range(3):
        a = np.array(inp[i])
        # src_dims only reinterprets the shape: the data keeps its order
        np.testing.assert_array_equal(np.array(out[i]), a.reshape(a.shape[1], a.shape[0]))

    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example_remove_add(input_data):
        np.random.seed(4321)
        inp = fn.external_source(input_data, batch=False, layout="CHW", dtype=types.INT32)
        return inp, fn.reshape(inp,
                               src_dims=[1, 2, -1],  # select HW and add a new one at the end
                               layout="HWC")  # specify the layout string

    pipe = example_remove_add(lambda: np.random.randint(0, 10, [1, 4, 3], dtype=np.int32))
    pipe.build()
    inp, out = pipe.run()
    assert out.layout() == "HWC"
    for i in range(3):
        np.testing.assert_array_equal(np.array(out[i]), np.array(inp[i]).reshape(4, 3, 1))


def test_reinterpret_relative_shape():
    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example_rel_shape(input_data):
        np.random.seed(1234)
        inp = fn.external_source(input_data, batch=False, dtype=types.INT32)
        return inp, fn.reshape(inp, rel_shape=[0.5, 2], src_dims=[1, 0])

    pipe = example_rel_shape(
        lambda: np.random.randint(0, 10, [np.random.randint(1, 7), 2 * np.random.randint(1, 5)], dtype=np.int32))
    pipe.build()
    inp, out = pipe.run()
    for i in range(3):
        a = np.array(inp[i])
        h, w = a.shape
        np.testing.assert_array_equal(np.array(out[i]), a.reshape(w // 2, 2 * h))


def test_reinterpret_data_type():
    @pipeline_def(device_id=0, num_threads=4, batch_size=3)
    def example_reinterpret(input_data):
        np.random.seed(1234)
        inp = fn.external_source(input_data, batch=False, dtype=types.UINT8)
        return inp, fn.reinterpret(inp, dtype=dali.types.UINT32)

    pipe_reinterpret = example_reinterpret(
        lambda: np.random.randint(0, 255, [np.random.randint(1, 7), 4 * np.random.randint(1, 5)], dtype=np.uint8))
    pipe_reinterpret.build()
    inp, out = pipe_reinterpret.run()
    for i in range(3):
        a, b = np.array(inp[i]), np.array(out[i])
        assert b.dtype == np.uint32
        np.testing.assert_array_equal(b, a.view(np.uint32))


# --- docs/examples/general/data_loading/external_input.ipynb -----------------------------------

class ExternalInputIterator(object):
    def __init__(self, batch_size, images_dir):
        self.images_dir = images_dir  # "../../data/images/" in the notebook
        self.batch_size = batch_size
        with open(self.images_dir + "file_list.txt", 'r') as f:
            self.files = [line.rstrip() for line in f if line != '']
        # the notebook shuffles the list here (random.shuffle); the order does not matter below

    def __iter__(self):
        self.i = 0
        self.n = len(self.files)
        return self

    def __next__(self):
        batch = []
        labels = []
        for _ in range(self.batch_size):
            jpeg_filename, label = self.files[self.i].split(' ')
            f = open(self.images_dir + jpeg_filename, 'rb')
            batch.append(np.frombuffer(f.read(), dtype=np.uint8))
            labels.append(np.array([label], dtype=np.uint8))
            self.i = (self.i + 1) % self.n
        return (batch, labels)


def test_external_input_ops_pipeline(image_dir):
    eii = ExternalInputIterator(16, image_dir + "/")

    class ExternalSourcePipeline(Pipeline):
        def __init__(self, batch_size, num_threads, device_id):
            super(ExternalSourcePipeline, self).__init__(batch_size, num_threads, device_id, seed=12)
            self.source = ops.ExternalSource(source=eii, num_outputs=2)
            # the notebook: ImageDecoder(device="mixed"), BrightnessContrast(device="gpu"); CPU here
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.enhance = ops.BrightnessContrast(device="cpu", contrast=2)

        def define_graph(self):
            jpegs, labels = self.source()
            images = self.decode(jpegs)
            output = self.enhance(images)
            return (output, labels)

    pipe = ExternalSourcePipeline(batch_size=16, num_threads=2, device_id=0)
    pipe.build()
    pipe_out = pipe.run()
    batch_cpu = pipe_out[0].as_cpu()
    labels_cpu = pipe_out[1]
    files = eii.files
    for j in range(16):
        name, label = files[j % len(files)].split(' ')
        assert labels_cpu.at(j).tolist() == [int(label)]
        ref = decode_rgb(os.path.join(image_dir, name)).astype(np.float32)
        # brightness_contrast with contrast=2 around the uint8 mid-grey (128)
        expected = np.clip(np.round(128 + 2 * (ref - 128)), 0, 255)
        got = batch_cpu.at(j)
        assert got.shape == ref.shape and got.dtype == np.uint8
        assert np.mean(np.abs(got.astype(np.float32) - expected)) < 3.0


# --- docs/examples/general/advanced/serialization.ipynb ---------------------------------------

def serialization_example(tmp_path, image_files, image_type_args, dtype_arg):
    """The notebook's pipeline; image_type_args are the arguments it passes as `image_type=types.RGB`,
    dtype_arg the name of CropMirrorNormalize's output type argument (the notebook: `output_dtype`)."""
    rec_files = [str(tmp_path / "train.rec")]
    idx_files = [str(tmp_path / "train.idx")]
    write_recordio(rec_files[0], idx_files[0],
                   [(label, read_bytes(path)) for path, label, _ in image_files])

    class SerializedPipeline(Pipeline):
        def __init__(self, batch_size, num_threads, device_id, seed):
            super(SerializedPipeline, self).__init__(batch_size, num_threads, device_id, seed=seed)
            self.input = ops.MXNetReader(path=rec_files, index_path=idx_files)
            # the notebook decodes with device="mixed" and resizes/normalizes with device="gpu"
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.resize = ops.Resize(device="cpu", **image_type_args, interp_type=types.INTERP_LINEAR)
            self.cmnp = ops.CropMirrorNormalize(device="cpu", **{dtype_arg: types.FLOAT}, crop=(24, 24),
                                                **image_type_args, mean=[0., 0., 0.], std=[1., 1., 1.])
            self.res_uniform = ops.Uniform(range=(32., 64.))  # (256., 480.) with crop 224 in the notebook

        def define_graph(self):
            inputs, labels = self.input(name="Reader")
            images = self.decode(inputs)
            images = self.resize(images, resize_shorter=self.res_uniform())
            output = self.cmnp(images)
            return (output, labels)

    batch_size = 4
    pipe = SerializedPipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=12)
    s = pipe.serialize()
    pipe2 = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=12)
    pipe2.deserialize_and_build(s)
    pipe.build()
    original_pipe_out = pipe.run()
    serialized_pipe_out = pipe2.run()

    def check_difference(batch_1, batch_2):
        return [np.sum(np.abs(batch_1.at(i) - batch_2.at(i))) for i in range(batch_size)]

    original_images, labels = original_pipe_out
    serialized_images, _ = serialized_pipe_out
    assert check_difference(original_images.as_cpu(), serialized_images.as_cpu()) == [0.0] * batch_size
    assert original_images.as_cpu().at(0).shape == (3, 24, 24)
    assert [int(labels.at(i)[0]) for i in range(batch_size)] == [l for _, l, _ in image_files[:batch_size]]


def test_serialization_as_written(tmp_path, image_files):
    serialization_example(tmp_path, image_files, {"image_type": types.RGB}, "output_dtype")


def test_serialization_with_current_argument_names(tmp_path, image_files):
    """The same notebook with its deprecated arguments in their current form: `image_type` left out,
    `output_dtype` spelt `dtype` (what DALI's deprecation warnings ask for)."""
    serialization_example(tmp_path, image_files, {}, "dtype")
