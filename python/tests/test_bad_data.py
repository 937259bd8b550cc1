"""Bad data never mislabels a sample (issue 13).

Every kind of decode failure, at different rows of a batch, through the three CPU decoders, then
resize, crop_mirror_normalize (mirrored by a coin flip) and the coin flip itself as an output: with
on_error="replace" each row of every batch is one sample. Checked from the pixels: the red level of
an image names its class and its green gradient runs left to right, so a row's label and flip can be
read back from its image. Reader faults (files deleted mid-epoch, shards truncated or rewritten in
place, an index past its archive, empty datasets) through Python, with the error texts.
"""
import io
import os

import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, types
from sluice.plugin.pytorch import DALIGenericIterator

from conftest import requires_file_reader

pytestmark = requires_file_reader

W, H = 96, 64
OUT = 32
BAD_LABEL = 99  # labels of the corrupt files: a row showing it is a mislabelled row


def gradient_image(cls):
    a = np.empty((H, W, 3), np.uint8)
    a[..., 0] = 30 + 50 * cls
    a[..., 1] = np.linspace(0, 255, W)[None, :].astype(np.uint8)
    a[..., 2] = 128
    return a


def make_bad_files(d, template_jpeg):
    """The decode failures of the issue, by name: truncated, empty, garbage after the header, a PNG
    named .jpg that is itself truncated, a JPEG declaring 65,000 x 65,000 pixels."""
    jb = template_jpeg
    bad = {}
    bad["truncated.jpg"] = jb[: len(jb) // 3]
    bad["zero.jpg"] = b""
    sos = jb.index(b"\xff\xda")
    rng = np.random.default_rng(0)
    bad["garbage.jpg"] = jb[: sos + 14] + rng.integers(0, 256, len(jb) - sos - 14, dtype=np.uint8).tobytes()
    buf = io.BytesIO()
    Image.fromarray(gradient_image(1)).save(buf, "PNG")
    bad["png_truncated.jpg"] = buf.getvalue()[: len(buf.getvalue()) // 2]
    sof = jb.index(b"\xff\xc0")
    b = bytearray(jb)
    b[sof + 5:sof + 7] = (65000).to_bytes(2, "big")
    b[sof + 7:sof + 9] = (65000).to_bytes(2, "big")
    bad["huge.jpg"] = bytes(b)
    paths = []
    for name, data in bad.items():
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(data)
        paths.append(p)
    return paths


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """27 good JPEGs of 4 classes and the 5 corrupt files, at rows 1, 8+0, 8+5, 16+7 and 24+3 of
    batches of 8 (so failures sit at the first, a middle and the last row of a batch)."""
    d = str(tmp_path_factory.mktemp("bad_data"))
    good = []
    for i in range(27):
        cls = i % 4
        p = os.path.join(d, f"good_{i:02d}_c{cls}.jpg")
        Image.fromarray(gradient_image(cls)).save(p, quality=95)
        good.append((p, cls))
    with open(good[0][0], "rb") as f:
        bad = make_bad_files(d, f.read())
    files = [g for g in good]
    for slot, p in zip([1, 8, 13, 23, 27], bad):
        files.insert(slot, (p, BAD_LABEL))
    assert len(files) == 32
    return [p for p, _ in files], [c for _, c in files], bad


def build(files, labels, decoder, threads, depth, seed=1234):
    pipe = sluice.Pipeline(batch_size=8, num_threads=threads, device_id=None, seed=seed, prefetch_queue_depth=depth)
    with pipe:
        jpegs, label = fn.readers.file(files=files, labels=labels, name="Reader")
        if decoder == "image":
            img = fn.decoders.image(jpegs, on_error="replace", name="decoder")
        elif decoder == "image_random_crop":
            img = fn.decoders.image_random_crop(jpegs, on_error="replace", random_area=[0.3, 1.0], name="decoder")
        else:
            img = fn.decoders.image_crop(jpegs, crop=(48, 64), on_error="replace", name="decoder")
        img = fn.resize(img, size=(OUT, OUT))
        flip = fn.random.coin_flip(probability=0.5)
        img = fn.crop_mirror_normalize(img, mirror=flip, dtype=types.FLOAT, output_layout="HWC",
                                       mean=[0.0], std=[1.0])
        pipe.set_outputs(img, label, flip)
    pipe.build()
    return pipe


def read_row(img):
    """(class, mirrored) read back from an output image."""
    red = float(img[..., 0].mean())
    cls = int(round((red - 30) / 50))
    g = img[..., 1].mean(axis=0)
    third = len(g) // 3
    mirrored = g[:third].mean() > g[-third:].mean()
    assert abs(red - (30 + 50 * cls)) < 8, red
    return cls, mirrored


def reference(path, flip):
    """The row re-made from its source file alone (decoders.image only: the others crop at random)."""
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None, seed=1)
    with pipe:
        jpegs, _ = fn.readers.file(files=[path])
        img = fn.resize(fn.decoders.image(jpegs), size=(OUT, OUT))
        img = fn.crop_mirror_normalize(img, mirror=int(flip), dtype=types.FLOAT, output_layout="HWC",
                                       mean=[0.0], std=[1.0])
        pipe.set_outputs(img)
    pipe.build()
    return np.array(pipe.run()[0].as_array()[0])


@pytest.mark.parametrize("decoder", ["image", "image_random_crop", "image_crop"])
def test_every_row_is_one_sample_whatever_fails(dataset, decoder):
    files, labels, bad = dataset
    runs = {}
    for threads in (1, 2):
        for depth in (1, 3):
            pipe = build(files, labels, decoder, threads, depth)
            batches = []
            for it in range(4):  # one epoch: 32 files
                img, lab, flip = pipe.run()
                img, lab, flip = img.as_array(), lab.as_array().reshape(-1), flip.as_array().reshape(-1)
                assert img.shape[0] == lab.shape[0] == flip.shape[0] == 8
                for r in range(8):
                    assert lab[r] != BAD_LABEL, f"iteration {it} row {r}: a corrupt file's label"
                    cls, mirrored = read_row(img[r])
                    assert cls == lab[r], f"iteration {it} row {r}: image of class {cls} labelled {lab[r]}"
                    assert mirrored == bool(flip[r]), f"iteration {it} row {r}: flip {flip[r]}, image mirrored {mirrored}"
                batches.append((img.copy(), lab.copy(), flip.copy()))
            log = pipe.error_log()
            assert sorted(r.path for r in log) == sorted(bad)
            for rec in log:
                assert rec.op == "decoder"
                assert rec.source == rec.path and rec.member == "" and rec.offset == -1
                assert rec.iteration == [1, 8, 13, 23, 27][bad.index(rec.path)] // 8
                assert rec.sample == [1, 8, 13, 23, 27][bad.index(rec.path)] % 8
                assert rec.replaced_by != rec.sample and rec.message
            stats = pipe.executor_statistics()
            assert stats["decoder"]["replaced_samples"] == 5
            assert stats["Reader"]["replaced_samples"] == 0
            runs[(threads, depth)] = batches
    # The same batches whatever num_threads and the prefetch depth.
    first = runs[(1, 1)]
    for key, batches in runs.items():
        for (a, la, fa), (b, lb, fb) in zip(first, batches):
            np.testing.assert_array_equal(la, lb, err_msg=str(key))
            np.testing.assert_array_equal(fa, fb, err_msg=str(key))
            np.testing.assert_array_equal(a, b, err_msg=str(key))


def test_replaced_rows_equal_their_source_file_re_decoded(dataset):
    files, labels, bad = dataset
    pipe = build(files, labels, "image", 2, 3)
    for it in range(4):
        img, lab, flip = pipe.run()
        for r in range(8):
            src = img.source_info(r)
            assert src == lab.source_info(r), f"iteration {it} row {r}: image and label from different files"
            assert src not in bad
            np.testing.assert_array_equal(np.array(img.as_array()[r]), reference(src, flip.as_array().reshape(-1)[r]))


def test_replacement_survives_checkpoint_restore(dataset):
    files, labels, _ = dataset

    def make(checkpoint=None):
        pipe = sluice.Pipeline(batch_size=8, num_threads=2, device_id=None, seed=99, enable_checkpointing=True,
                               checkpoint=checkpoint)
        with pipe:
            jpegs, label = fn.readers.file(files=files, labels=labels, random_shuffle=True, name="Reader")
            img = fn.resize(fn.decoders.image(jpegs, on_error="replace"), size=(OUT, OUT))
            pipe.set_outputs(img, label, fn.random.coin_flip())
        pipe.build()
        return pipe

    a = make()
    for _ in range(3):
        a.run()
    cp = a.checkpoint()
    want = [[o.as_array().copy() for o in a.run()] for _ in range(5)]
    b = make(cp)
    got = [[o.as_array().copy() for o in b.run()] for _ in range(5)]
    for w, g in zip(want, got):
        for x, y in zip(w, g):
            np.testing.assert_array_equal(x, y)
    assert [(r.iteration, r.sample, r.path) for r in b.error_log()] == \
        [(r.iteration, r.sample, r.path) for r in a.error_log() if r.iteration >= 3]


def test_iterator_error_log(dataset):
    files, labels, bad = dataset
    pipe = build(files, labels, "image", 1, 2)
    it = DALIGenericIterator(pipe, ["img", "label", "flip"], reader_name="Reader")
    for batch in it:
        assert (batch[0]["label"] != BAD_LABEL).all()
    assert sorted(r.path for r in it.error_log()) == sorted(bad)
    r = it.error_log()[0]
    assert "decoder" in repr(r) and r.path in repr(r)


# --------------------------------------------------------------------------------- reader faults
def labelled_files(d, n=8):
    paths = []
    for i in range(n):
        p = os.path.join(d, f"f{i}.bin")
        with open(p, "wb") as f:
            f.write(f"label={100 + i} ".encode() + b"x" * (40 + i))
        paths.append(p)
    return paths


def file_pipe(paths, on_error, depth=1):
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=3, prefetch_queue_depth=depth)
    with pipe:
        data, label = fn.readers.file(files=paths, labels=list(range(100, 100 + len(paths))), on_error=on_error,
                                      name="Reader")
        pipe.set_outputs(data, label)
    pipe.build()
    return pipe


def check_coherent(data, label):
    for r in range(len(label)):
        lab = int(np.array(label[r]).reshape(-1)[0])
        assert bytes(np.array(data[r])) == f"label={lab} ".encode() + b"x" * (lab - 60)
        assert data.source_info(r).endswith(f"f{lab - 100}.bin") and data.source_info(r) == label.source_info(r)


def test_file_deleted_mid_epoch_raises_naming_reader_and_path(tmp_path):
    paths = labelled_files(str(tmp_path))
    pipe = file_pipe(paths, "raise")
    pipe.run()
    os.unlink(paths[6])
    with pytest.raises(sluice.SluiceError) as e:
        for _ in range(4):
            pipe.run()
    msg = str(e.value)
    assert "[Reader]" in msg and paths[6] in msg and "No such file or directory" in msg


def test_file_deleted_mid_epoch_is_replaced_with_its_whole_row(tmp_path):
    paths = labelled_files(str(tmp_path))
    pipe = file_pipe(paths, "replace")
    pipe.run()
    os.unlink(paths[6])
    for _ in range(4):
        data, label = pipe.run()
        check_coherent(data, label)
    log = pipe.error_log()
    assert log and all(r.path == paths[6] and r.op == "Reader" and r.sample == 2 and r.replaced_by == 3 for r in log)
    assert all("No such file or directory" in r.message for r in log)
    assert pipe.executor_statistics()["Reader"]["replaced_samples"] == len(log)


def test_directory_or_fifo_in_place_of_a_file_is_an_error_not_a_hang(tmp_path):
    paths = labelled_files(str(tmp_path))
    os.unlink(paths[1])
    os.mkfifo(paths[1])
    with pytest.raises(sluice.SluiceError, match="not a regular file: " + paths[1]):
        file_pipe(paths, "raise").run()


def make_shard(d):
    import tarfile
    tar = os.path.join(d, "shard.tar")
    with tarfile.open(tar, "w", format=tarfile.GNU_FORMAT) as t:
        for k in range(8):
            for ext, data in (("txt", f"label={100 + k}".encode() + b"y" * 600), ("cls", str(100 + k).encode())):
                info = tarfile.TarInfo(f"s{k}.{ext}")
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    return tar


def shard_pipe(tar, on_error="raise", index=None):
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=3, prefetch_queue_depth=1)
    with pipe:
        txt, cls = fn.readers.webdataset(paths=[tar], index_paths=[index] if index else [], ext=["txt", "cls"],
                                         on_error=on_error, dont_use_mmap=False, name="Shards")
        pipe.set_outputs(txt, cls)
    pipe.build()
    return pipe


def test_shard_truncated_mid_epoch_is_an_error_naming_the_archive(tmp_path):
    tar = make_shard(str(tmp_path))
    pipe = shard_pipe(tar)
    pipe.run()
    os.truncate(tar, 2048)
    with pytest.raises(sluice.SluiceError) as e:
        for _ in range(4):
            pipe.run()
    msg = str(e.value)
    assert "[Shards]" in msg and tar in msg
    assert "changed size since it was opened" in msg or "the file shrank while being read" in msg


def test_shard_rewritten_in_place_is_an_error(tmp_path):
    tar = make_shard(str(tmp_path))
    pipe = shard_pipe(tar)
    pipe.run()
    with open(tar, "rb") as f:
        data = bytearray(f.read())
    data[512:-1024] = data[512:-1024][::-1]
    with open(tar, "r+b") as f:
        f.write(data)
    os.utime(tar, (2_000_000_000, 2_000_000_000))
    with pytest.raises(sluice.SluiceError, match="was modified since it was opened"):
        for _ in range(4):
            pipe.run()


def test_index_past_the_end_of_its_tar_is_an_error(tmp_path):
    tar = make_shard(str(tmp_path))
    idx = os.path.join(str(tmp_path), "bad.idx")
    with open(idx, "w") as f:
        f.write("v1.2 1\ntxt 512 606 s0.txt cls 99840 3 s0.cls\n")
    with pytest.raises(sluice.SluiceError) as e:
        shard_pipe(tar, index=idx)
    msg = str(e.value)
    assert "[Shards]" in msg and "bad.idx" in msg and "lies outside the archive" in msg


def test_empty_datasets_are_errors_naming_the_reader(tmp_path):
    lst = tmp_path / "list.txt"
    lst.write_text("\n")
    with pytest.raises(sluice.SluiceError, match=r"\[R\].*lists no files"):
        p = sluice.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with p:
            p.set_outputs(*fn.readers.file(file_list=str(lst), name="R"))
        p.build()
    (tmp_path / "root" / "cat").mkdir(parents=True)
    (tmp_path / "root" / "cat" / "notes.txt").write_text("no image here")
    with pytest.raises(sluice.SluiceError, match=r"\[R\].*no files matching file_filters"):
        p = sluice.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with p:
            p.set_outputs(*fn.readers.file(file_root=str(tmp_path / "root"), name="R"))
        p.build()


# ----------------------------------------------------------------------------- the README's promise
def _readme_paragraph():
    # The "Bad data in training" paragraph of the engine semantics (moved there from the README).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "engine.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("- **Bad data in training**")
    end = text.index("\n- **", start + 1)
    return root, text[start:end]


def test_readme_bad_data_paragraph_names_only_what_exists(tmp_path):
    root, para = _readme_paragraph()
    from sluice import _sluice
    # Every operator argument it names exists on the operators it names.
    for op in ("decoders.image", "decoders.image_crop", "decoders.image_random_crop", "readers.file",
               "readers.webdataset"):
        assert f"`{op.split('.')[-1]}`" in para or f"`{op}`" in para
        args = {a.name for a in _sluice.get_operator_info(op).arguments}
        assert "on_error" in args, op
    assert "max_pixels" in {a.name for a in _sluice.get_operator_info("decoders.image").arguments}
    assert "max_member_bytes" in {a.name for a in _sluice.get_operator_info("readers.webdataset").arguments}
    assert "2^28" in para and "1 GiB" in para
    info = {a.name: a for a in _sluice.get_operator_info("readers.webdataset").arguments}
    assert info["max_member_bytes"].default == 1 << 30
    assert {a.name: a for a in _sluice.get_operator_info("decoders.image").arguments}["max_pixels"].default == 1 << 28
    assert os.path.exists(os.path.join(root, "src/pipeline/sample_replacement.h"))
    assert os.path.exists(os.path.join(root, "scripts/soak_bad_data.py"))
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        assert "scripts/soak_bad_data.py" in f.read()
    # The Python calls and record fields it names, called.
    paths = []
    for i in range(8):  # one length: the PyTorch iterator makes one tensor of a batch
        paths.append(str(tmp_path / f"same{i}.bin"))
        with open(paths[-1], "wb") as f:
            f.write(bytes([i]) * 16)
    os.unlink(paths[2])
    pipe = file_pipe(paths, "replace")
    it = DALIGenericIterator(pipe, ["data", "label"], reader_name="Reader")
    next(it)
    rec = pipe.error_log()[0]
    for field in ("op", "source", "path", "member", "offset", "iteration", "sample", "replaced_by", "message"):
        assert f"`{field}`" in para
        getattr(rec, field)
    assert (rec.op, rec.path, rec.member, rec.offset, rec.iteration, rec.sample, rec.replaced_by) == \
        ("Reader", paths[2], "", -1, 0, 2, 3)
    assert it.error_log()[0].path == paths[2]
    assert pipe.executor_statistics()["Reader"]["replaced_samples"] == len(pipe.error_log())
    for name in ("pipe.error_log()", "it.error_log()", "Pipeline::GetErrorLog()", '"replaced_samples"'):
        assert name in para
