"""TrivialAugmentWide and RandAugment of sluice.experimental.torchvision against torchvision 0.14's:
with the same torch seed the same operations and magnitudes; each operation's pixels within its
stated tolerance (PIL images and uint8 tensors); per image of a batch in order; in DataLoader workers."""
import glob
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
T = pytest.importorskip("torchvision.transforms")
A = pytest.importorskip("torchvision.transforms.autoaugment")
PILImage = pytest.importorskip("PIL.Image")

import sluice.experimental.torchvision as st  # noqa: E402
from sluice import types  # noqa: E402
from sluice.experimental.torchvision import autoaugment as saa  # noqa: E402
from sluice.experimental.torchvision._image import from_image, to_image  # noqa: E402
from sample_images import photo_dataset, sample_data_root  # noqa: E402

JPEGS = sorted(glob.glob(os.path.join(sample_data_root(), "train", "c00[01]",
                                      "*.jpg")))[:8]


def _pil(i=0, size=96):
    return PILImage.open(JPEGS[i]).convert("RGB").crop((0, 0, size + 7 * i, size))


def _tensor(i=0, size=96):
    return torch.as_tensor(np.array(_pil(i, size))).permute(2, 0, 1).contiguous()


def _diff(a, b):
    return np.abs(np.asarray(a).astype(np.int32) - np.asarray(b).astype(np.int32))


OPS = [("Identity", 0.0), ("ShearX", 0.5), ("ShearY", -0.3), ("TranslateX", -17.0), ("TranslateY", 9.0),
       ("Rotate", 40.0), ("Rotate", -135.0), ("Brightness", 0.4), ("Color", -0.6), ("Contrast", 0.7),
       ("Sharpness", 0.8), ("Sharpness", -0.9), ("Posterize", 3), ("Solarize", 120.5), ("AutoContrast", 0.0),
       ("Equalize", 0.0)]
GEOMETRY = ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate")
# the interpolation only concerns the geometric operations
CASES = [(o, m, i) for o, m in OPS for i in ("nearest", "bilinear") if i == "nearest" or o in GEOMETRY]


@pytest.mark.parametrize("kind", ["pil", "tensor"])
@pytest.mark.parametrize("op, magnitude, interp", CASES, ids=[f"{o}{m}-{i}" for o, m, i in CASES])
def test_each_operation_matches_torchvision(op, magnitude, interp, kind):
    """Colour operations and translations: within one level. Rotations and shears: a pixel whose
    source falls on an exact tie between pixels (torch rounds half to even; Pillow rounds its matrix
    to 15 decimals) or at the edge of the image (Pillow's bilinear blends the fill otherwise) may
    take its neighbour: at most 1% of the pixels."""
    x = _pil(2, 160) if kind == "pil" else _tensor(2, 160)
    mode = T.InterpolationMode.NEAREST if interp == "nearest" else T.InterpolationMode.BILINEAR
    theirs = A._apply_op(x, op, magnitude, interpolation=mode, fill=None)
    sluice_interp = types.INTERP_NN if interp == "nearest" else types.INTERP_LINEAR
    ours = from_image(saa._apply_op(to_image(x, "test"), op, magnitude, sluice_interp, 0.0))
    assert type(ours) is type(theirs) and np.asarray(ours).shape == np.asarray(theirs).shape
    d = _diff(ours, theirs)
    if op in ("Rotate", "ShearX", "ShearY"):
        assert (d > 1).mean() <= 0.01
    else:
        assert d.max() <= 1
    if op != "Identity":
        assert _diff(ours, x if kind == "pil" else x.numpy()).max() > 0  # the operation did something


def _recorded(monkeypatch, transform, x, seed, module, attr):
    """The (op, magnitude) list `transform(x)` applies, seeded with `seed`, and its output."""
    calls = []
    original = getattr(module, attr)

    def spy(img, op, magnitude, *args, **kwargs):
        calls.append((op, round(float(magnitude), 5)))
        return original(img, op, magnitude, *args, **kwargs)
    monkeypatch.setattr(module, attr, spy)
    torch.manual_seed(seed)
    out = transform(x)
    monkeypatch.setattr(module, attr, original)
    return calls, out


@pytest.mark.parametrize("kind", ["pil", "tensor"])
@pytest.mark.parametrize("ours, theirs", [
    (st.TrivialAugmentWide(), T.TrivialAugmentWide()),
    (st.TrivialAugmentWide(num_magnitude_bins=5, fill=128), T.TrivialAugmentWide(num_magnitude_bins=5, fill=128)),
    (st.RandAugment(), T.RandAugment()),
    (st.RandAugment(num_ops=3, magnitude=20, interpolation=st.InterpolationMode.BILINEAR),
     T.RandAugment(num_ops=3, magnitude=20, interpolation=T.InterpolationMode.BILINEAR)),
], ids=["trivial", "trivial_bins_fill", "rand", "rand_bilinear"])
def test_the_same_seed_picks_the_same_operations_and_pixels(monkeypatch, ours, theirs, kind):
    """Nearest (the default): at most 1% of the pixels off by more than one level, as one operation.
    Bilinear: each warp is within one level of torchvision's on most pixels, but a following
    Equalize, Sharpness or contrast-raising operation amplifies those levels (Equalize moves whole
    histogram bins): the chain is compared for its operations, shapes and types only."""
    strict = ours.interpolation == st.InterpolationMode.NEAREST
    chosen = set()
    for seed in range(24):
        x = _pil(seed % 4) if kind == "pil" else _tensor(seed % 4)
        ops_a, a = _recorded(monkeypatch, ours, x, seed, saa, "_apply_op")
        ops_b, b = _recorded(monkeypatch, theirs, x, seed, A, "_apply_op")
        assert ops_a == ops_b
        chosen.update(op for op, _ in ops_a)
        assert type(a) is type(b) and np.asarray(a).shape == np.asarray(b).shape
        assert np.asarray(a).dtype == np.asarray(b).dtype == np.uint8
        if strict:
            assert (_diff(a, b) > 1).mean() <= 0.01
    assert len(chosen) >= 8  # the seeds exercise most of the table


def test_a_batch_gets_one_draw_per_image_in_order():
    batch = torch.stack([_tensor(i, 64)[:, :, :64] for i in range(4)])
    torch.manual_seed(5)
    out = st.TrivialAugmentWide()(batch)
    torch.manual_seed(5)
    theirs = T.TrivialAugmentWide()
    assert out.shape == batch.shape and out.dtype == torch.uint8
    for i in range(4):
        assert (_diff(out[i], theirs(batch[i])) > 1).mean() <= 0.01


def test_trivial_augment_recipe_in_dataloader_workers():
    def loader(tv):
        transform = tv.Compose([tv.RandomResizedCrop(48, antialias=True), tv.RandomHorizontalFlip(),
                                tv.TrivialAugmentWide(), tv.PILToTensor()])
        torch.manual_seed(13)  # the workers' seeds derive from it
        return torch.utils.data.DataLoader(photo_dataset(JPEGS, transform), batch_size=4, num_workers=2)

    ours, theirs = list(loader(st)), list(loader(T))
    assert len(ours) == len(theirs) == 2
    for (a, ia), (b, ib) in zip(ours, theirs):
        assert a.shape == b.shape == (4, 3, 48, 48) and a.dtype == b.dtype == torch.uint8
        assert torch.equal(ia, ib)
        assert ((a.int() - b.int()).abs() > 1).float().mean() <= 0.01


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="TrivialAugmentWide: interpolation"):
        st.TrivialAugmentWide(interpolation=st.InterpolationMode.BICUBIC)
    with pytest.raises(NotImplementedError, match="RandAugment: fill"):
        st.RandAugment(fill=[1, 2, 3])
    with pytest.raises(NotImplementedError, match="uint8"):
        st.TrivialAugmentWide()(_tensor().float())
    with pytest.raises(TypeError, match="3 channels"):
        st.RandAugment()(_tensor()[:2])
