"""DALI's deprecated arguments, accepted so that code written for older DALI ports unchanged (DALI's
own notebooks still pass them): `image_type` (ignored) and `output_dtype` (an alias of `dtype`), each
with the DeprecationWarning DALI gives; the schema lists them as deprecated."""
import warnings

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types


def run(build):
    img = [np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)]
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(build(fn.external_source(source=lambda: img, layout="HWC")))
    pipe.build()
    out, = pipe.run()
    return np.array(out.at(0)), img[0]


def test_output_dtype_is_dtype():
    with pytest.warns(DeprecationWarning, match="crop_mirror_normalize.*'output_dtype'.*use 'dtype'"):
        got, img = run(lambda x: fn.crop_mirror_normalize(x, output_dtype=types.FLOAT16, mean=[1.0], std=[2.0],
                                                          output_layout="HWC"))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, ((img.astype(np.float32) - 1) / 2).astype(np.float16), rtol=1e-3)


@pytest.mark.parametrize("build", [
    lambda x: fn.resize(x, resize_x=3, resize_y=2, image_type=types.RGB),
    lambda x: fn.crop(x, crop=(2, 2), image_type=types.RGB),
    lambda x: fn.slice(x, (0, 0), (2, 2), axes=(0, 1), image_type=types.RGB),
    lambda x: ops.CropMirrorNormalize(image_type=types.RGB, output_layout="HWC")(x),
])
def test_image_type_is_accepted_and_ignored(build):
    with pytest.warns(DeprecationWarning, match="'image_type' is deprecated in DALI; it has no effect"):
        got, _ = run(build)
    assert got.size > 0


def test_both_names_at_once_is_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(sluice.ArgumentError, match="'output_dtype' is the deprecated name of 'dtype': give only one"):
            fn.crop_mirror_normalize(fn.external_source(source=lambda: [np.zeros((2, 2, 3), np.uint8)]),
                                     output_dtype=types.FLOAT, dtype=types.FLOAT)


def test_the_schema_lists_them():
    from sluice.schema import get_schema
    assert get_schema("crop_mirror_normalize").deprecated_arguments == {"image_type": "", "output_dtype": "dtype"}
    assert get_schema("resize").deprecated_arguments == {"image_type": ""}
