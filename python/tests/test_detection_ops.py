"""The box and coordinate operators against NumPy references written here from DALI's documented
formulas: bb_flip, bbox_paste, coord_flip, coord_transform (and "a box follows its image" through
flip, paste and warp_affine + transforms), box_encoder against an IoU matcher on SSD300's 8,732
default boxes, random_bbox_crop's guarantees over 10,000 draws, and decoders.image_slice against the
whole decode sliced.
"""
import itertools
import math
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"


def run(build, batch_size, threads=2, seed=3, iterations=1):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    res = []
    for _ in range(iterations):
        r = pipe.run()
        res.append([[np.array(o.at(i)) for i in range(batch_size)] for o in r])
    return res if iterations > 1 else res[0]


def src(samples, **kw):
    return fn.external_source(source=lambda s=samples: [np.asarray(x) for x in s], **kw)


def random_boxes(rng, n, ltrb):
    lt = rng.uniform(0, 0.7, (n, 2))
    wh = rng.uniform(0.02, 0.3, (n, 2))
    return np.hstack([lt, lt + wh if ltrb else wh]).astype(np.float32)


@pytest.mark.parametrize("ltrb", [False, True])
def test_bb_flip_matches_formula(ltrb):
    rng = np.random.default_rng(1)
    boxes = [random_boxes(rng, n, ltrb) for n in (3, 0, 7, 1)]
    hs, vs = [1, 0, 1, 0], [0, 1, 1, 0]
    (got,) = run(lambda: [fn.bb_flip(src(boxes), ltrb=ltrb, horizontal=src([np.int32(h) for h in hs]),
                                     vertical=src([np.int32(v) for v in vs]))], 4)
    for b, h, v, g in zip(boxes, hs, vs, got):
        want = b.copy()
        if h:
            want[:, 0] = 1 - b[:, 2] if ltrb else 1 - b[:, 0] - b[:, 2]
            if ltrb:
                want[:, 2] = 1 - b[:, 0]
        if v:
            want[:, 1] = 1 - b[:, 3] if ltrb else 1 - b[:, 1] - b[:, 3]
            if ltrb:
                want[:, 3] = 1 - b[:, 1]
        np.testing.assert_allclose(g, want, atol=1e-6)


@pytest.mark.parametrize("ltrb", [False, True])
def test_bbox_paste_matches_formula(ltrb):
    rng = np.random.default_rng(2)
    boxes = [random_boxes(rng, n, ltrb) for n in (4, 2, 0)]
    ratio, px, py = [1.0, 2.5, 3.0], [0.0, 0.3, 1.0], [0.5, 0.9, 0.0]
    (got,) = run(lambda: [fn.bbox_paste(src(boxes), ltrb=ltrb, ratio=src([np.float32(r) for r in ratio]),
                                        paste_x=src([np.float32(x) for x in px]), paste_y=src([np.float32(y) for y in py]))], 3)
    for b, r, x, y, g in zip(boxes, ratio, px, py, got):
        s = 1 / r
        m = np.array([x * (1 - s), y * (1 - s)] * 2 if ltrb else [x * (1 - s), y * (1 - s), 0, 0], np.float32)
        np.testing.assert_allclose(g, b * s + m, atol=1e-6)


def test_coord_flip_matches_formula():
    rng = np.random.default_rng(3)
    pts = [rng.uniform(0, 1, (5, 2)).astype(np.float32), rng.uniform(0, 1, (3, 3)).astype(np.float32)]
    (got,) = run(lambda: [fn.coord_flip(src(pts), flip_x=1, flip_y=src([np.int32(1), np.int32(0)]), flip_z=1,
                                        center_x=0.25, center_z=src([np.float32(0.5), np.float32(2.0)]))], 2)
    want0 = pts[0].copy()
    want0[:, 0] = 0.5 - pts[0][:, 0]
    want0[:, 1] = 1.0 - pts[0][:, 1]
    want1 = pts[1].copy()
    want1[:, 0] = 0.5 - pts[1][:, 0]
    want1[:, 2] = 4.0 - pts[1][:, 2]
    np.testing.assert_allclose(got[0], want0, atol=1e-6)
    np.testing.assert_allclose(got[1], want1, atol=1e-6)
    (yx,) = run(lambda: [fn.coord_flip(src(pts[:1]), layout="yx", flip_x=1)], 1)
    np.testing.assert_allclose(yx[0][:, 1], 1 - pts[0][:, 1], atol=1e-6)  # x is the second column


def test_coord_transform_matches_numpy():
    rng = np.random.default_rng(4)
    pts = [rng.uniform(-5, 5, (6, 2)).astype(np.float32), rng.uniform(-5, 5, (0, 2)).astype(np.float32)]
    M = np.array([[1.5, -0.5], [0.25, 2.0], [1.0, 1.0]])
    T = np.array([3.0, -1.0, 0.5])
    a, b, c = run(lambda: [fn.coord_transform(src(pts), M=M.ravel().tolist(), T=T.tolist()),
                           fn.coord_transform(src(pts), MT=np.hstack([M, T[:, None]]).ravel().tolist()),
                           fn.coord_transform(src(pts), M=2.0, T=1.0)], 2)
    np.testing.assert_allclose(a[0], pts[0] @ M.T + T, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(b[0], pts[0] @ M.T + T, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(c[0], pts[0] * 2 + 1, rtol=1e-6)
    assert a[1].shape == (0, 3)


def test_coord_transform_integer_types_round_and_saturate():
    """DALI's four input types; an integer output (the input's type) rounds to nearest, ties away from
    zero, and saturates (values from DALI 2.4 on the same points); another dtype is an error."""
    pts = np.array([[1, -2], [100, 300], [25536, -25536], [0, 2]], np.int16)
    (out,) = run(lambda: [fn.coord_transform(src([pts]), M=[1.0, 0.5, 0, 1.0], T=[0.0, 0.5], dtype=types.INT16)], 1)
    assert out[0].dtype == np.int16
    np.testing.assert_array_equal(out[0], [[0, -2], [250, 301], [12768, -25536], [1, 3]])
    u8 = np.array([[128, 254], [1, 2]], np.uint8)
    (out,) = run(lambda: [fn.coord_transform(src([u8]), M=[2.0, 0, 0, 1.0], T=[0.5, -3.5], dtype=types.UINT8)], 1)
    np.testing.assert_array_equal(out[0], [[255, 251], [3, 0]])
    with pytest.raises(Exception, match="dtype"):
        run(lambda: [fn.coord_transform(src([pts.astype(np.float32)]), M=[1.0], dtype=types.INT16)], 1)


def box_mask(shape, box):
    """A mask of the pixels whose centres lie in the absolute ltrb box."""
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w] + 0.5
    return (xs >= box[0]) & (xs < box[2]) & (ys >= box[1]) & (ys < box[3])


def painted(h, w, box, value=200):
    img = np.zeros((h, w, 3), np.uint8)
    img[box_mask((h, w), box)] = value
    return img


def lit_box(img):
    ys, xs = np.nonzero(img[..., 0] > 100)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)


def test_box_follows_its_image_through_flip_paste_and_warp():
    """The DALI tutorial's pattern: the same coin flip / ratio / matrix moves image and box."""
    h, w = 60, 80
    box = np.array([10, 20, 30, 50], np.float32)  # absolute ltrb; the lit pixels are exactly it
    img = painted(h, w, box)
    rel = (box / [w, h, w, h]).astype(np.float32)[None]

    def build():
        im, bx = src([img], layout="HWC"), src([rel])
        flip = fn.flip(im, horizontal=1, vertical=1)
        fbox = fn.bb_flip(bx, ltrb=True, horizontal=1, vertical=1)
        paste = fn.paste(im, ratio=2.0, paste_x=0.25, paste_y=0.75, fill_value=0)
        pbox = fn.bbox_paste(bx, ltrb=True, ratio=2.0, paste_x=0.25, paste_y=0.75)
        mt = fn.transforms.rotation(angle=90.0, center=[w / 2, h / 2])
        warp = fn.warp_affine(im, matrix=mt, inverse_map=False, size=[h, w], fill_value=0, interp_type=types.INTERP_NN)
        corners = fn.coord_transform(src([np.array([[10, 20], [30, 50]], np.float32)]), MT=mt)
        return flip, fbox, paste, pbox, warp, corners
    flip, fbox, paste, pbox, warp, corners = run(build, 1)
    np.testing.assert_allclose(lit_box(flip[0]) / [w, h, w, h], fbox[0][0], atol=1e-6)
    ph, pw = paste[0].shape[:2]
    np.testing.assert_allclose(lit_box(paste[0]) / [pw, ph, pw, ph], pbox[0][0], atol=1.0 / pw)
    c = corners[0]
    want = np.array([c[:, 0].min(), c[:, 1].min(), c[:, 0].max(), c[:, 1].max()])
    np.testing.assert_allclose(lit_box(warp[0]), want, atol=1.0)


# ---------------------------------------------------------------------------------------------
# box_encoder against an IoU matcher on SSD300's default boxes.

def ssd300_default_boxes():
    """SSD300's 8,732 default boxes (ltrb, relative), as the MLPerf / NVIDIA SSD reference builds them."""
    fig, feat, steps = 300, [38, 19, 10, 5, 3, 1], [8, 16, 32, 64, 100, 300]
    scales, ratios = [21, 45, 99, 153, 207, 261, 315], [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
    boxes = []
    for idx, f in enumerate(feat):
        sk1, sk2 = scales[idx] / fig, scales[idx + 1] / fig
        sk3 = math.sqrt(sk1 * sk2)
        sizes = [(sk1, sk1), (sk3, sk3)]
        for a in ratios[idx]:
            w, h = sk1 * math.sqrt(a), sk1 / math.sqrt(a)
            sizes += [(w, h), (h, w)]
        for w, h in sizes:
            for i, j in itertools.product(range(f), repeat=2):
                cx, cy = (j + 0.5) / (fig / steps[idx]), (i + 0.5) / (fig / steps[idx])
                boxes.append((cx, cy, w, h))
    b = np.clip(np.array(boxes), 0, 1)
    return np.stack([b[:, 0] - 0.5 * b[:, 2], b[:, 1] - 0.5 * b[:, 3], b[:, 0] + 0.5 * b[:, 2], b[:, 1] + 0.5 * b[:, 3]], 1)


def iou_matrix(a, b):
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area = lambda x: np.prod(np.clip(x[:, 2:] - x[:, :2], 0, None), axis=1)
    return inter / (area(a)[:, None] + area(b)[None] - inter)


def encode_reference(boxes, labels, anchors, criteria, offset, means, stds):
    """The SSD matching: each box's best anchor (last on ties) forced; each anchor's best box (last on
    ties) if its IoU > criteria."""
    n = len(anchors)
    acx, acy = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    out = np.zeros((n, 4)) if offset else np.stack([acx, acy, aw, ah], 1)
    lab = np.zeros(n, np.int32)
    if len(boxes) == 0:
        return out, lab
    ious = iou_matrix(boxes.astype(np.float64), anchors)
    for b in range(len(boxes)):
        row = ious[b]
        best = len(row) - 1 - np.argmax(row[::-1])
        ious[b, best] = 2.0
    best_box = len(boxes) - 1 - np.argmax(ious[::-1], axis=0)
    matched = ious[best_box, np.arange(n)] > criteria
    m = boxes[best_box[matched]].astype(np.float64)
    cx, cy, w, h = (m[:, 0] + m[:, 2]) / 2, (m[:, 1] + m[:, 3]) / 2, m[:, 2] - m[:, 0], m[:, 3] - m[:, 1]
    if offset:
        enc = np.stack([(cx - acx[matched]) / aw[matched], (cy - acy[matched]) / ah[matched],
                        np.log(w / aw[matched]), np.log(h / ah[matched])], 1)
        out[matched] = (enc - means) / stds
    else:
        out[matched] = np.stack([cx, cy, w, h], 1)
    lab[matched] = labels[best_box[matched]]
    return out, lab


@pytest.mark.parametrize("offset", [False, True])
def test_box_encoder_matches_reference_on_ssd300_anchors(offset):
    anchors = ssd300_default_boxes()
    assert anchors.shape == (8732, 4)
    rng = np.random.default_rng(5)
    boxes = [random_boxes(rng, n, True) for n in (1, 5, 12, 0)]
    labels = [rng.integers(1, 81, len(b)).astype(np.int32) for b in boxes]
    means, stds = np.array([0.0, 0.0, 0.0, 0.0]), np.array([0.1, 0.1, 0.2, 0.2])
    kw = dict(criteria=0.5, anchors=anchors.astype(np.float32).ravel().tolist())
    if offset:
        kw.update(offset=True, scale=1.0, means=means.tolist(), stds=stds.tolist())
    enc, lab = run(lambda: list(fn.box_encoder(src(boxes), src(labels), **kw)), 4)
    anchors32 = anchors.astype(np.float32).astype(np.float64)
    for b, l, e, g in zip(boxes, labels, enc, lab):
        want_boxes, want_labels = encode_reference(b, l, anchors32, 0.5, offset, means, stds)
        np.testing.assert_array_equal(g, want_labels)
        np.testing.assert_allclose(e, want_boxes, rtol=1e-4, atol=1e-4)
        if len(b):
            assert (g > 0).sum() >= len(b)  # every box matched at least its best anchor


# ---------------------------------------------------------------------------------------------
# random_bbox_crop

def test_random_bbox_crop_guarantees_over_10000_draws():
    rng = np.random.default_rng(6)
    batch, iterations = 1000, 10
    # One or two boxes of 0.3..0.6 per side: every threshold is reachable for one box, so the options
    # are mostly what was drawn (the C++ kernel test checks their uniformity by chi-square).
    def boxes_of(n):
        lt = rng.uniform(0, 0.4, (n, 2))
        return np.hstack([lt, lt + rng.uniform(0.3, 0.6, (n, 2))]).astype(np.float32)
    boxes = [boxes_of(int(rng.integers(1, 3))) for _ in range(batch)]
    labels = [np.arange(len(b), dtype=np.int32) + 1 for b in boxes]
    thresholds = [0.1, 0.3, 0.5]

    def build():
        return fn.random_bbox_crop(src(boxes), src(labels), thresholds=thresholds, aspect_ratio=[0.5, 2.0],
                                   scaling=[0.3, 1.0], bbox_layout="xyXY", num_attempts=200, allow_no_crop=True,
                                   output_bbox_indices=True)
    results = run(build, batch, iterations=iterations, seed=11)
    whole = 0
    for it in results:
        anchor, shape, out_boxes, out_labels, idx = it
        for i in range(batch):
            a, s, b = anchor[i], shape[i], boxes[i]
            assert np.all(a >= 0) and np.all(a + s <= 1 + 1e-6) and np.all(s > 0)
            if np.allclose(s, 1) and np.allclose(a, 0):
                whole += 1
                np.testing.assert_array_equal(out_boxes[i], b)
                continue
            win = np.array([[a[0], a[1], a[0] + s[0], a[1] + s[1]]])
            ious = iou_matrix(b.astype(np.float64), win.astype(np.float64))[:, 0]
            # The crop passed one of the thresholds for every box.
            assert ious.min() >= min(thresholds) - 1e-5
            assert 0.5 - 1e-6 <= s[0] / s[1] <= 2.0 + 1e-6
            assert 0.3 - 1e-6 <= s.min() and s.max() <= 1.0 + 1e-6
            # The boxes that stay are those whose centre is in the crop, clipped, relative to it.
            c = (b[:, :2] + b[:, 2:]) / 2
            inside = np.all((c >= win[0, :2] - 1e-6) & (c <= win[0, 2:] + 1e-6), axis=1)
            np.testing.assert_array_equal(idx[i], np.nonzero(inside)[0])
            np.testing.assert_array_equal(out_labels[i], labels[i][inside])
            want = (np.clip(b[inside], np.tile(win[0, :2], 2), np.tile(win[0, 2:], 2)) - np.tile(a, 2)) / np.tile(s, 2)
            np.testing.assert_allclose(out_boxes[i], want, atol=1e-5)
            assert np.all(out_boxes[i] >= -1e-6) and np.all(out_boxes[i] <= 1 + 1e-6)
    # "No crop" is one of 4 equally likely options (plus the rare draws whose attempts ran out).
    assert 0.2 < whole / (batch * iterations) < 0.35, whole


def test_random_bbox_crop_same_for_any_thread_count_and_fixed_crop_shape():
    rng = np.random.default_rng(7)
    boxes = [random_boxes(rng, 3, True) for _ in range(16)]
    build = lambda: fn.random_bbox_crop(src(boxes), thresholds=[0.2, 0.5], scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0],
                                        num_attempts=10)
    a = run(build, 16, threads=1, seed=9, iterations=3)
    b = run(build, 16, threads=2, seed=9, iterations=3)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            for p, q in zip(u, v):
                np.testing.assert_array_equal(p, q)
    anchor, shape, _ = run(lambda: fn.random_bbox_crop(src(boxes), crop_shape=[100, 50], input_shape=[400, 300],
                                                       thresholds=[0.0], allow_no_crop=False), 16)
    for a_, s_ in zip(anchor, shape):
        np.testing.assert_allclose(s_, [100, 50], rtol=1e-6)
        assert 0 <= a_[0] <= 300 + 1e-3 and 0 <= a_[1] <= 250 + 1e-3


def test_random_bbox_crop_shape_layout_orders_crop_and_input_shape():
    # DALI 2.4: shape_layout="HW" takes crop_shape and input_shape as [H, W]; the anchor and shape
    # outputs stay [x, y] and [w, h] (dali_goldens cov_random_bbox_crop_shape_layout).
    rng = np.random.default_rng(3)
    boxes = [random_boxes(rng, 3, True) for _ in range(4)]
    wh = run(lambda: fn.random_bbox_crop(src(boxes), crop_shape=[100, 50], input_shape=[400, 300], thresholds=[0.0],
                                         allow_no_crop=False), 4, seed=5)
    hw = run(lambda: fn.random_bbox_crop(src(boxes), crop_shape=[50, 100], input_shape=[300, 400], thresholds=[0.0],
                                         allow_no_crop=False, shape_layout="HW"), 4, seed=5)
    for x, y in zip(wh, hw):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    np.testing.assert_allclose(hw[1][0], [100, 50], rtol=1e-6)
    with pytest.raises(Exception, match="shape_layout"):
        run(lambda: fn.random_bbox_crop(src(boxes), crop_shape=[5, 5], input_shape=[9, 9], shape_layout="WHD"), 4)


def test_random_bbox_crop_bad_arguments_are_named():
    boxes = [np.zeros((2, 4), np.float32)]
    with pytest.raises(Exception, match="thresholds"):
        run(lambda: fn.random_bbox_crop(src(boxes), thresholds=[], allow_no_crop=False), 1)
    with pytest.raises(Exception, match="bbox_layout"):
        run(lambda: fn.random_bbox_crop(src(boxes), bbox_layout="xyzXYZ"), 1)
    with pytest.raises(Exception, match=r"\[N, 4\]"):
        run(lambda: fn.random_bbox_crop(src([np.zeros((2, 3), np.float32)])), 1)


# ---------------------------------------------------------------------------------------------
# decoders.image_slice

def test_image_slice_equals_whole_decode_sliced():
    data = [np.fromfile(IMAGES / n, np.uint8) for n in ("photo_500x375.jpg", "progressive.jpg")]
    anchors = [np.array([0.1, 0.25], np.float32), np.array([0.5, 0.0], np.float32)]
    shapes = [np.array([0.6, 0.5], np.float32), np.array([0.5, 1.0], np.float32)]
    full, sliced, absolute = run(lambda: [fn.decoders.image(src(data)),
                                          fn.decoders.image_slice(src(data), src(anchors), src(shapes)),
                                          fn.decoders.image_slice(src(data), src([np.array([7, 3], np.int32)] * 2),
                                                                  src([np.array([50, 40], np.int32)] * 2))], 2)
    for f, s, a, sh, ab in zip(full, sliced, anchors, shapes, absolute):
        h, w = f.shape[:2]
        rnd = lambda v: int(math.floor(v + 0.5))  # llround: halves away from zero (DALI's slice rounding)
        a, sh = a.astype(np.float64), sh.astype(np.float64)
        x0, y0 = rnd(a[0] * w), rnd(a[1] * h)
        x1, y1 = rnd((a[0] + sh[0]) * w), rnd((a[1] + sh[1]) * h)
        np.testing.assert_array_equal(s, f[y0:y1, x0:x1])
        np.testing.assert_array_equal(ab, f[3:43, 7:57])


def test_image_slice_outside_the_image_is_an_error_or_trimmed():
    data = [np.fromfile(IMAGES / "photo_500x375.jpg", np.uint8)]
    a, s = [np.array([0.8, 0.0], np.float32)], [np.array([0.5, 0.5], np.float32)]
    with pytest.raises(Exception, match="outside"):
        run(lambda: fn.decoders.image_slice(src(data), src(a), src(s)), 1)
    (out,) = run(lambda: [fn.decoders.image_slice(src(data), src(a), src(s), out_of_bounds_policy="trim_to_shape")], 1)
    assert out[0].shape == (188, 100, 3)


# ---------------------------------------------------------------------------------------------
# bbox_rotate

def rotate_reference(boxes, angle, in_hw, out_hw, mode, ltrb=True, normalized=True, remove_threshold=0.1):
    """DALI's BBoxRotate, from its documentation: corners rotated about the centres (counter-clockwise,
    y down), expand / halfway / fixed, clipped, dropped under remove_threshold."""
    (ih, iw), (oh, ow) = in_hw, out_hw
    b = boxes.astype(np.float64).copy()
    if not ltrb:
        b[:, 2:] += b[:, :2]
    if normalized:
        b = b * [iw, ih, iw, ih]
    b -= [iw / 2, ih / 2, iw / 2, ih / 2]
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    xs = b[:, [0, 2, 0, 2]]
    ys = b[:, [1, 1, 3, 3]]
    rx, ry = xs * c + ys * s + ow / 2, -xs * s + ys * c + oh / 2
    nb = np.stack([rx.min(1), ry.min(1), rx.max(1), ry.max(1)], 1)
    if mode != "expand":
        ow_, oh_ = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        nw, nh = nb[:, 2] - nb[:, 0], nb[:, 3] - nb[:, 1]
        swapped = (ow_ < oh_) != (nw < nh)
        dw = np.where(swapped, nw - oh_, nw - ow_) / 2
        dh = np.where(swapped, nh - ow_, nh - oh_) / 2
        if mode == "halfway":
            dw, dh = dw / 2, dh / 2
        nb += np.stack([dw, dh, -dw, -dh], 1)
    area = (nb[:, 2] - nb[:, 0]) * (nb[:, 3] - nb[:, 1])
    clipped = np.clip(nb, 0, [ow, oh, ow, oh])
    keep = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1]) / area >= remove_threshold
    out = clipped[keep]
    if not ltrb:
        out[:, 2:] -= out[:, :2]
    if normalized:
        out = out / [ow, oh, ow, oh]
    return out, keep


@pytest.mark.parametrize("mode", ["expand", "halfway", "fixed"])
def test_bbox_rotate_matches_reference(mode):
    rng = np.random.default_rng(8)
    boxes = [random_boxes(rng, n, True) for n in (6, 3, 0)]
    labels = [np.arange(len(b), dtype=np.int32) for b in boxes]
    angles, shapes = [30.0, -100.0, 45.0], [[120, 200], [64, 64], [50, 80]]
    for keep_size in (False, True):
        out, lab = run(lambda: list(fn.bbox_rotate(src(boxes), src(labels), angle=src([np.float32(a) for a in angles]),
                                                   input_shape=src([np.array(s, np.float32) for s in shapes]),
                                                   mode=mode, keep_size=keep_size)), 3)
        for b, l, a, s, o, g in zip(boxes, labels, angles, shapes, out, lab):
            if keep_size:
                out_hw = s
            else:
                c, sn = abs(math.cos(math.radians(a))), abs(math.sin(math.radians(a)))
                out_hw = None  # rotate's canvas: checked through the image below; here take it from the op's rule
                h = math.ceil(c * s[0] + sn * s[1] - 0.01)
                w = math.ceil(c * s[1] + sn * s[0] - 0.01)
                h += (h % 2) ^ (s[0] % 2 if c >= sn else s[1] % 2)
                w += (w % 2) ^ (s[1] % 2 if c >= sn else s[0] % 2)
                out_hw = [h, w]
            want, keep = rotate_reference(b, a, s, out_hw, mode)
            np.testing.assert_allclose(o, want.reshape(-1, 4), atol=2e-5)
            np.testing.assert_array_equal(g, l[keep])


def test_bbox_rotate_box_follows_rotate():
    h, w = 60, 90
    box = np.array([20, 10, 50, 30], np.float32)
    img = painted(h, w, box)
    rel = (box / [w, h, w, h]).astype(np.float32)[None]
    for angle in (90.0, 30.0):
        rot, rbox = run(lambda: [fn.rotate(src([img], layout="HWC"), angle=angle, fill_value=0, interp_type=types.INTERP_NN),
                                 fn.bbox_rotate(src([rel]), angle=angle, input_shape=[h, w])], 1)
        H, W = rot[0].shape[:2]
        np.testing.assert_allclose(lit_box(rot[0]), rbox[0][0] * [W, H, W, H], atol=1.0)


# ---------------------------------------------------------------------------------------------
# multi_paste

def test_multi_paste_matches_numpy_mosaic():
    rng = np.random.default_rng(9)
    imgs = [rng.integers(0, 255, (h, w, 3), dtype=np.uint8) for h, w in ((40, 50), (30, 20), (25, 60))]
    ids = [np.array([1, 2, 0], np.int32), np.array([0], np.int32), np.array([], np.int32)]
    in_a = [np.array([[5, 2], [0, 10], [10, 10]], np.int32), np.array([[0, 0]], np.int32), np.zeros((0, 2), np.int32)]
    shapes = [np.array([[20, 15], [25, 30], [20, 20]], np.int32), np.array([[30, 40]], np.int32), np.zeros((0, 2), np.int32)]
    out_a = [np.array([[0, 0], [10, 5], [30, 40]], np.int32), np.array([[4, 4]], np.int32), np.zeros((0, 2), np.int32)]
    size = [np.array([60, 70], np.int32), np.array([40, 50], np.int32), np.array([8, 9], np.int32)]
    (got,) = run(lambda: [fn.multi_paste(src(imgs, layout="HWC"), in_ids=src(ids), in_anchors=src(in_a), shapes=src(shapes),
                                         out_anchors=src(out_a), output_size=src(size))], 3)
    for i in range(3):
        want = np.zeros((size[i][0], size[i][1], 3), np.uint8)
        for s, a, sh, o in zip(ids[i], in_a[i], shapes[i], out_a[i]):
            want[o[0]:o[0] + sh[0], o[1]:o[1] + sh[1]] = imgs[s][a[0]:a[0] + sh[0], a[1]:a[1] + sh[1]]
        np.testing.assert_array_equal(got[i], want)
    (f,) = run(lambda: [fn.multi_paste(src(imgs[:1], layout="HWC"), in_ids=[0], dtype=types.FLOAT)], 1)
    np.testing.assert_array_equal(f[0], imgs[0].astype(np.float32))


def test_multi_paste_region_outside_is_named():
    imgs = [np.zeros((10, 10, 3), np.uint8)]
    with pytest.raises(Exception, match="region 0"):
        run(lambda: fn.multi_paste(src(imgs, layout="HWC"), in_ids=[0], out_anchors=[5, 5]), 1)
