"""The deterministic box operators whose outputs real DALI 2.4 recorded (dali_goldens/detection.npz, by
scripts/record_dali_goldens.py detection); compared by test_dali_goldens_detection.py. Each case is a
function of (fn, types, x): DALI's or Sluice's modules and the input DataNode, a batch of float32
ltrb boxes in [0, 1] (N x 4, N from 1 to 9).
"""
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
