"""Sluice against DALI 2.4's catalogue: every operator DALI registers for the CPU is registered in
Sluice under DALI's name (or is one of DALI's legacy names, installed as an alias), or is listed in
docs/dali-compatibility.md ("DALI operators Sluice does not have") with the reason.

DALI_24_CPU_OPERATORS is data, read from DALI 2.4.0 (nvidia-dali-cuda120==2.4.0) with
    from nvidia.dali.ops import _registry; from nvidia.dali import fn
    for op in _registry.cpu_ops(): parts = op.split("__")
        print(".".join(parts[:-1] + [fn._to_snake_case(parts[-1])]))
(167 names, deprecated ones included; GPU-only operators are not in it).
"""
import pathlib
import re

import pytest

from sluice import fn, ops
from sluice.namespaces import LEGACY_NAMES
from sluice.tools.opdocs import ops_spelling

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "dali-compatibility.md"

DALI_24_CPU_OPERATORS = """
_arithmetic_generic_op
_conditional.merge
_conditional.not_
_conditional.split
_conditional.validate_logical
_shape
_subscript_dim_check
_tensor_subscript
audio_decoder
audio_resample
batch_permutation
bb_flip
bbox_paste
bbox_rotate
box_encoder
brightness
brightness_contrast
caffe2_reader
caffe_reader
cast
cast_like
cat
clahe
coco_reader
coin_flip
color_space_conversion
color_twist
constant
contrast
coord_flip
coord_transform
copy
crop
crop_mirror_normalize
debayer
decoders.audio
decoders.image
decoders.image_crop
decoders.image_random_crop
decoders.image_slice
decoders.numpy
decoders.video
dl_tensor_python_function
dump_image
element_extract
equalize
erase
expand_dims
experimental.audio_resample
experimental.debayer
experimental.decoders.image
experimental.decoders.image_crop
experimental.decoders.image_random_crop
experimental.decoders.image_slice
experimental.decoders.video
experimental.equalize
experimental.filter
experimental.inputs.video
experimental.peek_image_shape
experimental.readers.fits
experimental.readers.video
experimental.tensor_resize
experimental.warp_perspective
external_source
fast_resize_crop_mirror
file_reader
filter
flip
full
full_like
gaussian_blur
get_property
grid_mask
hsv
hue
image_decoder
image_decoder_crop
image_decoder_random_crop
image_decoder_slice
io.file.read
jpeg_compression_distortion
laplacian
lookup_table
mel_filter_bank
mfcc
multi_paste
mxnet_reader
nemo_asr_reader
noise.gaussian
noise.salt_and_pepper
noise.shot
nonsilent_region
normal_distribution
normalize
numpy_reader
one_hot
ones
ones_like
pad
paste
peek_image_shape
per_frame
permute_batch
power_spectrum
preemphasis_filter
python_function
random.beta
random.choice
random.coin_flip
random.normal
random.uniform
random_bbox_crop
random_crop_generator
random_resized_crop
readers.caffe
readers.caffe2
readers.coco
readers.file
readers.mxnet
readers.nemo_asr
readers.numpy
readers.sequence
readers.tfrecord
readers.webdataset
reductions.max
reductions.mean
reductions.mean_square
reductions.min
reductions.rms
reductions.std_dev
reductions.sum
reductions.variance
reinterpret
reshape
resize
resize_crop_mirror
roi_random_crop
rotate
saturation
segmentation.random_mask_pixel
segmentation.random_object_bbox
segmentation.select_masks
sequence_reader
sequence_rearrange
shapes
slice
spectrogram
sphere
squeeze
ssd_random_crop
stack
tensor_resize
tfrecord_reader
to_decibels
transform_translation
transforms.combine
transforms.crop
transforms.rotation
transforms.scale
transforms.shear
transforms.translation
transpose
uniform
warp_affine
water
zeros
zeros_like
""".split()


def _resolve(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = vars(obj).get(part) if hasattr(obj, "__dict__") else None
        if obj is None:
            return None
    return obj


def _not_in_sluice():
    """The doc's table of DALI operators Sluice lacks: {name: reason}."""
    text = DOC.read_text()
    section = text.split("## DALI operators Sluice does not have", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.+?) \|$", section, flags=re.M)
    assert rows, "the table of DALI operators Sluice does not have is missing from " + str(DOC)
    return dict(rows)


def test_the_list_is_dalis():
    assert len(DALI_24_CPU_OPERATORS) == len(set(DALI_24_CPU_OPERATORS)) == 167


def test_every_dali_cpu_operator_is_in_sluice_or_documented_as_missing():
    missing = _not_in_sluice()
    undocumented = [n for n in DALI_24_CPU_OPERATORS if _resolve(fn, n) is None and n not in missing]
    assert not undocumented, ("DALI 2.4 CPU operators neither registered in sluice.fn nor listed in "
                              f"docs/dali-compatibility.md with a reason: {undocumented}")


def test_the_missing_list_is_not_stale():
    stale = [n for n in _not_in_sluice() if _resolve(fn, n) is not None]
    assert not stale, f"registered now; remove them from docs/dali-compatibility.md's missing list: {stale}"
    unknown = [n for n in _not_in_sluice() if n not in DALI_24_CPU_OPERATORS]
    assert not unknown, f"not DALI 2.4 CPU operator names: {unknown}"


# DALI 2.4 names of operators DALI runs only on the GPU, which Sluice also runs on the CPU.
DALI_24_GPU_ONLY_LEGACY = {"video_reader", "experimental.inflate", "experimental.resize"}


@pytest.mark.parametrize("legacy", sorted(LEGACY_NAMES))
def test_legacy_names_are_dalis_and_alias_their_target(legacy):
    target = LEGACY_NAMES[legacy]
    assert legacy in DALI_24_CPU_OPERATORS or legacy in DALI_24_GPU_ONLY_LEGACY, f"{legacy} is not a DALI 2.4 name"
    function = _resolve(fn, target)
    if function is None:  # not registered yet: then neither is the alias
        assert _resolve(fn, legacy) is None
        return
    assert _resolve(fn, legacy) is function
    assert _resolve(ops, ops_spelling(legacy)) is not None
