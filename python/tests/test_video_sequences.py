"""Sequences (FHWC, from decoders.video / readers.video) through the image operators, frame by frame:
a clip through resize + crop_mirror_normalize (fused or not), crop, flip, the color operators and
warp_affine/rotate equals the same operators applied to each frame as an image, bit for bit; random
arguments are drawn once per sample (every frame flipped alike); fn.per_frame gives per-frame
arguments; fn.sequence_rearrange reorders frames."""
import numpy as np
import pytest

import sluice
from sluice import fn, types

pytest.importorskip("av")
from video_files import FFMPEG, as_numpy, make  # noqa: E402

pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    """Three clips of 6 frames (FHWC uint8) from decoders.video."""
    d = tmp_path_factory.mktemp("seq")
    data = [np.fromfile(make(d / f"v{i}.mp4", size=s, frames=20, gop=5), np.uint8)
            for i, s in enumerate(["96x64", "80x60", "64x64"])]
    pipe = sluice.Pipeline(batch_size=3, num_threads=2, seed=1)
    with pipe:
        enc = fn.external_source(source=lambda: data, batch=True, cycle=False)
        pipe.set_outputs(fn.experimental.decoders.video(enc, start_frame=3, sequence_length=6))
    pipe.build()
    (out,) = pipe.run()
    assert out.layout() == "FHWC"
    return as_numpy(out)


def run(batch, layout, graph, threads=2, seed=7, **opts):
    """Runs graph(input) on `batch` (a list of arrays with `layout`); returns the outputs as lists."""
    pipe = sluice.Pipeline(batch_size=len(batch), num_threads=threads, seed=seed, **opts)
    with pipe:
        x = fn.external_source(source=lambda: batch, batch=True, cycle=False, layout=layout)
        outs = graph(x)
        pipe.set_outputs(*outs) if isinstance(outs, (list, tuple)) else pipe.set_outputs(outs)
    pipe.build()
    res = pipe.run()
    return [as_numpy(o) for o in res], [o.layout() for o in res]


def frames_as_images(clips):
    return [f for c in clips for f in c]


def per_frame_equal(clips, graph, **opts):
    """graph on the sequences == graph on every frame as an image."""
    (seq,), (layout,) = run(clips, "FHWC", graph, **opts)
    (img,), _ = run(frames_as_images(clips), "HWC", graph, **opts)
    k = 0
    for c, s in zip(clips, seq):
        assert s.shape[0] == c.shape[0]
        for f in range(c.shape[0]):
            np.testing.assert_array_equal(s[f], img[k], err_msg=f"frame {f}")
            k += 1
    return layout


@pytest.mark.parametrize("fuse", [True, False])
def test_resize_crop_mirror_normalize(clips, fuse):
    def graph(x):
        x = fn.resize(x, resize_shorter=40)
        return fn.crop_mirror_normalize(x, crop=(32, 32), mean=[120.0, 110.0, 100.0], std=[60.0, 61.0, 62.0],
                                        mirror=1, dtype=types.FLOAT)
    assert per_frame_equal(clips, graph, fuse_operators=fuse) == "FCHW"


@pytest.mark.parametrize("graph", [
    lambda x: fn.resize(x, size=(33, 47)),
    lambda x: fn.crop(x, crop=(20, 30), crop_pos_x=0.2, crop_pos_y=0.7),
    lambda x: fn.flip(x, horizontal=1, vertical=1),
    lambda x: fn.brightness_contrast(x, brightness=1.2, contrast=0.8),
    lambda x: fn.hsv(x, hue=30.0, saturation=0.7),
    lambda x: fn.rotate(x, angle=17.0, fill_value=0),
    lambda x: fn.warp_affine(x, matrix=[0.9, 0.1, 2.0, -0.1, 1.1, -3.0], fill_value=5),
], ids=["resize", "crop", "flip", "brightness_contrast", "hsv", "rotate", "warp_affine"])
def test_operator_frame_by_frame(clips, graph):
    assert per_frame_equal(clips, graph).startswith("F")


def test_random_choice_is_per_sample(clips):
    """A random flip decision (coin_flip) and a random crop position apply to every frame of a sample."""
    def graph(x):
        flip = fn.random.coin_flip(probability=0.5)
        px = fn.random.uniform(range=(0.0, 1.0))
        return fn.crop(fn.flip(x, horizontal=flip), crop=(24, 24), crop_pos_x=px), flip, px
    batch = clips * 4
    (seq, flips, pxs), _ = run(batch, "FHWC", graph, seed=11)
    assert len({int(np.array(f).ravel()[0]) for f in flips}) == 2  # both choices occur
    for c, s, f, px in zip(batch, seq, flips, pxs):
        (one,), _ = run([c], "FHWC", lambda x, f=f, px=px: fn.crop(
            fn.flip(x, horizontal=int(np.array(f).ravel()[0])), crop=(24, 24), crop_pos_x=float(np.array(px).ravel()[0])))
        np.testing.assert_array_equal(s, one[0])


def test_deterministic_across_threads(clips):
    def graph(x):
        x = fn.flip(x, horizontal=fn.random.coin_flip())
        return fn.crop_mirror_normalize(fn.resize(x, size=(40, 40)), crop=(32, 32), dtype=types.FLOAT)
    (a,), _ = run(clips * 3, "FHWC", graph, threads=1, seed=5)
    for t in (2, 4):
        (b,), _ = run(clips * 3, "FHWC", graph, threads=t, seed=5)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_per_frame_argument(clips):
    angles = [np.array([0, 10, 20, 30, 40, 50], np.float32) + 3 * i for i in range(3)]

    def graph(x):
        a = fn.external_source(source=lambda: angles, batch=True, cycle=False)
        return fn.rotate(x, angle=fn.per_frame(a), fill_value=0, keep_size=True)
    (seq,), _ = run(clips, "FHWC", graph)
    for c, s, ang in zip(clips, seq, angles):
        for f in range(6):
            (one,), _ = run([c[f]], "HWC", lambda x, v=float(ang[f]): fn.rotate(x, angle=v, fill_value=0, keep_size=True))
            np.testing.assert_array_equal(s[f], one[0])


def test_per_frame_wrong_frame_count(clips):
    def graph(x):
        a = fn.external_source(source=lambda: [np.zeros(5, np.float32)] * 3, batch=True, cycle=False)
        return fn.rotate(x, angle=fn.per_frame(a))
    with pytest.raises(Exception, match="per frame.*5 frames.*has 6"):
        run(clips, "FHWC", graph)


def test_sequence_rearrange(clips):
    (out,), (layout,) = run(clips, "FHWC", lambda x: fn.sequence_rearrange(x, new_order=[5, 0, 0, 2]))
    assert layout == "FHWC"
    for c, o in zip(clips, out):
        np.testing.assert_array_equal(o, c[[5, 0, 0, 2]])
    with pytest.raises(Exception, match="new_order"):
        run(clips, "FHWC", lambda x: fn.sequence_rearrange(x, new_order=[6]))
    with pytest.raises(Exception, match="layout"):
        run([c[0] for c in clips], "HWC", lambda x: fn.sequence_rearrange(x, new_order=[0]))
