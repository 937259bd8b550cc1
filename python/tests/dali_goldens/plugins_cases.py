"""The Python-function plugins whose outputs real DALI 2.4 recorded (python/tests/dali_goldens/plugins.npz,
by scripts/record_dali_goldens.py plugins); compared by test_dali_goldens_plugins.py. Each case is a
function of (fn, types, plugins, x): DALI's or Sluice's fn and types, an object with the three
plugin functions (`dl_tensor_python_function`, `torch_python_function`, `numba_function`), and the
input DataNode: a batch of lossless RGB images (PIXEL_FILES, decoded; HWC uint8, three shapes).
The functions are the same for both. JAX is not here: DALI 2.4's plugin.jax needs JAX 0.6, the
machine's is 0.4.38.
"""
import numpy as np

PIXEL_FILES = ["rgb.png", "small.png", "orient_expected.png"]
LUMA = (0.299, 0.587, 0.114)


# --- torch -------------------------------------------------------------------------------------

def torch_gray_and_flip(t):
    import torch
    return t.float() @ torch.tensor(LUMA), t.flip(0)


def torch_batch_chw_and_sum(ts):
    return [t.permute(2, 0, 1).contiguous() for t in ts], [t.sum(dim=(0, 1)) for t in ts]


# --- DLPack (through torch's DLPack functions, as DALI's examples do) ---------------------------

def dl_batch_invert(capsules):
    import torch.utils.dlpack as tdl
    return [tdl.to_dlpack(255 - tdl.from_dlpack(c)) for c in capsules]


def dl_sample_mean_and_crop(capsule):
    import torch.utils.dlpack as tdl
    t = tdl.from_dlpack(capsule)
    return tdl.to_dlpack(t.double().mean(dim=(0, 1))), tdl.to_dlpack(t[1:9, 2:7].contiguous())


# --- numba (DALI's documented example: the transpose of H and W, with its setup function) --------

def numba_setup_transpose(outs, ins):
    out0 = outs[0]
    in0 = ins[0]
    perm = [1, 0, 2]
    for sample_idx in range(len(out0)):
        for d in range(len(perm)):
            out0[sample_idx][d] = in0[sample_idx][perm[d]]


def numba_run_transpose(out0, in0):
    for i in range(in0.shape[0]):
        for j in range(in0.shape[1]):
            out0[j, i] = in0[i, j]


def numba_run_invert(out0, in0):
    for i in range(in0.shape[0]):
        for j in range(in0.shape[1]):
            for c in range(in0.shape[2]):
                out0[i, j, c] = 255 - in0[i, j, c]


def numba_setup_histogram(outs, ins):
    for sample_idx in range(len(outs[0])):
        outs[0][sample_idx][0] = 256
        outs[1][sample_idx][0] = ins[0][sample_idx][0]
        outs[1][sample_idx][1] = ins[0][sample_idx][1]


def numba_run_histogram_and_gray(hists, grays, images):
    for hist, gray, image in zip(hists, grays, images):
        hist[:] = 0  # DALI's outputs are uninitialised
        for i in range(image.shape[0]):
            for j in range(image.shape[1]):
                s = 0
                for c in range(image.shape[2]):
                    hist[image[i, j, c]] += 1
                    s += image[i, j, c]
                gray[i, j] = s // 3


CASES = {
    "torch_per_sample": lambda fn, types, plugins, x: plugins.torch_python_function(
        x, function=torch_gray_and_flip, num_outputs=2),
    "torch_batch": lambda fn, types, plugins, x: plugins.torch_python_function(
        x, function=torch_batch_chw_and_sum, num_outputs=2, batch_processing=True),
    "dl_tensor_batch_default": lambda fn, types, plugins, x: [plugins.dl_tensor_python_function(
        x, function=dl_batch_invert)],
    "dl_tensor_per_sample": lambda fn, types, plugins, x: plugins.dl_tensor_python_function(
        x, function=dl_sample_mean_and_crop, num_outputs=2, batch_processing=False),
    "numba_setup_per_sample": lambda fn, types, plugins, x: [plugins.numba_function(
        x, run_fn=numba_run_transpose, setup_fn=numba_setup_transpose, out_types=[types.UINT8],
        in_types=[types.UINT8], outs_ndim=[3], ins_ndim=[3])],
    "numba_no_setup": lambda fn, types, plugins, x: [plugins.numba_function(
        x, run_fn=numba_run_invert, out_types=[types.UINT8], in_types=[types.UINT8], outs_ndim=[3], ins_ndim=[3])],
    "numba_batch_two_outputs": lambda fn, types, plugins, x: plugins.numba_function(
        x, run_fn=numba_run_histogram_and_gray, setup_fn=numba_setup_histogram,
        out_types=[types.INT64, types.UINT8], in_types=[types.UINT8], outs_ndim=[1, 2], ins_ndim=[3],
        batch_processing=True),
}


def reference(name, image):
    """The same computations in NumPy, for the tests that need no golden (one sample -> outputs)."""
    if name == "torch_per_sample":
        return [image.astype(np.float32) @ np.array(LUMA, np.float32), image[::-1]]
    if name == "torch_batch":
        return [image.transpose(2, 0, 1), image.sum(axis=(0, 1), dtype=np.int64)]
    if name == "dl_tensor_batch_default":
        return [255 - image]
    if name == "dl_tensor_per_sample":
        return [image.astype(np.float64).mean(axis=(0, 1)), image[1:9, 2:7]]
    if name == "numba_setup_per_sample":
        return [image.transpose(1, 0, 2)]
    if name == "numba_no_setup":
        return [255 - image]
    if name == "numba_batch_two_outputs":
        return [np.bincount(image.ravel(), minlength=256).astype(np.int64),
                (image.astype(np.int64).sum(axis=2) // 3).astype(np.uint8)]
    raise KeyError(name)
