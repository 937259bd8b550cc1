"""Object storage against servers that do not answer, started here on 127.0.0.1 (no S3 server
needed): one that accepts connections and never says a word, one that answers late, and one behind
TLS with a private CA. What is checked: a silent server fails a request with one clear error after
the configured attempts, in seconds (AWS SDK for C++'s defaults: 3 attempts in standard retry mode,
a 1 s connect and a 3 s read timeout), and the standard AWS configuration is honoured --
AWS_MAX_ATTEMPTS, AWS_RETRY_MODE, AWS_CA_BUNDLE and the shared config file's max_attempts,
retry_mode, connect_timeout, read_timeout and ca_bundle (AWS_CONFIG_FILE, the profile of AWS_PROFILE)
-- with Sluice's SLUICE_STORAGE_* variables as overrides (docs/object-storage.md)."""
import http.server
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time

import pytest

import sluice
from sluice import _sluice, fn

VARS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE",
        "AWS_CA_BUNDLE", "SLUICE_S3_ADDRESSING")


class SilentServer:
    """Accepts every connection, reads nothing, answers nothing; counts the connections (one per
    try: a connection that timed out is not reused)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def stop(self):
        self.stopped = True
        for c in self.conns:
            c.close()
        self.sock.close()


BODY = b"the object's bytes\n" * 10


def _handler(delay):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _answer(self, body):
            time.sleep(delay)
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            if body:
                self.wfile.write(BODY)

        def do_GET(self):
            self._answer(True)

        def do_HEAD(self):
            self._answer(False)

    return Handler


class Server:
    """An HTTP server that answers every GET with BODY after `delay` seconds (TLS with `context`)."""

    def __init__(self, delay=0.0, context=None):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(delay))
        self.httpd.daemon_threads = True
        if context is not None:
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def aws(monkeypatch, tmp_path):
    """A clean AWS configuration: anonymous requests, no profile files, nothing from the machine."""
    for v in VARS:
        monkeypatch.delenv(v, raising=False)
    for v in list(os.environ):
        if v.startswith("SLUICE_STORAGE_"):
            monkeypatch.delenv(v)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no_credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no_config"))
    monkeypatch.setenv("SLUICE_STORAGE_BACKOFF", "0.01")  # the waits between tries: not what is measured
    return monkeypatch


def read_error(url):
    t = time.monotonic()
    with pytest.raises(sluice.SluiceError) as e:
        _sluice.storage_read(url)
    return str(e.value), time.monotonic() - t


def test_silent_server_fails_after_the_default_attempts_in_seconds(aws):
    server = SilentServer()
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.port}")
        msg, took = read_error("s3://bucket/key.bin")
        # 3 tries of the 3 s read timeout: about 9 s, not minutes.
        assert 8.5 < took < 13, took
        assert "cannot read s3://bucket/key.bin" in msg, msg
        assert "the server accepted the connection but sent no answer within the read timeout (3 s)" in msg, msg
        assert "after 3 attempts" in msg and "(max attempts 3, from the default of retry mode standard)" in msg, msg
        assert len(server.conns) == 3
    finally:
        server.stop()


def test_shared_config_file_max_attempts_read_timeout_and_profile(aws, tmp_path):
    server = SilentServer()
    config = tmp_path / "config"
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.port}")
        # The profile's read_timeout and max_attempts ([default]).
        config.write_text("[default]\nregion = eu-west-1\nread_timeout = 1\nmax_attempts = 2\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        msg, took = read_error("s3://bucket/a")
        assert 1.5 < took < 4, (took, msg)
        assert "read timeout (1 s)" in msg and "after 2 attempts" in msg and f"max_attempts in {config}" in msg, msg
        # AWS_PROFILE picks [profile NAME] (not [default]), a profile of the config file alone; its
        # retry_mode legacy means 5 attempts.
        config.write_text("[default]\nread_timeout = 2\nmax_attempts = 4\n\n[profile slow]\nread_timeout = 1\n"
                          "retry_mode = legacy\n")
        aws.setenv("AWS_PROFILE", "slow")
        before = len(server.conns)
        msg, took = read_error("s3://bucket/b")
        assert 4.5 < took < 8, (took, msg)
        assert "read timeout (1 s)" in msg and "after 5 attempts" in msg and "retry mode legacy" in msg, msg
        assert len(server.conns) - before == 5
    finally:
        server.stop()


def test_aws_variables_override_the_file_and_sluices_override_both(aws, tmp_path):
    server = SilentServer()
    config = tmp_path / "config"
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.port}")
        config.write_text("[profile slow]\nread_timeout = 1\nretry_mode = legacy\nmax_attempts = 4\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        aws.setenv("AWS_PROFILE", "slow")
        # AWS_MAX_ATTEMPTS and AWS_RETRY_MODE override the file.
        aws.setenv("AWS_MAX_ATTEMPTS", "2")
        msg, took = read_error("s3://bucket/c")
        assert 1.5 < took < 4 and "after 2 attempts" in msg and "from AWS_MAX_ATTEMPTS" in msg, (took, msg)
        aws.delenv("AWS_MAX_ATTEMPTS")
        config.write_text("[profile slow]\nread_timeout = 1\nretry_mode = legacy\n")
        aws.setenv("AWS_RETRY_MODE", "standard")
        msg, took = read_error("s3://bucket/d")
        assert 2.5 < took < 5 and "after 3 attempts" in msg and "retry mode standard" in msg, (took, msg)
        # Sluice's own variables override both.
        aws.setenv("AWS_MAX_ATTEMPTS", "2")
        aws.setenv("SLUICE_STORAGE_ATTEMPTS", "1")
        aws.setenv("SLUICE_STORAGE_STALL_TIMEOUT", "1")
        msg, took = read_error("s3://bucket/e")
        assert took < 3 and "after 1 attempt " in msg and "SLUICE_STORAGE_ATTEMPTS" in msg, (took, msg)
    finally:
        server.stop()


def test_malformed_retry_settings_are_named(aws, tmp_path):
    aws.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    aws.setenv("AWS_RETRY_MODE", "fast")
    msg, _ = read_error("s3://bucket/f")
    assert "AWS_RETRY_MODE='fast' is not standard, legacy or adaptive" in msg, msg
    aws.delenv("AWS_RETRY_MODE")
    for bad in ("zero", "0", "2.5", "1e10"):
        aws.setenv("AWS_MAX_ATTEMPTS", bad)
        msg, _ = read_error("s3://bucket/g")
        assert f"AWS_MAX_ATTEMPTS='{bad}' is not a" in msg, msg
    aws.delenv("AWS_MAX_ATTEMPTS")
    config = tmp_path / "config"
    config.write_text("[profile slow]\nread_timeout = soon\n")
    aws.setenv("AWS_CONFIG_FILE", str(config))
    aws.setenv("AWS_PROFILE", "slow")
    msg, _ = read_error("s3://bucket/h")
    assert f"read_timeout of profile 'slow' in {config}='soon'" in msg, msg
    aws.setenv("AWS_PROFILE", "nowhere")
    msg, _ = read_error("s3://bucket/i")
    assert "AWS profile 'nowhere' is in neither" in msg and str(config) in msg, msg


def test_connect_timeout_from_the_config_file(aws, tmp_path):
    # A listening socket whose backlog is full: connections hang in SYN until the connect timeout.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(0)
    port = sock.getsockname()[1]
    fillers = []
    try:
        for _ in range(8):  # fill the accept queue (never accepted)
            f = socket.socket()
            f.setblocking(False)
            try:
                f.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(f)
        time.sleep(0.2)
        config = tmp_path / "config"
        config.write_text("[default]\nconnect_timeout = 0.5\nmax_attempts = 2\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        msg, took = read_error("s3://bucket/k")
        if "no connection within the connect timeout" not in msg:
            pytest.skip(f"this kernel completed the connection despite the full backlog: {msg}")
        assert "connect timeout (0.5 s)" in msg and "after 2 attempts" in msg, msg
        assert took < 4, took
    finally:
        for f in fillers:
            f.close()
        sock.close()


def test_slow_server_read_timeout_decides(aws, tmp_path):
    server = Server(delay=2.0)
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.port}")
        config = tmp_path / "config"
        config.write_text("[default]\nread_timeout = 1\nmax_attempts = 2\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        msg, took = read_error("s3://bucket/slow")
        assert "sent no answer within the read timeout (1 s)" in msg and "after 2 attempts" in msg, msg
        assert took < 5, took
        config.write_text("[default]\nread_timeout = 5\nmax_attempts = 2\n")
        t = time.monotonic()
        assert _sluice.storage_read("s3://bucket/slow") == BODY  # late, but within the read timeout
        assert 1.9 < time.monotonic() - t < 5
    finally:
        server.stop()


def test_a_pipeline_on_a_silent_server_fails_in_seconds(aws, tmp_path):
    server = SilentServer()
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.port}")
        aws.setenv("AWS_MAX_ATTEMPTS", "2")
        config = tmp_path / "config"
        config.write_text("[default]\nread_timeout = 1\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        t = time.monotonic()
        with pytest.raises(sluice.SluiceError) as e:
            pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=1)
            with pipe:
                data, label = fn.readers.file(file_list="s3://bucket/list.txt", name="Reader")
                pipe.set_outputs(data, label)
            pipe.build()
            pipe.run()
        took = time.monotonic() - t
        msg = str(e.value)
        assert "[Reader]" in msg and "s3://bucket/list.txt" in msg and "after 2 attempts" in msg, msg
        assert "read timeout (1 s)" in msg, msg
        assert took < 6, took
    finally:
        server.stop()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command to make a certificate")
def test_aws_ca_bundle_and_the_config_files_ca_bundle(aws, tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert), str(key))
    server = Server(context=ctx)
    try:
        aws.setenv("AWS_ENDPOINT_URL", f"https://127.0.0.1:{server.port}")
        aws.setenv("AWS_MAX_ATTEMPTS", "1")
        msg, _ = read_error("s3://bucket/tls")
        assert "SSL" in msg or "certificate" in msg, msg
        aws.setenv("AWS_CA_BUNDLE", str(cert))
        assert _sluice.storage_read("s3://bucket/tls") == BODY
        aws.delenv("AWS_CA_BUNDLE")
        config = tmp_path / "config"
        config.write_text(f"[default]\nca_bundle = {cert}\n")
        aws.setenv("AWS_CONFIG_FILE", str(config))
        assert _sluice.storage_read("s3://bucket/tls") == BODY
    finally:
        server.stop()
