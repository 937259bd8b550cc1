"""The photographs the eager-API tests read (dynamic mode, debug mode, the torchvision API, the
DataLoader proxy): a small set made as `make demo` makes sample_data/ (scripts/make_sample_data.sh
--small: 4 classes c000..c003 of 16 JPEGs, deterministic, a few seconds), once, under build/ (a
temporary folder where the tree is read-only). Always this set, whether or not sample_data/ exists,
so a fresh clone's `make test` reads the same pixels as a developer's tree."""
import fcntl
import os
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _has_photos(folder):
    return any(pathlib.Path(folder).glob("train/c000/*.jpg"))


def sample_data_root():
    """A folder with train/c000.. class folders of JPEGs; made on first use when absent."""
    try:
        (ROOT / "build").mkdir(exist_ok=True)
        small = ROOT / "build" / "test_sample_data"
        lock_path = ROOT / "build" / "test_sample_data.lock"
        lock_path.touch()
    except OSError:  # a read-only checkout (the wheel matrix mounts it so)
        small = pathlib.Path(tempfile.gettempdir()) / "sluice_test_sample_data"
        lock_path = pathlib.Path(tempfile.gettempdir()) / "sluice_test_sample_data.lock"
    with open(lock_path, "w") as lock:  # one maker when several pytest processes start at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _has_photos(small):
            subprocess.run(["bash", str(ROOT / "scripts" / "make_sample_data.sh"), "--small", "--force", str(small)],
                           check=True, stdout=subprocess.DEVNULL, timeout=300,
                           env=dict(os.environ, SLUICE_SAMPLE_DATA_NO_APT="1"))
    return str(small)


def photo_dataset(files, transform):
    """A torch Dataset of (transform(the RGB photograph), index) over `files`, for the DataLoader
    tests of the torchvision-style transforms (torch imported here: only those tests need it)."""
    import torch
    from PIL import Image

    class PhotoDataset(torch.utils.data.Dataset):
        def __len__(self):
            return len(files)

        def __getitem__(self, i):
            return transform(Image.open(files[i]).convert("RGB")), i

    return PhotoDataset()
