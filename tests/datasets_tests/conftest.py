"""Fixtures of the chainer-datasets tests: an isolated dataset root, a local HTTP server
that stands in for the data set publishers, and a dict-based fake serializer."""

from __future__ import annotations

import hashlib
import http.server
import threading
import time

import numpy
import pytest

from chainer.dataset import download


@pytest.fixture(autouse=True)
def dataset_root(tmp_path, monkeypatch):
    """Every test gets its own dataset root and no mirror settings, so nothing touches
    ~/.chainer or the internet."""
    root = tmp_path / "dataset_root"
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(root))
    for name in list(__import__("os").environ):
        if name.startswith("CHAINER_DATASET_MIRROR"):
            monkeypatch.delenv(name)
    saved_root, saved_mirrors = download._dataset_root, dict(download._mirrors)
    download.set_dataset_root(None)
    download._mirrors.clear()
    yield root
    download._dataset_root = saved_root
    download._mirrors.clear()
    download._mirrors.update(saved_mirrors)


class Truncated:
    """A response that announces ``announced`` bytes (``Content-Length``), sends ``body``
    (shorter) and closes the connection: a download cut short."""

    def __init__(self, body: bytes, announced: int) -> None:
        assert len(body) < announced
        self.body = body
        self.announced = announced


class FileServer:
    """A threaded HTTP server on 127.0.0.1 serving ``files`` (URL path -> bytes, a
    :class:`Truncated` response, or an ``int``: an HTTP error status to answer with)."""

    def __init__(self, files: dict[str, bytes], delay: float = 0.0) -> None:
        self.files = dict(files)
        self.delay = delay
        self.requests: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(self.path)
                if server.delay:
                    time.sleep(server.delay)
                body = server.files.get(self.path, 404)
                if isinstance(body, int):
                    self.send_error(body)
                    return
                if isinstance(body, Truncated):
                    self.send_response(200)
                    self.send_header("Content-Length", str(body.announced))
                    self.end_headers()
                    self.wfile.write(body.body)
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        self._running = True

    def stop(self) -> None:
        if self._running:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._running = False


@pytest.fixture
def file_server():
    """Factory: ``file_server(files, delay=0.0)`` starts a :class:`FileServer`; all are
    stopped at the end of the test."""
    servers = []

    def start(files: dict[str, bytes], delay: float = 0.0) -> FileServer:
        server = FileServer(files, delay)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def truncated():
    """``truncated(body, announced)``: a :class:`Truncated` response for ``file_server``."""
    return Truncated


@pytest.fixture
def md5():
    return lambda data: hashlib.md5(data).hexdigest()


class DictSerializer:
    """Saves like Chainer's serializers: stores a copy, returns the value."""

    def __init__(self) -> None:
        self.target: dict[str, object] = {}

    def __call__(self, key: str, value: object) -> object:
        self.target[key] = numpy.array(value) if isinstance(value, numpy.ndarray) else value
        return value


class DictDeserializer:
    """Loads like Chainer's deserializers: arrays are copied into the given array, other
    values are converted to the type of the given value; a missing key is a KeyError."""

    def __init__(self, source: dict[str, object]) -> None:
        self.source = source

    def __call__(self, key: str, value: object) -> object:
        if key not in self.source:
            raise KeyError(key)
        loaded = self.source[key]
        if value is None:
            return loaded
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, loaded)
            return value
        return type(value)(loaded)


@pytest.fixture
def serializers():
    """``(DictSerializer, DictDeserializer)``: the ``serializer(key, value)`` protocol."""
    return DictSerializer, DictDeserializer
