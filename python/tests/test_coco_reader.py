"""fn.readers.coco against pycocotools' view of the same annotation file (COCO(), annToMask), on a
COCO-format set that scripts/make_coco_data.py builds from the sample photographs (JPEGs written by
Pillow): boxes, labels after remapping, image ids, polygon vertices and pixelwise masks for every
argument combination; the `images` subset, skip_empty, preprocessed annotations, sharding,
determinism across thread counts, checkpoints, and bad annotation files named in the error.
"""
import copy
import itertools
import json
import os
import sys

import numpy as np
import pytest

import sluice
from sluice import fn

pycoco = pytest.importorskip("pycocotools.coco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import make_coco_data  # noqa: E402

if not make_coco_data.available_photos():
    pytest.skip("the sample photographs are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def coco_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("coco")
    ann = make_coco_data.generate(str(out), 26, seed=3, size=(200, 150))
    return str(out), ann


def run_all(pipe, n):
    """The first n samples of every output, as NumPy arrays (one epoch when n is its size)."""
    outs = None
    got = 0
    while got < n:
        batch = pipe.run()
        if outs is None:
            outs = [[] for _ in batch]
        for k, tl in enumerate(batch):
            outs[k].extend(np.array(tl.at(i)) for i in range(len(tl)))
        got += len(batch[0])
    return [o[:n] for o in outs]


def coco_pipe(root, ann, batch=5, threads=2, seed=7, name="Reader", **kw):
    @sluice.pipeline_def(batch_size=batch, num_threads=threads, seed=seed, enable_checkpointing=True)
    def pipe():
        if ann is not None:
            kw["annotations_file"] = ann
        return fn.readers.coco(file_root=root, name=name, **kw)
    p = pipe()
    p.build()
    return p


def reference(ann, images=None, ltrb=False, ratio=False, size_threshold=0.1, skip_empty=False, include_iscrowd=True,
              avoid_class_remapping=False):
    """pycocotools' view, with DALI's documented rules: per sample (file_name, id, boxes, labels, anns)."""
    coco = pycoco.COCO(ann)
    remap = {c["id"]: k + 1 for k, c in enumerate(coco.dataset["categories"])}
    if images is None:
        ids = sorted(coco.getImgIds())
    else:
        by_name = {im["file_name"]: im["id"] for im in coco.dataset["images"]}
        ids = [by_name[n] for n in images]
    out = []
    for image_id in ids:
        info = coco.loadImgs(image_id)[0]
        anns = [a for a in coco.loadAnns(coco.getAnnIds(imgIds=[image_id], iscrowd=None))
                if (include_iscrowd or not a["iscrowd"]) and a["bbox"][2] >= size_threshold and a["bbox"][3] >= size_threshold]
        if skip_empty and not anns:
            continue
        boxes = np.array([a["bbox"] for a in anns], np.float64).reshape(-1, 4)
        if ltrb:
            boxes[:, 2:] += boxes[:, :2]
        if ratio:
            boxes /= [info["width"], info["height"], info["width"], info["height"]]
        labels = np.array([a["category_id"] if avoid_class_remapping else remap[a["category_id"]] for a in anns], np.int32)
        out.append((info, boxes.astype(np.float32), labels, anns, coco))
    return out


COMBOS = list(itertools.product([False, True], [False, True], [False, True], [False, True]))


@pytest.mark.parametrize("ltrb,ratio,include_iscrowd,avoid_class_remapping", COMBOS)
def test_boxes_labels_ids_polygons_match_pycocotools(coco_set, ltrb, ratio, include_iscrowd, avoid_class_remapping):
    root, ann = coco_set
    kw = dict(ltrb=ltrb, ratio=ratio, include_iscrowd=include_iscrowd, avoid_class_remapping=avoid_class_remapping)
    ref = reference(ann, **kw)
    images, boxes, labels, polygons, vertices, ids = run_all(
        coco_pipe(root, ann, polygon_masks=True, image_ids=True, **kw), len(ref))
    for k, (info, rboxes, rlabels, anns, _) in enumerate(ref):
        with open(os.path.join(root, info["file_name"]), "rb") as f:
            assert images[k].tobytes() == f.read()
        assert ids[k].tolist() == [info["id"]]
        np.testing.assert_allclose(boxes[k], rboxes, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(labels[k], rlabels)
        # Polygons: DALI's [object, first vertex, end vertex] over the sample's vertices.
        want_polys, want_verts = [], []
        for obj, a in enumerate(anns):
            if isinstance(a["segmentation"], list):
                for poly in a["segmentation"]:
                    v = np.array(poly, np.float64).reshape(-1, 2)
                    if ratio:
                        v = v / [info["width"], info["height"]]
                    want_polys.append([obj, len(want_verts), len(want_verts) + len(v)])
                    want_verts.extend(v.tolist())
        np.testing.assert_array_equal(polygons[k], np.array(want_polys, np.int32).reshape(-1, 3))
        np.testing.assert_allclose(vertices[k], np.array(want_verts, np.float32).reshape(-1, 2), rtol=1e-6, atol=1e-6)


def dali_label_mask(anns, labels, h, w):
    """pycocotools' masks combined by DALI's rule: per label the union of its objects' polygons
    (rasterised from float32 vertices, as DALI stores them), else its last RLE mask; labels painted
    in ascending order (the higher wins where they overlap, but for the overlap of the runs reaching
    the last pixel, which DALI's merge leaves to the lower label: coco_label_masks.h)."""
    mask_api = pytest.importorskip("pycocotools.mask")
    out = np.zeros((h, w), np.int32)
    for label in sorted(set(labels.tolist())):
        polys = [np.array(p, np.float32).astype(np.float64).tolist() for a, l in zip(anns, labels)
                 if l == label and isinstance(a["segmentation"], list) for p in a["segmentation"]]
        rles = [a["segmentation"] for a, l in zip(anns, labels) if l == label and isinstance(a["segmentation"], dict)]
        if polys:
            m = mask_api.decode(mask_api.merge(mask_api.frPyObjects(polys, h, w)))
        elif rles:
            m = mask_api.decode(mask_api.frPyObjects(rles[-1], h, w))
        else:
            continue
        out[m.astype(bool)] = label
    return out


def test_pixelwise_masks_match_ann_to_mask(coco_set):
    root, ann = coco_set
    ref = reference(ann)
    images, boxes, labels, masks = run_all(coco_pipe(root, ann, pixelwise_masks=True), len(ref))
    checked = 0
    for k, (info, _, rlabels, anns, coco) in enumerate(ref):
        assert masks[k].shape == (info["height"], info["width"], 1) and masks[k].dtype == np.int32
        got = masks[k][..., 0]
        want = dali_label_mask(anns, rlabels, info["height"], info["width"])
        for label in sorted(set(rlabels.tolist())):
            a, b = got == label, want == label
            if b.sum() == 0:
                continue
            iou = (a & b).sum() / (a | b).sum()
            assert iou >= 0.99, (info["file_name"], label, iou)
            checked += 1
        # COCO's rasterisation rule is implemented, so the masks are the same pixel for pixel (the
        # merge's last-run quirk is exercised by the DALI goldens, test_dali_goldens_detection.py).
        np.testing.assert_array_equal(got, want)
    assert checked > 20


def test_lowest_label_without_mask_is_skipped(tmp_path):
    """A deliberate difference (docs/dali-compatibility.md): DALI outputs an all-zero mask when the
    lowest label has no mask (an object with an empty "segmentation"); Sluice skips that label."""
    (tmp_path / "a.jpg").write_bytes(b"x")
    anns = [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "iscrowd": 0, "segmentation": []},
            {"id": 2, "image_id": 1, "category_id": 2, "bbox": [1, 1, 3, 3], "iscrowd": 0,
             "segmentation": [[1, 1, 4, 1, 4, 4, 1, 4]]}]
    doc = {"images": [{"id": 1, "file_name": "a.jpg", "width": 5, "height": 6}], "annotations": anns,
           "categories": [{"id": 1}, {"id": 2}]}
    (tmp_path / "a.json").write_text(json.dumps(doc))
    (got,) = run_all(coco_pipe(str(tmp_path), str(tmp_path / "a.json"), batch=1, pixelwise_masks=True), 1)[3:4]
    want = np.zeros((6, 5), np.int32)
    want[1:4, 1:4] = 2  # DALI 2.4: all zeros
    np.testing.assert_array_equal(got[0][..., 0], want)


def test_masks_of_single_objects_match_pycocotools_for_awkward_polygons(tmp_path):
    """Polygons with vertices outside the image, on pixel edges, concave and tiny: annToMask of the
    float32 vertices (as DALI stores them) exactly."""
    mask_api = pytest.importorskip("pycocotools.mask")
    from PIL import Image
    Image.new("RGB", (37, 23), (1, 2, 3)).save(tmp_path / "a.png")
    rng = np.random.default_rng(0)
    polys = [[-5, -5, 50, 3, 20, 40], [0, 0, 36, 0, 36, 22, 0, 22], [10.5, 2.5, 20.5, 2.5, 15.5, 12.5],
             [3, 3, 30, 3, 16, 10, 30, 20, 3, 20], [4.2, 4.2, 5.1, 4.3, 4.6, 5.4]]
    polys += [np.round(rng.uniform(-3, 40, 12), 1).tolist() for _ in range(6)]
    anns = [{"id": 1 + k, "image_id": 1, "category_id": 1 + k, "bbox": [0, 0, 1, 1], "iscrowd": 0, "segmentation": [p]}
            for k, p in enumerate(polys)]
    data = {"images": [{"id": 1, "file_name": "a.png", "width": 37, "height": 23}], "annotations": anns,
            "categories": [{"id": 1 + k} for k in range(len(polys))]}
    for k, p in enumerate(polys):  # one object per file: the mask is exactly that object's
        one = copy.deepcopy(data)
        one["annotations"] = [anns[k]]
        path = tmp_path / f"a{k}.json"
        path.write_text(json.dumps(one))
        (got,) = run_all(coco_pipe(str(tmp_path), str(path), batch=1, pixelwise_masks=True), 1)[3:4]
        rle = mask_api.frPyObjects([np.array(p, np.float32).astype(np.float64).tolist()], 23, 37)  # DALI's float vertices
        want = mask_api.decode(mask_api.merge(rle)).astype(bool)
        np.testing.assert_array_equal(got[0][..., 0] > 0, want, err_msg=str(p))


def test_images_subset_order_and_duplicates(coco_set):
    root, ann = coco_set
    with open(ann) as f:
        names = [im["file_name"] for im in json.load(f)["images"]]
    subset = [names[5], names[2], names[5], names[9]]
    ref = reference(ann, images=subset)
    _, boxes, labels, ids = run_all(coco_pipe(root, ann, batch=4, images=subset, image_ids=True), 4)
    assert [i.item() for i in ids] == [r[0]["id"] for r in ref]
    for k in range(4):
        np.testing.assert_allclose(boxes[k], ref[k][1])


def test_skip_empty_and_size_threshold(coco_set):
    root, ann = coco_set
    for kw in (dict(skip_empty=True), dict(size_threshold=30.0, skip_empty=True), dict(size_threshold=0.0)):
        ref = reference(ann, **kw)
        pipe = coco_pipe(root, ann, image_ids=True, **kw)
        assert pipe.epoch_size("Reader") == len(ref)
        _, boxes, labels, ids = run_all(pipe, len(ref))
        assert [i.item() for i in ids] == [r[0]["id"] for r in ref]
        for k, r in enumerate(ref):
            np.testing.assert_allclose(boxes[k], r[1])
            np.testing.assert_array_equal(labels[k], r[2])


def test_preprocessed_annotations_round_trip(coco_set, tmp_path):
    root, ann = coco_set
    kw = dict(ltrb=True, ratio=True, skip_empty=True)
    saved = tmp_path / "pre"
    first = run_all(coco_pipe(root, ann, polygon_masks=True, image_ids=True, save_preprocessed_annotations=True,
                              save_preprocessed_annotations_dir=str(saved), **kw), 20)
    again = run_all(coco_pipe(root, None, polygon_masks=True, image_ids=True, preprocessed_annotations=str(saved)), 20)
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    # A damaged file is an error naming it, never a crash.
    blob = (saved / "coco_dataset.bin").read_bytes()
    for cut in (10, len(blob) // 2, len(blob) - 3):
        (saved / "coco_dataset.bin").write_bytes(blob[:cut])
        with pytest.raises(Exception, match="coco_dataset.bin"):
            coco_pipe(root, None, preprocessed_annotations=str(saved))


def test_shards_cover_the_dataset_once(coco_set):
    root, ann = coco_set
    n = len(reference(ann))
    seen = []
    for shard in range(3):
        p = coco_pipe(root, ann, batch=3, image_ids=True, num_shards=3, shard_id=shard)
        ids = run_all(p, (shard + 1) * n // 3 - shard * n // 3)[3]  # DALI's shard bounds
        seen += [i.item() for i in ids]
    assert sorted(seen) == sorted(r[0]["id"] for r in reference(ann))


def test_same_batches_for_any_thread_count_and_shuffle_is_seeded(coco_set):
    root, ann = coco_set
    kw = dict(random_shuffle=True, initial_fill=8, polygon_masks=True, image_ids=True)
    a = run_all(coco_pipe(root, ann, threads=1, **kw), 15)
    b = run_all(coco_pipe(root, ann, threads=2, **kw), 15)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    ids = [i.item() for i in a[5]]
    assert ids != sorted(ids)


def test_checkpoint_resumes_mid_epoch(coco_set):
    root, ann = coco_set
    kw = dict(random_shuffle=True, initial_fill=4, image_ids=True, polygon_masks=True)
    pipe = coco_pipe(root, ann, batch=4, **kw)
    pipe.run()
    text = pipe.checkpoint()
    expected = [[np.array(t.at(i)) for t in pipe.run() for i in range(4)] for _ in range(4)]

    @sluice.pipeline_def(batch_size=4, num_threads=1, seed=-1, enable_checkpointing=True, checkpoint=text)
    def restored():
        return fn.readers.coco(file_root=root, annotations_file=ann, name="Reader", **kw)
    r = restored()
    r.build()
    for want in expected:
        got = [np.array(t.at(i)) for t in r.run() for i in range(4)]
        for x, y in zip(got, want):
            np.testing.assert_array_equal(x, y)


def test_legacy_names_and_polygon_format(coco_set):
    root, ann = coco_set
    assert fn.coco_reader is fn.readers.coco
    assert sluice.ops.COCOReader is sluice.ops.readers.COCO
    _, _, _, new, _ = run_all(coco_pipe(root, ann, polygon_masks=True), 6)
    _, _, _, old, _ = run_all(coco_pipe(root, ann, masks=True), 6)
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a[:, 0], b[:, 0])
        np.testing.assert_array_equal(2 * a[:, 1:], b[:, 1:])


# ---------------------------------------------------------------------------------------------
# Bad input: a clear error naming the operator, the file and the annotation id.

def base_doc():
    return {"images": [{"id": 1, "file_name": "a.jpg", "width": 10, "height": 10},
                       {"id": 2, "file_name": "b.jpg", "width": 10, "height": 10}],
            "annotations": [{"id": 11, "image_id": 1, "category_id": 5, "bbox": [1, 1, 3, 3], "iscrowd": 0,
                             "segmentation": [[1, 1, 4, 1, 4, 4]]}],
            "categories": [{"id": 5, "name": "x"}]}


def build_error(tmp_path, doc, name="bad.json", **kw):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    from PIL import Image
    for n in ("a.jpg", "b.jpg"):
        Image.new("RGB", (10, 10)).save(tmp_path / n)
    with pytest.raises(Exception) as e:
        p = coco_pipe(str(tmp_path), str(path), batch=2, name=None, **kw)
        p.run()
    return str(e.value)


@pytest.mark.parametrize("mutate,words", [
    (lambda d: d["annotations"][0].update(image_id=9), ["annotation id 11", "image_id 9"]),
    (lambda d: d["annotations"][0].update(category_id=6), ["annotation id 11", "category_id 6"]),
    (lambda d: d["annotations"][0].update(segmentation=[[1, 1, 4, 1]]), ["annotation id 11", "2 points"]),
    (lambda d: d["annotations"][0].update(segmentation=[[1, 1, 4, 1, 3]]), ["annotation id 11", "odd number"]),
    (lambda d: d["annotations"][0].update(bbox=[1, 2, 3]), ["annotation id 11", "3 values"]),
    (lambda d: d["annotations"][0].update(bbox=[1, 2, "x", 4]), ["annotation id 11", "not a number"]),
    (lambda d: d["annotations"][0].update(bbox=[1, 2, -3, 4]), ["annotation id 11", "negative width or height"]),
    (lambda d: d["annotations"][0].pop("id"), ["\"annotations\" entry #0", "no \"id\""]),
    (lambda d: d["images"].append({"id": 1, "file_name": "c.jpg"}), ["image id 1", "twice"]),
    (lambda d: d["categories"].append({"id": 5}), ["category id 5", "twice"]),
    (lambda d: d.pop("images"), ["no \"images\""]),
])
def test_inconsistent_annotations_are_named(tmp_path, mutate, words):
    doc = base_doc()
    mutate(doc)
    msg = build_error(tmp_path, doc, polygon_masks=True)
    for w in ["readers.coco", "bad.json"] + words:
        assert w in msg, (w, msg)


def test_truncated_or_malformed_json_is_an_error(tmp_path):
    text = json.dumps(base_doc())
    for cut in range(1, len(text), 7):
        msg = build_error(tmp_path, text[:cut], polygon_masks=True)
        assert "bad.json" in msg and "readers.coco" in msg, msg
    msg = build_error(tmp_path, text.replace('"bbox": [1, 1, 3, 3]', '"bbox": [1, 1, 3, 3,]'))
    assert "bad.json" in msg and ("annotation id 11" in msg or "\"annotations\" entry #0" in msg), msg


def test_missing_image_file_is_named(tmp_path):
    doc = base_doc()
    doc["images"][1]["file_name"] = "missing.jpg"
    msg = build_error(tmp_path, doc)
    assert "readers.coco" in msg and "missing.jpg" in msg and "image id 2" in msg


def test_unknown_images_entry_and_exclusive_masks(tmp_path):
    msg = build_error(tmp_path, base_doc(), images=["a.jpg", "nope.jpg"])
    assert "images[1] 'nope.jpg'" in msg
    msg = build_error(tmp_path, base_doc(), polygon_masks=True, pixelwise_masks=True)
    assert "pixelwise_masks" in msg


def test_rle_size_must_be_the_images(tmp_path):
    doc = base_doc()
    doc["annotations"][0]["segmentation"] = {"size": [5, 5], "counts": [3, 22]}
    msg = build_error(tmp_path, doc, pixelwise_masks=True)
    assert "annotation id 11" in msg and "5x5" in msg


def test_make_coco_data_is_deterministic(tmp_path):
    a = make_coco_data.generate(str(tmp_path / "a"), 6, seed=11, size=(120, 90))
    b = make_coco_data.generate(str(tmp_path / "b"), 6, seed=11, size=(120, 90))
    assert open(a, "rb").read() == open(b, "rb").read()
    for name in sorted(os.listdir(tmp_path / "a" / "images")):
        assert (tmp_path / "a" / "images" / name).read_bytes() == (tmp_path / "b" / "images" / name).read_bytes()
    c = make_coco_data.generate(str(tmp_path / "c"), 6, seed=12, size=(120, 90))
    assert open(a, "rb").read() != open(c, "rb").read()
