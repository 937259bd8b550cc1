"""Operators taking FHWC sequences where DALI 2.4 does (issue 40's coverage goldens): filter frame by
frame, random_resized_crop with one window per sequence, crop_mirror_normalize with DALI's "F..."
output layouts (refused for a batch that is not a sequence, as DALI). The goldens
(test_dali_goldens_coverage.py: cov_seq_filter, cov_seq_random_resized_crop, cov_seq_cmn) check the
values against DALI; these check the sequence semantics themselves."""
import numpy as np
import pytest

import sluice
from sluice import fn, types


def clip(frames, h, w, seed):
    return np.random.default_rng(seed).integers(0, 256, (frames, h, w, 3), dtype=np.uint8)


def run(samples, layout, build, seed=5):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=2, device_id=None, seed=seed)
    with pipe:
        pipe.set_outputs(build(fn.external_source(source=lambda: list(samples), batch=True, layout=layout)))
    (out,) = pipe.run()
    return out.layout(), [np.array(out.at(i)) for i in range(len(samples))]


def test_filter_runs_frame_by_frame_with_the_sample_filter():
    k = np.float32([[0, 1, 0], [1, -4, 1], [0, 1, 0]])
    seqs = [clip(3, 9, 11, 1), clip(2, 7, 6, 2)]
    layout, out = run(seqs, "FHWC", lambda x: fn.filter(x, k, dtype=types.FLOAT))
    assert layout == "FHWC"
    for s, seq in zip(out, seqs):
        _, frames = run(list(seq), "HWC", lambda x: fn.filter(x, k, dtype=types.FLOAT))
        np.testing.assert_array_equal(s, np.stack(frames))


def test_random_resized_crop_takes_one_window_per_sequence():
    frame = clip(1, 30, 40, 3)[0]
    seqs = [np.stack([frame] * 4) for _ in range(3)]
    layout, out = run(seqs, "FHWC", lambda x: fn.random_resized_crop(x, size=[8, 10], random_area=[0.1, 0.4]))
    assert layout == "FHWC"
    for s in out:
        assert s.shape == (4, 8, 10, 3)
        for f in s[1:]:
            np.testing.assert_array_equal(f, s[0])
    assert not all(np.array_equal(out[0], s) for s in out[1:])  # windows still differ between samples


@pytest.mark.parametrize("out_layout, per_frame", [("FCHW", "CHW"), ("FHWC", "HWC"), ("CHW", "CHW")])
def test_crop_mirror_normalize_takes_the_sequence_layouts(out_layout, per_frame):
    seqs = [clip(3, 10, 12, 4), clip(2, 9, 14, 5)]
    kw = dict(crop=(6, 6), mean=[1.0, 2.0, 3.0], std=[2.0, 2.0, 2.0], mirror=1)
    layout, out = run(seqs, "FHWC", lambda x: fn.crop_mirror_normalize(x, output_layout=out_layout, **kw))
    assert layout == "F" + per_frame
    for s, seq in zip(out, seqs):
        _, frames = run(list(seq), "HWC", lambda x: fn.crop_mirror_normalize(x, output_layout=per_frame, **kw))
        np.testing.assert_array_equal(s, np.stack(frames))


def test_crop_mirror_normalize_refuses_a_sequence_layout_for_images():
    with pytest.raises(sluice.SluiceError) as e:
        run([clip(1, 10, 12, 6)[0]], "HWC", lambda x: fn.crop_mirror_normalize(x, output_layout="FCHW"))
    for fragment in ("crop_mirror_normalize", "output_layout", "'FCHW'", "sequences"):
        assert fragment in str(e.value), (fragment, str(e.value))
