"""experimental.readers.fits on FITS files written here with astropy (an independent writer): every
image type astropy writes (uint8, int16, uint16 via BZERO, int32, int64, float32, float64),
1-D to 3-D images, several HDUs per file; read back identical to what astropy reads. Tile-compressed
HDUs (astropy's CompImageHDU: RICE_1, GZIP_1, GZIP_2, PLIO_1, HCOMPRESS_1 (lossless and lossy) for
integers, tiles of several shapes; floats quantized with NO_DITHER, SUBTRACTIVE_DITHER_1 and _2, NaNs,
lossless GZIP) decoded by
Sluice's own code identical to astropy's read-back, tolerance zero; corrupted and malformed ones are
errors naming the file and HDU. file_root/file_filter, file_list and files; sharding,
shuffling, padding, checkpoints; faults (a file deleted, truncated or rewritten mid-epoch, no such
HDU, a table HDU, a dtypes mismatch). DALI 2.4's CPU FITS reader needs a CUDA driver, so it is not
run here.
"""
import os

import numpy as np
import pytest

import sluice
from sluice import fn, types

fits = pytest.importorskip("astropy.io.fits")


def images(k):
    rng = np.random.default_rng(k)
    return [
        rng.integers(0, 256, (4 + k, 5), dtype=np.uint8),
        rng.standard_normal((2, 3, 4 + k)).astype(np.float32),
        rng.integers(-30000, 30000, (6 + k,), dtype=np.int16),
        rng.integers(0, 65536, (3, 3 + k)).astype(np.uint16),
        rng.integers(-2**31, 2**31, (2, 2), dtype=np.int64).astype(np.int32),
        rng.integers(-2**62, 2**62, (3,), dtype=np.int64),
        rng.standard_normal((2, 2 + k)),
    ]


def write_files(d, n=6, compressed=False):
    paths = []
    for k in range(n):
        hdus = [fits.PrimaryHDU()] + [fits.ImageHDU(a) for a in images(k)]
        if compressed:
            hdus.append(fits.CompImageHDU(images(k)[2].astype(np.int32), compression_type="RICE_1"))
        p = os.path.join(str(d), f"img{k}.fits")
        fits.HDUList(hdus).writeto(p, overwrite=True)
        paths.append(p)
    return paths


def pipe_of(batch_size=3, checkpoint=None, **kw):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=2,
                           enable_checkpointing=True, checkpoint=checkpoint)
    with pipe:
        out = fn.experimental.readers.fits(name="Reader", **kw)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    pipe.build()
    return pipe


def run(pipe, n_batches):
    rows = []
    for _ in range(n_batches):
        tls = pipe.run()
        rows += [[np.array(t.at(i)) for t in tls] for i in range(len(tls[0]))]
    return rows


def astropy_data(path, hdu):
    with fits.open(path) as f:
        return np.array(f[hdu - 1].data)


def test_every_image_type_reads_back_as_astropy_reads_it(tmp_path):
    paths = write_files(tmp_path, 3)
    hdus = list(range(2, 9))
    rows = run(pipe_of(files=paths, hdu_indices=hdus), 1)
    for path, row in zip(paths, rows):
        for hdu, got in zip(hdus, row):
            want = astropy_data(path, hdu)
            assert got.dtype == want.dtype.newbyteorder("=") and got.shape == want.shape, (path, hdu)
            np.testing.assert_array_equal(got, want)
    # The default: HDU 2 (the first extension) only.
    (only,), *_ = run(pipe_of(files=paths), 1)
    np.testing.assert_array_equal(only, images(0)[0])


def compressed_cases():
    """(name, HDU) pairs: every codec Sluice decodes, on integer types and tile shapes astropy allows."""
    rng = np.random.default_rng(5)
    cases = []
    for ct in ["RICE_1", "GZIP_1", "GZIP_2", "PLIO_1", "HCOMPRESS_1"]:
        for dt in [np.uint8, np.int16, np.uint16, np.int32, np.int8]:
            if ct == "PLIO_1":
                if dt in (np.uint16, np.int8):
                    continue  # PLIO holds 0 .. 2**24 only: astropy refuses BZERO-shifted types
                a = rng.integers(0, 255 if dt == np.uint8 else 4096, (37, 53)).astype(dt)
            else:
                info = np.iinfo(dt)
                a = rng.integers(info.min, info.max, (37, 53), endpoint=True).astype(dt)
            for tile in [None, (16, 16), (5, 53)]:
                if ct == "HCOMPRESS_1" and tile == (5, 53):
                    continue  # HCOMPRESS needs tiles of 4 rows or more (astropy refuses)
                cases.append((f"{ct}-{dt.__name__}-{tile}", fits.CompImageHDU(a, compression_type=ct, tile_shape=tile)))
    f = rng.standard_normal((40, 30)).astype(np.float32)
    f[3, 4] = np.nan  # ZBLANK
    f[5, 6] = 0  # SUBTRACTIVE_DITHER_2 keeps exact zeros
    smooth = (np.add.outer(np.arange(200), np.arange(150)) * 3 + rng.integers(0, 50, (200, 150))).astype(np.int32)
    for scale in [2.5, 10]:  # lossy HCOMPRESS of integers
        cases.append((f"HCOMPRESS_1-int32-scale{scale}",
                      fits.CompImageHDU(smooth, compression_type="HCOMPRESS_1", hcomp_scale=scale, tile_shape=(64, 150))))
    big = rng.integers(-2**31, 2**31 - 1, (130, 97)).astype(np.int32)  # one tile, 64-bit sums
    cases.append(("HCOMPRESS_1-int32-full-range", fits.CompImageHDU(big, compression_type="HCOMPRESS_1", tile_shape=(130, 97))))
    for ct in ["RICE_1", "GZIP_1", "GZIP_2", "HCOMPRESS_1"]:
        for qm in [-1, 1, 2]:  # NO_DITHER, SUBTRACTIVE_DITHER_1, SUBTRACTIVE_DITHER_2
            for dt in [np.float32, np.float64]:
                cases.append((f"{ct}-{dt.__name__}-q{qm}",
                              fits.CompImageHDU(f.astype(dt), compression_type=ct, quantize_method=qm, dither_seed=7)))
    for ct in ["GZIP_1", "GZIP_2"]:
        cases.append((f"{ct}-lossless", fits.CompImageHDU(f, compression_type=ct, quantize_level=0.0)))
    cube = rng.integers(-1000, 1000, (3, 7, 9)).astype(np.int32)
    cases.append(("cube", fits.CompImageHDU(cube, compression_type="RICE_1", tile_shape=(2, 3, 4))))
    return cases


def test_tile_compressed_images_read_as_astropy_reads_them(tmp_path):
    """Tolerance zero (NaN where astropy has NaN), lossy quantized floats included: the dequantization
    (and its dither sequence) is the convention's, as astropy's. One difference: astropy reads a
    compressed int8 image (BZERO = -128) as float32; Sluice reads it as int8, as it reads the same
    image uncompressed and as CFITSIO's equivalent type says; the values are identical."""
    cases = compressed_cases()
    paths = []
    for k, (name, hdu) in enumerate(cases):
        p = str(tmp_path / f"c{k}.fits")
        fits.HDUList([fits.PrimaryHDU(), hdu]).writeto(p)
        paths.append(p)
    rows = [run(pipe_of(files=[p], batch_size=1), 1)[0] for p in paths]  # types differ: one pipeline each
    for (name, _), path, (got,) in zip(cases, paths, rows):
        want = astropy_data(path, 2)
        if "int8" in name and "uint8" not in name:
            assert want.dtype == np.float32 and got.dtype == np.int8, name
            want = want.astype(np.int8)
        assert got.dtype == want.dtype.newbyteorder("=") and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert any(np.isnan(got).any() for (name, _), (got,) in zip(cases, rows) if "float" in name)


def test_hdus_after_a_compressed_one_read_and_hcompress_smoothing_is_an_error(tmp_path):
    paths = write_files(tmp_path, 3, compressed=True)  # HDU 9: RICE_1 int32
    rows = run(pipe_of(files=paths, hdu_indices=[4, 9]), 1)
    for k, (plain, packed) in enumerate(rows):
        np.testing.assert_array_equal(plain, images(k)[2])
        np.testing.assert_array_equal(packed, images(k)[2].astype(np.int32))
    p = str(tmp_path / "h.fits")
    a = np.arange(64 * 64, dtype=np.int32).reshape(64, 64)
    fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(a, compression_type="HCOMPRESS_1", hcomp_scale=2, hcomp_smooth=1),
                  fits.ImageHDU(a)]).writeto(p)
    with pytest.raises(sluice.SluiceError, match=r"h\.fits', HDU 2: tile-compressed image: HCOMPRESS_1 with smoothing"):
        pipe_of(files=[p], batch_size=1).run()
    with pytest.raises(sluice.SluiceError, match=r"h\.fits', HDU 3: HDU 2 before it is a tile-compressed image that cannot be read"):
        pipe_of(files=[p], batch_size=1, hdu_indices=[3]).run()


def assert_checkpoint_resumes(kw):
    """A pipeline restored from the checkpoint after one batch returns the saved one's next 3 batches."""
    pipe = pipe_of(**kw)
    pipe.run()
    text = pipe.checkpoint()
    want = run(pipe, 3)
    got = run(pipe_of(checkpoint=text, **kw), 3)
    for a, b in zip(got, want):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_compressed_checkpoint_and_shards(tmp_path):
    paths = write_files(tmp_path, 6, compressed=True)
    kw = dict(files=paths, random_shuffle=True, initial_fill=2, hdu_indices=[9, 2])
    assert_checkpoint_resumes(kw)
    shards = [run(pipe_of(files=paths, num_shards=2, shard_id=s, hdu_indices=[9]), 1) for s in range(2)]
    for s, rows in enumerate(shards):
        for k, (packed,) in zip(range(3 * s, 3 * s + 3), rows):
            np.testing.assert_array_equal(packed, images(k)[2].astype(np.int32))


def test_corrupt_and_malformed_compressed_hdus_are_errors_naming_file_and_hdu(tmp_path):
    a = np.arange(40 * 30, dtype=np.int16).reshape(40, 30) * 7
    def write(name, ct, **kw):
        p = str(tmp_path / name)
        fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(a, compression_type=ct, **kw)]).writeto(p)
        return p
    def read(p):
        pipe_of(files=[p], batch_size=1).run()
    def patch(p, at, data):
        b = bytearray(open(p, "rb").read())
        b[at:at + len(data)] = data
        open(p, "wb").write(bytes(b))
    def table_start(p):
        with fits.open(p, disable_image_compression=True) as f:
            return f[1]._data_offset, f[1].header["NAXIS1"] * f[1].header["NAXIS2"]
    # A gzip tile overwritten: zlib's error.
    p = write("gz.fits", "GZIP_1")
    start, table = table_start(p)
    patch(p, start + table, b"\x00" * 16)
    with pytest.raises(sluice.SluiceError, match=r"gz\.fits', HDU 2: tile-compressed image: tile 1: .*gzip"):
        read(p)
    # A Rice tile overwritten with ones: the stream ends before the tile's pixels.
    p = write("rice.fits", "RICE_1")
    start, table = table_start(p)
    with fits.open(p, disable_image_compression=True) as f:
        n0 = int(np.asarray(f[1].data[0]["COMPRESSED_DATA"]).size)
    patch(p, start + table, b"\xff" * n0)
    with pytest.raises(sluice.SluiceError, match=r"rice\.fits', HDU 2: tile-compressed image: tile 1: corrupt Rice"):
        read(p)
    # A descriptor pointing past the heap.
    p = write("desc.fits", "RICE_1")
    start, table = table_start(p)
    patch(p, start + 4, (10**6).to_bytes(4, "big"))
    with pytest.raises(sluice.SluiceError, match=r"desc\.fits', HDU 2: tile-compressed image: tile 1's descriptor .* outside the heap"):
        read(p)
    # A header CFITSIO would divide by: ZTILE1 = 0.
    p = write("tile.fits", "RICE_1")
    raw = open(p, "rb").read()
    at = raw.index(b"ZTILE1  =")
    patch(p, at, b"ZTILE1  =                    0".ljust(80))
    with pytest.raises(sluice.SluiceError, match=r"tile\.fits', HDU 2: tile-compressed image: ZTILE1 = 0 is outside"):
        read(p)
    # A keyword twice (CFITSIO might read the other card): this HDU and the ones after it are refused.
    p = str(tmp_path / "dup.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(a, compression_type="RICE_1"), fits.ImageHDU(a)]).writeto(p)
    raw = open(p, "rb").read()
    at = raw.index(b"ZTILE2  =")
    patch(p, at, b"ZTILE1  =                    0".ljust(80))
    with pytest.raises(sluice.SluiceError, match=r"dup\.fits', HDU 2: tile-compressed image: the keyword ZTILE1 appears twice"):
        read(p)
    with pytest.raises(sluice.SluiceError, match=r"dup\.fits', HDU 3: HDU 2 before it is a tile-compressed image that cannot be read"):
        pipe_of(files=[p], batch_size=1, hdu_indices=[3]).run()
    # A keyword CFITSIO and the header walk would read differently (fuzz_fits: "ZTILE2 \xa0" was no
    # ZTILE2 to the walk, ZTILE2 = 0 to CFITSIO, which divided by it moving past the HDU), and a
    # control character in a card: the file is refused, naming the card's byte offset.
    p = str(tmp_path / "key.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(a, compression_type="RICE_1"), fits.ImageHDU(a)]).writeto(p)
    raw = open(p, "rb").read()
    at = raw.index(b"ZTILE2  =")
    patch(p, at, b"ZTILE2 \xa0=                    0".ljust(80))
    with pytest.raises(sluice.SluiceError, match=rf"key\.fits', HDU 2: the header card at byte {at} has a keyword "
                                                  r"with a character FITS does not allow \(byte 32\)"):
        pipe_of(files=[p], batch_size=1, hdu_indices=[3]).run()
    p = write("ctl.fits", "RICE_1")
    raw = open(p, "rb").read()
    at = raw.index(b"ZCMPTYPE=")
    patch(p, at + 40, b"\x00")
    with pytest.raises(sluice.SluiceError, match=rf"ctl\.fits', HDU 2: the header card at byte {at} holds a control "
                                                  r"character \(byte 0\)"):
        read(p)
    # A header declaring 2 TB of pixels from a few hundred bytes of tiles: refused before allocating.
    p = write("huge.fits", "HCOMPRESS_1")
    raw = open(p, "rb").read()
    for key in (b"ZNAXIS1 =", b"ZNAXIS2 ="):
        patch(p, raw.index(key), (key + b"              1000000").ljust(80))
    with pytest.raises(sluice.SluiceError, match=r"huge\.fits', HDU 2: tile-compressed image: the image declares "
                                                  r"2000000000000 bytes of pixels from \d+ bytes .*corrupt"):
        read(p)
    # Truncated inside the heap.
    p = write("cut.fits", "GZIP_2")
    os.truncate(p, os.path.getsize(p) - 2880)
    with pytest.raises(sluice.SluiceError, match=r"cut\.fits', HDU 2: .*truncated"):
        read(p)


def test_file_root_filter_list_sharding_padding_shuffling(tmp_path):
    paths = write_files(tmp_path, 6)
    (tmp_path / "notes.txt").write_text("not fits")
    first = lambda rows: [int(r[0][0, 0]) for r in rows]  # noqa: E731
    want = [int(images(k)[0][0, 0]) for k in range(6)]
    assert first(run(pipe_of(file_root=str(tmp_path)), 2)) == want
    (tmp_path / "list.txt").write_text("\n".join(os.path.basename(p) for p in paths[::-1]) + "\n")
    assert first(run(pipe_of(file_list=str(tmp_path / "list.txt")), 2)) == want[::-1]
    shards = [first(run(pipe_of(file_root=str(tmp_path), num_shards=2, shard_id=s), 1)) for s in range(2)]
    assert shards == [want[:3], want[3:]]
    padded = first(run(pipe_of(files=paths[:5], batch_size=2, num_shards=2, shard_id=1, pad_last_batch=True,
                               stick_to_shard=True), 3))
    assert padded == [want[2], want[3], want[4], want[4], want[2], want[3]]  # shard 1 of 5: files 2..4
    shuffled = first(run(pipe_of(files=paths, random_shuffle=True, initial_fill=3), 4))
    assert sorted(shuffled[:6]) == sorted(shuffled[6:]) == sorted(want)


def test_checkpoint_resumes(tmp_path):
    paths = write_files(tmp_path, 6)
    kw = dict(files=paths, random_shuffle=True, initial_fill=2, hdu_indices=[2, 3])
    assert_checkpoint_resumes(kw)


def test_dtypes_are_checked(tmp_path):
    paths = write_files(tmp_path, 3)
    rows = run(pipe_of(files=paths, hdu_indices=[2, 3], dtypes=[types.UINT8, types.FLOAT]), 1)
    assert rows[0][1].dtype == np.float32
    with pytest.raises(sluice.SluiceError, match=r"HDU 3: the image is float32 but dtypes gives uint8"):
        pipe_of(files=paths, hdu_indices=[2, 3], dtypes=[types.UINT8, types.UINT8]).run()
    with pytest.raises(sluice.SluiceError, match="dtypes"):
        pipe_of(files=paths, hdu_indices=[2, 3], dtypes=[types.UINT8])
    with pytest.raises(sluice.SluiceError, match="hdu_indices"):
        pipe_of(files=paths, hdu_indices=[0])


# ----------------------------------------------------------------------------- faults
def test_missing_hdu_table_hdu_and_not_fits(tmp_path):
    paths = write_files(tmp_path, 3)
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*img0\.fits', HDU 12: cannot move to it \(the file has 8 HDUs\)"):
        pipe_of(files=paths, hdu_indices=[12]).run()
    table = str(tmp_path / "table.fits")
    fits.HDUList([fits.PrimaryHDU(), fits.BinTableHDU.from_columns([fits.Column(name="x", format="E", array=np.zeros(3))])]
                 ).writeto(table)
    with pytest.raises(sluice.SluiceError, match=r"table\.fits', HDU 2: not an image HDU \(a binary table\)"):
        pipe_of(files=[table], batch_size=1).run()
    junk = tmp_path / "junk.fits"
    junk.write_bytes(b"SIMPLE  = nonsense" * 10)
    with pytest.raises(sluice.SluiceError, match=r"junk\.fits': its size \(180 bytes\) is not a whole number of 2880"):
        pipe_of(files=[str(junk)], batch_size=1).run()
    junk.write_bytes(b"NOT A FITS FILE".ljust(2880))
    with pytest.raises(sluice.SluiceError, match=r"junk\.fits': it does not begin with the SIMPLE keyword: not a FITS file"):
        pipe_of(files=[str(junk)], batch_size=1).run()
    junk.write_bytes(b"SIMPLE  =                    T".ljust(2880))
    with pytest.raises(sluice.SluiceError, match=r"junk\.fits', HDU 1: no END card"):
        pipe_of(files=[str(junk)], batch_size=1).run()


def test_deleted_truncated_and_rewritten_files_mid_epoch(tmp_path):
    # 12 files, batches of 3: file 10 is in the fourth batch, past what the loader has prefetched.
    paths = write_files(tmp_path, 12)
    pipe = pipe_of(files=paths)
    pipe.run()
    os.unlink(paths[10])
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*img10\.fits.*No such file or directory"):
        for _ in range(4):
            pipe.run()
    paths = write_files(tmp_path, 12)
    pipe = pipe_of(files=paths, hdu_indices=[2, 8])
    pipe.run()
    os.truncate(paths[10], 5760)
    with pytest.raises(sluice.SluiceError, match=r"\[Reader\].*img10\.fits', HDU \d+: .*truncated"):
        for _ in range(4):
            pipe.run()
    # on_error="replace": the row of the truncated file is another file's, and logged.
    pipe = pipe_of(files=paths, hdu_indices=[2, 8], on_error="replace")
    rows = run(pipe, 4)
    assert [int(r[0][0, 0]) for r in rows[9:]] == [int(images(k)[0][0, 0]) for k in (9, 11, 11)]  # next row read
    assert pipe.error_log() and "img10.fits" in pipe.error_log()[0].path
    # Rewritten in place (same name, other content): read as it now is, whole, never half old.
    paths = write_files(tmp_path, 12)
    pipe = pipe_of(files=paths)
    pipe.run()
    fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.full((2, 2), 7, np.uint8))]).writeto(paths[10], overwrite=True)
    rows = run(pipe, 3)
    assert rows[7][0].tolist() == [[7, 7], [7, 7]]
    np.testing.assert_array_equal(rows[8][0], images(11)[0])
