"""readers.sequence (legacy sequence_reader) on frame folders written here with Pillow and OpenCV:
every sequence compared with Pillow's decode of each frame file; DALI's sequence rule (step,
stride, whole sequences within a stream), image_type, sharding, shuffling, padding, checkpoints;
faults (no such folder, no long enough stream, a frame truncated, corrupt, deleted or of another
shape mid-epoch: errors naming the frame's file; on_error="replace").
"""
import os

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

Image = pytest.importorskip("PIL.Image")

H, W = 12, 16


def frame(stream, k):
    """Frame k of stream `stream`: a gradient with the frame number in pixel (0, 0)."""
    y, x = np.mgrid[0:H, 0:W]
    img = np.stack([(x * 13 + k * 7) % 256, (y * 17 + stream * 40) % 256, (x * y + k) % 256], axis=-1)
    img[0, 0] = [stream, k, 200]
    return img.astype(np.uint8)


def write_streams(root, lengths, ext="png"):
    """One folder per stream; the frames written with Pillow (OpenCV for .bmp), names sorting in order."""
    for s, n in enumerate(lengths):
        d = root / f"stream{s}"
        d.mkdir(parents=True, exist_ok=True)
        for k in range(n):
            path = d / f"{k:05d}.{ext}"
            if ext == "bmp":
                cv2 = pytest.importorskip("cv2")
                cv2.imwrite(str(path), frame(s, k)[..., ::-1])
            else:
                Image.fromarray(frame(s, k)).save(path, quality=95)
    return root


def frames_of(root):
    return {s.name: sorted(str(p) for p in s.iterdir()) for s in sorted(root.iterdir()) if s.is_dir()}


def pillow_sequence(paths, mode="RGB"):
    return np.stack([np.asarray(Image.open(p).convert(mode)) for p in paths])


def pipe_of(batch_size=2, checkpoint=None, num_threads=2, **kw):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=3,
                           enable_checkpointing=True, checkpoint=checkpoint)
    with pipe:
        pipe.set_outputs(fn.readers.sequence(name="Reader", **kw))
    pipe.build()
    return pipe


def run(pipe, n_batches):
    out = []
    for _ in range(n_batches):
        (seqs,) = pipe.run()
        assert seqs.layout() == "FHWC"
        out += [np.array(seqs.at(i)) for i in range(len(seqs))]
    return out


def ids(seqs):
    """(stream, first frame, second frame) of each sequence, from the marker pixels."""
    return [(int(s[0, 0, 0, 0]), int(s[0, 0, 0, 1]), int(s[1, 0, 0, 1]) if len(s) > 1 else None) for s in seqs]


def dali_sequences(lengths, length, step, stride):
    """DALI's rule, written out: starts 0, step, ... while the last frame is in the stream."""
    return [(s, i) for s, n in enumerate(lengths) for i in range(0, n, step) if i + (length - 1) * stride < n]


# ----------------------------------------------------------------------------- reading
@pytest.mark.parametrize("ext", ["png", "jpg", "bmp"])
def test_frames_match_pillow_decoding_each_file(tmp_path, ext):
    root = write_streams(tmp_path / "root", [5, 3], ext)
    files = frames_of(root)
    seqs = run(pipe_of(file_root=str(root), sequence_length=3), 2)
    want = [pillow_sequence(files["stream0"][i:i + 3]) for i in range(3)] + [pillow_sequence(files["stream1"])]
    assert len(seqs) == 4
    for got, ref in zip(seqs, want):
        assert got.dtype == np.uint8 and got.shape == (3, H, W, 3)
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("length, step, stride", [(1, 1, 1), (2, 3, 1), (3, 1, 2), (2, 2, 3), (4, 5, 1)])
def test_step_and_stride_follow_dali(tmp_path, length, step, stride):
    lengths = [7, 4, 9]
    root = write_streams(tmp_path / "root", lengths)
    want = dali_sequences(lengths, length, step, stride)
    pipe = pipe_of(file_root=str(root), sequence_length=length, step=step, stride=stride, batch_size=1)
    assert pipe.epoch_size("Reader") == len(want)
    seqs = run(pipe, len(want))
    for seq, (s, i) in zip(seqs, want):
        assert seq.shape[0] == length
        assert [int(f[0, 0, 0]) for f in seq] == [s] * length
        assert [int(f[0, 0, 1]) for f in seq] == [i + k * stride for k in range(length)]


def test_image_types(tmp_path):
    root = write_streams(tmp_path / "root", [3])
    files = frames_of(root)["stream0"]
    (gray,) = run(pipe_of(file_root=str(root), sequence_length=3, image_type=types.GRAY, batch_size=1), 1)
    assert gray.shape == (3, H, W, 1)
    # BT.601 luma, as decoders.image's GRAY (Pillow's "L" rounds the same formula within 1).
    np.testing.assert_allclose(gray[..., 0], pillow_sequence(files, "L"), atol=1)
    (bgr,) = run(pipe_of(file_root=str(root), sequence_length=3, image_type=types.BGR, batch_size=1), 1)
    np.testing.assert_array_equal(bgr, pillow_sequence(files)[..., ::-1])
    (rgba,) = run(pipe_of(file_root=str(root), sequence_length=3, image_type=types.ANY_DATA, batch_size=1), 1)
    np.testing.assert_array_equal(rgba, pillow_sequence(files))


def test_other_files_and_folders_are_ignored_and_streams_sorted(tmp_path):
    root = write_streams(tmp_path / "root", [2, 2])
    (root / "top.png").write_bytes((root / "stream0" / "00000.png").read_bytes())  # not in a stream
    (root / "stream0" / "notes.txt").write_text("not a frame")
    (root / "empty").mkdir()
    (root / "stream1" / "00001.png").unlink()
    Image.fromarray(frame(1, 1)).save(root / "stream1" / "00001.PNG")  # extensions match in any case
    seqs = run(pipe_of(file_root=str(root), sequence_length=2, batch_size=2), 1)
    assert ids(seqs) == [(0, 0, 1), (1, 0, 1)]


def test_legacy_name_and_ops_class(tmp_path):
    root = write_streams(tmp_path / "root", [3])
    for make in (lambda: fn.sequence_reader(file_root=str(root), sequence_length=3, name="Reader"),
                 lambda: ops.SequenceReader(file_root=str(root), sequence_length=3)(name="Reader"),
                 lambda: ops.readers.Sequence(file_root=str(root), sequence_length=3)(name="Reader")):
        pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None, seed=1)
        with pipe:
            pipe.set_outputs(make())
        (seq,) = pipe.run()
        assert np.array(seq.at(0)).shape == (3, H, W, 3) and pipe.epoch_size("Reader") == 1


def test_same_sequences_for_any_thread_count(tmp_path):
    root = write_streams(tmp_path / "root", [6, 5])
    kw = dict(file_root=str(root), sequence_length=2, random_shuffle=True, initial_fill=3, batch_size=3)
    a = run(pipe_of(num_threads=1, **kw), 4)
    b = run(pipe_of(num_threads=3, **kw), 4)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


# ----------------------------------------------------------------------------- sample order
def test_sharding_padding_shuffling(tmp_path):
    root = write_streams(tmp_path / "root", [4, 3])  # sequences of 2: (0,0) (0,1) (0,2) (1,0) (1,1)
    want = [(0, 0, 1), (0, 1, 2), (0, 2, 3), (1, 0, 1), (1, 1, 2)]
    kw = dict(file_root=str(root), sequence_length=2)
    assert ids(run(pipe_of(batch_size=5, **kw), 1)) == want
    # Shard s of k holds samples [floor(n * s / k), floor(n * (s + 1) / k)).
    shards = [ids(run(pipe_of(batch_size=1, num_shards=2, shard_id=s, **kw), 2 + s)) for s in range(2)]
    assert shards == [want[:2], want[2:]]
    padded = ids(run(pipe_of(batch_size=2, num_shards=2, shard_id=1, pad_last_batch=True, stick_to_shard=True, **kw), 3))
    assert padded == [want[2], want[3], want[4], want[4], want[2], want[3]]
    shuffled = ids(run(pipe_of(batch_size=5, random_shuffle=True, initial_fill=2, **kw), 2))
    assert sorted(shuffled[:5]) == sorted(shuffled[5:]) == want and shuffled[:5] != want


def test_checkpoint_resumes(tmp_path):
    root = write_streams(tmp_path / "root", [6, 5])
    kw = dict(file_root=str(root), sequence_length=2, stride=2, random_shuffle=True, initial_fill=2)
    pipe = pipe_of(**kw)
    pipe.run()
    text = pipe.checkpoint()
    want = run(pipe, 3)
    got = run(pipe_of(checkpoint=text, **kw), 3)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- faults
def test_bad_arguments_name_themselves(tmp_path):
    root = write_streams(tmp_path / "root", [3])
    for kw, arg in [(dict(sequence_length=0), "sequence_length"), (dict(sequence_length=2, step=0), "step"),
                    (dict(sequence_length=2, stride=0), "stride"), (dict(sequence_length=2, image_type="HSV"), "image_type")]:
        with pytest.raises(sluice.ArgumentError) as e:
            pipe_of(file_root=str(root), **kw)
        assert e.value.argument == arg, kw
    with pytest.raises(sluice.SluiceError, match="sequence_length"):
        pipe_of(file_root=str(root))
    with pytest.raises(sluice.SluiceError, match=r"argument 'shard_id': must be in \[0, num_shards\)"):
        pipe_of(file_root=str(root), sequence_length=2, shard_id=2, num_shards=2)


def test_missing_folder_and_too_short_streams(tmp_path):
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*nowhere"):
        pipe_of(file_root=str(tmp_path / "nowhere"), sequence_length=2)
    root = write_streams(tmp_path / "root", [3, 2])
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\] file_root '.*root' holds no sequence of sequence_length 2 "
                                                 r"and stride 3 \(a sequence spans 4 frames; the longest of its 2 streams has 3\)"):
        pipe_of(file_root=str(root), sequence_length=2, stride=3)
    # lazy_init: the same error at the first run.
    pipe = pipe_of(file_root=str(tmp_path / "nowhere"), sequence_length=2, lazy_init=True)
    with pytest.raises(sluice.SluiceError, match="nowhere"):
        pipe.run()


def test_truncated_corrupt_and_mismatched_frames_name_the_file(tmp_path):
    root = write_streams(tmp_path / "root", [3])
    bad = root / "stream0" / "00001.png"
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\] frame 1 \(.*stream0/00001\.png\): .*source: .*00001\.png"):
        pipe_of(file_root=str(root), sequence_length=3, batch_size=1).run()
    bad.write_bytes(b"this is not an image at all" * 4)
    with pytest.raises(sluice.SluiceError, match=r"frame 1 \(.*00001\.png\): .*(format|unsupported)"):
        pipe_of(file_root=str(root), sequence_length=3, batch_size=1).run()
    Image.fromarray(np.zeros((H + 1, W, 3), np.uint8)).save(bad)
    with pytest.raises(sluice.SluiceError, match=r"frame 1 \(.*00001\.png\) is 13x16x3, the sequence's first frame "
                                                 r"\(.*00000\.png\) 12x16x3"):
        pipe_of(file_root=str(root), sequence_length=3, batch_size=1).run()


def test_frames_deleted_truncated_and_rewritten_mid_epoch(tmp_path):
    # 8 streams of 2 frames, batches of 2: stream 6 is in the fourth batch, past the prefetched ones.
    root = write_streams(tmp_path / "root", [2] * 8)
    kw = dict(file_root=str(root), sequence_length=2)
    pipe = pipe_of(**kw)
    pipe.run()
    victim = root / "stream6" / "00001.png"
    good = victim.read_bytes()
    victim.unlink()
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*stream6/00001\.png.*No such file or directory"):
        for _ in range(4):
            pipe.run()
    victim.write_bytes(good)
    pipe = pipe_of(**kw)
    pipe.run()
    victim.write_bytes(good[:40])
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\] frame 1 \(.*stream6/00001\.png\)"):
        for _ in range(4):
            pipe.run()
    # on_error="replace": the row of the broken sequence is the next one's, and logged.
    pipe = pipe_of(on_error="replace", **kw)
    got = ids(run(pipe, 4))
    assert got[6:] == [(7, 0, 1), (7, 0, 1)]
    assert got[:6] == [(s, 0, 1) for s in range(6)]
    log = pipe.error_log()
    assert log and "stream6" in log[0].path and "stream6/00001.png" in log[0].message
    # Deleted after the listing, with on_error="replace": read from the next sequence too.
    pipe = pipe_of(on_error="replace", **kw)
    victim.unlink()
    assert ids(run(pipe, 4))[6:] == [(7, 0, 1), (7, 0, 1)]
    assert "stream6/00001.png" in pipe.error_log()[0].path  # the reader names the file it could not read
    # Rewritten in place: read as it now is.
    Image.fromarray(frame(6, 9)).save(victim)
    pipe = pipe_of(**kw)
    pipe.run()
    Image.fromarray(frame(6, 5)).save(victim)
    seqs = run(pipe, 3)
    assert ids(seqs)[4] == (6, 0, 5)
