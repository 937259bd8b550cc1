"""DALI's SSD PyTorch example pipeline (docs/examples/use_cases/pytorch/single_stage_detector,
src/coco_pipeline.py) with only the imports changed (and device="cpu" where the example says "mixed"
and no .gpu(): this test runs without a GPU): readers.coco -> random_bbox_crop -> decoders.image_slice
-> resize 300 -> bb_flip + crop_mirror_normalize mirrored by one coin_flip -> box_encoder ->
DALIGenericIterator. Checks the shapes and types the training loop expects, that the encoded labels
and boxes are box_encoder's of the cropped (and flipped) boxes, that num_threads does not change the
batches, and that examples/detection_train.py trains SSDlite a few steps with a falling loss.
"""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# --- the example's imports, changed ---------------------------------------------------------
from sluice.pipeline import pipeline_def  # was: from nvidia.dali.pipeline import pipeline_def
import sluice.fn as fn  # was: import nvidia.dali.fn as fn
import sluice.types as types  # was: import nvidia.dali.types as types
from sluice.plugin.pytorch import DALIGenericIterator  # was: from nvidia.dali.plugin.pytorch import ...
# ----------------------------------------------------------------------------------------------

from test_detection_ops import encode_reference, ssd300_default_boxes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import make_coco_data  # noqa: E402

if not make_coco_data.available_photos():
    pytest.skip("the sample photographs are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def coco_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ssd")
    make_coco_data.generate(str(out), 20, seed=5, size=(240, 180))
    return str(out)


class Args:
    def __init__(self, data, threads):
        self.data, self.batch_size, self.num_workers, self.local_rank, self.fp16 = data, 4, threads, 0, False


def create_coco_pipeline(default_boxes, args, seed, extra_outputs=False):
    """As DALI's example (its comments kept short); `extra_outputs` is this test's addition."""
    @pipeline_def(batch_size=args.batch_size, num_threads=args.num_workers, device_id=None, seed=seed)
    def coco_pipeline():
        try:
            shard_id = torch.distributed.get_rank()
            num_shards = torch.distributed.get_world_size()
        except (RuntimeError, ValueError):
            shard_id = 0
            num_shards = 1
        file_root = args.data
        annotations_file = os.path.join(args.data, "annotations.json")
        images, bboxes, labels = fn.readers.coco(file_root=file_root, annotations_file=annotations_file,
                                                 skip_empty=True, shard_id=shard_id, num_shards=num_shards,
                                                 ratio=True, ltrb=True, random_shuffle=False,
                                                 shuffle_after_epoch=True, name="Reader")
        crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(bboxes, labels, device="cpu",
                                                                    aspect_ratio=[0.5, 2.0],
                                                                    thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                                                    scaling=[0.3, 1.0], bbox_layout="xyXY",
                                                                    allow_no_crop=True, num_attempts=50)
        images = fn.decoders.image_slice(images, crop_begin, crop_size, device="cpu", output_type=types.RGB)
        flip_coin = fn.random.coin_flip(probability=0.5)
        images = fn.resize(images, resize_x=300, resize_y=300, min_filter=types.DALIInterpType.INTERP_TRIANGULAR)
        dtype = types.FLOAT16 if args.fp16 else types.FLOAT
        flipped = fn.bb_flip(bboxes, ltrb=True, horizontal=flip_coin)
        images = fn.crop_mirror_normalize(images, crop=(300, 300),
                                          mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                          std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                          mirror=flip_coin, dtype=dtype, output_layout="CHW", pad_output=False)
        enc_bboxes, enc_labels = fn.box_encoder(flipped, labels, criteria=0.5, anchors=default_boxes)
        if extra_outputs:
            return images, enc_bboxes, enc_labels, flipped, labels
        return images, enc_bboxes, enc_labels
    return coco_pipeline()


@pytest.fixture(scope="module")
def anchors():
    return ssd300_default_boxes().astype(np.float32)


def test_dali_ssd_example_pipeline_runs_through_the_iterator(coco_dir, anchors):
    pipe = create_coco_pipeline(anchors.ravel().tolist(), Args(coco_dir, 2), seed=3)
    pipe.build()
    loader = DALIGenericIterator(pipe, ["images", "bboxes", "labels"], reader_name="Reader")
    seen = 0
    for batch in loader:
        d = batch[0]
        assert d["images"].shape[1:] == (3, 300, 300) and d["images"].dtype == torch.float32
        assert d["bboxes"].shape[1:] == (8732, 4) and d["bboxes"].dtype == torch.float32
        assert d["labels"].shape[1:] == (8732,) and d["labels"].dtype == torch.int32
        assert (d["labels"] > 0).sum(dim=1).min() >= 1  # every image kept an object (skip_empty)
        assert abs(d["images"].mean().item()) < 1.5
        seen += d["images"].shape[0]
    assert seen == pipe.epoch_size("Reader")


def test_encoded_outputs_are_box_encoders_of_the_cropped_boxes(coco_dir, anchors):
    pipe = create_coco_pipeline(anchors.ravel().tolist(), Args(coco_dir, 2), seed=4, extra_outputs=True)
    pipe.build()
    _, enc_boxes, enc_labels, flipped, labels = pipe.run()
    for i in range(len(labels)):
        b, l = np.array(flipped.at(i)), np.array(labels.at(i))
        assert np.all(b >= -1e-6) and np.all(b <= 1 + 1e-6) and np.all(b[:, 2:] >= b[:, :2])
        want_boxes, want_labels = encode_reference(b, l, anchors.astype(np.float64), 0.5, False, 0, 1)
        np.testing.assert_array_equal(np.array(enc_labels.at(i)), want_labels)
        np.testing.assert_allclose(np.array(enc_boxes.at(i)), want_boxes, rtol=1e-4, atol=1e-5)


def test_same_batches_for_one_and_two_threads(coco_dir, anchors):
    outs = []
    for threads in (1, 2):
        pipe = create_coco_pipeline(anchors.ravel().tolist(), Args(coco_dir, threads), seed=8)
        pipe.build()
        outs.append([[np.array(t.at(i)) for t in pipe.run() for i in range(4)] for _ in range(3)])
    for a, b in zip(*outs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_detection_example_trains_and_the_loss_falls(coco_dir):
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "detection_train.py"), coco_dir, "--steps", "8",
                        "--batch-size", "4", "--threads", "2"], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "step 8/8: loss" in r.stdout
    assert "(fell)" in r.stdout, r.stdout
