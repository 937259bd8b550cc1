"""sluice.plugin.pytorch.experimental.proxy (DALI's DALIServer / proxy / DataLoader): a torch Dataset
calls server.proxy in __getitem__, the proxy DataLoader (0 and 2 workers) delivers exactly the batches
the pipeline gives when fed the same samples directly (file names and encoded JPEGs -> decode ->
resize, a seeded random_resized_crop with deterministic=True), errors in the pipeline reach the caller naming
the operator and the server stops without hanging. A watchdog ends the process if anything hangs."""
import faulthandler
import glob
import os
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sluice import fn, pipeline_def, types  # noqa: E402
from sluice.plugin.pytorch.experimental import proxy as dali_proxy  # noqa: E402
from sample_images import sample_data_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(glob.glob(os.path.join(sample_data_root(), "train", "*", "*.jpg")))[:14]
BATCH = 4  # 14 samples: three full batches and a partial one (2 samples)
WATCHDOG_S = 120


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, seed=1234)
def image_pipe(from_names, random):
    data = fn.external_source(name="images", no_copy=True)
    jpegs = fn.io.file.read(data) if from_names else data
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    if random:  # seeded: the outputs depend on the order the batches reach the pipeline
        return fn.random_resized_crop(images, size=[48, 64], antialias=False)
    return fn.resize(images, size=[48, 64], antialias=False)


def name_sample(path):
    return np.frombuffer(path.encode(), dtype=np.uint8)


def jpeg_sample(path):
    return np.fromfile(path, dtype=np.uint8)


class ProxyDataset(torch.utils.data.Dataset):
    """As DALI's examples: the sample's inputs through the proxy, the label as it is."""

    def __init__(self, proxy, samples):
        self.proxy, self.samples = proxy, samples

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.proxy(self.samples[i]), i


def direct_batches(samples, from_names, random):
    """The pipeline fed the same batches, in order, directly."""
    pipe = image_pipe(from_names, random, prefetch_queue_depth=1)
    pipe.build()
    out = []
    for k in range(0, len(samples), BATCH):
        (images,) = pipe.run(images=samples[k:k + BATCH])
        out.append(np.array(images.as_tensor()))
    return out


def loader_batches(server, samples, num_workers):
    loader = dali_proxy.DataLoader(server, ProxyDataset(server.proxy, samples), batch_size=BATCH,
                                   num_workers=num_workers, timeout=60 if num_workers else 0)
    images, labels = [], []
    for batch_images, batch_labels in loader:
        assert isinstance(batch_images, torch.Tensor)
        images.append(batch_images.numpy())
        labels.append(batch_labels.numpy())
    return images, labels


@pytest.mark.parametrize("num_workers", [0, 2])
@pytest.mark.parametrize("from_names", [True, False], ids=["file_names", "encoded"])
def test_loader_batches_equal_the_pipelines(num_workers, from_names):
    samples = [name_sample(p) if from_names else jpeg_sample(p) for p in FILES]
    expected = direct_batches(samples, from_names, random=True)
    with dali_proxy.DALIServer(image_pipe(from_names, True), deterministic=True) as server:
        images, labels = loader_batches(server, samples, num_workers)
    assert [len(b) for b in images] == [4, 4, 4, 2]
    np.testing.assert_array_equal(np.concatenate(labels), np.arange(len(FILES)))
    for got, want in zip(images, expected):
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # The crops depend on the order of the batches: fed in another order, the pipeline differs.
    shuffled = direct_batches(samples[BATCH:2 * BATCH] + samples[:BATCH], from_names, random=True)
    assert not np.array_equal(shuffled[0], expected[1])


def test_not_deterministic_with_workers_gives_the_same_batches_for_a_stateless_pipeline():
    # The batches reach the pipeline in the workers' order; each is still its own samples' output.
    samples = [name_sample(p) for p in FILES]
    expected = direct_batches(samples, True, random=False)
    with dali_proxy.DALIServer(image_pipe(True, False)) as server:
        images, _ = loader_batches(server, samples, 2)
    for got, want in zip(images, expected):
        np.testing.assert_array_equal(got, want)


def test_two_inputs_keyword_proxy_and_produce_data():
    # DALI's second example: the proxy with default_collate and produce_data, no DataLoader.
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def two_inputs():
        a = fn.external_source(name="a")
        b = fn.external_source(name="b")
        return a + b, a - b

    rng = np.random.default_rng(0)
    with dali_proxy.DALIServer(two_inputs()) as server:
        with pytest.raises(TypeError, match="expected the pipeline's inputs"):
            server.proxy(np.zeros(2, np.float32))  # two inputs: keywords only
        outs = []
        for _ in range(3):
            a, b = rng.random((2, 2), dtype=np.float32), rng.random((2, 2), dtype=np.float32)
            outs.append({"a": a, "b": b, "out": server.proxy(a=a, b=b)})
        outs = server.produce_data(torch.utils.data.default_collate(outs))
    total, diff = outs["out"]
    torch.testing.assert_close(total, outs["a"] + outs["b"])
    torch.testing.assert_close(diff, outs["a"] - outs["b"])


@pytest.mark.parametrize("num_workers", [0, 2])
def test_pipeline_error_reaches_the_caller_naming_the_operator(num_workers):
    samples = [jpeg_sample(p) for p in FILES[:8]]
    samples[5] = np.frombuffer(b"not a JPEG at all", dtype=np.uint8)
    with dali_proxy.DALIServer(image_pipe(False, False), deterministic=True) as server:
        loader = dali_proxy.DataLoader(server, ProxyDataset(server.proxy, samples), batch_size=BATCH,
                                       num_workers=num_workers, timeout=60 if num_workers else 0)
        it = iter(loader)
        first, _ = next(it)  # the batch before the bad one is delivered
        assert first.shape == (4, 48, 64, 3)
        try:
            next(it)
            raise AssertionError("the bad sample's batch was delivered")
        except Exception as e:  # not pytest.raises: its ExceptionInfo would keep `it` in a reference cycle
            assert "decoders.image" in str(e) and "DALIServer" in "".join(getattr(e, "__notes__", []))
        del it
        # The server thread survives; the pipeline stays failed (as DALI's do after an error), so a
        # later batch gets the error too, promptly.
        assert server._is_thread_running()
        try:
            loader_batches(server, samples[:4], num_workers)
            raise AssertionError("a batch of the failed pipeline was delivered")
        except Exception as e:
            assert "decoders.image" in str(e)
    assert not server._is_thread_running()


def test_waiting_without_a_running_server_raises():
    server = dali_proxy.DALIServer(image_pipe(True, False))
    batch = torch.utils.data.default_collate([server.proxy(name_sample(p)) for p in FILES[:2]])
    with pytest.raises(RuntimeError, match="DALIServer is not running"):
        server.produce_data(batch)


def test_stop_is_prompt_and_restart_works():
    server = dali_proxy.DALIServer(image_pipe(True, False), deterministic=True)
    server.start_thread()
    stopper = threading.Thread(target=server.stop_thread)
    stopper.start()
    stopper.join(timeout=10)
    assert not stopper.is_alive() and not server._is_thread_running()
    # The proxy DataLoader starts the server it needs again.
    samples = [name_sample(p) for p in FILES[:4]]
    loader = dali_proxy.DataLoader(server, ProxyDataset(server.proxy, samples), batch_size=BATCH)
    (images, labels), = list(loader)
    np.testing.assert_array_equal(images.numpy(), direct_batches(samples, True, random=False)[0])
    assert loader.server_started_by_loader
    server.stop_thread()


def test_an_epoch_left_early_does_not_leak_into_the_next():
    # Batch ids carry a per-process token: the workers of the second epoch count from 0 again, and
    # the first epoch's unconsumed outputs (same worker ids and counts) must not be taken for theirs.
    samples = [name_sample(p) for p in FILES]
    expected = direct_batches(samples, True, random=False)
    with dali_proxy.DALIServer(image_pipe(True, False)) as server:
        loader = dali_proxy.DataLoader(server, ProxyDataset(server.proxy, samples[::-1]), batch_size=BATCH,
                                       num_workers=2, timeout=60)
        for _ in loader:
            break
        images, _ = loader_batches(server, samples, 2)
    for got, want in zip(images, expected):
        np.testing.assert_array_equal(got, want)


def test_plain_torch_dataloader_with_produce_data():
    # DALI's third example: torch's own DataLoader, the placeholders replaced by produce_data. Only
    # external sources without `source` are the proxy's inputs.
    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def with_a_sourced_input():
        names = fn.external_source(name="names")
        offset = fn.external_source(source=lambda: [np.full((1,), 7, np.int32)] * BATCH, batch=True)
        return fn.cast(fn.shapes(fn.io.file.read(names)), dtype=types.INT32) + offset

    samples = [name_sample(p) for p in FILES[:8]]
    with dali_proxy.DALIServer(with_a_sourced_input(), deterministic=True) as server:
        loader = torch.utils.data.DataLoader(ProxyDataset(server.proxy, samples), batch_size=BATCH, num_workers=2,
                                             timeout=60)
        sizes = [server.produce_data(batch)[0] for batch in loader]
    want = np.array([os.path.getsize(p) + 7 for p in FILES[:8]], np.int32).reshape(2, BATCH, 1)
    np.testing.assert_array_equal(np.stack([s.numpy() for s in sizes]), want)
