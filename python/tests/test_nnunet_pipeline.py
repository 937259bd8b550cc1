"""A volume pipeline in the shape of nnU-Net's DALI loader (NVIDIA DeepLearningExamples,
PyTorch/Segmentation/nnUNet/data_loading/dali_loader.py: load_data, biased_crop_fn, flips_fn),
written as DALI code and run with only the imports changed:

    readers.numpy -> reshape(CDHW) -> segmentation.random_object_bbox -> roi_random_crop -> slice
    (the anchor's channel dropped) -> slice(axis_names="DHW", out_of_bounds_policy="pad") of image
    and label -> flip(horizontal, vertical, depthwise from coin flips) -> normalize

on small CDHW volumes and labels written with NumPy. Checked: the shapes and layouts; the image and
the label are cut and flipped alike (against NumPy slicing/padding/flipping from the pipeline's own
anchor and flags); the biased crop holds foreground; the results are the same for num_threads 1
and 3.
"""
import numpy as np
import pytest

# ---- The only lines that differ from DALI's code: the imports. ----
import sluice as dali                     # import nvidia.dali as dali
import sluice.fn as fn                    # import nvidia.dali.fn as fn
import sluice.types as types              # import nvidia.dali.types as types
from sluice.pipeline import pipeline_def  # from nvidia.dali.pipeline import pipeline_def

PATCH = [8, 12, 12]  # D, H, W


# ---- DALI code (nnU-Net's loader, reduced to the chain under test). nnU-Net keeps its seed for the
# operators as `internal_seed`: a parameter named `seed` would shadow the Pipeline's own (in DALI's
# pipeline_def too), leaving the coin flips and roi_random_crop unseeded. ----
@pipeline_def
def nnunet_train_pipeline(imgs, lbls, patch_size, oversampling, internal_seed):
    crop_shape = types.Constant(np.array(patch_size), dtype=types.INT64)
    img = fn.readers.numpy(name="ReaderX", files=imgs, shard_id=0, num_shards=1, seed=internal_seed, random_shuffle=False)
    lbl = fn.readers.numpy(name="ReaderY", files=lbls, shard_id=0, num_shards=1, seed=internal_seed, random_shuffle=False)
    img, lbl = fn.reshape(img, layout="CDHW"), fn.reshape(lbl, layout="CDHW")
    # biased_crop_fn
    roi_start, roi_end = fn.segmentation.random_object_bbox(
        lbl, format="start_end", foreground_prob=oversampling, background=0, seed=internal_seed, device="cpu",
        cache_objects=True)
    anchor = fn.roi_random_crop(lbl, roi_start=roi_start, roi_end=roi_end, crop_shape=[1, *patch_size])
    anchor = fn.slice(anchor, 1, 3, axes=[0])  # drop the channel from the anchor
    img = fn.slice(img, anchor, crop_shape, axis_names="DHW", out_of_bounds_policy="pad", device="cpu")
    lbl = fn.slice(lbl, anchor, crop_shape, axis_names="DHW", out_of_bounds_policy="pad", device="cpu")
    # flips_fn
    kwargs = {
        "horizontal": fn.random.coin_flip(probability=0.5),
        "vertical": fn.random.coin_flip(probability=0.5),
        "depthwise": fn.random.coin_flip(probability=0.5),
    }
    img, lbl = fn.flip(img, **kwargs), fn.flip(lbl, **kwargs)
    img = fn.normalize(img, axis_names="DHW", dtype=types.FLOAT)
    return img, lbl, anchor, kwargs["horizontal"], kwargs["vertical"], kwargs["depthwise"]


# ---- The data, written with NumPy, and the NumPy reference. ----
def write_volumes(tmp_path, n=6):
    rng = np.random.default_rng(7)
    imgs, lbls, arrays = [], [], []
    for k in range(n):
        d, h, w = 10 + k, 14 + (k % 3), 13 + 2 * k  # at least the patch, as nnU-Net pads them
        img = rng.normal(size=(1, d, h, w)).astype(np.float32)
        lbl = np.zeros((1, d, h, w), np.uint8)
        z, y, x = rng.integers(0, d - 3), rng.integers(0, h - 3), rng.integers(0, w - 3)
        lbl[0, z:z + 3, y:y + 2, x:x + 3] = 1 + k % 2  # one object, class 1 or 2
        img += lbl * 3.0                                # the object is visible in the image
        for name, a, lst in (("img", img, imgs), ("lbl", lbl, lbls)):
            p = tmp_path / f"case{k}_{name}.npy"
            np.save(p, a)
            lst.append(str(p))
        arrays.append((img, lbl))
    return imgs, lbls, arrays


def cut(vol, anchor, shape):
    """vol[:, a:a+s] over D, H, W with zeros outside (slice's out_of_bounds_policy="pad")."""
    out = np.zeros((vol.shape[0], *shape), vol.dtype)
    src, dst = [slice(None)], [slice(None)]
    for a, s, n in zip(anchor, shape, vol.shape[1:]):
        lo, hi = max(a, 0), min(a + s, n)
        src.append(slice(lo, hi))
        dst.append(slice(lo - a, hi - a))
    out[tuple(dst)] = vol[tuple(src)]
    return out


def run(imgs, lbls, threads, batches=2, batch_size=3):
    pipe = nnunet_train_pipeline(imgs=imgs, lbls=lbls, patch_size=PATCH, oversampling=1.0, internal_seed=42,
                                 seed=7, batch_size=batch_size, num_threads=threads, device_id=None)
    pipe.build()
    out = []
    for _ in range(batches):
        res = pipe.run()
        out.append([[np.array(t.at(i)) for i in range(batch_size)] for t in res])
        if not out[-1][0]:
            break
    layouts = [t.layout() for t in res[:2]]
    return out, layouts


def test_nnunet_shaped_volume_pipeline(tmp_path):
    imgs, lbls, arrays = write_volumes(tmp_path)
    out, layouts = run(imgs, lbls, threads=2)
    assert layouts == ["CDHW", "CDHW"]
    k = 0
    flips_seen = set()
    for img_b, lbl_b, anchor_b, h_b, v_b, d_b in out:
        for img, lbl, anchor, h, v, d in zip(img_b, lbl_b, anchor_b, h_b, v_b, d_b):
            src_img, src_lbl = arrays[k]
            k += 1
            assert img.shape == (1, *PATCH) and img.dtype == np.float32
            assert lbl.shape == (1, *PATCH) and lbl.dtype == np.uint8
            assert anchor.shape == (3,)
            # The label follows the image: both are the same window, flipped alike.
            ref_img, ref_lbl = cut(src_img, anchor, PATCH), cut(src_lbl, anchor, PATCH)
            for axis, on in ((3, h), (2, v), (1, d)):
                if on:
                    ref_img, ref_lbl = np.flip(ref_img, axis), np.flip(ref_lbl, axis)
            flips_seen.add((int(h), int(v), int(d)))
            np.testing.assert_array_equal(lbl, ref_lbl)
            r = ref_img.astype(np.float64)
            np.testing.assert_allclose(img, (r - r.mean()) / r.std(), rtol=1e-4, atol=1e-4)
            # foreground_prob=1: the window holds the object (smaller than the patch), all of it.
            assert (lbl > 0).sum() == (src_lbl > 0).sum()
    assert k == len(arrays)
    assert len(flips_seen) > 1


def test_nnunet_pipeline_is_the_same_for_any_thread_count(tmp_path):
    imgs, lbls, _ = write_volumes(tmp_path)
    one, _ = run(imgs, lbls, threads=1)
    three, _ = run(imgs, lbls, threads=3)
    for a, b in zip(one, three):
        for xs, ys in zip(a, b):
            for x, y in zip(xs, ys):
                np.testing.assert_array_equal(x, y)
