"""as_cpu(): DALI's way to bring a GPU output to the host (TensorListGPU.as_cpu() -> TensorListCPU,
TensorGPU.as_cpu() -> TensorCPU), and a no-op on host batches. The GPU half runs where a CUDA device
is present (tests/gpu/device_run.sh runs this file there)."""
import os
import shutil

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types
from sluice.tensors import TensorCPU, TensorListCPU, TensorListGPU


IMAGES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images")


@pytest.fixture
def small_image_root(tmp_path):
    root = tmp_path / "c0"
    root.mkdir()
    for name in ("photo_500x375.jpg", "s420.jpg", "s444.jpg", "gray.jpg"):
        shutil.copy(os.path.join(IMAGES, name), root / name)
    return str(tmp_path)


@pipeline_def
def decode_resize(root, to_gpu):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    if to_gpu:
        images = images.gpu()
    # Ragged samples (each its own shape) and one dense batch.
    return images, fn.resize(images, resize_x=32, resize_y=24), labels


def _run(root, to_gpu):
    pipe = decode_resize(root, to_gpu, batch_size=4, num_threads=2, device_id=0 if to_gpu else None, seed=3)
    pipe.build()
    return pipe.run()


def test_a_host_batch_is_its_own_cpu_copy(small_image_root):
    images, resized, labels = _run(small_image_root, to_gpu=False)
    assert isinstance(images, TensorListCPU)
    assert images.as_cpu() is images


@pytest.mark.skipif(not sluice.cuda_available(), reason="needs a CUDA device")
def test_gpu_batches_come_back_equal_with_their_shapes_layout_and_sources(small_image_root):
    cpu_images, cpu_resized, _ = _run(small_image_root, to_gpu=False)
    gpu_images, gpu_resized, _ = _run(small_image_root, to_gpu=True)
    assert isinstance(gpu_images, TensorListGPU)
    host = gpu_images.as_cpu()
    assert isinstance(host, TensorListCPU) and len(host) == len(cpu_images)
    for i in range(len(host)):
        np.testing.assert_array_equal(host.at(i), cpu_images.at(i))
        assert host[i].source_info() == cpu_images[i].source_info()
    assert host[0].layout() == "HWC"
    one = gpu_images[1].as_cpu()
    assert isinstance(one, TensorCPU)
    np.testing.assert_array_equal(one.as_array(), cpu_images.at(1))
    dense = gpu_resized.as_tensor().as_cpu()
    np.testing.assert_array_equal(dense.as_array(), cpu_resized.as_array())
