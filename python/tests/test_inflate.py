"""decoders.inflate: LZ4 blocks written by the `lz4` package (python3-lz4, an independent writer:
lz4.block.compress(x, store_size=False), the raw block format DALI's nvCOMP-based GPU operator
reads) back to the arrays; single blocks, chunked sequences (offsets, sizes, both), per-sample
shapes, and the errors for corrupt or mis-sized blocks."""
import lz4.block
import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types

RNG = np.random.default_rng(7)


def block(array):
    return np.frombuffer(lz4.block.compress(np.ascontiguousarray(array).tobytes(), store_size=False), np.uint8)


def run(samples, threads=1, extra=None, **kwargs):
    @pipeline_def(batch_size=len(samples), num_threads=threads, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: samples, batch=True)
        args = dict(kwargs)
        for name, values in (extra or {}).items():
            args[name] = fn.external_source(source=lambda v=values: v, batch=True)
        return fn.decoders.inflate(data, **args)

    p = pipe()
    p.build()
    return p.run()[0]


def image(h, w):
    # Compressible, like real images: smooth gradients plus noise.
    y, x = np.mgrid[:h, :w]
    return ((x + y)[..., None] + RNG.integers(0, 8, (h, w, 3))).astype(np.uint8)


def test_single_blocks_of_any_dtype():
    arrays = [RNG.standard_normal((4, 5)).astype(np.float32) for _ in range(3)]
    out = run([block(a) for a in arrays], shape=[4, 5], dtype=types.FLOAT, layout="HW")
    for i, a in enumerate(arrays):
        np.testing.assert_array_equal(out.at(i), a)
    assert out.layout() == "HW"


def test_per_sample_shapes_and_threads():
    arrays = [image(int(RNG.integers(5, 40)), int(RNG.integers(5, 40))) for _ in range(6)]
    shapes = [np.array(a.shape, np.int64) for a in arrays]
    for threads in (1, 3):
        out = run([block(a) for a in arrays], threads=threads, extra={"shape": shapes}, layout="HWC")
        for i, a in enumerate(arrays):
            np.testing.assert_array_equal(out.at(i), a)


@pytest.mark.parametrize("how", ["offsets", "sizes", "both"])
def test_chunked_sequences(how):
    frames = [[image(12, 16) for _ in range(n)] for n in (3, 1, 4)]
    samples, offsets, sizes = [], [], []
    for seq in frames:
        blocks = [block(f) for f in seq]
        sizes.append(np.array([len(b) for b in blocks], np.int64))
        offsets.append(np.concatenate([[0], np.cumsum(sizes[-1])[:-1]]).astype(np.int64))
        samples.append(np.concatenate(blocks))
    extra = {"offsets": {"chunk_offsets": offsets}, "sizes": {"chunk_sizes": sizes},
             "both": {"chunk_offsets": offsets, "chunk_sizes": sizes}}[how]
    out = run(samples, extra=extra, shape=[12, 16, 3], layout="HWC")
    assert out.layout() == "FHWC"
    for i, seq in enumerate(frames):
        np.testing.assert_array_equal(out.at(i), np.stack(seq))


def test_chunks_with_gaps_need_both_lists():
    a, b = image(8, 8), image(8, 8)
    ba, bb = block(a), block(b)
    sample = np.concatenate([ba, np.zeros(5, np.uint8), bb])
    out = run([sample], shape=[8, 8, 3], chunk_offsets=[0, len(ba) + 5], chunk_sizes=[len(ba), len(bb)])
    np.testing.assert_array_equal(out.at(0), np.stack([a, b]))


@pytest.mark.parametrize("sample, kwargs, message", [
    (block(np.arange(100, dtype=np.uint8)), {"shape": [99]}, "more than the 99 bytes"),
    (block(np.arange(100, dtype=np.uint8)), {"shape": [101]}, "inflates to 100 bytes"),
    (np.frombuffer(b"\xff" * 40, np.uint8), {"shape": [100]}, "corrupt LZ4 block"),
    (block(np.arange(100, dtype=np.uint8))[:-3], {"shape": [100]}, "LZ4"),
])
def test_bad_blocks_name_the_operator_and_sample(sample, kwargs, message):
    with pytest.raises(sluice.SluiceError, match=message) as e:
        run([sample], **kwargs)
    assert "decoders.inflate" in str(e.value)


def test_bad_arguments_name_the_argument():
    data = fn.external_source(source=lambda: [], batch=True)
    with pytest.raises(sluice.ArgumentError, match="algorithm"):
        fn.decoders.inflate(data, shape=[4], algorithm="SNAPPY")
    with pytest.raises(sluice.ArgumentError, match="shape"):
        fn.decoders.inflate(data)
    b = block(np.zeros(10, np.uint8))
    with pytest.raises(sluice.SluiceError, match="chunk_sizes"):
        run([b], shape=[10], chunk_sizes=[len(b) + 1])
    with pytest.raises(sluice.SluiceError, match="layout"):
        run([b], shape=[10], layout="HW")
