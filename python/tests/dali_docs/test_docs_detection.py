"""DALI's detection examples: docs/examples/general/data_loading/coco_reader (pipeline mode), the first
pipeline of docs/examples/use_cases/detection_pipeline.ipynb, and the SSD training pipeline
docs/examples/use_cases/pytorch/single_stage_detector/src/coco_pipeline.py, with `nvidia.dali`
changed to `sluice` in the imports. DALI_extra's db/coco is the conftest's small COCO dataset;
decoders run with device="cpu" where the examples use "mixed"."""
import itertools

import numpy as np
import pytest

import sluice.fn as fn
import sluice.types as types
from sluice.pipeline import Pipeline, pipeline_def


def annotations_by_file(coco):
    images = {im["id"]: im for im in coco["images"]}
    out = {}
    for ann in coco["annotations"]:
        im = images[ann["image_id"]]
        out.setdefault(im["file_name"], (im, []))[1].append(ann)
    return [out[name] for name in sorted(out)]


# --- docs/examples/general/data_loading/coco_reader (pipeline mode) -----------------------------

def test_coco_reader_notebook(coco_dir):
    file_root = coco_dir["file_root"]
    annotations_file = coco_dir["annotations_file"]
    batch_size = 16

    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        jpegs, bboxes, labels, polygons, vertices = fn.readers.coco(
            file_root=file_root,
            annotations_file=annotations_file,
            polygon_masks=True,
            ratio=True,
        )
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)  # "mixed" in the notebook
        pipe.set_outputs(images, bboxes, labels, polygons, vertices)
    pipe.build()
    pipe_out = pipe.run()
    images_cpu = pipe_out[0].as_cpu()
    bboxes_cpu = pipe_out[1]
    labels_cpu = pipe_out[2]
    polygons_cpu = pipe_out[3]
    vertices_cpu = pipe_out[4]

    expected = annotations_by_file(coco_dir)
    for i in range(batch_size):
        im, anns = expected[i % len(expected)]
        w, h = im["width"], im["height"]
        assert images_cpu.at(i).shape == (h, w, 3)
        bboxes = bboxes_cpu.at(i)
        labels = labels_cpu.at(i)
        # the notebook prints "Bounding box (x=..., y=..., width=..., height=...), label=..."
        for bbox, label, ann in zip(bboxes, labels, anns):
            x, y, width, height = bbox
            bx, by, bw, bh = ann["bbox"]
            np.testing.assert_allclose([x, y, width, height], [bx / w, by / h, bw / w, bh / h], rtol=1e-6)
            assert int(np.array(label).ravel()[0]) == ann["category_id"]
        polygons = polygons_cpu.at(i)
        vertices = vertices_cpu.at(i)
        assert polygons.shape == (len(anns), 3) and vertices.shape == (4 * len(anns), 2)
        for polygon, ann in zip(polygons, anns):
            mask_idx, start_vertex, end_vertex = polygon
            nvertices = end_vertex - start_vertex
            assert nvertices == 4
            seg = np.array(ann["segmentation"][0], np.float32).reshape(-1, 2) / [w, h]
            np.testing.assert_allclose(vertices[start_vertex:end_vertex], seg, rtol=1e-6)


# --- docs/examples/use_cases/detection_pipeline.ipynb, "a simple pipeline that just loads the data"

def test_detection_pipeline_loading(coco_dir):
    file_root = coco_dir["file_root"]
    annotations_file = coco_dir["annotations_file"]
    num_gpus = 1  # Single GPU for this example
    device_id = 0
    batch_size = 32
    num_threads = 4

    pipe = Pipeline(batch_size=batch_size, num_threads=num_threads, device_id=device_id)
    with pipe:
        inputs, bboxes, labels, polygons, vertices = fn.readers.coco(
            file_root=file_root,
            annotations_file=annotations_file,
            polygon_masks=True,  # Load segmentation mask data as polygons
            ltrb=True,  # Bounding boxes to be expressed as left, top, right, bottom coordinates
        )
        images = fn.decoders.image(inputs, device='cpu')  # 'mixed' in the notebook
        pipe.set_outputs(images, bboxes, labels, polygons, vertices)
    pipe.build()
    images, bboxes, labels, polygons, vertices = pipe.run()
    expected = annotations_by_file(coco_dir)
    for i in range(batch_size):
        im, anns = expected[i % len(expected)]
        for box, ann in zip(bboxes.at(i), anns):
            x, y, w, h = ann["bbox"]
            np.testing.assert_allclose(box, [x, y, x + w, y + h])
        np.testing.assert_allclose(vertices.at(i)[:4], np.array(anns[0]["segmentation"][0]).reshape(-1, 2))


# --- docs/examples/use_cases/pytorch/single_stage_detector/src/coco_pipeline.py ------------------

class DefaultBoxes:
    """The example's default boxes (src/utils.py: dboxes300_coco(), SSD300's 8732 anchors), built
    here with NumPy. as_ltrb_list() returns, as the example's does, a flat list of float32 scalars."""

    def __init__(self, fig_size=300, feat_size=(38, 19, 10, 5, 3, 1), steps=(8, 16, 32, 64, 100, 300),
                 scales=(21, 45, 99, 153, 207, 261, 315), aspect_ratios=((2,), (2, 3), (2, 3), (2, 3), (2,), (2,))):
        boxes = []
        for idx, sfeat in enumerate(feat_size):
            fk = fig_size / steps[idx]
            sk1, sk2 = scales[idx] / fig_size, scales[idx + 1] / fig_size
            sizes = [(sk1, sk1), (np.sqrt(sk1 * sk2),) * 2]
            for alpha in aspect_ratios[idx]:
                sizes += [(sk1 * np.sqrt(alpha), sk1 / np.sqrt(alpha)), (sk1 / np.sqrt(alpha), sk1 * np.sqrt(alpha))]
            for w, h in sizes:
                for i, j in itertools.product(range(sfeat), repeat=2):
                    boxes.append(((j + 0.5) / fk, (i + 0.5) / fk, w, h))
        xywh = np.clip(np.array(boxes, np.float32), 0, 1)
        self.ltrb = np.concatenate([xywh[:, :2] - 0.5 * xywh[:, 2:], xywh[:, :2] + 0.5 * xywh[:, 2:]], axis=1)

    def as_ltrb_list(self):
        return [x for x in self.ltrb.reshape(-1)]


class Args:
    def __init__(self, coco_dir):
        self.train_coco_root = coco_dir["file_root"]
        self.train_annotate = coco_dir["annotations_file"]
        self.fp16_mode = False


@pipeline_def
def create_coco_pipeline(default_boxes, args):
    try:
        import torch
        shard_id = torch.distributed.get_rank()
        num_shards = torch.distributed.get_world_size()
    except (RuntimeError, ValueError, ImportError):
        shard_id = 0
        num_shards = 1

    images, bboxes, labels = fn.readers.coco(file_root=args.train_coco_root,
                                             annotations_file=args.train_annotate,
                                             skip_empty=True,
                                             shard_id=shard_id,
                                             num_shards=num_shards,
                                             ratio=True,
                                             ltrb=True,
                                             random_shuffle=False,
                                             shuffle_after_epoch=True,
                                             name="Reader")

    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(bboxes, labels,
                                                                device="cpu",
                                                                aspect_ratio=[0.5, 2.0],
                                                                thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                                                scaling=[0.3, 1.0],
                                                                bbox_layout="xyXY",
                                                                allow_no_crop=True,
                                                                num_attempts=50)
    # device="mixed" in the example
    images = fn.decoders.image_slice(images, crop_begin, crop_size, device="cpu", output_type=types.RGB)
    flip_coin = fn.random.coin_flip(probability=0.5)
    images = fn.resize(images,
                       resize_x=300,
                       resize_y=300,
                       min_filter=types.DALIInterpType.INTERP_TRIANGULAR)

    saturation = fn.random.uniform(range=[0.5, 1.5])
    contrast = fn.random.uniform(range=[0.5, 1.5])
    brightness = fn.random.uniform(range=[0.875, 1.125])
    hue = fn.random.uniform(range=[-0.5, 0.5])

    images = fn.hsv(images, dtype=types.FLOAT, hue=hue, saturation=saturation)  # use float to avoid clipping and
    # quantizing the intermediate result
    images = fn.brightness_contrast(images,
                                    contrast_center=128,  # input is in float, but in 0..255 range
                                    dtype=types.UINT8,
                                    brightness=brightness,
                                    contrast=contrast)

    dtype = types.FLOAT16 if args.fp16_mode else types.FLOAT

    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip_coin)
    images = fn.crop_mirror_normalize(images,
                                      crop=(300, 300),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=flip_coin,
                                      dtype=dtype,
                                      output_layout="CHW",
                                      pad_output=False)

    bboxes, labels = fn.box_encoder(bboxes, labels,
                                    criteria=0.5,
                                    anchors=default_boxes.as_ltrb_list())

    # the example moves both to the GPU here: labels = labels.gpu(); bboxes = bboxes.gpu()
    return images, bboxes, labels


def test_ssd_coco_pipeline(coco_dir):
    default_boxes = DefaultBoxes()
    pipe = create_coco_pipeline(default_boxes, Args(coco_dir), batch_size=4, num_threads=2, device_id=0, seed=7)
    pipe.build()
    assert pipe.epoch_size("Reader") == 4
    anchors = np.array(default_boxes.as_ltrb_list(), np.float32).reshape(-1, 4)
    assert len(anchors) == 8732
    positives = 0
    for _ in range(2):
        images, bboxes, labels = pipe.run()
        for i in range(4):
            assert images.at(i).shape == (3, 300, 300) and images.at(i).dtype == np.float32
            boxes, labs = bboxes.at(i), np.array(labels.at(i)).ravel()
            assert boxes.shape == (len(anchors), 4) and labs.shape == (len(anchors),)
            assert set(labs.tolist()) <= {0, 1, 2}
            # the encoded boxes are in center format (x, y, w, h): background anchors keep their own
            # box, matched ones get their ground-truth box
            anchors_xywh = np.concatenate([(anchors[:, :2] + anchors[:, 2:]) / 2, anchors[:, 2:] - anchors[:, :2]], 1)
            np.testing.assert_allclose(boxes[labs == 0], anchors_xywh[labs == 0], atol=1e-6)
            pos = boxes[labs > 0]
            assert (pos[:, 2] > 0).all() and (pos[:, 3] > 0).all()
            assert (pos >= -1e-6).all() and (pos <= 1 + 1e-6).all()
            positives += len(pos)
    assert positives > 0
