"""DALI's automatic augmentation page (docs/auto_aug/auto_aug.rst), which runs the AutoAugment policy
through conditional execution, with `nvidia.dali` changed to `sluice` in the imports. (The
conditionals tutorial and the pipeline page's conditional example are in test_docs_pipeline.py.)"""
import numpy as np

from sluice import pipeline_def, fn, types
from sluice.auto_aug import auto_augment


@pipeline_def(enable_conditionals=True)
def training_pipe(data_dir, image_size):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True)  # "..." on the page
    shapes = fn.peek_image_shape(jpegs)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)  # "mixed" on the page

    # Applies the AutoAugment policy for ImageNet
    augmented_images = auto_augment.auto_augment_image_net(images, shape=shapes)

    resized_images = fn.resize(augmented_images, size=[image_size, image_size])

    return resized_images, labels


def test_auto_aug_rst_auto_augment_image_net(image_dir):
    pipe = training_pipe(image_dir, 32, batch_size=8, num_threads=2, device_id=0, seed=11)
    pipe.build()
    changed = 0
    for _ in range(3):
        images, labels = pipe.run()
        assert set(int(np.array(l)[0]) for l in labels) <= {0, 1}
        for i in range(8):
            img = images.at(i)
            assert img.shape == (32, 32, 3) and img.dtype == np.uint8
    # the policy applies its operations to some of the samples: the same pipeline without it differs
    @pipeline_def
    def plain_pipe(data_dir, image_size):
        jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True)
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        return fn.resize(images, size=[image_size, image_size]), labels

    plain = plain_pipe(image_dir, 32, batch_size=8, num_threads=2, device_id=0, seed=11)
    plain.build()
    aug = training_pipe(image_dir, 32, batch_size=8, num_threads=2, device_id=0, seed=11)
    aug.build()
    for _ in range(3):
        (a, la), (p, lp) = aug.run(), plain.run()
        assert [int(np.array(x)[0]) for x in la] == [int(np.array(x)[0]) for x in lp]
        changed += sum(not np.array_equal(a.at(i), p.at(i)) for i in range(8))
    assert changed > 0
