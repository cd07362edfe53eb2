import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

# The suite runs on 2 cores beside other work: torch's intra-op threads wait for a core at every
# parallel region there (a 200-step training test: 85 s on two threads, 6 s on one, at load 16).
# One thread in this process, and in every process a test starts (servers, CLIs, references).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

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
