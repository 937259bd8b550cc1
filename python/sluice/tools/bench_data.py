"""The dataset sluice bench reads: a folder of train/<class>/*.jpg (with wds/*.tar shards for the
train-wds pipeline), or a `sluice prepare` output (shards + prepare.json); its size; the sample set
built when it is missing."""
import glob
import os
import subprocess
import sys

# scripts/make_sample_data.sh of a source checkout (python/sluice/tools -> the repository root); an
# installed package has none.
SAMPLE_DATA_SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "make_sample_data.sh")


def _dataset_size(train_dir: str) -> int:
    return sum(len(files) for _, _, files in os.walk(train_dir))


def prepared_shards(data: str):
    """The shards of a dataset written by `sluice prepare` (a folder with prepare.json), else None."""
    if not os.path.exists(os.path.join(data, "prepare.json")):
        return None
    return sorted(glob.glob(os.path.join(data, "shard-*.tar")))


def dataset_images(data: str) -> int:
    shards = prepared_shards(data)
    if shards is None:
        return _dataset_size(os.path.join(data, "train"))
    total = 0
    for t in shards:
        with open(t[:-4] + ".idx", encoding="ascii") as f:
            total += int(f.readline().split()[1])
    return total


def dataset_bytes(data: str) -> int:
    """Bytes of the images the pipelines read: the image files, or the prepared shards."""
    shards = prepared_shards(data)
    if shards is not None:
        return sum(os.path.getsize(t) for t in shards)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(os.path.join(data, "train")) for f in files)


def ensure_data(data: str):
    """Builds the sample set in `data` (scripts/make_sample_data.sh) unless a dataset is there."""
    if os.path.isdir(os.path.join(data, "train")) or prepared_shards(data):
        return
    if not os.path.exists(SAMPLE_DATA_SCRIPT):
        raise SystemExit(f"sluice bench: no dataset at {data} (expected {data}/train/<class>/*.jpg); "
                         "build one with scripts/make_sample_data.sh DIR")
    print(f"sluice bench: building the sample dataset in {data} ...", file=sys.stderr)
    subprocess.run(["bash", SAMPLE_DATA_SCRIPT, data], check=True)
