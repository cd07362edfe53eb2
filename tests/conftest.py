import functools
import http.server
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data_url(monkeypatch):
    """Serve ../shared/data on 127.0.0.1 as the makemore repository would; yield its base URL."""
    if not (SHARED_DATA / "names.txt").is_file():
        pytest.skip(f"the lecture's names.txt is not at {SHARED_DATA} (shared/ is absent)")
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(SHARED_DATA))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)
