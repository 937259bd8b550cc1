"""Helpers shared by the generated ``fn`` and ``ops`` modules: dotted registry names to nested
submodules, and Python signatures built from schemas (so ``help()`` and IDEs show every argument)."""
import inspect
import sys
import types as _pytypes

from .errors import did_you_mean
from .schema import PYTHON_ARGS


def install_suggestions(module, what):
    """Makes `module.<unknown>` raise an AttributeError naming the closest operator."""
    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        names = [n for n in vars(module) if not n.startswith("_")]
        raise AttributeError(f"{module.__name__} has no {what} '{attr}'{did_you_mean(attr, names)}")

    module.__getattr__ = __getattr__


def submodule(root, path, what="operator"):
    """The submodule of `root` for the dotted `path` ("" -> root), created and registered on demand."""
    mod = root
    for part in [p for p in path.split(".") if p]:
        child = getattr(mod, part, None)
        if not isinstance(child, _pytypes.ModuleType):
            child = _pytypes.ModuleType(f"{mod.__name__}.{part}")
            setattr(mod, part, child)
            sys.modules[child.__name__] = child
            install_suggestions(child, what)
        mod = child
    return mod


def find(root, dotted):
    """The attribute at the dotted path below `root`, or None (creates nothing)."""
    obj = root
    for part in dotted.split("."):
        obj = vars(obj).get(part) if isinstance(obj, _pytypes.ModuleType) else None
        if obj is None:
            return None
    return obj


# DALI's legacy and deprecated operator names, as fn spells them (ops spells the last part in camel
# case: FileReader, experimental.Equalize), -> the registry names they stand for. DALI 2.4's schemas
# mark each deprecated name "in favor of" its target (GetSchema(name).DeprecatedInFavorOf()); a
# target Sluice does not register yet is skipped, so the name appears with its operator. A legacy
# name whose defaults differ from its target's is a schema of its own instead
# (fast_resize_crop_mirror: antialias off by default).
LEGACY_NAMES = {
    "file_reader": "readers.file",
    "image_decoder": "decoders.image",
    "image_decoder_random_crop": "decoders.image_random_crop",
    "image_decoder_crop": "decoders.image_crop",
    "image_decoder_slice": "decoders.image_slice",
    "audio_decoder": "decoders.audio",
    "nemo_asr_reader": "readers.nemo_asr",
    "numpy_reader": "readers.numpy",
    "video_reader": "readers.video",
    "coco_reader": "readers.coco",
    "tfrecord_reader": "readers.tfrecord",
    "mxnet_reader": "readers.mxnet",
    "caffe_reader": "readers.caffe",
    "caffe2_reader": "readers.caffe2",
    "sequence_reader": "readers.sequence",
    "coin_flip": "random.coin_flip",
    "uniform": "random.uniform",
    "normal_distribution": "random.normal",
    "transform_translation": "transforms.translation",
    "experimental.audio_resample": "audio_resample",
    "experimental.equalize": "equalize",
    "experimental.filter": "filter",
    "experimental.debayer": "debayer",
    "experimental.peek_image_shape": "peek_image_shape",
    "experimental.tensor_resize": "tensor_resize",
    "experimental.inflate": "decoders.inflate",
    # DALI 2.4's GPU-only CV-CUDA resize: the same arguments and defaults as resize.
    "experimental.resize": "resize",
    "experimental.decoders.image": "decoders.image",
    "experimental.decoders.image_crop": "decoders.image_crop",
    "experimental.decoders.image_random_crop": "decoders.image_random_crop",
    "experimental.decoders.image_slice": "decoders.image_slice",
    # DALI 2.4 graduated the video decoder: decoders.video is current, the experimental name
    # (Sluice's registry name) deprecated.
    "decoders.video": "experimental.decoders.video",
}


def install_legacy_names(root, leaf_name=lambda leaf: leaf):
    """Adds DALI's legacy names to `root` (the filled fn or ops module) as aliases of what `root`
    holds for the operators they stand for; `leaf_name` spells the last part of a name as `root`
    does (ops: camel_case). A name `root` already has is left alone."""
    for legacy, target in LEGACY_NAMES.items():
        path, leaf = split_name(target)
        obj = find(root, f"{path}.{leaf_name(leaf)}" if path else leaf_name(leaf))
        alias_path, alias_leaf = split_name(legacy)
        if obj is None:
            continue
        module = submodule(root, alias_path)
        if leaf_name(alias_leaf) not in vars(module):
            setattr(module, leaf_name(alias_leaf), obj)


def split_name(registry_name):
    """ "decoders.image_random_crop" -> ("decoders", "image_random_crop")."""
    path, _, leaf = registry_name.rpartition(".")
    return path, leaf


def camel_case(snake):
    """ "image_random_crop" -> "ImageRandomCrop"."""
    return "".join(p[:1].upper() + p[1:] for p in snake.split("_"))


# The `ops` class names DALI spells otherwise than camel_case would (the last part of the name: DALI
# derives fn names from its schema names, not the other way round). Taken from DALI 2.4's schemas
# (nvidia.dali.ops._names._op_name(schema, "ops") for every registered operator), legacy names
# included, and readers.TFRecord (a Python class in DALI over an internal schema);
# python/tests/test_ops_class_names.py checks every DALI class name against sluice.ops.
DALI_CLASS_NAMES = {
    "bbox_paste": "BBoxPaste", "bbox_rotate": "BBoxRotate", "random_bbox_crop": "RandomBBoxCrop",
    "roi_random_crop": "ROIRandomCrop", "random_object_bbox": "RandomObjectBBox", "rms": "RMS", "mfcc": "MFCC",
    "coco": "COCO", "mxnet": "MXNet", "coco_reader": "COCOReader", "mxnet_reader": "MXNetReader",
    "ssd_random_crop": "SSDRandomCrop", "tfrecord": "TFRecord", "tfrecord_reader": "TFRecordReader",
}


def ops_class_name(leaf):
    """The `ops` class name of an operator's last name part, as DALI spells it ("bbox_paste" ->
    "BBoxPaste", "image_random_crop" -> "ImageRandomCrop")."""
    return DALI_CLASS_NAMES.get(leaf) or camel_case(leaf)


def generate(root, schemas, python_overrides, make, leaf_name=lambda leaf: leaf):
    """Fills `root` (the fn or ops module) once: for each registered operator, `make(schema, name,
    module_name)` in the submodule its dotted name gives, or its entry in `python_overrides`
    (registry name -> the Python object that is its face instead of the generated one). An override
    whose operator is not registered is not installed."""
    for name, schema in schemas.items():
        path, leaf = split_name(name)
        module = submodule(root, path)
        attr = leaf_name(leaf)
        obj = python_overrides.get(name)
        setattr(module, attr, obj if obj is not None else make(schema, attr, module.__name__))


def keyword_parameters(schema):
    """The keyword-only parameters of an operator: device, name, then each schema argument with its
    default (none for a required argument; None for an optional one without a default)."""
    params = [inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default="cpu"),
              inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None)]
    for arg in schema.arguments.values():
        if arg.name in PYTHON_ARGS:
            continue
        default = inspect.Parameter.empty if arg.required else arg.default
        params.append(inspect.Parameter(arg.name, inspect.Parameter.KEYWORD_ONLY, default=default))
    return params


def input_parameters(schema):
    names = schema.input_names or [f"input{i}" for i in range(schema.max_inputs)]
    return [inspect.Parameter(n if n.isidentifier() else f"input{i}", inspect.Parameter.POSITIONAL_ONLY,
                              default=inspect.Parameter.empty if i < schema.min_inputs else None)
            for i, n in enumerate(names)]
