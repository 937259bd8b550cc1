"""DALI's framework and custom-operation examples (docs/examples/frameworks/pytorch/
pytorch-basic_example.ipynb, docs/examples/frameworks/jax/jax-basic_example.ipynb,
docs/examples/custom_operations/python_operator.ipynb and numba_function.ipynb), with `nvidia.dali`
changed to `sluice` in the imports. DALI_extra's LMDBs are written by the test (_formats.py); the
GPU parts (decoders with device="mixed", `.gpu()`) run on the CPU; the notebooks' dataset and batch
sizes are scaled down (said at the line)."""
import numpy as np
import pytest

import sluice.ops as ops
import sluice.types as types
from sluice.pipeline import Pipeline

from ._formats import decode_rgb, jpeg_bytes, read_bytes, write_caffe_lmdb, write_caffe2_lmdb


@pytest.fixture(scope="module")
def lmdb_folder(tmp_path_factory, image_files):
    path = tmp_path_factory.mktemp("caffe_lmdb")
    write_caffe_lmdb(path, [(read_bytes(p), 100 * k + 7) for k, (p, _, _) in enumerate(image_files)])
    return str(path)


# --- docs/examples/frameworks/pytorch/pytorch-basic_example.ipynb --------------------------------

def test_pytorch_basic_example(lmdb_folder):
    pytest.importorskip("torch")
    N = 2  # number of GPUs (8 in the notebook)
    BATCH_SIZE = 4  # batch size per GPU (128 in the notebook)
    ITERATIONS = 3  # (32 in the notebook)

    class CaffeReadPipeline(Pipeline):
        def __init__(self, batch_size, num_threads, device_id, num_gpus):
            super(CaffeReadPipeline, self).__init__(batch_size, num_threads, device_id)
            self.input = ops.CaffeReader(path=lmdb_folder, random_shuffle=True, shard_id=device_id,
                                         num_shards=num_gpus)
            # device="mixed" / "gpu" in the notebook; crop (227, 227) and resize_shorter in (256, 480)
            # scaled to the test images
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.resize = ops.Resize(device="cpu", interp_type=types.INTERP_LINEAR)
            self.cmn = ops.CropMirrorNormalize(device="cpu", dtype=types.FLOAT, crop=(32, 32),
                                               mean=[128., 128., 128.], std=[1., 1., 1.])
            self.uniform = ops.random.Uniform(range=(0.0, 1.0))
            self.resize_rng = ops.random.Uniform(range=(40, 64))

        def define_graph(self):
            inputs, labels = self.input(name="Reader")
            images = self.decode(inputs)
            images = self.resize(images, resize_shorter=self.resize_rng())
            output = self.cmn(images, crop_pos_x=self.uniform(), crop_pos_y=self.uniform())
            return (output, labels)

    from sluice.plugin.pytorch import DALIGenericIterator

    label_range = (0, 999)
    pipes = [CaffeReadPipeline(batch_size=BATCH_SIZE, num_threads=2, device_id=device_id, num_gpus=N)
             for device_id in range(N)]
    pipes[0].build()
    dali_iter = DALIGenericIterator(pipes, ['data', 'label'], pipes[0].epoch_size("Reader"))
    batches = 0
    for i, data in enumerate(dali_iter):
        if i >= ITERATIONS:
            break
        # Testing correctness of labels
        for d in data:
            label = d["label"]
            image = d["data"]
            ## labels need to be integers
            assert (np.equal(np.mod(label, 1), 0).all())
            ## labels need to be in range pipe_name[2]
            assert ((label >= label_range[0]).all())
            assert ((label <= label_range[1]).all())
            assert tuple(image.shape) == (BATCH_SIZE, 3, 32, 32)
            assert set(label.flatten().tolist()) <= {100 * k + 7 for k in range(8)}
        batches += 1
    assert batches == 1  # epoch_size 8 over 2 pipelines of 4: one iteration per epoch


# --- docs/examples/frameworks/jax/jax-basic_example.ipynb ---------------------------------------

def mnist_like(n, seed):
    """28x28 gray digits: a bright bar whose position is the label."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        label = k % 10
        img = (rng.integers(0, 40, (28, 28))).astype(np.uint8)
        img[2 + 2 * label:4 + 2 * label, 4:24] = 230
        out.append((jpeg_bytes(np.repeat(img[:, :, None], 3, axis=2), quality=98), label))
    return out


def test_jax_basic_example(tmp_path):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    training_data_path = str(tmp_path / "training")
    validation_data_path = str(tmp_path / "testing")
    write_caffe2_lmdb(training_data_path, mnist_like(40, 1))
    write_caffe2_lmdb(validation_data_path, mnist_like(20, 2))

    from sluice import pipeline_def
    import sluice.fn as fn
    import sluice.types as types

    batch_size = 10  # 100 in the notebook
    image_size = 28
    num_classes = 10

    @pipeline_def(device_id=0, batch_size=batch_size, num_threads=4)
    def mnist_pipeline(data_path, random_shuffle):
        jpegs, labels = fn.readers.caffe2(path=data_path, random_shuffle=random_shuffle, name="mnist_caffe2_reader")
        images = fn.decoders.image(jpegs, device='cpu', output_type=types.GRAY)  # 'mixed' in the notebook
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, std=[255.], output_layout="CHW")
        images = fn.reshape(images, shape=[image_size * image_size])
        # the notebook moves the labels to the GPU here: `labels = labels.gpu()`
        if random_shuffle:
            labels = fn.one_hot(labels, num_classes=num_classes)
        return images, labels

    training_pipeline = mnist_pipeline(data_path=training_data_path, random_shuffle=True)
    validation_pipeline = mnist_pipeline(data_path=validation_data_path, random_shuffle=False)
    training_pipeline.build()
    validation_pipeline.build()

    from sluice.plugin import jax as dax

    training_iterator = dax.DALIGenericIterator(training_pipeline, output_map=["images", "labels"],
                                                reader_name="mnist_caffe2_reader", auto_reset=True)
    validation_iterator = dax.DALIGenericIterator(validation_pipeline, output_map=["images", "labels"],
                                                  reader_name="mnist_caffe2_reader", auto_reset=True)
    assert training_iterator.size == 40 and validation_iterator.size == 20

    # the notebook's model.py (JAX's mnist_classifier_fromscratch), written here
    def init_random_params(scale, layer_sizes, rng=np.random.RandomState(0)):
        return [(scale * rng.randn(m, n), scale * rng.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]

    def predict(params, inputs):
        activations = inputs
        for w, b in params[:-1]:
            activations = jnp.tanh(jnp.dot(activations, w) + b)
        final_w, final_b = params[-1]
        logits = jnp.dot(activations, final_w) + final_b
        return logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)

    def loss(params, batch):
        inputs, targets = batch["images"], batch["labels"]
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))

    @jax.jit
    def update(params, batch, step_size):
        grads = jax.grad(loss)(params, batch)
        return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]

    def accuracy(params, iterator):
        correct = total = 0
        for batch in iterator:
            predicted = jnp.argmax(predict(params, batch["images"]), axis=1)
            correct += int(jnp.sum(predicted == batch["labels"].ravel()))
            total += batch["labels"].shape[0]
        return correct / total

    layer_sizes = [784, 64, 10]  # [784, 1024, 1024, 10] in the notebook
    param_scale = 0.1
    step_size = 0.05  # 0.001 in the notebook, for a few epochs of a tiny dataset
    num_epochs = 15
    params = init_random_params(param_scale, layer_sizes)
    first = None
    for epoch in range(num_epochs):
        for batch in training_iterator:
            assert batch["images"].shape == (batch_size, 784) and batch["labels"].shape == (batch_size, 10)
            assert isinstance(batch["images"], jax.Array)
            params = update(params, batch, step_size)
        test_acc = accuracy(params, validation_iterator)
        first = test_acc if first is None else first
    assert test_acc >= 0.9 and test_acc >= first


# --- docs/examples/custom_operations/python_operator.ipynb ----------------------------------------

def edit_images(image1, image2):
    assert image1.shape == image2.shape
    h, w, c = image1.shape
    y, x = np.ogrid[0:h, 0:w]
    mask = (x - w / 2) ** 2 + (y - h / 2) ** 2 > h * w / 9
    result1 = np.copy(image1)
    result1[mask] = image2[mask]
    result2 = np.copy(image2)
    result2[mask] = image1[mask]
    return result1, result2


def test_python_operator(image_dir):
    class CommonPipeline(Pipeline):
        def __init__(self, batch_size, num_threads, device_id, image_dir):
            super(CommonPipeline, self).__init__(batch_size, num_threads, device_id, exec_async=False,
                                                 exec_pipelined=False, seed=99)
            self.input1 = ops.FileReader(file_root=image_dir, random_shuffle=True)
            self.input2 = ops.FileReader(file_root=image_dir, random_shuffle=True)
            self.decode = ops.ImageDecoder(device='cpu', output_type=types.RGB)
            self.resize = ops.Resize(resize_x=300, resize_y=300)

        def load(self):
            jpegs1, labels = self.input1()
            jpegs2, labels = self.input2()
            im1, im2 = self.decode(jpegs1), self.decode(jpegs2)
            return self.resize(im1), self.resize(im2)

    class PythonFuncPipeline(CommonPipeline):
        def __init__(self, batch_size, num_threads, device_id, image_dir):
            super(PythonFuncPipeline, self).__init__(batch_size, num_threads, device_id, image_dir)
            self.edit_images = ops.PythonFunction(function=edit_images, num_outputs=2)

        def define_graph(self):
            images1, images2 = self.load()
            res1, res2 = self.edit_images(images1, images2)
            return res1, res2

    class ReferencePipeline(Pipeline):  # not in the notebook: the resized images, to check against
        def __init__(self):
            super().__init__(8, 1, None)
            self.input = ops.FileReader(file_root=image_dir)
            self.decode = ops.ImageDecoder(device='cpu', output_type=types.RGB)
            self.resize = ops.Resize(resize_x=300, resize_y=300)

        def define_graph(self):
            jpegs, _ = self.input()
            return self.resize(self.decode(jpegs))

    ref_pipe = ReferencePipeline()
    ref_pipe.build()
    refs = [np.array(r).astype(np.int16) for r in ref_pipe.run()[0]]

    batch_size = 4
    pipe = PythonFuncPipeline(batch_size, 4, 0, image_dir)
    pipe.build()
    res1, res2 = pipe.run()
    y, x = np.ogrid[0:300, 0:300]
    outside = (x - 150) ** 2 + (y - 150) ** 2 > 300 * 300 / 9

    def which(region_of, mask):
        diffs = [np.abs(region_of[mask].astype(np.int16) - r[mask]).mean() for r in refs]
        return int(np.argmin(diffs)), min(diffs)

    for i in range(batch_size):
        a, b = res1.at(i), res2.at(i)
        assert a.shape == b.shape == (300, 300, 3)
        a_in, da = which(a, ~outside)
        a_out, db = which(a, outside)
        b_in, dc = which(b, ~outside)
        b_out, dd = which(b, outside)
        assert max(da, db, dc, dd) == 0  # every region is one of the resized images, exactly
        assert a_in == b_out and a_out == b_in  # the circles are swapped


# --- docs/examples/custom_operations/numba_function.ipynb ----------------------------------------

def rot_image_setup(outs, ins):
    for i in range(len(outs)):
        for sample_idx in range(len(outs[i])):
            outs[i][sample_idx][0] = ins[i][sample_idx][1]
            outs[i][sample_idx][1] = ins[i][sample_idx][0]
            outs[i][sample_idx][2] = ins[i][sample_idx][2]


def rot_image(out0, in0):
    for i in range(out0.shape[0]):
        for j in range(out0.shape[1]):
            out0[i][j] = in0[j][out0.shape[0] - i - 1]


def test_numba_function(image_dir):
    pytest.importorskip("numba")
    from sluice import pipeline_def
    import sluice as dali
    import sluice.fn as fn
    from sluice.plugin.numba.fn.experimental import numba_function
    import sluice.types as dali_types

    max_batch_size = 8

    @pipeline_def
    def rotate_image_pipe(run_fn=None, setup_fn=None, out_types=None, in_types=None, outs_ndim=None, ins_ndim=None):
        files, labels = fn.readers.file(file_root=image_dir)
        images_in = dali.fn.decoders.image(files, device="cpu")
        return images_in, numba_function(
            images_in,
            run_fn=run_fn,
            setup_fn=setup_fn,
            out_types=out_types,
            in_types=in_types,
            outs_ndim=outs_ndim,
            ins_ndim=ins_ndim,
        )

    pipe = rotate_image_pipe(
        batch_size=max_batch_size,
        num_threads=1,
        device_id=0,
        run_fn=rot_image,
        setup_fn=rot_image_setup,
        out_types=[dali_types.UINT8],
        in_types=[dali_types.UINT8],
        outs_ndim=[3],
        ins_ndim=[3],
    )
    pipe.build()
    images_in, images_out = pipe.run()
    for j in range(max_batch_size):
        np.testing.assert_array_equal(images_out.at(j), np.rot90(images_in.at(j)))
