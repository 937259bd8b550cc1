"""fn.readers.video and fn.experimental.readers.video (CPU) against PyAV's decode of the same files:
every clip of every file (sequence_length, stride, step), bit-identical frames, labels from labels /
file_root / file_list, enable_frame_num and enable_timestamps (PyAV's frame times), padding, sharding,
shuffling and checkpoints through the reader base, determinism across num_threads, RSS over epochs."""
import os
import re
import resource

import numpy as np
import pytest

import sluice
from sluice import fn

pytest.importorskip("av")
from video_files import FFMPEG, as_numpy, make, pyav_frames  # noqa: E402

pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("clips")
    out = []
    for i, (n, size, vf) in enumerate([(30, "64x48", None), (23, "48x48", r"select=not(eq(mod(n\,4)\,1))"),
                                       (17, "64x48", None)]):
        cls = d / f"class{i % 2}"
        cls.mkdir(exist_ok=True)
        extra = ["-fps_mode", "vfr"] if vf else []
        out.append(make(cls / f"v{i}.mp4", size=size, frames=n, gop=7, vf=vf, extra=extra))
    return out


@pytest.fixture(scope="module")
def refs(files):
    return {p: pyav_frames(p) for p in files}


def clips_of(n, length, stride, step, op="readers.video"):
    """The clip starts of an n-frame video: readers.video cuts a clip while its frames, first to last,
    fit (DALI's legacy rule); experimental.readers.video while length x stride frames fit (DALI's)."""
    span = (length - 1) * stride + 1 if op == "readers.video" else length * stride
    return list(range(0, n - span + 1, step))


def run_epoch(pipe, batches):
    got = []
    for _ in range(batches):
        got.append([as_numpy(o) for o in pipe.run()])
    return got


def reader_pipe(batch, threads=2, seed=5, op="readers.video", **kw):
    kw.setdefault("color_conversion", "pyav")  # these tests compare with PyAV's decode
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=seed)
    reader = fn.readers.video if op == "readers.video" else fn.experimental.readers.video
    with pipe:
        outs = reader(name="Reader", **kw)
        pipe.set_outputs(*outs) if isinstance(outs, (list, tuple)) else pipe.set_outputs(outs)
    pipe.build()
    return pipe


@pytest.mark.parametrize("op", ["readers.video", "experimental.readers.video"])
def test_every_clip_matches_pyav(files, refs, op):
    length, stride, step = 4, 2, 5
    expected = [(p, s) for p in files for s in clips_of(len(refs[p][0]), length, stride, step, op)]
    pipe = reader_pipe(4, op=op, filenames=files, labels=[10, 11, 12], sequence_length=length, stride=stride,
                       step=step, enable_frame_num=True, enable_timestamps=True)
    assert pipe.epoch_size("Reader") == len(expected)
    batches = (len(expected) + 3) // 4
    seen = []
    for video, labels, frame_num, ts in run_epoch(pipe, batches):
        for v, lab, fnum, t in zip(video, labels, frame_num, ts):
            path = files[int(lab[0]) - 10]
            frames, times = refs[path]
            s = int(fnum[0])
            idx = list(range(s, s + stride * length, stride))
            np.testing.assert_array_equal(v, np.stack([frames[i] for i in idx]))
            assert t.dtype == np.float64  # as DALI's
            np.testing.assert_allclose(t, [times[i] - times[0] for i in idx], atol=1e-9)
            seen.append((path, s))
    assert seen[:len(expected)] == expected


def test_file_root_and_file_list_labels(files, refs, tmp_path):
    pipe = reader_pipe(2, file_root=os.path.dirname(os.path.dirname(files[0])), sequence_length=8, step=8,
                       enable_frame_num=True)
    # file_root: class0 = v0, v2; class1 = v1 (sorted class folders, sorted files)
    order = [files[0], files[2], files[1]]
    expected = [(p, s) for p in order for s in clips_of(len(refs[p][0]), 8, 1, 8)]
    got = []
    for video, labels, fnum in run_epoch(pipe, (len(expected) + 1) // 2):
        for v, lab, f in zip(video, labels, fnum):
            got.append((int(lab[0]), int(f[0]), v.shape))
    got = got[:len(expected)]
    assert [(g[0], g[1]) for g in got] == [(0 if p != files[1] else 1, s) for p, s in expected]
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{p} {7 + i}\n" for i, p in enumerate(files)))
    pipe = reader_pipe(1, file_list=str(lst), sequence_length=20, pad_mode="none")
    video, labels = pipe.run()
    assert int(np.array(labels[0])[0]) == 7 and np.array(video[0]).shape == (20, 48, 64, 3)


def test_padding_short_videos(files, refs):
    # 17-frame video, clips of 12 frames stride 2: too short, one clip padded per pad_mode.
    short = files[2]
    frames, _ = refs[short]
    pipe = reader_pipe(1, filenames=[short], sequence_length=12, stride=2, pad_mode="edge", enable_timestamps=True)
    assert pipe.epoch_size("Reader") == 1
    video, ts = pipe.run()
    v = np.array(video[0])
    idx = [min(i, 16) for i in range(0, 24, 2)]
    np.testing.assert_array_equal(v, np.stack([frames[i] for i in idx]))
    pipe = reader_pipe(1, filenames=[short], sequence_length=12, stride=2, pad_mode="constant", fill_value=[9],
                       enable_timestamps=True)
    video, ts = pipe.run()
    v, t = np.array(video[0]), np.array(ts[0])
    assert (v[9:] == 9).all() and (t[9:] == -1).all()
    np.testing.assert_array_equal(v[:9], np.stack(frames[0:18:2]))
    with pytest.raises(Exception, match="no clip of sequence_length 12"):  # pad_mode="none", the default
        reader_pipe(1, filenames=[short], sequence_length=12, stride=2)


def test_shuffle_deterministic_across_threads(files):
    kw = dict(filenames=files, labels=[0, 1, 2], sequence_length=3, step=3, random_shuffle=True, initial_fill=8,
              enable_frame_num=True)
    runs = []
    for threads in (1, 2, 4):
        pipe = reader_pipe(3, threads=threads, seed=21, **kw)
        runs.append(run_epoch(pipe, 6))
    for other in runs[1:]:
        for b0, b1 in zip(runs[0], other):
            for o0, o1 in zip(b0, b1):
                for a, b in zip(o0, o1):
                    np.testing.assert_array_equal(a, b)


def test_sharding_splits_the_clips(files):
    starts = []
    for shard in range(2):
        pipe = reader_pipe(1, filenames=files, labels=[0, 1, 2], sequence_length=5, step=5, num_shards=2,
                           shard_id=shard, enable_frame_num=True, stick_to_shard=True)
        n = 7  # a shard holds 6 or 7 of the 13 clips; a shard of 6 wraps around to its own first clip
        starts.append({(int(np.array(lab[0])[0]), int(np.array(f[0])[0]))
                       for _v, lab, f in (pipe.run() for _ in range(n))})
    assert sorted([len(starts[0]), len(starts[1])]) == [6, 7] and not starts[0] & starts[1]
    assert len(starts[0] | starts[1]) == 6 + 4 + 3


def test_checkpoint_restores_the_sequence(files):
    kw = dict(filenames=files, labels=[0, 1, 2], sequence_length=3, step=4, random_shuffle=True,
              enable_frame_num=True)
    pipe = sluice.Pipeline(batch_size=2, num_threads=2, seed=4, enable_checkpointing=True)
    with pipe:
        pipe.set_outputs(*fn.readers.video(name="Reader", **kw))
    pipe.build()
    run_epoch(pipe, 3)
    ckpt = pipe.checkpoint()
    after = run_epoch(pipe, 3)
    restored = sluice.Pipeline(batch_size=2, num_threads=2, seed=4, enable_checkpointing=True, checkpoint=ckpt)
    with restored:
        restored.set_outputs(*fn.readers.video(name="Reader", **kw))
    restored.build()
    for b0, b1 in zip(after, run_epoch(restored, 3)):
        for o0, o1 in zip(b0, b1):
            for a, b in zip(o0, o1):
                np.testing.assert_array_equal(a, b)


def test_bad_file_errors_name_it(files, tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(open(files[0], "rb").read()[:3000])
    with pytest.raises(Exception) as e:
        reader_pipe(1, filenames=[files[0], str(bad)], sequence_length=3)
    assert "bad.mp4" in str(e.value) and "[Reader]" in str(e.value) and "container" in str(e.value), e.value
    with pytest.raises(Exception, match="exactly one of filenames"):
        reader_pipe(1, sequence_length=3)


@pytest.mark.parametrize("op", ["readers.video", "experimental.readers.video"])
def test_truncated_webm_and_mkv_are_errors_naming_file_and_frame(files, tmp_path, op):
    """A WebM / MKV cut mid-cluster demuxes to a clean end: the reader would see a shorter video.
    Its declared duration (FFmpeg's per-track DURATION tag) says otherwise: an error naming the file
    and the last frame read."""
    from video_files import encoders

    cuts = []
    srcs = [make(tmp_path / "v.mkv", frames=50, gop=10)]
    if "libvpx-vp9" in encoders():
        srcs.append(make(tmp_path / "v.webm", codec="libvpx-vp9", frames=50, gop=10))
    for src in srcs:
        data = open(src, "rb").read()
        cut = tmp_path / ("cut_" + os.path.basename(src))
        cut.write_bytes(data[: int(len(data) * 0.6)])
        cuts.append(str(cut))
    for src, cut in zip(srcs, cuts):
        reader_pipe(1, op=op, filenames=[src], sequence_length=3)  # the whole file reads
        with pytest.raises(Exception) as e:
            reader_pipe(1, op=op, filenames=[files[0], cut], sequence_length=3)
        msg = str(e.value)
        assert os.path.basename(cut) in msg and "[Reader]" in msg and "truncated" in msg, msg
        assert re.search(r"\(frame \d+, the last read\)", msg), msg


def test_rss_flat_over_20_epochs(files):
    pipe = reader_pipe(4, filenames=files, labels=[0, 1, 2], sequence_length=4, step=2, random_shuffle=True)
    per_epoch = (pipe.epoch_size("Reader") + 3) // 4
    rss = []
    for _ in range(20):
        run_epoch(pipe, per_epoch)
        rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    # Peak RSS after epoch 3 may grow by at most 2 MiB over the remaining 17 epochs.
    assert rss[-1] - rss[2] < 2048, rss


def pyav_planes(path, fmt):
    """Every frame converted by PyAV's reformat(format=fmt), its planes stacked last (H, W, planes)."""
    import av

    out = []
    with av.open(path) as c:
        for f in c.decode(video=0):
            g = f.reformat(format=fmt)
            out.append(np.stack([np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width]
                                 for p in g.planes], -1))
    return out


@pytest.mark.parametrize("image_type,fmt", [("GRAY", "gray"), ("YCbCr", "yuv444p")])
def test_image_types_match_pyav(files, image_type, fmt):
    ref = pyav_planes(files[0], fmt)
    pipe = reader_pipe(2, filenames=[files[0]], sequence_length=5, step=7, image_type=image_type,
                       enable_frame_num=True)
    for _ in range(2):
        video, fnum = pipe.run()
        for v, f in zip(as_numpy(video), as_numpy(fnum)):
            s = int(f[0])
            assert v.shape == (5, 48, 64, 1 if image_type == "GRAY" else 3)
            np.testing.assert_array_equal(v, np.stack(ref[s:s + 5]))


def damaged_copy(path, out):
    """A copy of `path` with one packet overwritten so that PyAV flags a decoded frame corrupt;
    returns the first flagged frame (None if no such damage was found)."""
    import io

    import av

    data = np.fromfile(path, np.uint8)
    rng = np.random.default_rng(1)
    for _ in range(60):
        bad = data.copy()
        at = int(rng.integers(len(bad) // 4, len(bad) - 1500))
        bad[at:at + 300] = rng.integers(0, 256, 300, dtype=np.uint8)
        try:
            with av.open(io.BytesIO(bad.tobytes())) as c:
                flags = [f.is_corrupt for f in c.decode(video=0)]
        except av.AVError:
            continue
        if any(flags) and len(flags) == 30:
            bad.tofile(out)
            return flags.index(True)
    return None


def test_damaged_file_errors_name_file_and_frame(files, tmp_path):
    bad = str(tmp_path / "damaged.mp4")
    first = damaged_copy(files[0], bad)
    if first is None:
        pytest.skip("no damage that decodes to a flagged frame was found")
    # The clip holding the damaged frame: an error naming the reader, the file and the frame.
    pipe = reader_pipe(1, filenames=[bad], sequence_length=30)
    with pytest.raises(Exception) as e:
        pipe.run()
    msg = str(e.value)
    assert "[Reader]" in msg and "damaged.mp4" in msg and f"frame {first} was decoded from damaged data" in msg, msg
    # on_error="replace": that row is another clip's, and the log names the file and the frame.
    pipe = reader_pipe(2, filenames=[files[0], bad], labels=[0, 1], sequence_length=30, on_error="replace")
    video, labels = pipe.run()
    v = as_numpy(video)
    np.testing.assert_array_equal(v[0], v[1])
    assert [int(x[0]) for x in as_numpy(labels)] == [0, 0]
    log = pipe.error_log()
    assert len(log) == 1 and "damaged.mp4" in str(log[0]) and f"frame {first}" in str(log[0]), log


def list_starts(files, tmp_path, lines, op="readers.video", **kw):
    """(label, first frame) of every clip a file_list of `lines` ("<file index> <label> [start [end]]")
    gives, sequence_length 2, step 1."""
    lst = tmp_path / f"list{abs(hash(tuple(lines)))}.txt"
    lst.write_text("".join(f"{files[int(l.split()[0])]} {l.split(' ', 1)[1]}\n" for l in lines))
    pipe = reader_pipe(1, op=op, file_list=str(lst), sequence_length=2, step=1, enable_frame_num="scalar", **kw)
    return [(int(np.array(lab[0])[0]), int(np.array(f[0])[0]))
            for _v, lab, f in (pipe.run() for _ in range(pipe.epoch_size("Reader")))]


def test_legacy_file_list_ranges(files, refs, tmp_path):
    """readers.video's file_list ranges, DALI's legacy VideoLoader rules (DALI runs that reader on
    NVDEC only, so this checks the rule as its code states it): seconds x the frame rate (25 fps),
    start rounded up and end down (file_list_include_preceding_frame: down and up), frame numbers
    with file_list_frame_num (negative: from the end; a start alone runs to the end), end exclusive."""
    assert len(refs[files[0]][0]) == 30
    assert list_starts(files, tmp_path, ["0 1 0.1 0.5"]) == [(1, s) for s in range(3, 11)]  # [3, 12)
    assert list_starts(files, tmp_path, ["0 1 0.1 0.5"], file_list_include_preceding_frame=True) == \
        [(1, s) for s in range(2, 12)]  # [2, 13)
    assert list_starts(files, tmp_path, ["0 2 5 -20", "0 3 25"], file_list_frame_num=True) == \
        [(2, s) for s in range(5, 9)] + [(3, s) for s in range(25, 29)]  # [5, 10), [25, 30)
    # the whole video, and a line whose start equals its end skipped (as DALI does)
    assert list_starts(files, tmp_path, ["2 4", "0 5 3 3"]) == [(4, s) for s in range(0, 16)]
    for lines, kw, msg in [(["0 1 12 5"], dict(file_list_frame_num=True), r"start frame .*after the end"),
                           (["0 1 0 40"], dict(file_list_frame_num=True), r"past the video's 30 frames"),
                           (["0 1 0.5 2.0"], {}, r"past the video's 30 frames")]:
        with pytest.raises(Exception, match=msg) as e:
            list_starts(files, tmp_path, lines, **kw)
        assert "v0.mp4" in str(e.value) and "line 1" in str(e.value)
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{files[0]} -1\n")
    with pytest.raises(Exception, match=r"bad.txt', line 1: expected '<path> <label >= 0>"):
        reader_pipe(1, file_list=str(bad), sequence_length=2)
    # a value no video reaches (kept out so that every later conversion to frames stays in range)
    bad.write_text(f"{files[0]} 1 0 1e30\n")
    with pytest.raises(Exception, match=r"bad.txt', line 1: start and end must be numbers within \+-1e8, got '1e30'"):
        reader_pipe(1, file_list=str(bad), sequence_length=2)


def test_experimental_file_list_end_past_the_video(files, tmp_path):
    """file_list_include_end=False keeps an end past the video, which is then an error naming the file
    (DALI 2.4 fails while decoding such a clip); True (the default) clamps it."""
    op = "experimental.readers.video"
    assert list_starts(files, tmp_path, ["0 1 26 40"], op=op, file_list_format="frames") == \
        [(1, s) for s in range(26, 29)]
    with pytest.raises(Exception, match=r"v0.mp4.*ends at frame 40, past the video's 30 frames|"
                                        r"ends at frame 40, past the video's 30 frames.*v0.mp4"):
        list_starts(files, tmp_path, ["0 1 26 40"], op=op, file_list_format="frames", file_list_include_end=False)


@pytest.mark.parametrize("op", ["readers.video", "experimental.readers.video"])
def test_enable_frame_num_forms(files, op):
    """DALI 2.4's forms: False/"none" (no output), True/"scalar" (the first frame, shape [1]),
    "sequence" (every frame's number, -1 for constant padding)."""
    kw = dict(op=op, filenames=[files[2]], sequence_length=4, stride=3, step=12, pad_mode="constant")
    assert len(reader_pipe(1, enable_frame_num=False, **kw).run()) == 1
    assert len(reader_pipe(1, enable_frame_num="none", **kw).run()) == 1
    for form in (True, "scalar"):
        _v, f = reader_pipe(1, enable_frame_num=form, **kw).run()
        assert np.array(f[0]).tolist() == [0] and np.array(f[0]).dtype == np.int32
    pipe = reader_pipe(1, enable_frame_num="sequence", **kw)
    got = [np.array(pipe.run()[1][0]).tolist() for _ in range(2)]
    assert got == [[0, 3, 6, 9], [12, 15, -1, -1]]  # 17 frames: the second clip padded
    with pytest.raises(Exception, match="enable_frame_num"):
        reader_pipe(1, enable_frame_num="all", **kw)
