import fcntl
import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import uuid
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


# scripts/test runs the suite in two processes (pytest-xdist's `-n 2`), each taking whole test
# files (`Turns`). Two kinds of test must not overlap with some others:
# - the browser tests share one chromium and their timings: they run one after another;
# - the tests marked `host_wide` (and the re-run as an ordinary user, which holds such tests)
#   count the whole machine's SysV IPC objects and shared memory before and after a hostile
#   run, and a PostgreSQL server starting or working beside them moves both (+1 segment, tens of
#   MB). They run in the same process as the browser tests, so never beside a browser; and
#   pytest_runtest_protocol below keeps them apart from the other process's PostgreSQL tests.
# The tests that run as an ordinary user go there too: they share one build of its copy.
BESIDE_NOTHING = "one-after-another"
USES_POSTGRES = {"postgres", "store_url"}
HOLDS_THE_MACHINE = "BPN_TESTS_HOLD_THE_MACHINE"  # set while a host-wide test runs
RUN = "BPN_TESTS_RUN"  # the run's id: the controller sets it, its worker processes inherit it


def _host_wide(item) -> bool:
    return item.get_closest_marker("host_wide") is not None or "reruns" in item.fixturenames


def _groups_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"bpn-tests-{os.environ[RUN]}"


def pytest_configure(config):
    os.environ.setdefault(RUN, uuid.uuid4().hex)


def pytest_collection_modifyitems(config, items):
    """In a worker of a two-process run, write each test's group for `Turns`: its file, or
    BESIDE_NOTHING for the browser, host-wide and ordinary-user tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    groups = {}
    for item in items:
        path = item.path.relative_to(ROOT)
        alone = path.parts[:2] == ("tests", "e2e") or _host_wide(item)
        alone = alone or "ordinary" in item.fixturenames
        groups[item.nodeid] = BESIDE_NOTHING if alone else path.as_posix()
    _groups_dir().mkdir(exist_ok=True)
    (_groups_dir() / f"{worker}.json").write_text(json.dumps(groups))


def pytest_xdist_make_scheduler(config, log):
    """Schedule whole groups (`Turns`), largest first, as xdist's --dist loadscope does files."""
    from xdist.scheduler import LoadScopeScheduling

    class Turns(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # every worker has collected (and written) by now
                self.groups = {}
                for written in sorted(_groups_dir().glob("*.json")):
                    self.groups.update(json.loads(written.read_text()))
            return self.groups.get(nodeid, nodeid.split("::")[0])

    return Turns(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """In a two-process run, a host-wide test waits for the PostgreSQL tests running beside it
    to end, and holds theirs back while it runs (an exclusive and a shared file lock)."""
    if _host_wide(item):
        mode = fcntl.LOCK_EX
    elif USES_POSTGRES & set(item.fixturenames):
        mode = fcntl.LOCK_SH
    else:
        mode = None
    if "PYTEST_XDIST_WORKER" not in os.environ or mode is None:
        return (yield)
    with open(_groups_dir() / "turns.lock", "a") as lock:
        fcntl.flock(lock, mode)
        os.environ[HOLDS_THE_MACHINE] = "1" if mode == fcntl.LOCK_EX else ""
        try:
            return (yield)
        finally:
            os.environ.pop(HOLDS_THE_MACHINE, None)
            fcntl.flock(lock, fcntl.LOCK_UN)


def pytest_sessionfinish(session):
    """Remove the run's groups and lock file when the run ends (its controller, or a one-process
    run, which made none)."""
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(_groups_dir(), ignore_errors=True)
