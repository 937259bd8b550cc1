"""DALI's image processing tutorials (docs/examples/image_processing/**), with `nvidia.dali` changed
to `sluice` in the imports. The notebooks read DALI_extra's `db/lmdb` (a Caffe LMDB of JPEGs) or
`docs/examples/data/images`: here a Caffe LMDB written by the test (each image's label is its index,
so that shuffled outputs can be matched with their source) and the conftest's image folder.
Decoders run with device="cpu" where the notebooks use "mixed", and GPU operators on the CPU."""
import math

import numpy as np
import pytest

import sluice as dali
import sluice.fn as fn
import sluice.ops as ops
import sluice.types as types
from sluice import pipeline_def
from sluice.pipeline import Pipeline

from ._formats import decode_rgb, read_bytes, write_caffe_lmdb


@pytest.fixture(scope="module")
def db_folder(tmp_path_factory, image_files):
    """DALI_extra's db/lmdb stand-in: a Caffe LMDB of the conftest's JPEGs, label = index."""
    path = tmp_path_factory.mktemp("lmdb")
    write_caffe_lmdb(path, [(read_bytes(p), k) for k, (p, _, _) in enumerate(image_files)])
    return str(path)


@pytest.fixture(scope="module")
def originals(image_files):
    return [decode_rgb(p).astype(np.float32) for p, _, _ in image_files]


def luma(img):
    img = np.asarray(img, np.float32)
    return 0.299 * img[..., 0] + 0.587 * img[..., 1] + 0.114 * img[..., 2]


# --- docs/examples/image_processing/augmentation_gallery.ipynb (pipeline mode) -------------------

augmentations = {}
augmentations["erase"] = lambda images: fn.erase(
    images,
    anchor=[0.3, 0.2],
    shape=[0.5, 0.6],
    normalized_anchor=True,
    normalized_shape=True,
    axis_names="HW",
)
augmentations["slice"] = lambda images: fn.slice(images, rel_start=[0.3, 0.2], rel_shape=[0.5, 0.6], axis_names="HW")
augmentations["water"] = lambda images: fn.water(images)
augmentations["sphere"] = lambda images: fn.sphere(images)
augmentations["rotate"] = lambda images: fn.rotate(images, angle=30, interp_type=types.INTERP_LINEAR, fill_value=0)
augmentations["warp_affine"] = lambda images: fn.warp_affine(
    images,
    matrix=[1.0, 0.8, 0.0, 0.0, 1.2, 0.0],
    interp_type=types.INTERP_LINEAR,
)
augmentations["brightness_contrast"] = lambda images: fn.brightness_contrast(images, brightness=0.5, contrast=1.5)
augmentations["jpeg compression distortion"] = (lambda images: fn.jpeg_compression_distortion(images, quality=5))
augmentations["hsv"] = lambda images: fn.hsv(images, hue=45.0, saturation=0.2)
augmentations["paste"] = lambda images: fn.paste(images, ratio=2.0, fill_value=(55, 155, 155), paste_x=0.1, paste_y=0.7)
augmentations["vertical and horizontal flip"] = lambda images: fn.flip(images, vertical=1, horizontal=1)


@pipeline_def()
def augmentation_gallery_pipe(path):
    encoded, labels = fn.readers.caffe(path=path, random_shuffle=True)
    images = fn.decoders.image(encoded, device="cpu", output_type=types.RGB)  # "mixed" in the notebook
    return tuple([labels, images] + [aug(images) for aug in augmentations.values()])


def test_augmentation_gallery(db_folder, originals):
    pipe = augmentation_gallery_pipe(path=db_folder, batch_size=32, num_threads=2, device_id=0, seed=10)
    pipe.build()
    pipe_out = pipe.run()
    labels, images = pipe_out[0], pipe_out[1]
    outs = dict(zip(augmentations.keys(), pipe_out[2:]))
    assert sorted({int(labels.at(i)[0]) for i in range(32)}) == list(range(8))  # shuffled, every image read
    for i in range(32):
        ref = originals[int(labels.at(i)[0])]
        img = images.at(i).astype(np.float32)
        H, W, _ = img.shape
        assert img.shape == ref.shape and np.abs(img - ref).max() == 0

        erased = outs["erase"].at(i)
        y0, y1, x0, x1 = int(0.3 * H) + 1, int(0.8 * H) - 1, int(0.2 * W) + 1, int(0.8 * W) - 1
        assert erased[y0:y1, x0:x1].max() == 0
        np.testing.assert_array_equal(erased[:int(0.3 * H)], img[:int(0.3 * H)])

        sliced = outs["slice"].at(i)
        assert abs(sliced.shape[0] - 0.5 * H) <= 1 and abs(sliced.shape[1] - 0.6 * W) <= 1
        sy, sx = round(0.3 * H), round(0.2 * W)
        np.testing.assert_array_equal(sliced, img[sy:sy + sliced.shape[0], sx:sx + sliced.shape[1]])

        for name in ("water", "sphere", "warp_affine", "jpeg compression distortion", "hsv"):
            out = outs[name].at(i)
            assert out.shape == img.shape and out.dtype == np.uint8, name

        rotated = outs["rotate"].at(i)
        c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
        assert abs(rotated.shape[1] - (W * c + H * s)) <= 2 and abs(rotated.shape[0] - (H * c + W * s)) <= 2
        assert rotated[0, 0].max() == 0 and rotated[-1, -1].max() == 0

        bc = outs["brightness_contrast"].at(i).astype(np.float32)
        expected = np.clip(0.5 * (128 + 1.5 * (img - 128)), 0, 255)
        assert np.abs(bc - expected).max() <= 1

        jpeg = outs["jpeg compression distortion"].at(i).astype(np.float32)
        assert 0 < np.abs(jpeg - img).mean() < 40

        hsv = outs["hsv"].at(i).astype(np.float32)
        assert np.abs(luma(hsv) - luma(img)).mean() < 4  # hue and saturation keep the luma

        pasted = outs["paste"].at(i)
        assert pasted.shape == (2 * H, 2 * W, 3)
        assert pasted[0, 0].tolist() == [55, 155, 155] and pasted[-1, -1].tolist() == [55, 155, 155]
        px, py = int(0.1 * (2 * W - W)), int(0.7 * (2 * H - H))  # paste_x * (out_w - in_w), truncated
        np.testing.assert_array_equal(pasted[py:py + H, px:px + W], img)

        np.testing.assert_array_equal(outs["vertical and horizontal flip"].at(i), img[::-1, ::-1])


# --- docs/examples/image_processing/brightness_contrast (pipeline mode) ---------------------------

def test_brightness_contrast(image_dir, originals):
    batch_size = 10
    image_filename = image_dir  # "../../data/images"

    @pipeline_def()
    def bc_cpu_pipeline():
        files, labels = fn.readers.file(file_root=image_filename)
        images = fn.decoders.image(files)
        converted = fn.brightness_contrast(images, brightness_shift=0.3, contrast=0.4, contrast_center=100)
        return images, converted

    @pipeline_def()
    def bc_gpu_pipeline():
        files, labels = fn.readers.file(file_root=image_filename)
        images = fn.decoders.image(files, device="cpu")  # "mixed" in the notebook
        converted = fn.brightness_contrast(
            # increase contrast  # invert...
            images,
            contrast=1.5,
            brightness_shift=1,
            brightness=-1,
        )  # ...colors
        return images, converted

    pipe_cpu = bc_cpu_pipeline(batch_size=batch_size, num_threads=1, device_id=0)
    pipe_cpu.build()
    cpu_output = pipe_cpu.run()
    pipe_gpu = bc_gpu_pipeline(batch_size=batch_size, num_threads=1, device_id=0)
    pipe_gpu.build()
    gpu_output = pipe_gpu.run()

    # the notebook's display(): output[k].at(i), as_cpu() for the GPU pipeline
    for i in range(batch_size):
        img = cpu_output[0].at(i).astype(np.float32)
        assert np.array_equal(img, originals[i % 8])
        # Out = brightness_shift * Max_out + brightness * (contrast_center + contrast * (in - contrast_center))
        expected = np.clip(0.3 * 255 + 1 * (100 + 0.4 * (img - 100)), 0, 255)
        assert np.abs(cpu_output[1].at(i).astype(np.float32) - expected).max() <= 1
        expected = np.clip(1 * 255 - 1 * (128 + 1.5 * (img - 128)), 0, 255)  # a negative with more contrast
        assert np.abs(gpu_output[1].as_cpu().at(i).astype(np.float32) - expected).max() <= 1


# --- docs/examples/image_processing/hsv (pipeline mode) ------------------------------------------

def test_hsv(image_dir, originals):
    batch_size = 10
    image_filename = image_dir

    @pipeline_def()
    def hsv_pipeline(device, hue, saturation, value):
        files, labels = fn.readers.file(file_root=image_filename)
        images = fn.decoders.image(files, device="cpu" if device == "cpu" else "mixed")
        converted = fn.hsv(images, hue=hue, saturation=saturation, value=value)
        return images, converted

    pipe_cpu = hsv_pipeline(device="cpu", hue=120, saturation=1, value=0.4, batch_size=batch_size,
                            num_threads=1, device_id=0)
    pipe_cpu.build()
    cpu_output = pipe_cpu.run()
    for i in range(batch_size):
        img, out = cpu_output[0].at(i), cpu_output[1].at(i)
        assert out.shape == img.shape and out.dtype == np.uint8
        # value=0.4 scales the brightness; hue=120 turns red towards green and green towards blue
        assert abs(luma(out).mean() - 0.4 * luma(img).mean()) < 3
        assert not np.array_equal(out, (0.4 * img).astype(np.uint8))


# --- docs/examples/image_processing/color_space_conversion (pipeline mode) -----------------------

def test_color_space_conversion(image_dir):
    conversions = [
        ("RGB to BGR", types.RGB, types.BGR),
        ("RGB to YCbCR", types.RGB, types.YCbCr),
        ("RGB to Gray", types.RGB, types.GRAY),
    ]

    @pipeline_def()
    def conversion_pipeline():
        files, labels = fn.readers.file(file_root=image_dir)
        images_cpu = fn.decoders.image(files)
        # the notebook also converts `images_cpu.gpu()` with the same list; CPU only here
        converted_cpu = [
            fn.color_space_conversion(images_cpu, image_type=inp_t, output_type=out_t)
            for _, inp_t, out_t in conversions
        ]
        return tuple([images_cpu] + converted_cpu)

    batch_size = 32
    pipe = conversion_pipeline(batch_size=batch_size, num_threads=2, device_id=0)
    pipe.build()
    pipe_out = pipe.run()
    for i in range(batch_size):
        rgb = pipe_out[0].at(i)
        f = rgb.astype(np.float32)
        np.testing.assert_array_equal(pipe_out[1].at(i), rgb[..., ::-1])
        ycbcr = pipe_out[2].at(i).astype(np.float32)
        y = 16 + 0.257 * f[..., 0] + 0.504 * f[..., 1] + 0.098 * f[..., 2]
        cb = 128 - 0.148 * f[..., 0] - 0.291 * f[..., 1] + 0.439 * f[..., 2]
        cr = 128 + 0.439 * f[..., 0] - 0.368 * f[..., 1] - 0.071 * f[..., 2]
        assert np.abs(ycbcr - np.stack([y, cb, cr], -1)).max() <= 1.5
        gray = pipe_out[3].at(i)
        assert gray.shape == rgb.shape[:2] + (1,)
        assert np.abs(gray[..., 0].astype(np.float32) - luma(f)).max() <= 1


# --- docs/examples/image_processing/warp.ipynb --------------------------------------------------

def random_transform(index):
    dst_cx, dst_cy = (200, 200)
    src_cx, src_cy = (200, 200)
    # This function uses homogeneous coordinates - hence, 3x3 matrix
    t1 = np.array([[1, 0, -dst_cx], [0, 1, -dst_cy], [0, 0, 1]])

    def u():
        return np.random.uniform(-0.5, 0.5)

    m = np.array([[1 + u(), u(), 0], [u(), 1 + u(), 0], [0, 0, 1]])
    t2 = np.array([[1, 0, src_cx], [0, 1, src_cy], [0, 0, 1]])
    m = (np.matmul(t2, np.matmul(m, t1)))
    return m[0:2, 0:3]


def gen_transforms(batch_size, single_transform_fn):
    out = np.zeros([batch_size, 2, 3])
    for i in range(batch_size):
        out[i, :, :] = single_transform_fn(i)
    return out.astype(np.float32)


def reference_warp_nn(img, m, size, fill):
    """Nearest-neighbour inverse warp sampling pixel centres (DALI's convention)."""
    h, w = size
    ys, xs = np.mgrid[0:h, 0:w]
    sx = m[0, 0] * (xs + 0.5) + m[0, 1] * (ys + 0.5) + m[0, 2]
    sy = m[1, 0] * (xs + 0.5) + m[1, 1] * (ys + 0.5) + m[1, 2]
    ix, iy = np.floor(sx).astype(int), np.floor(sy).astype(int)
    inside = (ix >= 0) & (iy >= 0) & (ix < img.shape[1]) & (iy < img.shape[0])
    out = np.full((h, w, img.shape[2]), fill, img.dtype)
    out[inside] = img[iy[inside], ix[inside]]
    return out


def test_warp_affine(db_folder, originals):
    np.random.seed(seed=123)

    class ExamplePipeline(Pipeline):
        def __init__(self, batch_size, num_threads, device_id, pipelined=True, exec_async=True):
            super(ExamplePipeline, self).__init__(batch_size, num_threads, device_id, seed=12,
                                                  exec_pipelined=pipelined, exec_async=exec_async)
            self.input = ops.readers.Caffe(path=db_folder, random_shuffle=True)
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.transform_source = ops.ExternalSource()
            self.iter = 0
            # the notebook runs warp_gpu and warp_keep_size with device="gpu"
            self.warp_gpu = ops.WarpAffine(device="cpu", size=(400, 400), interp_type=types.INTERP_LINEAR)
            self.warp_cpu = ops.WarpAffine(device="cpu", fill_value=200, size=(400, 400),
                                           interp_type=types.INTERP_NN)
            self.warp_keep_size = ops.WarpAffine(device="cpu", interp_type=types.INTERP_LINEAR)

        def define_graph(self):
            self.transform = self.transform_source()
            self.jpegs, self.labels = self.input()
            images = self.decode(self.jpegs)
            outputs = [images]  # the notebook: images.gpu(), and .gpu() on every input below
            outputs += [self.warp_gpu(images, self.transform)]
            outputs += [self.warp_cpu(images, matrix=self.transform)]
            outputs += [self.warp_keep_size(images, self.transform)]
            return [self.labels, self.transform] + outputs

        def iter_setup(self):
            self.feed_input(self.transform, gen_transforms(self.batch_size, random_transform))

    batch_size = 32
    pipe = ExamplePipeline(batch_size=batch_size, num_threads=2, device_id=0)
    pipe.build()
    pipe_out = pipe.run()
    labels, transform, images, warped_lin, warped_nn, warped_keep = pipe_out
    # the notebook prints the first matrix: np.random.seed(123) makes it the same everywhere
    np.testing.assert_allclose(transform.at(0), [[1.1964692, -0.21386066, 3.4782958],
                                                 [-0.27314854, 1.0513147, 44.366756]], rtol=1e-5)
    for i in range(batch_size):
        img = images.at(i)
        m = transform.at(i)
        assert warped_lin.at(i).shape == (400, 400, 3) and warped_keep.at(i).shape == img.shape
        ref = reference_warp_nn(img, m, (400, 400), 200)
        got = warped_nn.at(i)
        assert got.shape == (400, 400, 3)
        assert np.mean(np.any(got != ref, axis=-1)) < 0.01  # pixel-centre ties may round either way
        # linear, clamped (no fill_value): no fill colour, values within the image's range
        assert warped_lin.at(i).max() <= img.max() and warped_lin.at(i).min() >= img.min()


# --- docs/examples/image_processing/resize (pipeline mode), "Output Size Parameters" --------------

def test_resize_output_size_parameters(db_folder):
    batch_size = 8
    pipe = dali.pipeline.Pipeline(batch_size, 3, 0)
    with pipe:
        files, labels = dali.fn.readers.caffe(path=db_folder, random_shuffle=True, seed=1234)
        images = dali.fn.decoders.image(files, device="cpu")  # "mixed" in the notebook
        width = 100
        height = 100
        out = [
            images,
            # use tensor extent order - height, width
            dali.fn.resize(images, size=[height, width]),
            dali.fn.resize(images, resize_x=width, resize_y=height),
            dali.fn.resize(images, resize_x=width),
            dali.fn.resize(images, size=[0, width]),
            dali.fn.resize(images, resize_y=height),
            dali.fn.resize(images, size=[height, 0]),
        ]
        pipe.set_outputs(*out)
    pipe.build()
    pipe_out = pipe.run()
    for idx in range(batch_size):
        # the notebook's show_outputs(): as_cpu() where the output has it
        imgs = [out.as_cpu().at(idx) if hasattr(out, "as_cpu") else out.at(idx) for out in pipe_out]
        H, W, _ = imgs[0].shape
        assert imgs[1].shape == imgs[2].shape == (100, 100, 3)
        assert imgs[3].shape == imgs[4].shape and imgs[3].shape[1] == 100
        assert abs(imgs[3].shape[0] - 100 * H / W) <= 1
        assert imgs[5].shape == imgs[6].shape and imgs[5].shape[0] == 100
        assert abs(imgs[5].shape[1] - 100 * W / H) <= 1
        np.testing.assert_array_equal(imgs[1], imgs[2])


# --- docs/examples/general/normalize.ipynb, "A simple pipeline" ---------------------------------

def test_normalize_simple(image_dir):
    batch_size = 10
    image_filename = image_dir  # "../data/images"

    class NormalizeSimple(Pipeline):
        def __init__(self, batch_size, num_threads, device_id):
            super(NormalizeSimple, self).__init__(batch_size, num_threads, device_id, seed=42)
            self.input = ops.FileReader(device="cpu", file_root=image_filename)
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.norm = ops.Normalize(device="cpu")

        def define_graph(self):
            read, _ = self.input()
            image = self.decode(read)
            normalized = self.norm(image)
            return image, normalized

    # the notebook's show(): build, run, display out.at(idx)
    pipe = NormalizeSimple(batch_size=batch_size, num_threads=1, device_id=0)
    pipe.build()
    image, normalized = pipe.run()
    for idx in range(batch_size):
        x = image.at(idx).astype(np.float64)
        y = normalized.at(idx)
        assert y.dtype == np.float32 and y.shape == x.shape
        np.testing.assert_allclose(y, (x - x.mean()) / x.std(), atol=1e-4)
