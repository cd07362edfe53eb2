import functools
import http.server
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from .postgres import Server, binaries

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


@pytest.fixture(scope="session")
def postgres(tmp_path_factory):
    """Start a PostgreSQL server of our own for the session (tests/postgres.py); stop it after.
    Skip when Debian's postgresql package is not installed (scripts/test installs it as root)."""
    if binaries() is None:
        pytest.skip(
            "PostgreSQL is not installed (/usr/lib/postgresql/*/bin): apt-get install postgresql"
        )
    top = Path(tempfile.mkdtemp(prefix="bpn-pg-"))
    server = Server.start(top)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """Return the URL of an empty progress database, on each engine in turn; a PostgreSQL one
    has the schema already (its upgrade is a command: `python -m app.storage upgrade`)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/progress.sqlite3"
    from app.storage.engine import make_engine
    from app.storage.schema import upgrade

    url = request.getfixturevalue("postgres").new_database()
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return url
