"""segmentation.select_masks, segmentation.random_mask_pixel and roi_random_crop against NumPy
references written from DALI's documentation: the selected polygons and renumbered vertices, the
drawn pixels' membership and uniformity (chi-square), the crop windows' containment rules over many
draws; the same results for any num_threads; bad input named."""
import numpy as np
import pytest

import sluice
from sluice import fn

from test_detection_ops import run, src


def select_reference(ids, polys, verts, reindex):
    out_p, out_v = [], []
    for j, m in enumerate(ids):
        for p in polys[polys[:, 0] == m]:
            out_p.append([j if reindex else m, len(out_v), len(out_v) + p[2] - p[1]])
            out_v.extend(verts[p[1]:p[2]].tolist())
    return np.array(out_p, np.int32).reshape(-1, 3), np.array(out_v, verts.dtype).reshape(-1, verts.shape[1])


@pytest.mark.parametrize("reindex", [False, True])
def test_select_masks_matches_reference(reindex):
    rng = np.random.default_rng(1)
    polys = np.array([[0, 0, 3], [1, 3, 7], [0, 7, 10], [2, 10, 14], [1, 14, 17]], np.int32)
    verts = rng.uniform(0, 1, (17, 2)).astype(np.float32)
    ids = [np.array([1, 2], np.int32), np.array([0], np.int32), np.array([], np.int32)]
    got_p, got_v = run(lambda: list(fn.segmentation.select_masks(src(ids), src([polys] * 3), src([verts] * 3),
                                                                 reindex_masks=reindex)), 3)
    for i in range(3):
        want_p, want_v = select_reference(ids[i], polys, verts, reindex)
        np.testing.assert_array_equal(got_p[i], want_p)
        np.testing.assert_array_equal(got_v[i], want_v)


def test_select_masks_bad_ids_are_named():
    polys = np.array([[0, 0, 3]], np.int32)
    verts = np.zeros((3, 2), np.float32)
    with pytest.raises(Exception, match="mask id 5 has no polygon"):
        run(lambda: list(fn.segmentation.select_masks(src([np.array([5], np.int32)]), src([polys]), src([verts]))), 1)
    with pytest.raises(Exception, match="outside"):
        run(lambda: list(fn.segmentation.select_masks(src([np.array([0], np.int32)]), src([np.array([[0, 0, 9]], np.int32)]),
                                                      src([verts]))), 1)


def test_random_mask_pixel_draws_foreground_uniformly():
    mask = np.zeros((20, 30), np.uint8)
    fg = [(2, 3), (2, 4), (10, 11), (19, 29), (7, 0)]
    for y, x in fg:
        mask[y, x] = 3
    mask[5, 5] = 1  # below the value / above the threshold
    batch, iters = 500, 8
    res = run(lambda: [fn.segmentation.random_mask_pixel(src([mask] * batch), value=3, foreground=1),
                       fn.segmentation.random_mask_pixel(src([mask] * batch), threshold=0.5, foreground=1),
                       fn.segmentation.random_mask_pixel(src([mask] * batch), foreground=0)], batch, iterations=iters)
    counts = {p: 0 for p in fg}
    anywhere = set()
    for by_value, by_threshold, any_pixel in res:
        for c in by_value:
            counts[tuple(c)] += 1
        for c in by_threshold:
            assert tuple(c) in fg or tuple(c) == (5, 5)
        for c in any_pixel:
            assert 0 <= c[0] < 20 and 0 <= c[1] < 30
            anywhere.add(tuple(c))
    n = batch * iters
    chi2 = sum((v - n / 5) ** 2 / (n / 5) for v in counts.values())
    assert chi2 < 18.47, counts  # 4 degrees of freedom, p = 0.001
    assert len(anywhere) > 500
    empty = np.zeros((4, 5), np.int32)
    (c,) = run(lambda: [fn.segmentation.random_mask_pixel(src([empty]), foreground=1)], 1)
    assert 0 <= c[0][0] < 4 and 0 <= c[0][1] < 5  # no foreground: any pixel


def test_roi_random_crop_contains_the_roi_or_lies_inside_it():
    batch = 400
    roi_start, roi_end = [np.array([10, 40], np.int64)] * batch, [np.array([30, 50], np.int64)] * batch
    crop = [50, 5]  # axis 0: window bigger than the ROI (20); axis 1: smaller (10)
    a, b = run(lambda: [fn.roi_random_crop(crop_shape=crop, roi_start=src(roi_start), roi_end=src(roi_end)),
                        fn.roi_random_crop(crop_shape=crop, roi_start=src(roi_start), roi_shape=[20, 10], in_shape=[60, 52])],
               batch)
    starts = np.array(a)
    assert np.all(starts[:, 0] <= 10) and np.all(starts[:, 0] + 50 >= 30)
    assert np.all(starts[:, 1] >= 40) and np.all(starts[:, 1] + 5 <= 50)
    assert set(starts[:, 0]) == set(range(-20, 11)) and set(starts[:, 1]) == set(range(40, 46))
    bounded = np.array(b)
    assert np.all(bounded[:, 0] >= 0) and np.all(bounded[:, 0] + 50 <= 60) and np.all(bounded[:, 0] <= 10)
    assert np.all(bounded[:, 1] >= 40) and np.all(bounded[:, 1] + 5 <= 50)
    data = [np.zeros((60, 48), np.uint8)] * 3
    (c,) = run(lambda: [fn.roi_random_crop(src(data), crop_shape=crop, roi_start=[10, 40], roi_end=[30, 48])], 3)
    for s in c:
        assert 0 <= s[0] <= 10 and 40 <= s[1] <= 43


def test_same_draws_for_any_thread_count():
    mask = (np.arange(600).reshape(20, 30) % 7 == 0).astype(np.uint8)
    build = lambda: [fn.segmentation.random_mask_pixel(src([mask] * 32), foreground=1),
                     fn.roi_random_crop(crop_shape=[8, 8], roi_start=[2, 2], roi_end=[20, 25], in_shape=[40, 40])]
    a = run(build, 32, threads=1, seed=4, iterations=2)
    b = run(build, 32, threads=2, seed=4, iterations=2)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            for p, q in zip(u, v):
                np.testing.assert_array_equal(p, q)


def test_roi_random_crop_bad_arguments():
    with pytest.raises(Exception, match="roi_end"):
        run(lambda: [fn.roi_random_crop(crop_shape=[4], roi_start=[0])], 1)
    with pytest.raises(Exception, match="larger than the input"):
        run(lambda: [fn.roi_random_crop(crop_shape=[50], roi_start=[0], roi_end=[5], in_shape=[10])], 1)
