import hashlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from data.download import (
    NAMES_FILE,
    NAMES_SHA256,
    cached_names,
    default_cache_dir,
    download_names,
)
from data.errors import DatasetError


class Server:
    """Serve fixed bytes per path on 127.0.0.1 and count the requests."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {}
        self.requests = 0
        self.lengths: dict[str, int] = {}
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())

    def url(self, path: str) -> str:
        """Return the URL of path on this server."""
        return f"http://127.0.0.1:{self.httpd.server_port}{path}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests += 1
                body = server.routes.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                self.send_response(200)
                length = server.lengths.get(self.path, len(body))
                self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        return Handler


@pytest.fixture
def server(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    srv = Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture
def names_bytes(lecture_names) -> bytes:
    return lecture_names.read_bytes()


def test_download_names_streams_verifies_and_caches(server, names_bytes, tmp_path):
    server.routes["/names.txt"] = names_bytes
    calls = []
    path = download_names(
        server.url("/names.txt"),
        tmp_path / "cache",
        lambda done, total: calls.append((done, total)),
    )
    assert path == tmp_path / "cache" / NAMES_FILE
    assert path.read_bytes() == names_bytes
    assert sorted(p.name for p in path.parent.iterdir()) == [NAMES_FILE]
    assert calls[0] == (0, len(names_bytes))
    assert calls[-1] == (len(names_bytes), len(names_bytes))
    assert len(calls) > 2


def test_download_names_returns_a_verified_cache_without_network(server, names_bytes, tmp_path):
    (tmp_path / NAMES_FILE).write_bytes(names_bytes)
    assert download_names(server.url("/names.txt"), tmp_path) == tmp_path / NAMES_FILE
    assert server.requests == 0


def test_download_names_replaces_a_damaged_cache(server, names_bytes, tmp_path):
    (tmp_path / NAMES_FILE).write_bytes(b"emma\n")
    server.routes["/names.txt"] = names_bytes
    assert download_names(server.url("/names.txt"), tmp_path).read_bytes() == names_bytes
    assert server.requests == 1


def test_download_names_rejects_wrong_bytes_and_saves_nothing(server, tmp_path):
    wrong = b"emma\nolivia\n" * 1000
    server.routes["/names.txt"] = wrong
    digest = hashlib.sha256(wrong).hexdigest()
    with pytest.raises(DatasetError) as info:
        download_names(server.url("/names.txt"), tmp_path)
    assert str(info.value) == (
        f"The downloaded `names.txt` does not match its checksum: got sha256 {digest[:12]}…, "
        f"expected {NAMES_SHA256[:12]}…; nothing was saved."
    )
    assert list(tmp_path.iterdir()) == []


def test_download_names_explains_a_cut_short_download(server, names_bytes, tmp_path):
    server.routes["/names.txt"] = names_bytes[:1000]
    server.lengths["/names.txt"] = len(names_bytes)
    with pytest.raises(DatasetError, match=f"closed after 1,000 of {len(names_bytes):,} bytes"):
        download_names(server.url("/names.txt"), tmp_path, timeout=5)
    assert list(tmp_path.iterdir()) == []


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/names.txt"


ERROR_CASES = [
    ("404", "/missing.txt", "names.txt` from {url}: HTTP 404 Not Found. Hint: check the address."),
    ("refused", None, "Could not download `names.txt` from {url}: "),
    ("bad url", "nonsense", "Could not download `names.txt` from nonsense: "),
]


@pytest.mark.parametrize(
    ("path", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_download_names_explains_network_errors(server, tmp_path, path, message):
    if path is None:
        url = closed_port_url()
    elif path.startswith("/"):
        url = server.url(path)
    else:
        url = path
    with pytest.raises(DatasetError) as info:
        download_names(url, tmp_path / "cache", timeout=5)
    assert message.format(url=url) in str(info.value)
    assert list((tmp_path / "cache").iterdir()) == []


def test_cached_names_ignores_missing_and_damaged_files(names_bytes, tmp_path):
    assert cached_names(tmp_path) is None
    (tmp_path / NAMES_FILE).write_bytes(names_bytes[:-1])
    assert cached_names(tmp_path) is None
    (tmp_path / NAMES_FILE).write_bytes(names_bytes)
    assert cached_names(str(tmp_path)) == tmp_path / NAMES_FILE


def test_default_cache_dir_is_the_projects_var_cache():
    assert default_cache_dir() == Path(__file__).resolve().parents[2] / "var" / "cache"
