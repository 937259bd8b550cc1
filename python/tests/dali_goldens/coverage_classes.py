"""How each DALI CPU argument that no golden case exercises is accounted for, in one place (read by
scripts/gen_golden_coverage.py, which writes the coverage table into docs/dali-compatibility.md).

- NO_EFFECT_ANY / NO_EFFECT: arguments that cannot change an operator's output values (memory hints,
  threading, I/O scheduling, sharding of readers' epochs, the random stream's seed), with the reason;
  DALI's deprecated arguments are classified from its schema (aliases of their replacement, or ignored).
- DIFFERENCES: arguments where Sluice is documented as different from DALI or as not having the
  argument, in docs/dali-compatibility.md (the reason quotes the row); python/tests/test_golden_coverage.py
  checks that each one is documented there.
- NO_GOLDEN_OPS / NO_GOLDEN: operators and arguments no golden can record, with the reason (they stay
  "not covered").
- OUTPUTS: how many outputs an operator returns, for the case tracer (1 when not listed).
Every other argument must be exercised by a golden case with a non-default value.
"""

_READER_SHARDING = "selects which samples an epoch visits and in which order, not their values"
_IO = "how the files are read (I/O scheduling), not what they contain"
_MEMORY = "a memory preallocation hint"

NO_EFFECT_ANY = {
    "bytes_per_sample_hint": _MEMORY,
    "preserve": "keeps an unused operator in the graph",
    "seed": "picks the random stream; Sluice's generators are not DALI's, so no seed reproduces DALI's draws",
    "tensor_init_bytes": _MEMORY,
    "initial_fill": _READER_SHARDING,
    "random_shuffle": _READER_SHARDING,
    "shuffle_after_epoch": _READER_SHARDING,
    "shuffle_after_epoch_seed": _READER_SHARDING,
    "num_shards": _READER_SHARDING,
    "shard_id": _READER_SHARDING,
    "stick_to_shard": _READER_SHARDING,
    "pad_last_batch": _READER_SHARDING,
    "skip_cached_images": "a decoder cache knob (GPU only in DALI)",
    "lazy_init": _IO,
    "read_ahead": _IO,
    "dont_use_mmap": _IO,
    "prefetch_queue_depth": _IO,
    "minibatch_size": "a GPU batching knob",
    "temp_buffer_hint": _MEMORY,
    "device_memory_padding": _MEMORY,
    "device_memory_padding_jpeg2k": _MEMORY,
    "host_memory_padding": _MEMORY,
    "host_memory_padding_jpeg2k": _MEMORY,
    "preallocate_width_hint": _MEMORY,
    "preallocate_height_hint": _MEMORY,
    "hw_decoder_load": "a GPU decoder load balancing knob",
    "hybrid_huffman_threshold": "a GPU decoder scheduling knob",
    "use_fast_idct": "a GPU decoder knob",
    "affine": "thread affinity of the decoding threads",
}

_CACHE = "the decoded-image cache (DALI: nvJPEG's, GPU decoders only): where a decode is kept, not its pixels"
_IGNORED_TYPE = "DALI accepts other values and ignores them (docs/dali-compatibility.md: only RGB)"
NO_EFFECT = {
    "decoders.image": {a: _CACHE for a in ("cache_batch_copy", "cache_debug", "cache_size", "cache_threshold",
                                           "cache_type")},
    "io.file.read": {"use_o_direct": _IO},
    "readers.numpy": {"use_o_direct": _IO, "register_buffers": "GPU reader only in DALI (pinned buffers)"},
    "readers.webdataset": {"index_paths": "where the tar's members are, not what they hold"},
    "readers.coco": {"save_preprocessed_annotations": "writes the parsed annotations to files; outputs unchanged",
                     "save_preprocessed_annotations_dir": "where save_preprocessed_annotations writes"},
    "external_source": {"blocking": "when a batch is taken, not its values",
                        "no_copy": "whether the fed buffer is copied, not its values"},
    "experimental.inputs.video": {"blocking": "when a batch is taken, not its values",
                                  "no_copy": "whether the fed buffer is copied, not its values"},
    "segmentation.random_object_bbox": {"cache_objects": "a cache of the blobs found, not the boxes chosen"},
    "dump_image": {"input_layout": "the written file's layout; the output is the input",
                   "suffix": "the written file's name; the output is the input"},
    "random_bbox_crop": {"quiet": "silences DALI's warnings", "ltrb": "DALI warns it is deprecated: bbox_layout "
                                                                     "says the same"},
    "hue": {"image_type": _IGNORED_TYPE},
    "saturation": {"image_type": _IGNORED_TYPE},
    "color_twist": {"image_type": _IGNORED_TYPE},
}

# Each reason quotes the argument's row in docs/dali-compatibility.md (test_golden_coverage.py checks
# that the row says "not supported" or "differs").
DIFFERENCES = {
    "crop": {"dtype": "not supported: the output keeps the input type"},
    "resize": {"save_attrs": "not supported: the extra output of input shapes"},

    "readers.coco": {"preprocessed_annotations": "differs: Sluice's own file layout"},
    "experimental.readers.fits": {"dtypes": "differs: an image of another type is an error"},
    "slice": {"dtype": "differs: uint8, float16 or float"},
    "readers.caffe2": {"bbox": "differs: read only with bbox=True (DALI 2.4 fails with bbox=True on a CPU "
                               "pipeline, and reads a box whenever one more TensorProto follows)"},
    **{op: {"dtype": "differs: only UINT8 (as `decoders.image`)"} for op in (
        "decoders.image", "decoders.image_random_crop", "decoders.image_slice")},
    "decoders.image_crop": {"dtype": "differs: only UINT8 (as `decoders.image`)",
                            "crop_d": "not supported: no depth in a decoded image",
                            "crop_pos_z": "not supported: no depth in a decoded image"},
}

# Operators whose arguments no golden can exercise, and why (their arguments count as not covered).
NO_GOLDEN_OPS = {
    "experimental.readers.fits": "DALI 2.4's CPU FITS reader needs a CUDA driver ('CUDA driver version is "
                                 "insufficient' when recording)",
    "random.beta": "no argument leaves a single outcome, and Sluice's random stream is not DALI's",
    "dump_image": "writes image files into the working directory (its output is its input)",
    "experimental.inputs.video": "fed by feed_input, which the recorder's pipelines (external_source with a "
                                 "source) do not use",
}
# Single arguments no golden can exercise, and why (they count as not covered).
NO_GOLDEN = {
    "readers.caffe2": {a: "DALI 2.4's CPU reader fails ('new_type must be valid type') with label_type 1 or 3, "
                          "num_labels or additional_inputs" for a in ("num_labels", "additional_inputs")},
    "segmentation.random_object_bbox": {"foreground_prob": "below 1 the choice is random, and Sluice's random "
                                                           "stream is not DALI's"},
    "external_source": {"repeat_last": "works with feed_input only, which the recorder's pipelines do not use"},
}

DEPRECATED_OPS = {}

OUTPUTS = {
    "box_encoder": 2, "nonsilent_region": 2, "decoders.audio": 2, "random_bbox_crop": 4, "bbox_rotate": 2,
    "roi_random_crop": 1, "segmentation.random_object_bbox": 2, "segmentation.select_masks": 3,
    "random_crop_generator": 2, "readers.file": 2, "readers.coco": 3, "readers.caffe": 2, "readers.caffe2": 2,
    "readers.mxnet": 2, "readers.nemo_asr": 2, "readers.webdataset": 2,
}
