import contextlib
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
# files (`Turns`). Some tests must not overlap with some others:
# - the browser tests share one chromium and their timings: they run one after another, in one
#   group, handed out first (the longest group by far);
# - the tests marked `host_wide` count the whole machine's SysV IPC objects and shared memory
#   before and after a hostile run, and a PostgreSQL server starting or working beside them, or a
#   browser test, moves both (+1 segment, tens of MB). pytest_runtest_protocol below keeps them
#   apart with a file lock: exclusive for them (held over consecutive host-wide tests), shared
#   for the PostgreSQL and browser tests, whichever process they run in. The re-run as an
#   ordinary user takes the same lock for its own tests (the `reruns` fixture passes its path).
#   Their files are one group, handed out second: they run while the other process builds the
#   image, which moves neither (measured: bench/README.md) and so lets them in (`set_aside`);
# - the tests that run as an ordinary user share one build of its copy: one group, handed out
#   second;
# - the tests in containers (tests/deploy/) share one build of the image, and they join the
#   browser tests' group (they run first in it): building the image and starting the compose
#   stack (two replicas warming up, a worker, PostgreSQL) fill both cores for minutes, and a
#   fresh server beside them drew its first page after more than 120 s, so a browser test
#   beside them failed on a blank page. In one process they never overlap, and the other
#   process has the rest of the suite meanwhile. They take the lock as the PostgreSQL tests do
#   (a container's PostgreSQL and its shared memory are the machine's too).
BESIDE_NOTHING = "one-after-another"
HOST_WIDE = "host-wide"
AS_THE_USER = "as-the-ordinary-user"
USES_POSTGRES = {"postgres", "store_url", "image"}
HOLDS_THE_MACHINE = "BPN_TESTS_HOLD_THE_MACHINE"  # set while a host-wide test runs
RUN = "BPN_TESTS_RUN"  # the run's id: the controller sets it, its worker processes inherit it
LOCK = "BPN_TESTS_LOCK"  # the lock file of a run this process is part of (a re-run's)


def _host_wide(item) -> bool:
    return item.get_closest_marker("host_wide") is not None


def _groups_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"bpn-tests-{os.environ[RUN]}"


def lock_path() -> Path | None:
    """Return the lock file that this process's tests take turns on, or None in a one-process
    run (which has nothing beside it)."""
    if os.environ.get(LOCK):
        return Path(os.environ[LOCK])
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return _groups_dir() / "turns.lock"
    return None


def pytest_configure(config):
    os.environ.setdefault(RUN, uuid.uuid4().hex)


def pytest_collection_modifyitems(config, items):
    """In a worker of a two-process run, write each test's group for `Turns`: its file, or
    BESIDE_NOTHING for the browser and container tests, HOST_WIDE for the files that hold a
    host-wide test, AS_THE_USER for the ordinary user's; make the lock."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    host_wide_files = {item.path for item in items if _host_wide(item)}
    groups = {}
    for item in items:
        path = item.path.relative_to(ROOT)
        group = path.as_posix()
        if path.parts[:2] == ("tests", "e2e") or "image" in item.fixturenames:
            group = BESIDE_NOTHING
        elif "ordinary" in item.fixturenames:
            group = AS_THE_USER
        elif item.path in host_wide_files:
            group = HOST_WIDE
        groups[item.nodeid] = group
    _groups_dir().mkdir(mode=0o755, exist_ok=True)  # the ordinary user's re-run reads the lock
    for name in ("turns.lock", "turns.gate"):
        os.close(os.open(_groups_dir() / name, os.O_RDONLY | os.O_CREAT, 0o644))
    (_groups_dir() / f"{worker}.json").write_text(json.dumps(groups))


def pytest_xdist_make_scheduler(config, log):
    """Schedule whole groups (`Turns`): the browser and container tests first, then the
    host-wide files, then the ordinary user's, then the others largest first, as xdist's
    --dist loadscope does files."""
    from xdist.scheduler import LoadScopeScheduling

    class Turns(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # every worker has collected (and written) by now
                self.groups = {}
                for written in sorted(_groups_dir().glob("*.json")):
                    self.groups.update(json.loads(written.read_text()))
            return self.groups.get(nodeid, nodeid.split("::")[0])

        def _assign_work_unit(self, node) -> None:
            put_first(self.workqueue)
            super()._assign_work_unit(node)

    return Turns(config, log)


def put_first(workqueue) -> None:
    """Move the browser and container tests' group to the front of xdist's queue of groups,
    then the host-wide files (the other process runs them while the image builds), then the
    ordinary user's."""
    for first in (AS_THE_USER, HOST_WIDE, BESIDE_NOTHING):  # the last goes first
        if first in workqueue:
            workqueue.move_to_end(first, last=False)


class Hold:
    """This process's hold on the run's lock: which mode, on which open files of which lock."""

    mode: int | None = None
    files: tuple[int, int] | None = None
    path: Path | None = None

    @classmethod
    def take(cls, path: Path, mode: int) -> None:
        """Take the lock in mode, through a gate: a process waiting for the exclusive lock
        holds the gate, so that no new shared holder gets in before it (flock is not fair)."""
        lock = os.open(path, os.O_RDONLY)
        gate = os.open(path.with_name("turns.gate"), os.O_RDONLY)
        fcntl.flock(gate, mode)
        fcntl.flock(lock, mode)
        if mode == fcntl.LOCK_SH:
            fcntl.flock(gate, fcntl.LOCK_UN)
        cls.mode, cls.files, cls.path = mode, (lock, gate), path
        os.environ[HOLDS_THE_MACHINE] = "1" if mode == fcntl.LOCK_EX else ""

    @classmethod
    def give_back(cls) -> None:
        """Let go of the lock (closing its files unlocks both)."""
        if cls.files is not None:
            for fd in cls.files:
                os.close(fd)
        cls.mode = cls.files = cls.path = None
        os.environ.pop(HOLDS_THE_MACHINE, None)


@contextlib.contextmanager
def set_aside():
    """Let the host-wide tests run for a while: give back this process's shared hold, if any,
    and take it again after (the image build: it moves neither the host's SysV IPC objects nor
    its Shmem, measured in bench/README.md, so they need not wait for it)."""
    if Hold.mode != fcntl.LOCK_SH:
        yield
        return
    path = Hold.path
    Hold.give_back()
    try:
        yield
    finally:
        Hold.take(path, fcntl.LOCK_SH)


def _turn(item) -> int | None:
    """Return how item takes the lock: exclusive, shared, or not at all."""
    if item is None:
        return None
    if _host_wide(item):
        return fcntl.LOCK_EX
    in_browser = item.path.relative_to(ROOT).parts[:2] == ("tests", "e2e")
    if in_browser or USES_POSTGRES & set(item.fixturenames):
        return fcntl.LOCK_SH
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """In a two-process run, a host-wide test waits for the PostgreSQL and browser tests running
    beside it to end, and holds theirs back while it runs (an exclusive and a shared file lock).
    The exclusive lock is kept over consecutive host-wide tests; a shared one is let go after
    each test, so that a host-wide test waits for one test at most."""
    path, mode = lock_path(), _turn(item)
    if path is None or mode is None:
        return (yield)
    if Hold.mode != mode:
        Hold.give_back()
        Hold.take(path, mode)
    try:
        return (yield)
    finally:
        if mode == fcntl.LOCK_SH or _turn(nextitem) != mode:
            Hold.give_back()


def pytest_sessionfinish(session):
    """Remove the run's groups and lock file when the run ends (its controller, or a one-process
    run, which made none)."""
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(_groups_dir(), ignore_errors=True)
