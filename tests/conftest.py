import fcntl
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


# scripts/test runs the suite in two processes (pytest-xdist: -n 2 --dist loadgroup), each
# taking whole test files. Two kinds of test must not overlap with some others:
# - the browser tests share one chromium and their timings: they run one after another;
# - the tests marked `host_wide` (and the re-run as an ordinary user, which holds such tests)
#   count the whole machine's SysV IPC objects and shared memory before and after a hostile
#   run, and a PostgreSQL server starting or working beside them moves both (+1 segment, tens of
#   MB). They run in the same process as the browser tests, so never beside a browser; and
#   pytest_runtest_protocol below keeps them apart from the other process's PostgreSQL tests.
BESIDE_NOTHING = "one-after-another"
USES_POSTGRES = {"postgres", "store_url"}
HOLDS_THE_MACHINE = "BPN_TESTS_HOLD_THE_MACHINE"  # set while a host-wide test runs


def _host_wide(item) -> bool:
    return item.get_closest_marker("host_wide") is not None or "reruns" in item.fixturenames


@pytest.hookimpl(tryfirst=True)  # before xdist adds each test's group to its id
def pytest_collection_modifyitems(config, items):
    """Give each test its group: its file, or BESIDE_NOTHING for the browser and host-wide tests."""
    for item in items:
        path = item.path.relative_to(ROOT)
        # (the tests that run as an ordinary user share one build of its copy: `ordinary`)
        alone = path.parts[:2] == ("tests", "e2e") or _host_wide(item)
        alone = alone or "ordinary" in item.fixturenames
        item.add_marker(pytest.mark.xdist_group(BESIDE_NOTHING if alone else path.as_posix()))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """In a two-process run, a host-wide test waits for the PostgreSQL tests running beside it
    to end, and holds theirs back while it runs (an exclusive and a shared file lock)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if _host_wide(item):
        mode = fcntl.LOCK_EX
    elif USES_POSTGRES & set(item.fixturenames):
        mode = fcntl.LOCK_SH
    else:
        mode = None
    if run is None or mode is None:
        return (yield)
    with open(_turns_file(run), "a") as lock:
        fcntl.flock(lock, mode)
        os.environ[HOLDS_THE_MACHINE] = "1" if mode == fcntl.LOCK_EX else ""
        try:
            return (yield)
        finally:
            os.environ.pop(HOLDS_THE_MACHINE, None)
            fcntl.flock(lock, fcntl.LOCK_UN)


def _turns_file(run: str) -> Path:
    return Path(tempfile.gettempdir()) / f"bpn-tests-{run}.lock"


def pytest_sessionfinish(session):
    """Remove the lock file as each process ends: a process still running makes it again, with
    no other process left to keep apart from."""
    if run := os.environ.get("PYTEST_XDIST_TESTRUNUID"):
        _turns_file(run).unlink(missing_ok=True)
