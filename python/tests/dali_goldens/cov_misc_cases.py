"""Cases added for argument coverage (issue 40) of tensor_resize, the box and segmentation operators
and the random operators. A random operator's values come from its random stream, which Sluice's
does not reproduce (docs/dali-compatibility.md), so each random case uses arguments that leave one
possible outcome (a probability of 1, a zero deviation, a crop range that admits only the whole
image, a single foreground pixel, ...): the output is then determined by the other arguments, which
the case exercises. Recorded by `scripts/record_dali_goldens.py cov_misc` into cov_misc.npz; compared
by test_dali_goldens_coverage.py. CASES: name -> (input kind, build(fn, types, x)).
"""
import numpy as np

BATCH = 2


def _masks():
    a = np.zeros((12, 10), np.int32)
    a[3:6, 2:7] = 2
    a[8:11, 8] = 5
    b = np.zeros((9, 14), np.int32)
    b[1:4, 1:4] = 2
    b[6, 10] = 5
    return [a, b]


def _pixel_masks():
    a = np.zeros((8, 9), np.uint8)
    a[5, 2] = 3
    b = np.zeros((6, 7), np.uint8)
    b[1, 4] = 3
    b[4, 4] = 1
    return [a, b]


def inputs():
    rng = np.random.default_rng(21)
    hwc = [rng.integers(0, 255, (14, 18, 3)).astype(np.uint8), rng.integers(0, 255, (11, 9, 3)).astype(np.uint8)]
    square = [rng.integers(0, 255, (16, 16, 3)).astype(np.uint8), rng.integers(0, 255, (20, 20, 3)).astype(np.uint8)]
    boxes = [np.float32([[0.1, 0.2, 0.5, 0.6], [0.3, 0.1, 0.9, 0.4]]), np.float32([[0.0, 0.0, 0.3, 0.3]])]
    shapes = [np.int64([20, 20, 3]), np.int64([16, 16, 1])]  # square: a whole-image crop only
    # select_masks: per row, [mask id, first vertex, end vertex, x, y] (the last two are the vertices)
    polygons = [np.int32([[1, 0, 2, 0, 0], [3, 2, 3, 5, 1], [2, 3, 4, 2, 2], [3, 4, 5, 7, 7], [0, 1, 2, 1, 9]]),
                np.int32([[3, 0, 3, 1, 1], [1, 3, 4, 2, 3], [2, 1, 2, 4, 4], [4, 4, 5, 0, 6], [3, 2, 5, 3, 3]])]
    return {"polygons": (None, polygons), "hwc": ("HWC", hwc), "square": ("HWC", square), "boxes": (None, boxes), "masks": (None, _masks()),
            "pixel_masks": (None, _pixel_masks()), "shapes": (None, shapes)}


CASES = {
    # tensor_resize
    "cov_tensor_resize_sizes_mode": ("hwc", lambda fn, types, x: [
        fn.tensor_resize(x, sizes=[20, 20], axis_names="HW", mode="not_larger", antialias=False),
        fn.tensor_resize(x, sizes=[30, 0], axes=[0, 1], max_size=[25, 25], mode="default")]),
    "cov_tensor_resize_filters": ("hwc", lambda fn, types, x: [
        fn.tensor_resize(x, scales=[0.6, 1.5], axes=[0, 1], min_filter=types.INTERP_CUBIC,
                                      mag_filter=types.INTERP_NN, size_rounding="truncate"),
        fn.tensor_resize(x, scales=[1.7, 0.45], axes=[0, 1], size_rounding="ceil",
                                      subpixel_scale=False, dtype=types.FLOAT)]),
    "cov_tensor_resize_roi_alignment": ("hwc", lambda fn, types, x: [
        fn.tensor_resize(x, sizes=[10, 12], axes=[0, 1], roi_start=[2, 3], roi_end=[9, 8]),
        fn.tensor_resize(x, sizes=[15, 15], axes=[0, 1], roi_start=[0.9, 0.1], roi_end=[0.1, 0.8],
                                      roi_relative=True),
        fn.tensor_resize(x, scales=[1.5, 1.5], axes=[0, 1], alignment=[0.0, 1.0])]),
    # boxes
    "cov_box_encoder_means": ("boxes", lambda fn, types, x: [*fn.box_encoder(
        x, fn.cast(fn.reductions.sum(x, axes=[1]) * 10, dtype=types.INT32),
        anchors=[0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 0.2, 0.1, 0.6, 0.7], criteria=0.2, offset=True,
        means=[0.1, -0.1, 0.2, 0.0], stds=[0.5, 0.5, 1.0, 1.0])]),
    "cov_bbox_rotate_expand": ("boxes", lambda fn, types, x: [
        fn.bbox_rotate(x, angle=30, input_shape=[40, 60]),
        fn.bbox_rotate(x * 40, angle=20, input_shape=[40, 40], bbox_normalized=False, mode="fixed"),
        fn.bbox_rotate(x, angle=90, input_shape=[40, 60], keep_size=True, bbox_layout="xyWH", shape_layout="WH"),
        fn.bbox_rotate(x, angle=15, input_shape=[40, 60], size=[50, 70])]),
    # random operators with one possible outcome
    "cov_bbox_rotate_halfway": ("boxes", lambda fn, types, x: [
        fn.bbox_rotate(x, angle=-45, input_shape=[40, 60], mode="halfway", remove_threshold=0.5)]),
    "cov_random_degenerate": (None, lambda fn, types, x: [
        fn.random.uniform(values=[2.5], shape=[2, 3]),
        fn.random.uniform(values=[7], dtype=types.INT32, shape=[2]),
        fn.random.normal(mean=4.0, stddev=0.0, shape=[3], dtype=types.FLOAT64),
        fn.random.coin_flip(probability=1.0, shape=[4], dtype=types.UINT8),
        fn.random.choice(5, p=[0.0, 0.0, 1.0, 0.0, 0.0], shape=[3])]),
    # a range narrower than float32's spacing there: every value is 4 within 5e-7
    "cov_random_uniform_range": (None, lambda fn, types, x: [
        fn.random.uniform(range=[4.0, 4.0000005], shape=[3], dtype=types.FLOAT64)]),
    "cov_noise_shot_identity": ("hwc", lambda fn, types, x: [fn.noise.shot(x, factor=0.0)]),
    "cov_batch_permutation_no_fixed_points": ("hwc", lambda fn, types, x: [
        fn.permute_batch(x, indices=fn.batch_permutation(no_fixed_points=True, allow_repetitions=True))]),
    "cov_random_resized_crop_whole": ("square", lambda fn, types, x: [
        fn.random_resized_crop(x, size=[10, 12], random_area=[1.0, 1.0], random_aspect_ratio=[1.0, 1.0],
                               num_attempts=1, interp_type=types.INTERP_NN, antialias=False),
        fn.random_resized_crop(x, size=[9, 9], random_area=1.0, random_aspect_ratio=1.0, dtype=types.FLOAT,
                               min_filter=types.INTERP_CUBIC, mag_filter=types.INTERP_CUBIC)]),
    "cov_random_crop_generator_whole": ("shapes", lambda fn, types, x: [
        *fn.random_crop_generator(fn.slice(x, 0, 2, axes=[0]), random_area=[1.0, 1.0],
                                  random_aspect_ratio=[1.0, 1.0], num_attempts=1)]),
    "cov_roi_random_crop_whole": (None, lambda fn, types, x: [
        fn.roi_random_crop(crop_shape=[8, 9], in_shape=[8, 9], roi_start=[2, 3], roi_end=[5, 6]),
        fn.roi_random_crop(crop_shape=[6, 6], in_shape=[6, 6], roi_start=[1, 1], roi_shape=[2, 3])]),
    "cov_random_bbox_crop_whole": ("boxes", lambda fn, types, x: [*fn.random_bbox_crop(
        x, fn.cast(fn.reductions.sum(x, axes=[1]) * 10, dtype=types.INT32), scaling=[1.0, 1.0],
        aspect_ratio=[1.0, 1.0], allow_no_crop=False, thresholds=[0.5], threshold_type="overlap",
        bbox_layout="xyXY", output_bbox_indices=True, bbox_prune_threshold=0.5, all_boxes_above_threshold=False,
        num_attempts=3, total_num_attempts=20)]),
    "cov_random_bbox_crop_absolute": ("boxes", lambda fn, types, x: [*fn.random_bbox_crop(
        fn.cat(fn.slice(x, 0, 2, axes=[1]), fn.slice(x, 2, 2, axes=[1]) - fn.slice(x, 0, 2, axes=[1]), axis=1),
        crop_shape=[30, 40], input_shape=[30, 40], bbox_layout="xyWH", allow_no_crop=False,
        thresholds=[0.0])]),
    # a crop scale and aspect within 1e-4 of the whole image's: the window (and the boxes in it) within 1e-4
    "cov_random_bbox_crop_near_whole": ("boxes", lambda fn, types, x: [*fn.random_bbox_crop(
        x, fn.cast(fn.reductions.sum(x, axes=[1]) * 10, dtype=types.INT32), scaling=[0.9999, 1.0],
        aspect_ratio=[0.9999, 1.0001], allow_no_crop=False)]),
    "cov_random_bbox_crop_shape_layout": ("boxes", lambda fn, types, x: [*fn.random_bbox_crop(
        x, crop_shape=[30, 40], input_shape=[30, 40], shape_layout="HW", allow_no_crop=False)]),
    "cov_random_mask_pixel": ("pixel_masks", lambda fn, types, x: [
        fn.segmentation.random_mask_pixel(x, value=3, foreground=1),
        fn.segmentation.random_mask_pixel(x, threshold=2.0, foreground=1)]),
    "cov_random_object_bbox": ("masks", lambda fn, types, x: [
        *fn.segmentation.random_object_bbox(x, format="start_end", foreground_prob=1.0, classes=[5],
                                            class_weights=[1.0], output_class=True),
        fn.segmentation.random_object_bbox(x, format="box", background=2, k_largest=1, ignore_class=True),
        *fn.segmentation.random_object_bbox(x, threshold=[2, 2], classes=[2, 5])]),
    "cov_select_masks_reindex": ("polygons", lambda fn, types, x: [*fn.segmentation.select_masks(
        np.int32([3, 1]), fn.slice(x, 0, 3, axes=[1]), fn.cast(fn.slice(x, 3, 2, axes=[1]), dtype=types.FLOAT),
        reindex_masks=True)]),
    # others
    "cov_misc_extras": ("hwc", lambda fn, types, x: [
        fn.erase(x, anchor=[2, 0.1], shape=[0.5, 0.3], normalized_shape=True, axis_names="HW"),
        fn.lookup_table(x, keys=[1, 2], values=[300, -5], dtype=types.INT16),
        fn.zeros(shape=[2, 2], dtype=types.FLOAT), fn.reinterpret(x, src_dims=[1, 0, 2], layout="WHC"),
        fn.get_property(x, key="layout")]),
    "cov_external_source_args": (None, lambda fn, types, x: [
        fn.external_source(source=lambda: [np.int16([[1, 2], [3, 4]]), np.int16([[5, 6]])], batch=True,
                           dtype=types.INT16, ndim=2, layout="AB")]),
    "cov_multi_paste": ("hwc", lambda fn, types, x: [fn.multi_paste(
        x, in_ids=np.int32([0, 1]), output_size=[16, 20], in_anchors=np.int32([[0, 0], [2, 2]]),
        shapes=np.int32([[5, 6], [4, 4]]), out_anchors=np.int32([[1, 1], [8, 10]]))]),
    "cov_multi_paste_rel": ("hwc", lambda fn, types, x: [fn.multi_paste(
        x, in_ids=np.int32([1, 0]), in_anchors_rel=np.float32([[0.0, 0.0], [0.1, 0.2]]),
        shapes_rel=np.float32([[0.5, 0.5], [0.3, 0.4]]), out_anchors_rel=np.float32([[0.0, 0.0], [0.2, 0.2]]),
        output_size=[12, 14], dtype=types.FLOAT)]),
}
