"""DALI's expression tutorials (docs/examples/general/expressions/*.ipynb), with `nvidia.dali`
changed to `sluice` in the imports. The notebooks print their results; the expected values below
are the ones they print (computed here with NumPy where that is clearer)."""
import numpy as np
import pytest

from sluice.pipeline import Pipeline
import sluice.ops as ops
import sluice.fn as fn
import sluice.types as types
from sluice.types import Constant


# --- docs/examples/general/expressions/expr_examples.ipynb -------------------------------------

left_magic_values = [
    [[42, 7, 0], [0, 0, 0]],
    [[5, 10, 15], [10, 100, 1000]],
]
right_magic_values = [
    [[3, 3, 3], [1, 3, 5]],
    [[1, 5, 5], [1, 1, 1]],
]
batch_size = len(left_magic_values)


def convert_batch(batch):
    return [np.int32(tensor) for tensor in batch]


def get_data():
    return (convert_batch(left_magic_values), convert_batch(right_magic_values))


def test_expr_examples_operating_on_tensors():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        l, r = fn.external_source(source=get_data, num_outputs=2)
        sum_result = l + r
        mul_result = l * r
        div_result = l // r
        pipe.set_outputs(l, r, sum_result, mul_result, div_result)
    pipe.build()
    out = pipe.run()
    l, r = np.array(left_magic_values, np.int32), np.array(right_magic_values, np.int32)
    np.testing.assert_array_equal(out[0].as_array(), l)
    np.testing.assert_array_equal(out[2].as_array(), [[[45, 10, 3], [1, 3, 5]], [[6, 15, 20], [11, 101, 1001]]])
    np.testing.assert_array_equal(out[3].as_array(), l * r)
    np.testing.assert_array_equal(out[4].as_array(), [[[14, 2, 0], [0, 0, 0]], [[5, 2, 3], [10, 100, 1000]]])
    assert out[4].as_array().dtype == np.int32


def test_expr_examples_constants():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        l, r = fn.external_source(source=get_data, num_outputs=2)
        add_200 = l + 200
        mul_075 = l * 0.75
        sub_15 = Constant(15).float32() - r
        pipe.set_outputs(l, r, add_200, mul_075, sub_15)
    pipe.build()
    out = pipe.run()
    l, r = np.array(left_magic_values, np.int32), np.array(right_magic_values, np.int32)
    np.testing.assert_array_equal(out[2].as_array(), l + 200)
    assert out[3].as_array().dtype == np.float32
    np.testing.assert_allclose(out[3].as_array(), l * 0.75)
    assert out[4].as_array().dtype == np.float32
    np.testing.assert_array_equal(out[4].as_array(), [[[12., 12., 12.], [14., 12., 10.]], [[14., 10., 10.], [14., 14., 14.]]])


def test_expr_examples_dynamic_scalars():
    pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0)
    with pipe:
        tensors = fn.external_source(lambda: get_data()[0])
        scalars = fn.external_source(lambda: np.arange(1, batch_size + 1))
        pipe.set_outputs(tensors, scalars, tensors + scalars)
    pipe.build()
    out = pipe.run()
    np.testing.assert_array_equal(out[1].as_array(), [1, 2])
    np.testing.assert_array_equal(out[2].as_array(), [[[43, 8, 1], [1, 1, 1]], [[7, 12, 17], [12, 102, 1002]]])


# --- docs/examples/general/expressions/expr_type_promotions.ipynb ------------------------------

tp_left = [42, 8]
tp_right = [9, 2]


def tp_get_data(left_type, right_type):
    return ([left_type(tp_left)], [right_type(tp_right)])


def dali_type(np_type):
    return types.to_dali_type(np.dtype(np_type).name)


def arithmetic_pipeline(operation, left_type, right_type):
    pipe = Pipeline(batch_size=1, num_threads=4, device_id=0)
    with pipe:
        l, r = fn.external_source(
            source=lambda: tp_get_data(left_type, right_type),
            num_outputs=2,
            dtype=[dali_type(left_type), dali_type(right_type)],
        )
        pipe.set_outputs(l, r, operation(l, r))
    return pipe


def build_and_run(pipe):
    pipe.build()
    pipe_out = pipe.run()
    return pipe_out[0].as_array(), pipe_out[1].as_array(), pipe_out[2].as_array()


# (operation, right type, expected values, expected type), left is always uint8 as in the notebook
PROMOTIONS = [
    ("+", np.uint8, [51, 10], np.uint8), ("+", np.int32, [51, 10], np.int32), ("+", np.float32, [51, 10], np.float32),
    ("-", np.uint8, [33, 6], np.uint8), ("-", np.int32, [33, 6], np.int32), ("-", np.float32, [33, 6], np.float32),
    ("*", np.uint8, [122, 16], np.uint8), ("*", np.int32, [378, 16], np.int32), ("*", np.float32, [378, 16], np.float32),
    ("/", np.uint8, [42 / 9, 4], np.float32), ("/", np.int32, [42 / 9, 4], np.float32),
    ("/", np.float32, [42 / 9, 4], np.float32),
    ("//", np.uint8, [4, 4], np.uint8), ("//", np.int32, [4, 4], np.int32), ("//", np.float32, [42 / 9, 4], np.float32),
    ("|", np.uint8, [43, 10], np.uint8), ("|", np.int32, [43, 10], np.int32),
    ("&", np.uint8, [8, 0], np.uint8), ("&", np.int32, [8, 0], np.int32),
    ("^", np.uint8, [35, 10], np.uint8), ("^", np.int32, [35, 10], np.int32),
]
OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": lambda x, y: x / y,
       "//": lambda x, y: x // y, "|": lambda x, y: x | y, "&": lambda x, y: x & y, "^": lambda x, y: x ^ y}


def test_expr_type_promotions_tensor_tensor():
    for op_name, right_type, expected, out_type in PROMOTIONS:
        pipe = arithmetic_pipeline(OPS[op_name], np.uint8, right_type)
        l, r, out = build_and_run(pipe)
        assert out.dtype == out_type, (op_name, right_type, out.dtype)
        np.testing.assert_allclose(out, [expected], rtol=1e-6, err_msg=f"uint8 {op_name} {right_type}")


def arithmetic_constant_pipeline(operation, tensor_data_type):
    pipe = Pipeline(batch_size=1, num_threads=4, device_id=0)
    with pipe:
        t = fn.external_source(
            source=lambda: tp_get_data(tensor_data_type, tensor_data_type)[0],
            dtype=dali_type(tensor_data_type),
        )
        pipe.set_outputs(t, operation(t))
    return pipe


def run_const(pipe):
    pipe.build()
    out = pipe.run()
    return out[1].as_array()


def test_expr_type_promotions_python_int_constant():
    constant = 10
    out = run_const(arithmetic_constant_pipeline((lambda x: x + constant), np.uint8))
    assert out.tolist() == [[52, 18]]
    assert out.dtype == np.int32


def test_expr_type_promotions_python_float_constant():
    constant = 10
    out = run_const(arithmetic_constant_pipeline((lambda x: x + constant), np.float32))
    assert out.dtype == np.float32 and out.tolist() == [[52, 18]]
    constant = 42.3
    out = run_const(arithmetic_constant_pipeline((lambda x: x + constant), np.uint8))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[84.3, 50.3]], rtol=1e-6)
    out = run_const(arithmetic_constant_pipeline((lambda x: x + constant), np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[84.3, 50.3]], rtol=1e-6)


def test_expr_type_promotions_dali_constant_wrapper():
    constant = Constant(10)
    out = run_const(arithmetic_constant_pipeline((lambda x: x * constant), np.uint8))
    assert out.dtype == np.int32 and out.tolist() == [[420, 80]]
    constant = Constant(10.0)
    out = run_const(arithmetic_constant_pipeline((lambda x: constant * x), np.uint8))
    assert out.dtype == np.float32 and out.tolist() == [[420, 80]]

    # the notebook prints these constants as "10:DALIDataType.UINT8"
    constant = Constant(10, types.DALIDataType.UINT8)
    assert str(constant) == "10:DALIDataType.UINT8"
    out = run_const(arithmetic_constant_pipeline((lambda x: x * constant), np.uint8))
    assert out.dtype == np.uint8 and out.tolist() == [[164, 80]]
    constant = Constant(10.0, types.DALIDataType.UINT8)
    out = run_const(arithmetic_constant_pipeline((lambda x: constant * x), np.uint8))
    assert out.dtype == np.uint8 and out.tolist() == [[164, 80]]
    constant = Constant(10).uint8()
    out = run_const(arithmetic_constant_pipeline((lambda x: constant * x), np.uint8))
    assert out.dtype == np.uint8 and out.tolist() == [[164, 80]]


# --- docs/examples/general/expressions/expr_blend_image.ipynb --------------------------------------

def test_expr_blend_image(image_dir, tmp_path):
    import os
    from ._formats import decode_rgb
    from PIL import Image

    # the notebook's cats.txt and dogs.txt: file lists relative to file_root
    cats_txt = str(tmp_path / "cats.txt")
    dogs_txt = str(tmp_path / "dogs.txt")
    with open(cats_txt, "w") as f:
        f.write("kitten/cat_1.jpg 0\nkitten/cat_2.jpg 0\n")
    with open(dogs_txt, "w") as f:
        f.write("dog/dog_1.jpg 1\ndog/dog_2.jpg 1\n")

    pipe = Pipeline(batch_size=1, num_threads=4, device_id=0, seed=42)
    with pipe:
        cats_jpegs, _ = fn.readers.file(device="cpu", file_root=image_dir, file_list=cats_txt)
        dogs_jpegs, _ = fn.readers.file(device="cpu", file_root=image_dir, file_list=dogs_txt)
        images = fn.decoders.image([cats_jpegs, dogs_jpegs], device="cpu", output_type=types.RGB)
        cats, dogs = fn.resize(images, resize_x=400, resize_y=400)
        blend_float = (0.4 * cats + 0.6 * dogs) / 2
        blend_uint16 = (Constant(4).uint16() * cats + Constant(6).uint16() * dogs) // Constant(20).uint16()
        pipe.set_outputs(
            cats,
            dogs,
            fn.cast(blend_float, dtype=types.DALIDataType.UINT8),
            fn.cast(blend_uint16, dtype=types.DALIDataType.UINT8))
    pipe.build()
    cats_out, dogs_out, blend_f, blend_u = pipe.run()
    c = cats_out.at(0).astype(np.float64)
    d = dogs_out.at(0).astype(np.float64)
    assert c.shape == d.shape == (400, 400, 3)
    # the cat is kitten/cat_1.jpg resized: compare with Pillow's bilinear resize, loosely
    ref = np.asarray(Image.fromarray(decode_rgb(os.path.join(image_dir, "kitten", "cat_1.jpg"))).resize(
        (400, 400), Image.BILINEAR), np.float64)
    assert np.abs(c - ref).mean() < 4
    assert np.abs(blend_f.at(0) - np.trunc((0.4 * c + 0.6 * d) / 2)).max() <= 1
    np.testing.assert_array_equal(blend_u.at(0), ((4 * c + 6 * d) // 20).astype(np.uint8))


# --- docs/examples/general/expressions/expr_conditional_and_masking.ipynb ------------------------

def mux(condition, true_case, false_case):
    neg_condition = condition ^ True
    return condition * true_case + neg_condition * false_case


def test_expr_conditional_multiplexing(image_dir):
    import os

    outputs = []
    for variant in ("inline", "mux"):
        pipe = Pipeline(batch_size=5, num_threads=1, device_id=0, seed=6)
        with pipe:
            input_buf, _ = fn.readers.file(device="cpu", file_root=image_dir,
                                           file_list=os.path.join(image_dir, "file_list.txt"))
            imgs = fn.decoders.image(input_buf, device="cpu", output_type=types.RGB)
            imgs_adjusted = fn.brightness_contrast(imgs, brightness=3, contrast=1.5)
            condition = fn.random.coin_flip(dtype=types.DALIDataType.BOOL)
            if variant == "inline":
                neg_condition = condition ^ True
                out = condition * imgs_adjusted + neg_condition * imgs
            else:
                out = mux(condition, imgs_adjusted, imgs)
            pipe.set_outputs(out, imgs, condition)
        pipe.build()
        outputs.append([pipe.run() for _ in range(3)])

    flips = set()
    for run in outputs:
        for augmented, reference, flip_value in run:
            for i in range(len(augmented)):
                img, ref, val = augmented.at(i), reference.at(i), bool(np.array(flip_value.at(i)))
                assert img.dtype == np.uint8 and img.shape == ref.shape
                expected = np.clip(3 * (128 + 1.5 * (ref.astype(np.float64) - 128)), 0, 255) if val else ref
                assert np.abs(img.astype(np.float64) - expected).max() <= 1
                flips.add(val)
    assert flips == {True, False}
    # the helper gives the inline expression's results
    for (a, _, fa), (b, _, fb) in zip(outputs[0], outputs[1]):
        np.testing.assert_array_equal(np.array(fa.as_array()), np.array(fb.as_array()))
        for i in range(len(a)):
            np.testing.assert_array_equal(a.at(i), b.at(i))
