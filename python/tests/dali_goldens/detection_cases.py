"""The deterministic detection and segmentation operators whose outputs real DALI 2.4 recorded
(dali_goldens/detection.npz, by scripts/record_dali_goldens.py detection); compared by
test_dali_goldens_detection.py. Three groups, one definition run by both sides:

- CASES: functions of (fn, types, x): DALI's or Sluice's modules and the input DataNode, a batch of
  float32 ltrb boxes in [0, 1] (N x 4, N from 1 to 9). Cases needing other data (polygons, images)
  build it from NumPy constants (types.Constant) or from x.
- DECODER_CASES: functions of (fn, types, x), x the encoded ENCODED_FILES (tests/data/images).
- READER_CASES: functions of (fn, root) reading the COCO set write_coco(root) writes (readers.coco).
"""
import json
import os

import numpy as np


def inputs():
    rng = np.random.default_rng(5)
    out = []
    for n in (3, 1, 9, 5):
        lt = rng.uniform(0.0, 0.7, (n, 2))
        wh = rng.uniform(0.05, 0.3, (n, 2))
        out.append(np.concatenate([lt, np.minimum(lt + wh, 1.0)], axis=1).astype(np.float32))
    return out


def anchors():
    """A small SSD-like anchor grid (ltrb): 4x4 cells, two shapes each."""
    a = []
    for cy in (0.125, 0.375, 0.625, 0.875):
        for cx in (0.125, 0.375, 0.625, 0.875):
            for w, h in ((0.25, 0.25), (0.35, 0.18)):
                a += [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    return a


CASES = {
    "bb_flip": lambda fn, types, x: [fn.bb_flip(x, ltrb=True), fn.bb_flip(x, ltrb=True, horizontal=0, vertical=1),
                                     fn.bb_flip(x, horizontal=1, vertical=1)],
    "coord_flip": lambda fn, types, x: [fn.coord_flip(fn.reshape(x, shape=[-1, 2]), flip_x=1, flip_y=1),
                                        fn.coord_flip(fn.reshape(x, shape=[-1, 2]), flip_x=1, center_x=0.3)],
    "coord_transform": lambda fn, types, x: [
        fn.coord_transform(fn.reshape(x, shape=[-1, 2]), M=[0.9, 0.2, -0.1, 1.1], T=[0.05, -0.02]),
        fn.coord_transform(x, M=[2.0, 0, 0, 0, 0, 3.0, 0, 0, 0, 0, 2.0, 0, 0, 0, 0, 3.0])],
    "bbox_paste": lambda fn, types, x: [fn.bbox_paste(x, ratio=2.0, paste_x=0.25, paste_y=0.75, ltrb=True),
                                        fn.bbox_paste(x, ratio=1.5, paste_x=0.0, paste_y=1.0)],
    "box_encoder": lambda fn, types, x: list(fn.box_encoder(
        x, fn.cast(fn.reductions.sum(x, axes=[1]) * 10, dtype=types.INT32), anchors=anchors(), criteria=0.3)) +
        list(fn.box_encoder(x, fn.cast(fn.reductions.sum(x, axes=[1]) * 10, dtype=types.INT32), anchors=anchors(),
                            criteria=0.4, offset=True, scale=2.0, stds=[0.1, 0.1, 0.2, 0.2], means=[0.0, 0.0, 0.0, 0.0])),
}


def _polygons():
    """select_masks' inputs: masks 0, 2, 5 and 7 (gaps), mask 2 with three polygons (only its last
    counts in DALI), mask 7 never selected (its vertex range is not even valid), vertices shared by
    two polygons (3..6) and unused (12..13)."""
    polys = np.array([[0, 0, 3], [2, 3, 7], [5, 4, 8], [2, 8, 11], [0, 9, 12], [2, 1, 5], [7, 10, 99]], np.int32)
    verts = np.arange(28, dtype=np.float32).reshape(14, 2) * 0.5
    return polys, verts


def _select(fn, types, ids, reindex, int_vertices=False):
    polys, verts = _polygons()
    v = verts.astype(np.int16) if int_vertices else verts
    return list(fn.segmentation.select_masks(types.Constant(np.array(ids, np.int32)), types.Constant(polys),
                                             types.Constant(v), reindex_masks=reindex))


# xywh boxes (relative) on which "fixed"/"halfway" at 45 degrees drop or keep a box depending on the
# last bits of the rotated width and height (found by comparing 1,536 random configurations with DALI).
BOXES_45 = np.array([[0.86726826, 0.4678529, 0.22764573, 0.0044746767], [0.5738487, 0.68668026, 0.25959137, 0.06318431],
                     [-0.007741577, -0.03802276, 0.0025528397, 0.3981137], [-0.06656239, 0.01751901, 0.4553265, 0.036160048],
                     [0.18103257, -0.04677453, 0.32949907, 0.026643448], [0.55609095, 0.5295181, 0.2910944, 0.3119558],
                     [0.42771327, 0.5281552, 0.3058587, 0.2708028], [0.74778175, 0.30301017, 0.4581278, 0.45364767],
                     [0.6347009, 0.04394819, 0.17695165, 0.2882463], [0.26668835, -0.018556343, 0.1889731, 0.45536354]],
                    np.float32)


def _images(fn, types, x):
    """A uint8 HWC image per sample (12 x 16 x 3), different in every sample (scaled by its first box's
    left; one float product, so both sides get the same pixels)."""
    base = (np.arange(12 * 16 * 3, dtype=np.float32).reshape(12, 16, 3) % 97) + 1
    return fn.cast(types.Constant(base, layout="HWC") * (x[0, 0] + 1.0), dtype=types.UINT8)


def _angle(x, k, scale, offset):
    """A different angle per sample from one coordinate of its first box (exact float ops on both
    sides, unlike a reduction whose summation order differs)."""
    return x[0, k] * scale - offset


CASES.update({
    # coord_transform: DALI's four input types; the output float32 or the input's own type (rounded,
    # ties away from zero, saturated).
    "coord_transform_int16": lambda fn, types, x: [
        fn.coord_transform(fn.cast(fn.reshape(x, shape=[-1, 2]) * 70000 - 35000, dtype=types.INT16),
                           M=[0.5, -0.25, 0.75, 1.5], T=[0.5, -100.5], dtype=types.INT16),
        fn.coord_transform(fn.cast(fn.reshape(x, shape=[-1, 2]) * 700 - 350, dtype=types.INT16),
                           M=[0.5, -0.25, 0.75, 1.5], T=[0.5, -100.5], dtype=types.FLOAT)],
    "coord_transform_uint8_int32": lambda fn, types, x: [
        fn.coord_transform(fn.cast(x * 255, dtype=types.UINT8), M=[1.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0, 0, 0, 0.5, 1],
                           T=[-20.5, 0.5, 0, 3], dtype=types.UINT8),
        fn.coord_transform(fn.cast(x * 4e9 - 2e9, dtype=types.INT32), MT=[1.5, 0.5, 0.5, 0, 0, 0, 0, 1, 0, 0.5,
                                                                          -1, 0.25, 0.25, 0.25, 3.5],
                           dtype=types.INT32)],
    # select_masks: DALI keeps one polygon per selected mask (the last with its id).
    "select_masks_keep_ids": lambda fn, types, x: _select(fn, types, [2, 0], False),
    "select_masks_reindex": lambda fn, types, x: _select(fn, types, [5, 2, 0], True),
    "select_masks_int_vertices": lambda fn, types, x: _select(fn, types, [0, 5], True, int_vertices=True),
    # multi_paste with NumPy arrays for the region arguments (DALI takes them as [K, 2] tensors).
    "multi_paste_numpy": lambda fn, types, x: [fn.multi_paste(
        _images(fn, types, x), in_ids=np.array([1, 0, 2]), in_anchors=np.array([[0, 1], [2, 3], [5, 0]], np.int32),
        shapes=np.array([[3, 4], [4, 5], [6, 7]], np.int64), out_anchors=np.array([[1, 1], [3, 4], [6, 8]]))],
    "multi_paste_numpy_rel": lambda fn, types, x: [fn.multi_paste(
        _images(fn, types, x), in_ids=np.array([3, 1], np.int32),
        in_anchors_rel=np.array([[0, 0.1], [0.25, 0.3]], np.float32), shapes_rel=np.array([[0.5, 0.4], [0.5, 0.5]]),
        out_anchors_rel=np.array([[0.1, 0.1], [0.3, 0.4]], np.float64), output_size=np.array([14, 18]))],
    # bbox_rotate with keep_size: per-sample angles, boxes near the borders, both layouts, relative and
    # in pixels (boxes partly outside the canvas are clipped or dropped).
    "bbox_rotate_keep_size": lambda fn, types, x: [
        fn.bbox_rotate(x, angle=_angle(x, 0, 397.0, 180.0), input_shape=[90, 120], keep_size=True),
        fn.bbox_rotate(x * 0.25, angle=_angle(x, 1, 251.0, 90.0), input_shape=[90, 120], keep_size=True),
        fn.bbox_rotate(x * 0.25 + 0.75, angle=_angle(x, 2, 173.0, 33.0), input_shape=[64, 48], keep_size=True,
                       mode="halfway")],
    "bbox_rotate_keep_size_xywh": lambda fn, types, x: [
        fn.bbox_rotate(x * 0.5, angle=_angle(x, 3, 311.0, 150.0), input_shape=[90, 120], keep_size=True,
                       bbox_layout="xyWH"),
        fn.bbox_rotate(x * 0.5, angle=_angle(x, 0, 97.0, -20.0), input_shape=[90, 120], keep_size=True,
                       bbox_layout="xyWH", mode="fixed", remove_threshold=0.3)],
    # Right angles and 45 degrees: "fixed" and "halfway" decide whether the box's sides swapped by
    # comparing widths and heights that are equal up to rounding, so only DALI's float order agrees.
    "bbox_rotate_keep_size_right_angles": lambda fn, types, x: [
        fn.bbox_rotate(x, angle=45.0, input_shape=[90, 120], keep_size=True, mode="fixed"),
        fn.bbox_rotate(x * 0.5 + 0.25, angle=90.0, input_shape=[64, 64], keep_size=True, mode="halfway"),
        fn.bbox_rotate(x, angle=-90.0, input_shape=[61, 77], keep_size=True, mode="fixed", bbox_layout="xyWH",
                       remove_threshold=0.5),
        fn.bbox_rotate(x * 200, angle=45.0, input_shape=[150, 200], keep_size=True, mode="fixed",
                       bbox_normalized=False)],
    "bbox_rotate_keep_size_45": lambda fn, types, x: [
        fn.bbox_rotate(types.Constant(BOXES_45), angle=45.0, input_shape=[187, 297], keep_size=True, mode="fixed",
                       bbox_layout="xyWH", remove_threshold=0.3),
        fn.bbox_rotate(types.Constant(BOXES_45), angle=45.0, input_shape=[288, 82], keep_size=True, mode="halfway",
                       bbox_layout="xyWH", remove_threshold=0.3),
        fn.bbox_rotate(types.Constant(BOXES_45), angle=45.0, input_shape=[288, 82], keep_size=True, mode="fixed",
                       bbox_layout="xyWH", remove_threshold=0.3)],
    "bbox_rotate_keep_size_pixels": lambda fn, types, x: [
        fn.bbox_rotate(x * 120, angle=_angle(x, 1, 397.0, 180.0), input_shape=[90, 120], keep_size=True,
                       bbox_normalized=False),
        fn.bbox_rotate(x * 60, angle=_angle(x, 2, 353.0, 170.0), input_shape=[61, 77], keep_size=True,
                       bbox_normalized=False, bbox_layout="xyWH", mode="halfway")],
})

# decoders.image_slice: slice's window arguments (DALI's SliceAttr), on lossless and JPEG files.
ENCODED_FILES = ["s420.jpg", "s444.jpg", "rgb.png", "palette.png"]

DECODER_CASES = {
    "image_slice_start_shape": lambda fn, types, x: [fn.decoders.image_slice(x, start=[3, 2], shape=[20, 15])],
    "image_slice_rel": lambda fn, types, x: [
        fn.decoders.image_slice(x, rel_start=[0.1, 0.2], rel_shape=[0.55, 0.6]),
        fn.decoders.image_slice(x, rel_start=[0.25, 0.1], rel_end=[0.75, 0.93])],
    "image_slice_end": lambda fn, types, x: [fn.decoders.image_slice(x, start=[2.4, 1.6], end=[30.5, 25.5])],
    "image_slice_axes": lambda fn, types, x: [
        fn.decoders.image_slice(x, rel_start=[0.3], rel_shape=[0.4], axes=[0]),
        fn.decoders.image_slice(x, start=[1, 4], shape=[10, 12], axis_names="HW"),
        fn.decoders.image_slice(x, rel_start=[0.35], rel_end=[0.8], axis_names="W")],
    "image_slice_inputs": lambda fn, types, x: [
        fn.decoders.image_slice(x, types.Constant(np.array([4, 3], np.float32)),
                                types.Constant(np.array([12, 9], np.float32)), normalized_anchor=False,
                                normalized_shape=False),
        fn.decoders.image_slice(x, types.Constant(np.array([0.2, 0.3], np.float32)),
                                types.Constant(np.array([0.5, 0.25], np.float32)))],
    "image_slice_out_of_bounds": lambda fn, types, x: [
        fn.decoders.image_slice(x, rel_start=[0.5, 0.6], rel_shape=[0.8, 0.8])],
}


def write_coco(root):
    """A COCO set with overlapping objects (polygons with 1 to 3 decimals, several per object, RLE
    crowd regions, objects of the same category) on images of 20 to 60 pixels, plus the edge cases of
    DALI's mask merge: overlaps reaching the last pixel, a label with a polygon and an RLE, two RLEs of
    one label. The image files are placeholders (the reader returns their bytes). Returns the
    annotation file's path."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(11)
    images, anns = [], []

    def rle(mask):
        flat = mask.T.reshape(-1)
        change = np.flatnonzero(np.diff(np.concatenate([[0], flat.astype(np.int8), [2]])) != 0)
        return {"size": list(mask.shape), "counts": np.diff(np.concatenate([[0], change])).tolist()}

    def add(image, category, seg, crowd=0):
        anns.append({"id": len(anns) + 1, "image_id": image, "category_id": category, "iscrowd": crowd,
                     "bbox": [1.0, 1.0, 4.0, 4.0], "area": 16.0, "segmentation": seg})

    for i in range(10):
        w, h = int(rng.integers(20, 60)), int(rng.integers(20, 60))
        images.append({"id": 50 + i, "file_name": f"{i:02d}.jpg", "width": w, "height": h})
        for _ in range(int(rng.integers(2, 6))):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if rng.uniform() < 0.2:
                m = np.zeros((h, w), bool)
                x0, y0 = int(rng.integers(0, w - 5)), int(rng.integers(0, h - 5))
                m[y0:y0 + int(rng.integers(3, 15)), x0:x0 + int(rng.integers(3, 15))] = True
                add(50 + i, int(rng.integers(1, 5)), rle(m), 1)
                continue
            seg = []
            for k in range(int(rng.integers(1, 3))):
                ang = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 8))))
                r = rng.uniform(3, max(w, h) / 2, ang.size)
                pts = np.stack([cx + r * np.cos(ang), cy + r * np.sin(ang)], 1) + k * rng.uniform(-5, 5, 2)
                seg.append(np.round(pts.reshape(-1), int(rng.integers(1, 4))).tolist())
            add(50 + i, int(rng.integers(1, 5)), seg)
    h, w = 6, 5

    def box(x0, y0, x1, y1):
        return [[x0, y0, x1, y0, x1, y1, x0, y1]]

    def rect(x0, y0, x1, y1):
        m = np.zeros((h, w), bool)
        m[y0:y1, x0:x1] = True
        return rle(m)

    edge = [[(1, box(0, 0, 5, 6)), (2, box(0, 0, 5, 6))],
            [(2, box(0, 0, 5, 6)), (1, box(2, 2, 5, 6))],
            [(1, box(0, 0, 2, 2)), (1, rect(3, 3, 5, 6))],
            [(1, rect(0, 0, 2, 2)), (1, rect(3, 3, 5, 6))],
            [(2, rect(0, 0, 5, 6)), (3, rect(2, 0, 5, 6)), (1, box(0, 0, 3, 3))],
            [(3, box(0, 3, 5, 6)), (2, box(0, 0, 5, 6)), (1, box(4, 4, 5, 6))]]
    for j, objects in enumerate(edge):
        images.append({"id": 10 + j, "file_name": f"edge{j}.jpg", "width": w, "height": h})
        for category, seg in objects:
            add(10 + j, category, seg, int(isinstance(seg, dict)))
    for im in images:
        with open(os.path.join(root, im["file_name"]), "wb") as f:
            f.write(im["file_name"].encode())
    path = os.path.join(root, "annotations.json")
    with open(path, "w") as f:
        json.dump({"images": images, "annotations": anns, "categories": [{"id": c} for c in (1, 2, 3, 4)]}, f)
    return path


COCO_IMAGES = 16  # write_coco's images: one batch

READER_CASES = {
    "coco_pixelwise_masks": lambda fn, root: list(fn.readers.coco(
        file_root=root, annotations_file=os.path.join(root, "annotations.json"), pixelwise_masks=True,
        image_ids=True)),
    "coco_pixelwise_masks_ratio": lambda fn, root: list(fn.readers.coco(
        file_root=root, annotations_file=os.path.join(root, "annotations.json"), pixelwise_masks=True, ratio=True,
        ltrb=True))[1:],
}
