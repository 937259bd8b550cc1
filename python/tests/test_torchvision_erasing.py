"""RandomErasing of sluice.experimental.torchvision against torchvision 0.14's: with the same torch
seed the same window and values, exactly (uint8 and float tensors, every kind of value), one draw
per image of a batch in order, in DataLoader workers; PIL images refused as torchvision refuses them."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
T = pytest.importorskip("torchvision.transforms")

import sluice.experimental.torchvision as st  # noqa: E402


def _image(seed, dtype=torch.uint8):
    g = torch.Generator().manual_seed(100 + seed)
    x = (torch.rand(3, 60 + seed, 80, generator=g) * 255).to(torch.uint8)
    return x if dtype == torch.uint8 else x.float() / 255


ARGS = [dict(), dict(p=1.0, value=7), dict(p=1.0, value=(1.7, 200, 3)), dict(p=1.0, value="random"),
        dict(p=0.9, scale=(0.5, 0.9), ratio=(0.5, 2.0)), dict(p=1.0, scale=(0.98, 1.0))]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32], ids=["uint8", "float32"])
@pytest.mark.parametrize("kwargs", ARGS, ids=["default", "number", "per_channel", "random", "ranges", "no_window"])
def test_the_same_seed_erases_the_same_window_exactly(kwargs, dtype):
    erased = 0
    for seed in range(6):
        x = _image(seed, dtype)
        torch.manual_seed(seed)
        a = st.RandomErasing(**kwargs)(x)
        torch.manual_seed(seed)
        b = T.RandomErasing(**kwargs)(x)
        assert a.dtype == b.dtype == dtype and torch.equal(a, b)
        torch.manual_seed(seed)  # both consume torch's generator alike: the next draws agree
        st.RandomErasing(**kwargs)(x)
        after_ours = torch.rand(1)
        torch.manual_seed(seed)
        T.RandomErasing(**kwargs)(x)
        assert torch.equal(after_ours, torch.rand(1))
        erased += not torch.equal(a, x)
    if kwargs.get("scale") != (0.98, 1.0):
        assert erased > 0  # the comparisons include erased images
    else:
        assert erased == 0  # no window fits: torchvision gives the image back


def test_a_batch_gets_one_draw_per_image_in_order():
    batch = torch.stack([_image(0) for _ in range(4)])
    torch.manual_seed(2)
    out = st.RandomErasing(p=0.7, value=(9, 8, 7))(batch)
    torch.manual_seed(2)
    theirs = T.RandomErasing(p=0.7, value=(9, 8, 7))
    for i in range(4):
        assert torch.equal(out[i], theirs(batch[i]))


class _Images(torch.utils.data.Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.transform(_image(0)), i


def test_in_dataloader_workers():
    def loader(tv):
        torch.manual_seed(17)
        return torch.utils.data.DataLoader(_Images(tv.RandomErasing(p=0.8)), batch_size=4, num_workers=2)
    ours, theirs = list(loader(st)), list(loader(T))
    assert len(ours) == len(theirs) == 2
    for (a, _), (b, _) in zip(ours, theirs):
        assert torch.equal(a, b)
    assert any(not torch.equal(a[k], _image(0)) for a, _ in ours for k in range(4))


def test_bad_arguments_and_inputs():
    PIL = pytest.importorskip("PIL.Image")
    with pytest.raises(TypeError, match="RandomErasing: img should be Tensor"):
        st.RandomErasing(p=1.0)(PIL.fromarray(np.zeros((8, 8, 3), np.uint8)))
    with pytest.raises(ValueError, match="random"):
        st.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="Scale should be between 0 and 1"):
        st.RandomErasing(scale=(0.5, 1.5))
    with pytest.raises(ValueError, match="RandomErasing: .*number of input channels"):
        st.RandomErasing(p=1.0, value=(1, 2))(_image(0))
