"""`sluice prepare`: re-encoded WebDataset shards (sluice.tools.prepare)."""
import io
import json
import os
import pathlib
import subprocess
import sys
import tarfile

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin

import sluice
from sluice import _sluice, fn
from sluice.tools import prepare

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_SIDE = 128  # small, so the tests are quick; the big image and the EXIF one exceed it

# (class, name, size as stored, mode, EXIF orientation or None, format)
IMAGES = [
    ("cat", "a_small.jpg", (60, 40), "RGB", None, "JPEG"),
    ("cat", "b_wide.jpg", (300, 120), "RGB", None, "JPEG"),        # > max-side
    ("cat", "c_rotated.jpg", (90, 200), "RGB", 6, "JPEG"),         # stored portrait, shown landscape
    ("cat", "d_gray.jpg", (100, 70), "L", None, "JPEG"),
    ("dog", "e_progressive.jpg", (150, 150), "RGB", None, "JPEG-progressive"),
    ("dog", "f_alpha.png", (64, 48), "RGBA", None, "PNG"),
    ("dog", "g_cmyk.jpg", (80, 80), "CMYK", None, "JPEG"),
    ("dog", "h_tall.jpg", (50, 400), "RGB", None, "JPEG"),          # > max-side
]
CLASSES = {"cat": 0, "dog": 1}


def _picture(size, mode, seed):
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 3) % 256], -1)
    noise = rng.integers(0, 40, size=(h, w, 3))
    rgb = Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8), "RGB")
    if mode == "RGBA":
        rgb = rgb.convert("RGBA")
    elif mode != "RGB":
        rgb = rgb.convert(mode)
    return rgb


def make_dataset(root):
    train = root / "train"
    for i, (cls, name, size, mode, orientation, fmt) in enumerate(IMAGES):
        d = train / cls
        d.mkdir(parents=True, exist_ok=True)
        im = _picture(size, mode, i)
        kw = {}
        if orientation:
            exif = Image.Exif()
            exif[0x0112] = orientation
            kw["exif"] = exif.tobytes()
        if fmt == "PNG":
            im.save(d / name, "PNG")
        else:
            im.save(d / name, "JPEG", quality=95, progressive=fmt.endswith("progressive"), **kw)
    (train / "dog" / "z_corrupt.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not a JPEG" * 10)
    (train / "dog" / "notes.txt").write_text("not an image, not listed")
    return train


def expected_keys():
    return {f"{c}_{os.path.splitext(n)[0]}": CLASSES[c] for c, n, *_ in IMAGES}


def run_prepare(src, out, *extra):
    return prepare.main([str(src), "-o", str(out), "--max-side", str(MAX_SIDE), "--shard-size", "3",
                       "--no-progress", *extra])


def shard_files(out):
    return sorted(p.name for p in pathlib.Path(out).iterdir() if p.name.startswith("shard-"))


def read_members(tar):
    with tarfile.open(tar) as tf:
        return [(m, tf.extractfile(m).read()) for m in tf.getmembers()]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    make_dataset(root)
    return root


@pytest.fixture(scope="module")
def prepared(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("prepared") / "out"
    assert run_prepare(dataset, out, "--workers", "1") == 0
    return out


def test_output_decodes_capped_baseline_420_with_labels(prepared):
    names = shard_files(prepared)
    # 9 image files (one corrupt) at 3 per shard: the plan has 3 shards, whatever is skipped.
    assert names == [f"shard-{s:06d}.{e}" for s in range(3) for e in ("idx", "tar")]
    want = expected_keys()
    seen = {}
    for tar in sorted(pathlib.Path(prepared).glob("*.tar")):
        members = read_members(tar)
        for m, _ in members:
            assert (m.mtime, m.uid, m.gid, m.mode, m.uname, m.gname) == (0, 0, 0, 0o644, "", "")
        byname = dict((m.name, data) for m, data in members)
        for name, data in byname.items():
            key, ext = name.split(".", 1)
            assert ext in ("jpg", "cls")
            if ext == "cls":
                continue
            assert int(byname[key + ".cls"].decode("ascii")) == want[key]
            im = Image.open(io.BytesIO(data))
            assert im.format == "JPEG"
            assert max(im.size) <= MAX_SIDE
            assert "progressive" not in im.info and "progression" not in im.info
            assert im.mode in ("RGB", "L")
            if im.mode == "RGB":
                assert im.layers == 3 and JpegImagePlugin.get_sampling(im) == 2  # 4:2:0
            assert 0x0112 not in im.getexif()
            im.load()
            seen[key] = im
    assert set(seen) == set(want)  # the corrupt file is skipped, the .txt is not an image
    assert seen["cat_b_wide"].size == (MAX_SIDE, 51)            # 300x120 -> 128x51
    assert seen["dog_h_tall"].size == (16, MAX_SIDE)            # 50x400 -> 16x128
    assert seen["cat_a_small"].size == (60, 40)                 # never upscaled
    assert seen["cat_c_rotated"].size == (MAX_SIDE, 58)          # EXIF 6: 90x200 shown as 200x90
    assert seen["cat_d_gray"].mode == "L"
    assert seen["dog_f_alpha"].mode == "RGB" and seen["dog_g_cmyk"].mode == "RGB"
    plan = json.loads((pathlib.Path(prepared) / "prepare.json").read_text())
    assert plan["classes"] == ["cat", "dog"] and plan["samples"] == 9 and plan["shards"] == 3


def test_exif_orientation_is_applied(dataset, prepared):
    from PIL import ImageOps
    src = ImageOps.exif_transpose(Image.open(dataset / "train" / "cat" / "c_rotated.jpg")).convert("RGB")
    src = src.resize((MAX_SIDE, 58), Image.LANCZOS)
    for tar in pathlib.Path(prepared).glob("*.tar"):
        for m, data in read_members(tar):
            if m.name == "cat_c_rotated.jpg":
                got = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)
                assert np.abs(got - np.asarray(src, dtype=np.int16)).mean() < 6
                return
    pytest.fail("cat_c_rotated.jpg not found")


def test_corrupt_image_reported_and_skipped_or_strict_fails(dataset, tmp_path, capsys):
    assert run_prepare(dataset, tmp_path / "a", "--workers", "1") == 0
    err = capsys.readouterr().err
    assert "z_corrupt.jpg" in err and "1 skipped" in err and "8 images" in err
    assert "size before" in err and "ratio" in err
    assert run_prepare(dataset, tmp_path / "b", "--workers", "1", "--strict") == 1
    err = capsys.readouterr().err
    assert "z_corrupt.jpg" in err
    assert not [f for f in os.listdir(tmp_path / "b") if f.endswith(".tmp")]


def _reader_pipe(prepared, with_index):
    tars = sorted(str(p) for p in pathlib.Path(prepared).glob("*.tar"))
    idxs = [t[:-4] + ".idx" for t in tars] if with_index else []
    pipe = sluice.Pipeline(batch_size=8, num_threads=1, device_id=None, seed=1, prefetch_queue_depth=1)
    with pipe:
        jpg, cls = fn.readers.webdataset(paths=tars, index_paths=idxs, ext=["jpg", "cls"], name="R")
        img = fn.decoders.image(jpg)
        pipe.set_outputs(img, cls, jpg)
    pipe.build()
    return pipe


@pytest.mark.parametrize("with_index", [True, False])
def test_readers_webdataset_reads_output(prepared, with_index):
    pipe = _reader_pipe(prepared, with_index)
    assert pipe.epoch_size("R") == 8
    img, cls, jpg = pipe.run()
    labels = sorted(int(bytes(np.asarray(cls.at(i))).decode()) for i in range(8))
    assert labels == sorted(expected_keys().values())
    sizes = []
    for i in range(8):
        a = np.asarray(img.at(i))
        assert a.ndim == 3 and a.shape[2] == 3 and max(a.shape[:2]) <= MAX_SIDE
        pil = Image.open(io.BytesIO(bytes(np.asarray(jpg.at(i)))))
        assert a.shape[:2] == (pil.size[1], pil.size[0])
        sizes.append(a.shape[:2])
    assert (58, MAX_SIDE) in sizes


def test_index_is_wds_index_of_tar(prepared):
    for tar in pathlib.Path(prepared).glob("*.tar"):
        idx = tar.with_suffix(".idx").read_bytes()
        assert idx == _sluice.wds_index(str(tar))
        assert idx.startswith(b"v1.2 ")


def _all_bytes(out):
    return {n: (pathlib.Path(out) / n).read_bytes() for n in shard_files(out) + ["prepare.json"]}


def test_deterministic_across_runs_and_worker_counts(dataset, prepared, tmp_path):
    assert run_prepare(dataset, tmp_path / "again", "--workers", "1") == 0
    assert run_prepare(dataset, tmp_path / "two", "--workers", "2") == 0
    ref = _all_bytes(prepared)
    assert _all_bytes(tmp_path / "again") == ref
    assert _all_bytes(tmp_path / "two") == ref


def test_rerun_skips_finished_shards_and_completes_missing(dataset, prepared, tmp_path):
    out = tmp_path / "out"
    assert run_prepare(dataset, out, "--workers", "1") == 0
    ref = _all_bytes(out)
    mtimes = {n: os.stat(out / n).st_mtime_ns for n in shard_files(out)}
    os.remove(out / "shard-000001.idx")       # as if killed between the renames
    os.remove(out / "shard-000002.tar")
    (out / "shard-000002.idx").write_bytes(b"v1.2 0\n")  # an index that does not match
    assert run_prepare(dataset, out, "--workers", "2") == 0
    assert _all_bytes(out) == ref
    assert os.stat(out / "shard-000000.tar").st_mtime_ns == mtimes["shard-000000.tar"]
    assert os.stat(out / "shard-000000.idx").st_mtime_ns == mtimes["shard-000000.idx"]
    # A third run rewrites nothing.
    mtimes = {n: os.stat(out / n).st_mtime_ns for n in shard_files(out)}
    assert run_prepare(dataset, out, "--workers", "1") == 0
    assert {n: os.stat(out / n).st_mtime_ns for n in shard_files(out)} == mtimes


def test_other_options_refused_without_overwrite(dataset, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_prepare(dataset, out, "--workers", "1") == 0
    assert prepare.main([str(dataset), "-o", str(out), "--max-side", "64", "--shard-size", "3",
                         "--no-progress", "--workers", "1"]) == 1
    assert "other options" in capsys.readouterr().err
    assert prepare.main([str(dataset), "-o", str(out), "--max-side", "64", "--shard-size", "3",
                         "--no-progress", "--workers", "1", "--overwrite"]) == 0
    for tar in out.glob("*.tar"):
        for m, data in read_members(tar):
            if m.name.endswith(".jpg"):
                assert max(Image.open(io.BytesIO(data)).size) <= 64


def _member(name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    return ti


def test_webdataset_input_keeps_other_components(dataset, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    samples = []
    for i, (cls, name, size, mode, orientation, fmt) in enumerate(IMAGES[:5]):
        data = (dataset / "train" / cls / name).read_bytes()
        samples.append((f"s{i:03d}", data, str(CLASSES[cls]).encode(), json.dumps({"i": i}).encode()))
    for shard in range(2):
        with tarfile.open(src / f"in-{shard}.tar", "w", format=tarfile.GNU_FORMAT) as tf:
            for key, jpg, cls, meta in samples[shard * 3:(shard + 1) * 3]:
                for ext, data in (("jpg", jpg), ("cls", cls), ("json", meta), ("txt", key.encode() * 3)):
                    tf.addfile(_member(f"{key}.{ext}", data), io.BytesIO(data))
    with tarfile.open(src / "in-2.tar", "w", format=tarfile.GNU_FORMAT) as tf:  # a PNG sample
        png = (dataset / "train" / "dog" / "f_alpha.png").read_bytes()
        for name, data in (("p.png", png), ("p.cls", b"1")):
            tf.addfile(_member(name, data), io.BytesIO(data))
    out = tmp_path / "out"
    assert prepare.main([str(src), "-o", str(out), "--max-side", str(MAX_SIDE), "--shard-size", "4",
                         "--no-progress", "--workers", "2"]) == 0
    assert shard_files(out) == ["shard-000000.idx", "shard-000000.tar", "shard-000001.idx", "shard-000001.tar"]
    got = {}
    for tar in sorted(out.glob("*.tar")):
        for m, data in read_members(tar):
            got[m.name] = data
    order = [n for tar in sorted(out.glob("*.tar")) for n in [m.name for m, _ in read_members(tar)]]
    want = [f"{key}.{ext}" for key, *_ in samples for ext in ("jpg", "cls", "json", "txt")]
    assert order == want + ["p.jpg", "p.cls"]  # p.png re-encoded and renamed
    assert Image.open(io.BytesIO(got["p.jpg"])).format == "JPEG" and got["p.cls"] == b"1"
    for i, (key, jpg, cls, meta) in enumerate(samples):
        assert got[f"{key}.cls"] == cls and got[f"{key}.json"] == meta and got[f"{key}.txt"] == key.encode() * 3
        im = Image.open(io.BytesIO(got[f"{key}.jpg"]))
        assert max(im.size) <= MAX_SIDE and "progressive" not in im.info
    # readers.webdataset reads the extra components through the index.
    tars = sorted(str(p) for p in out.glob("*.tar"))
    pipe = sluice.Pipeline(batch_size=5, num_threads=1, device_id=None, seed=1, prefetch_queue_depth=1)
    with pipe:
        meta, txt = fn.readers.webdataset(paths=tars, index_paths=[t[:-4] + ".idx" for t in tars],
                                          ext=["json", "txt"])
        pipe.set_outputs(meta, txt)
    pipe.build()
    meta, txt = pipe.run()
    assert sorted(json.loads(bytes(np.asarray(meta.at(i))))["i"] for i in range(5)) == list(range(5))


def test_module_entry_point(dataset, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-m", "sluice.tools.prepare", str(dataset / "train"), "-o", str(tmp_path / "o"),
                        "--max-side", str(MAX_SIDE), "--workers", "1", "--no-progress"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "8 images" in r.stderr and "1 skipped" in r.stderr
    assert shard_files(tmp_path / "o") == ["shard-000000.idx", "shard-000000.tar"]
