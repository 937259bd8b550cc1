"""Sluice's video decoder and reader against real DALI 2.4's CPU outputs (recorded by
scripts/record_dali_goldens.py into dali_goldens/video.npz; the cases, and the videos they ran on,
are dali_goldens/video_cases.py's). Frames must be equal bit for bit (DALI's colour conversion,
kernels/video/yuv_to_rgb.h), frame numbers and labels exactly, timestamps as float64 to 1e-12 s;
the reader cases cut the same clips (their number, order and first frames), file_list ranges
included. Where DALI fails (the CPU reader's YCbCr), the case checks what Sluice gives instead.
"""
import importlib.util
import os

import numpy as np
import pytest

import sluice
from sluice import fn

from video_files import FFMPEG

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("video_cases", os.path.join(HERE, "dali_goldens", "video_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(os.path.join(HERE, "dali_goldens", "video.npz"))
VIDEOS = {name: GOLDEN[f"input/{name}"].tobytes() for name in cases.VIDEOS}

# FFmpeg's libraries come with its command-line tool on the machines the tests run on.
pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")


def golden_outputs(name, clip):
    out = []
    while f"{name}/{len(out)}/{clip}" in GOLDEN:
        out.append(GOLDEN[f"{name}/{len(out)}/{clip}"])
    return out


@pytest.mark.parametrize("name", sorted(cases.DECODER_CASES))
def test_decoder_matches_dali(name):
    video, kw = cases.DECODER_CASES[name]
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=7)
    with pipe:
        enc = fn.external_source(source=lambda: [np.frombuffer(VIDEOS[video], np.uint8)], batch=True, cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, **kw))
    pipe.build()
    (out,) = pipe.run()
    ours, (dali,) = np.array(out[0]), golden_outputs(name, 0)
    assert ours.shape == dali.shape and ours.dtype == dali.dtype
    np.testing.assert_array_equal(ours, dali)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("video_goldens"))


def run_reader(kw, clips):
    pipe = sluice.Pipeline(batch_size=1, num_threads=2, seed=7)
    with pipe:
        outs = fn.experimental.readers.video(name="Reader", **kw)
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    assert pipe.epoch_size("Reader") == clips
    return [[np.array(t[0]) for t in pipe.run()] for _ in range(clips)]


@pytest.mark.parametrize("name", sorted(n for n in cases.READER_CASES if f"{n}/error" not in GOLDEN))
def test_reader_matches_dali(name, folder):
    kw = cases.materialize(cases.READER_CASES[name], VIDEOS, folder)
    clips = int(GOLDEN[f"{name}/clips"])
    for c, ours in enumerate(run_reader(kw, clips)):
        dali = golden_outputs(name, c)
        assert len(ours) == len(dali), (name, c)
        for o, (a, b) in enumerate(zip(ours, dali)):
            if o == 0 and name in cases.SHAPE_ONLY:
                assert list(a.shape) == b.tolist(), (name, c)
                continue
            assert a.dtype == b.dtype and a.shape == b.shape, (name, c, o, a.dtype, b.dtype, a.shape, b.shape)
            if a.dtype == np.float64:
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=f"{name} clip {c} output {o}")
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"{name} clip {c} output {o}")


def test_reader_ycbcr_where_dali_fails(folder):
    """DALI 2.4's CPU reader fails on image_type=YCbCr (its sws_scale gets one plane pointer for
    planar yuv444p: "bad dst image pointers"); Sluice gives the conversion DALI's code asks for --
    luma unscaled, so equal to the decoded Y plane, chroma upsampled (checked bit-exact against
    DALI's libswscale when written)."""
    import av

    assert "bad dst image pointers" in str(GOLDEN["rd_ycbcr_odd/error"]) or "Invalid argument" in str(
        GOLDEN["rd_ycbcr_odd/error"])
    kw = cases.materialize(cases.READER_CASES["rd_ycbcr_odd"], VIDEOS, folder)
    got = run_reader(kw, 3)
    with av.open(kw["filenames"][0]) as c:
        luma = [np.frombuffer(f.planes[0], np.uint8).reshape(f.height, f.planes[0].line_size)[:, :f.width]
                for f in c.decode(video=0)]
    for k, (frames, first) in enumerate(got):
        assert frames.shape == (2, 63, 97, 3) and int(first[0]) == 2 * k
        np.testing.assert_array_equal(frames[..., 0], np.stack(luma[2 * k:2 * k + 2]))
