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
    """DALI's rule (select_masks.cc): one polygon per selected mask, the last one with its id."""
    out_p, out_v = [], []
    for j, m in enumerate(ids):
        p = polys[polys[:, 0] == m][-1]
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


def test_select_masks_keeps_last_polygon_and_ignores_unselected():
    """As DALI: a mask's earlier polygons are dropped, and an unselected polygon's range is never
    checked (here [5, 99) on 12 vertices). Values from DALI 2.4 on these inputs."""
    polys = np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10], [1, 10, 12], [5, 1, 4], [7, 5, 99]], np.int32)
    verts = np.arange(24, dtype=np.float32).reshape(12, 2)
    got_p, got_v = run(lambda: list(fn.segmentation.select_masks(
        src([np.array([1, 5], np.int32), np.array([2, 0], np.int32)]), src([polys] * 2), src([verts] * 2),
        reindex_masks=True)), 2)
    np.testing.assert_array_equal(got_p[0], [[0, 0, 2], [1, 2, 5]])
    np.testing.assert_array_equal(got_v[0][:, 0], [20, 22, 2, 4, 6])
    np.testing.assert_array_equal(got_p[1], [[0, 0, 3], [1, 3, 6]])
    np.testing.assert_array_equal(got_v[1][:, 0], [14, 16, 18, 0, 2, 4])


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


# ---------------------------------------------------------------------------------------------
# segmentation.random_object_bbox against scipy.ndimage.label (face connectivity)

def blob_boxes(mask, background=0):
    """{(label, start..., end...)} of every face-connected blob, with volumes, by scipy."""
    ndi = pytest.importorskip("scipy.ndimage")
    out = {}
    for lab in np.unique(mask):
        if lab == background:
            continue
        comp, n = ndi.label(mask == lab)
        for k, sl in enumerate(ndi.find_objects(comp)):
            box = tuple(s.start for s in sl) + tuple(s.stop for s in sl)
            out[(int(lab),) + box] = int((comp[sl] == k + 1).sum())
    return out


def label_map(rng, shape=(40, 50)):
    m = np.zeros(shape, np.int32)
    for lab in (1, 2, 5):
        for _ in range(4):
            y, x = rng.integers(0, shape[0] - 8), rng.integers(0, shape[1] - 8)
            h, w = rng.integers(1, 9), rng.integers(1, 9)
            m[y:y + h, x:x + w] = lab
    return m


def test_random_object_bbox_boxes_are_scipys_blobs():
    rng = np.random.default_rng(3)
    masks = [label_map(rng) for _ in range(64)]
    box, cls = run(lambda: list(fn.segmentation.random_object_bbox(src(masks), format="box", output_class=True)), 64,
                   iterations=1)
    for m, b, c in zip(masks, box, cls):
        blobs = blob_boxes(m)
        assert (int(c),) + tuple(b.tolist()) in blobs
    a, s = run(lambda: list(fn.segmentation.random_object_bbox(src(masks))), 64)
    e0, e1 = run(lambda: list(fn.segmentation.random_object_bbox(src(masks), format="start_end")), 64)
    for x, y, u, v, b in zip(a, s, e0, e1, box):
        np.testing.assert_array_equal(np.concatenate([x, x + y]), b)  # same seed, same draws
        np.testing.assert_array_equal(np.concatenate([u, v]), b)


def test_random_object_bbox_k_largest_threshold_classes_and_background():
    rng = np.random.default_rng(4)
    masks = [label_map(rng) for _ in range(32)]
    (box,) = run(lambda: [fn.segmentation.random_object_bbox(src(masks), format="box", ignore_class=True, k_largest=1)], 32)
    for m, b in zip(masks, box):
        blobs = blob_boxes(m)
        biggest = max(blobs.values())
        got = [v for k, v in blobs.items() if k[1:] == tuple(b.tolist())]
        assert got and max(got) == biggest
    (box, cls) = run(lambda: list(fn.segmentation.random_object_bbox(src(masks), format="box", threshold=[6, 6],
                                                                    classes=[2, 5], output_class=True)), 32)
    for m, b, c in zip(masks, box, cls):
        ok = {k: v for k, v in blob_boxes(m).items() if k[0] in (2, 5) and k[3] - k[1] >= 6 and k[4] - k[2] >= 6}
        if ok:
            assert (int(c),) + tuple(b.tolist()) in ok
        else:
            assert b.tolist() == [0, 0, 40, 50] and c == 0
    (box, cls) = run(lambda: list(fn.segmentation.random_object_bbox(src(masks), format="box", foreground_prob=0.0,
                                                                    output_class=True, background=7)), 32)
    assert all(b.tolist() == [0, 0, 40, 50] for b in box) and all(c == 7 for c in cls)


def test_random_object_bbox_class_weights_chi_square():
    m = np.zeros((20, 20), np.int32)
    m[1:3, 1:3], m[5:8, 5:8], m[10:15, 10:12] = 1, 2, 3
    batch, iters = 400, 5
    res = run(lambda: list(fn.segmentation.random_object_bbox(src([m] * batch), format="box", output_class=True,
                                                              classes=[1, 2, 3], class_weights=[1.0, 2.0, 1.0])),
              batch, iterations=iters)
    counts = np.zeros(4)
    for _, cls in res:
        for c in cls:
            counts[int(c)] += 1
    n = batch * iters
    expected = np.array([0, n / 4, n / 2, n / 4])
    chi2 = ((counts[1:] - expected[1:]) ** 2 / expected[1:]).sum()
    assert chi2 < 13.8, counts  # 2 degrees of freedom, p = 0.001


def test_random_object_bbox_bad_arguments():
    m = [np.zeros((4, 4), np.int32)]
    with pytest.raises(Exception, match="ignore_class"):
        run(lambda: list(fn.segmentation.random_object_bbox(src(m), ignore_class=True, classes=[1])), 1)
    with pytest.raises(Exception, match="integer labels"):
        run(lambda: list(fn.segmentation.random_object_bbox(src([np.zeros((4, 4), np.float32)]))), 1)
