"""fn.experimental.inputs.video (DALI's input operator; DALI runs it on the GPU, Sluice's on the CPU
with FFmpeg): videos made here with the ffmpeg tool, fed as encoded bytes through feed_input, come
back as consecutive sequences over several iterations, bit-identical to PyAV's decode of the same
file; DALI's batch outline (the last batch of a video shorter, its last sequence partial or padded
with zeros); several videos queued; no video left (an error, or blocking=True waiting for one);
bad data naming the operator and the fed video; each video decoded by one pass, not one per sequence."""
import threading
import time

import numpy as np
import pytest

import sluice
from sluice import fn, ops

av = pytest.importorskip("av")
from video_files import FFMPEG, as_numpy, make, pyav_frames  # noqa: E402

pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    d = tmp_path_factory.mktemp("videos")
    return {"a": make(d / "a.mp4", frames=23, gop=6),
            "b": make(d / "b.mkv", size="64x48", frames=9, gop=4, codec="mpeg4")}


def pipe_of(batch_size=2, threads=2, prefetch_queue_depth=1, **kw):
    kw.setdefault("color_conversion", "pyav")  # these tests compare with PyAV's decode
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, seed=1,
                           prefetch_queue_depth=prefetch_queue_depth)
    with pipe:
        pipe.set_outputs(fn.experimental.inputs.video(name="vid", **kw))
    pipe.build()
    return pipe


def read(path):
    return np.fromfile(path, dtype=np.uint8)


def outline(frames, length, batch_size, pad):
    """DALI's DetermineBatchOutline, written out: per batch, each sequence's frame numbers."""
    seqs = [list(range(s, min(s + length, frames))) for s in range(0, frames, length)]
    if pad:
        seqs = [s + [-1] * (length - len(s)) for s in seqs]
    return [seqs[i:i + batch_size] for i in range(0, len(seqs), batch_size)]


def expected(ref, seq):
    zero = np.zeros_like(ref[0])
    return np.stack([ref[f] if f >= 0 else zero for f in seq])


@pytest.mark.parametrize("length, batch_size, policy", [(5, 2, "partial"), (5, 2, "pad"), (4, 3, "partial"),
                                                        (23, 1, "pad"), (1, 4, "partial"), (30, 2, "pad")])
def test_sequences_over_iterations_match_pyav(videos, length, batch_size, policy):
    ref, _ = pyav_frames(videos["a"])
    assert len(ref) == 23
    pipe = pipe_of(batch_size=batch_size, sequence_length=length, last_sequence_policy=policy)
    pipe.feed_input("vid", [read(videos["a"])])
    for batch in outline(23, length, batch_size, policy == "pad"):
        (out,) = pipe.run()
        assert out.layout() == "FHWC"
        got = as_numpy(out)
        assert len(got) == len(batch)
        for g, seq in zip(got, batch):
            assert g.dtype == np.uint8 and g.shape == (len(seq), 64, 96, 3)
            np.testing.assert_array_equal(g, expected(ref, seq))
    with pytest.raises(sluice.SluiceError, match=r"\[vid\] the videos fed have been returned to their end"):
        pipe.run()


def test_queued_videos_follow_one_another_and_batches_never_mix(videos):
    ref_a, _ = pyav_frames(videos["a"])
    ref_b, _ = pyav_frames(videos["b"])
    pipe = pipe_of(batch_size=3, sequence_length=4)
    pipe.feed_input("vid", [read(videos["a"]), read(videos["b"])])  # two samples: two videos, in order
    pipe.feed_input("vid", [np.frombuffer(open(videos["a"], "rb").read(), np.uint8)])
    got = []
    for _ in range(2 + 1 + 2):  # a: 6 sequences (2 batches); b: 3 (1 batch); a again
        (out,) = pipe.run()
        got.append(as_numpy(out))
    assert [len(b) for b in got] == [3, 3, 3, 3, 3]
    np.testing.assert_array_equal(got[1][2], np.stack(ref_a[20:23]))  # partial: 3 frames
    for k, seq in enumerate(got[2]):
        np.testing.assert_array_equal(seq, np.stack(ref_b[4 * k:4 * k + 4][:len(seq)]))
    assert [s.shape[0] for s in got[2]] == [4, 4, 1]
    np.testing.assert_array_equal(got[3][0], np.stack(ref_a[0:4]))


def test_same_frames_for_any_thread_count(videos):
    outs = []
    for threads in (1, 3):
        pipe = pipe_of(batch_size=4, threads=threads, sequence_length=3)
        pipe.feed_input("vid", [read(videos["a"])])
        outs.append([as_numpy(pipe.run()[0]) for _ in range(2)])
    for a, b in zip(*outs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_each_video_is_decoded_once_not_once_per_sequence(videos, tmp_path):
    # A long GOP (one keyframe for the whole clip): decoding each sequence from the keyframe before
    # it would start a decoding pass per sequence; the operator keeps one pass per video.
    long_gop = make(tmp_path / "long.mp4", frames=40, gop=250)
    ref, _ = pyav_frames(long_gop)
    pipe = pipe_of(batch_size=2, sequence_length=3, last_sequence_policy="pad")
    pipe.feed_input("vid", [read(long_gop), read(videos["b"])])
    starts = lambda: pipe.executor_statistics()["vid"]["counters"]["decoder_starts"]  # noqa: E731
    assert starts() == 0
    for batch in outline(40, 3, 2, pad=True):  # 14 sequences, 7 batches
        got = as_numpy(pipe.run()[0])
        for g, seq in zip(got, batch):
            np.testing.assert_array_equal(g, expected(ref, seq))
        assert starts() == 1
    pipe.run()  # the next video: one more pass
    assert starts() == 2
    assert pipe.executor_statistics()["vid"]["counters"] == {"decoder_starts": 2}


def test_blocking_waits_for_the_next_video(videos):
    ref, _ = pyav_frames(videos["b"])
    pipe = pipe_of(batch_size=3, sequence_length=3, blocking=True)
    data = read(videos["b"])
    feeder = threading.Timer(0.3, lambda: pipe.feed_input("vid", [data]))
    t0 = time.monotonic()
    feeder.start()
    (out,) = pipe.run()  # waits until the timer feeds the video
    assert time.monotonic() - t0 >= 0.25
    np.testing.assert_array_equal(as_numpy(out)[2], np.stack(ref[6:9]))
    # A pipeline waiting for a video is closed without hanging.
    waiting = pipe_of(batch_size=1, sequence_length=3, blocking=True, prefetch_queue_depth=2)
    waiting.schedule_run()
    del waiting


def test_no_video_and_bad_data_name_the_operator(videos, tmp_path):
    pipe = pipe_of(sequence_length=3)
    with pytest.raises(sluice.SluiceError, match=r"\[vid\] no video was fed: feed the next one"):
        pipe.run()
    pipe = pipe_of(sequence_length=3)
    with pytest.raises(sluice.SluiceError, match=r"uint8, 1-D"):
        pipe.feed_input("vid", [np.zeros((4, 4), np.uint8)])
    with pytest.raises(sluice.SluiceError, match=r"empty"):
        pipe.feed_input("vid", [np.zeros(0, np.uint8)])
    with pytest.raises(sluice.SluiceError, match=r"there is no external_source or experimental.inputs.video named 'x'"):
        pipe.feed_input("x", [read(videos["a"])])
    data = read(videos["a"])
    pipe.feed_input("vid", [data[: len(data) // 3]])  # truncated
    with pytest.raises(sluice.SluiceError, match=r"\[vid\] .*source: vid \(fed video 0\)"):
        pipe.run()
    pipe = pipe_of(sequence_length=3)
    pipe.feed_input("vid", [data, np.frombuffer(b"not a video at all" * 10, np.uint8)])
    for _ in range(4):  # video 0: 8 sequences
        pipe.run()
    with pytest.raises(sluice.SluiceError, match=r"\[vid\] cannot read the container .*fed video 1"):
        pipe.run()


def test_corrupt_frame_is_an_error_naming_it_after_the_frames_before_it(videos):
    """Bytes overwritten inside one packet: PyAV (the same FFmpeg) flags a decoded frame corrupt; the
    streaming decoder returns every frame before it, then fails naming that frame and the fed video."""
    import io
    data = read(videos["a"]).copy()
    rng = np.random.default_rng(0)
    for _ in range(40):
        bad = data.copy()
        at = rng.integers(len(bad) // 8, len(bad) - 1000)
        bad[at:at + 300] = rng.integers(0, 256, 300, dtype=np.uint8)
        try:
            with av.open(io.BytesIO(bad.tobytes())) as c:
                decoded = list(c.decode(video=0))
                flags = [f.is_corrupt for f in decoded]
                ref = [f.to_ndarray(format="rgb24") for f in decoded]
        except av.AVError:
            continue
        if any(flags) and len(flags) == 23:
            break
    else:
        pytest.skip("no corruption that decodes to a flagged frame was found")
    first = flags.index(True)
    # One thread: FFmpeg's frame threading (num_threads > 1) conceals a damaged frame depending on
    # its threads' timing, and then may not flag it (docs/dali-compatibility.md); under load that
    # happened in about 1 run in 4.
    pipe = pipe_of(batch_size=1, threads=1, sequence_length=1)
    pipe.feed_input("vid", [bad])
    for f in range(first):
        np.testing.assert_array_equal(as_numpy(pipe.run()[0])[0][0], ref[f])
    with pytest.raises(sluice.SluiceError, match=rf"\[vid\] .*frame {first} was decoded from damaged data.*fed video 0"):
        pipe.run()


def test_arguments(videos):
    for kw, arg in [(dict(sequence_length=0), "sequence_length"),
                    (dict(sequence_length=2, last_sequence_policy="drop"), "last_sequence_policy")]:
        with pytest.raises(sluice.ArgumentError) as e:
            fn.experimental.inputs.video(name="v", **kw)
        assert e.value.argument == arg
    with pytest.raises(sluice.SluiceError, match="sequence_length"):
        fn.experimental.inputs.video(name="v")
    # DALI's call forms: every argument, the ops class.
    for make_op in (lambda: fn.experimental.inputs.video(name="vid", sequence_length=4, blocking=False, no_copy=True,
                                                         affine=False, last_sequence_policy="partial",
                                                         bytes_per_sample_hint=[0], preserve=True),
                    lambda: ops.experimental.inputs.Video(sequence_length=4, name="vid")()):
        pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1, prefetch_queue_depth=1)
        with pipe:
            pipe.set_outputs(make_op())
        pipe.build()
        pipe.feed_input("vid", [read(videos["b"])])
        assert [s.shape[0] for s in as_numpy(pipe.run()[0])] == [4, 4]


def test_default_conversion_is_decoders_video(videos):
    """inputs.video converts as decoders.video does (DALI's conversion by default, the same kernel),
    and color_conversion names its choices when misspelt."""
    data = read(videos["a"])
    pipe = pipe_of(batch_size=1, threads=1, sequence_length=4, color_conversion="dali")
    pipe.feed_input("vid", [data])
    (got,) = pipe.run()
    dec = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
    with dec:
        enc = fn.external_source(source=lambda: [data], batch=True, cycle=False)
        dec.set_outputs(fn.experimental.decoders.video(enc, sequence_length=4))
    dec.build()
    (ref,) = dec.run()
    np.testing.assert_array_equal(as_numpy(got)[0], as_numpy(ref)[0])
    pyav, _ = pyav_frames(videos["a"])
    assert not np.array_equal(as_numpy(got)[0], np.stack(pyav[:4]))  # PyAV's differs (chroma sharing)
    with pytest.raises(Exception, match=r"color_conversion.*'dali', 'pyav'|color_conversion.*dali.*pyav"):
        pipe_of(batch_size=1, sequence_length=4, color_conversion="opencv")
