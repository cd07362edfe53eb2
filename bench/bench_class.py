"""Benchmark a class: simulated learners on real Streamlit sessions, ramped until p95 > 1 s.

    .venv/bin/python bench/bench_class.py [--setup one|pair|both|none] [--ramp 5,10,20,40,80]
        [--seconds 25] [--think 5,15] [--browsers 2] [--weight 16384] [--baseline main]
        [--rounds 4] [--arrive 0,20] [--as-user | --each-as-user] [--move] [--fresh 15]

Each simulated learner opens a real session over the websocket (bench/streamlit_client.py:
Streamlit's own protobuf messages), opens an exercise page, then, again and again: thinks
(a random time in --think seconds), types (the editor's debounced auto-save), pauses a second,
presses Ctrl+Enter, and times submit -> the delta that carries the verdict. A third of the
answers are right (solutions/), the rest wrong (bench_load's WRONG, and the solution
scaled by 2: both draw the heatmaps). Meanwhile a few real chromium pages (Debian's chromium
through Playwright) submit wrong answers every few seconds and time Ctrl+Enter -> the new
feedback painted. Learners are added step by step (--ramp); once their pages are open, each step
runs --seconds (the pages' opening is timed apart); the ramp stops after the first step whose
p95 passes 1 s.

Page opens, timed from the open's start to the editor drawn (the editor's delta over the
websocket; in chromium, the editor's ace content painted), are printed per step in three kinds:
- arrivals: the step's new learners, all opening within 3 s before the window (at 435 learners,
  290 opens queued at once): a burst, not what one learner waits for in a class at work;
- moves (--move): in a real class a learner who solved an exercise opens the next one. With
  --move, a right answer is followed by the next exercise's page in a new session of the same
  browser (its identity cookie sent, as a new tab or a reload does); those that begin inside the
  window are the page opens at that load. It is an option, not the default: the app's own "Next
  exercise" button switches page inside the session, without a new session's set-up, so a new
  session is the dearer end of a move, and the ramps measured before it (bench/README.md) had no
  moves; with it a step's submissions share the core with about one open per three submissions;
- in chromium: every --fresh seconds (15) the chromium thread opens a fresh page of a browser
  it has used before (goto -> the editor drawn), the page a learner sees opening.

Generator and server are kept apart: this process, its learners and chromium run on one core
(--generator-core), the replicas and HAProxy on the other (--server-core, `taskset`). Setups:
- one: one replica on the whole server core;
- pair: two replicas behind HAProxy (deploy/haproxy.cfg, in plain HTTP), each in a CPU cgroup of
  its own limited to half a core (cgroup v1 `cpu.cfs_quota_us`, v2 `cpu.max`), on the same core.
The replicas run `streamlit run app/server.py` (what scripts/serve runs) in the local mode (no
sign-in), each with a data directory and SQLite file of its own (the exercises proven once,
before). Each replica's CPU time per step is read from its
cgroup (cpuacct), so the CPU per submission is printed too. The cgroups are removed at the end.
Run as root for the cgroups; without them the pair falls back to `taskset` alone (said).
Before the ramp it prints the server's CPU per action of one learner alone (opening a page, an
auto-save, a right answer, a wrong one); after it, the pair's throttling by its quota.
On a machine shared with other work, `--weight 16384` gives the server's and the generator's
cgroups that many cpu.shares (everyone else has 1024), so that the replica gets its core.

`--baseline COMMIT` runs that commit (today's main, say) beside this checkout, so that every
figure is a ratio measured in one run on one machine: the commit is checked out into a temporary
`git worktree` and its replicas start from there (same venv, its own app/, grader/ and data/ on
PYTHONPATH). First each checkout's replica is started in turn and a learner arriving --arrive
seconds after its health check opens an exercise and submits (health check -> verdict, and the
submission's own time: the first submission after start); then,
both replicas up, the CPU per action alternates between them round by round (--rounds) and the
ratios baseline / new are printed, and (with --browsers) 8 pages opened in chromium on each side
in turn, by a browser that opened one there before: the server's CPU per page open as a real
page costs it (the websocket's run and the editor's files) and the time to the editor drawn;
then each setup's ramp runs for the baseline, then for this
checkout. `--setup none` stops after the side-by-side figures.

`--as-user` (run as root; not with --baseline) puts the same side-by-side figures to this checkout
run as root and as an ordinary user (`--each-as-user`, with --baseline: each checkout, both ways):
tests/grader/ordinary_user.py's user (made if missing), from
the world-readable copy of the checkout and venv that the tests build for it (its `build`, in a
new temporary directory, removed at the end), started through its setpriv prefix with its own
environment and a data directory it owns under that directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.client
import importlib.util
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench_app import paint_watch
from streamlit_client import ClientError, StreamlitSession

if TYPE_CHECKING:
    from tests.grader.ordinary_user import Ordinary

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions" / "01_mlp"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
READY = "ready"  # --arrive's word for: when /ready first says 200
GOAL = 1.0  # seconds: the ramp stops once p95 passes it
# bench_load.py's wrong answers, each on an exercise that has a solution to be right with.
WRONG = {
    "dcounts_sum_inv": "dcounts_sum_inv = (counts * dprobs).sum(1)",
    "dbndiff": "dbndiff = bnvar_inv * dbnraw",
    "dh": "dh = dlogits @ W2.T * 2",
    "dprobs": "dprobs = 1 / 0",
}
PERIOD = 100_000  # cgroup v1's CPU period (us); a half core is a quota of half of it
CHROMIUM_ROUNDS = 8  # pages opened in chromium on each side, side by side


# Answers --------------------------------------------------------------------------------------


def answers() -> dict[str, tuple[str, list[str]]]:
    """Return, per exercise, its right answer and two wrong ones."""
    found = {}
    for exercise, wrong in WRONG.items():
        right = (SOLUTIONS / f"{exercise}.py").read_text()
        found[exercise] = (right, [wrong, f"{right.rstrip()}\n{exercise} = {exercise} * 2\n"])
    return found


# CPU cgroups -----------------------------------------------------------------------------------


class Cgroup:
    """A CPU cgroup of the benchmark's own (v1: cpu and cpuacct; v2: one folder): an optional
    quota, the CPU time its processes used, removed at the end."""

    def __init__(self, name: str, cores: float | None, weight: int = 0):
        self.v2 = not Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").exists()
        root = Path("/sys/fs/cgroup")
        self.dirs = [root / name] if self.v2 else [root / "cpu" / name, root / "cpuacct" / name]
        for folder in self.dirs:
            folder.mkdir()
        if weight and self.v2:  # v2's weight is 1-10000, 100 by default; v1's shares 1024
            (self.dirs[0] / "cpu.weight").write_text(str(min(10_000, weight * 100 // 1024)))
        elif weight:
            (self.dirs[0] / "cpu.shares").write_text(str(weight))
        if cores is not None and self.v2:
            (self.dirs[0] / "cpu.max").write_text(f"{int(cores * PERIOD)} {PERIOD}")
        elif cores is not None:
            (self.dirs[0] / "cpu.cfs_period_us").write_text(str(PERIOD))
            (self.dirs[0] / "cpu.cfs_quota_us").write_text(str(int(cores * PERIOD)))

    def join(self) -> None:
        """Move the calling process into the cgroup (a Popen preexec_fn: before the exec)."""
        for folder in self.dirs:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def throttled(self) -> tuple[int, float]:
        """Return how many CPU periods the quota throttled, and for how long in all (s)."""
        fields = dict(line.split() for line in (self.dirs[0] / "cpu.stat").read_text().splitlines())
        if self.v2:
            return int(fields.get("nr_throttled", 0)), int(fields.get("throttled_usec", 0)) / 1e6
        return int(fields.get("nr_throttled", 0)), int(fields.get("throttled_time", 0)) / 1e9

    def leave(self) -> None:
        """Move the calling process back to the hierarchy's root (before the cgroup's removal)."""
        for folder in self.dirs:
            (folder.parent / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_seconds(self) -> float:
        """Return the CPU time the cgroup's processes have used since it was made."""
        if self.v2:
            stat = (self.dirs[0] / "cpu.stat").read_text().split()
            return int(stat[stat.index("usage_usec") + 1]) / 1e6
        return int((self.dirs[1] / "cpuacct.usage").read_text()) / 1e9

    def remove(self) -> None:
        for folder in self.dirs:
            for _ in range(50):  # the processes' exit is seen a moment later
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def make_cgroup(name: str, cores: float | None, weight: int = 0) -> tuple[Cgroup | None, str]:
    """Return a cgroup (None if it cannot be made) and why not."""
    try:
        return Cgroup(f"ninja-bench-{os.getpid()}-{name}", cores, weight), ""
    except OSError as err:
        return None, f"no cgroup ({err.strerror}: {err.filename}); taskset alone"


@functools.cache
def ordinary_user():
    """Import tests/grader/ordinary_user.py (--as-user): the tests' ordinary user and the
    readable copy of the checkout it runs (bench/ is a folder of scripts, tests/ no package)."""
    spec = importlib.util.spec_from_file_location(
        "ordinary_user", ROOT / "tests" / "grader" / "ordinary_user.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def as_ordinary_user(code: Path = ROOT) -> Iterator[Ordinary]:
    """Yield how to run the checkout at code (this one, or the baseline's worktree) as the
    tests' ordinary user (made if missing): its copy and venv in a new temporary directory
    (ordinary_user.build), removed at the end. The copy's own modules are compiled first, by
    root into the copy (the user cannot write there), as this checkout's are once it has run:
    the replica starts from bytecode on both sides."""
    module = ordinary_user()
    top = module.temporary_top()
    try:
        user = module.build(code, top)
        compile_all = [str(user.python), "-m", "compileall", "-q", str(user.root)]
        subprocess.run(compile_all, check=True, stdout=subprocess.DEVNULL)
        yield user
    finally:
        shutil.rmtree(top)


# The server side ------------------------------------------------------------------------------


@dataclass
class Part:
    """A started process: a replica or HAProxy."""

    name: str
    process: subprocess.Popen
    url: str
    cgroup: Cgroup | None = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prove(folder: Path) -> Path:
    """Prove the exercises once (the app holds back unproven ones); return the proofs file."""
    proofs = folder / "proofs.json"
    command = [sys.executable, "-m", "grader.proving.proofs", str(proofs)]
    subprocess.run(command, cwd=ROOT, check=True, timeout=900, stdout=subprocess.DEVNULL)
    return proofs


def start_replica(
    folder: Path,
    proofs: Path,
    core: int,
    cgroup: Cgroup | None,
    code: Path = ROOT,
    user: Ordinary | None = None,
) -> Part:
    """Start `streamlit run app/main.py` of the checkout at code (this one, or the baseline's
    worktree) pinned to core, inside cgroup; wait for its health. With user (--as-user), the
    replica runs as the ordinary user, from its readable copy (code is that copy), and folder
    (the data directory's parent, under the copy's temporary directory) becomes the user's."""
    (folder / "var" / "cache").mkdir(parents=True)
    shutil.copy(proofs, folder / "var" / "cache" / "proofs.json")
    if user is not None:
        owner = pwd.getpwnam(ordinary_user().USER)
        for path in [folder, *folder.rglob("*")]:  # the data directory and its proofs
            os.chown(path, owner.pw_uid, owner.pw_gid)
    port = free_port()
    command, env = replica_command(code, folder / "var", port, core, user)
    with (folder / "replica.log").open("w") as log:
        process = subprocess.Popen(
            command,
            cwd=code,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=cgroup.join if cgroup else None,  # noqa: PLW1509 - only writes a file
        )
    part = Part(folder.name, process, f"http://127.0.0.1:{port}", cgroup)
    wait_healthy(part)
    return part


def replica_command(
    code: Path, data: Path, port: int, core: int, user: Ordinary | None = None
) -> tuple[list[str], dict[str, str]]:
    """Return the command that starts a replica of the checkout at code with its data in data,
    and its environment: root's (this process's), or the ordinary user's through its setpriv
    prefix, its Python and its environment alone (nothing of root's)."""
    python = [*user.become, str(user.python)] if user is not None else [sys.executable]
    command = [
        "taskset",
        "-c",
        str(core),
        *python,
        "-m",
        "streamlit",
        "run",
        "app/server.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
    ]
    # PYTHONPATH: the checkout's own app/, grader/ and data/ before the venv's installed ones
    base = dict(os.environ) if user is None else dict(user.env)
    return command, {**base, "NINJA_DATA_DIR": str(data), "PYTHONPATH": str(code)}


def start_proxy(folder: Path, replicas: list[Part], core: int) -> Part:
    """Start HAProxy with deploy/haproxy.cfg in front of the two replicas, pinned to core: in
    plain HTTP on loopback, the addresses in its environment (as deploy/stack does)."""
    port = free_port()
    env = {
        **os.environ,
        "PROXY_PLAIN_HTTP": "1",
        "PROXY_HTTP": f"127.0.0.1:{port}",
        **{f"REPLICA{i}": r.url.removeprefix("http://") for i, r in enumerate(replicas, 1)},
    }
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    config = ROOT / "deploy" / "haproxy.cfg"
    command = ["taskset", "-c", str(core), haproxy, "-db", "-f", str(config)]
    with (folder / "haproxy.log").open("w") as log:
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    part = Part("haproxy", process, f"http://127.0.0.1:{port}")
    wait_healthy(part)
    return part


def wait_healthy(part: Part, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if part.process.poll() is not None:
            raise RuntimeError(f"{part.name} exited with {part.process.returncode}")
        try:
            with urllib.request.urlopen(f"{part.url}/_stcore/health", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{part.name} did not answer within {seconds:g} s")


def wait_ready(part: Part, seconds: float = 300.0) -> float:
    """Wait until the replica's /ready says 200, asking every 0.1 s; return the seconds waited
    (HAProxy sends a replica no learner before: deploy/haproxy.cfg)."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        try:
            with urllib.request.urlopen(f"{part.url}/ready", timeout=5):
                return time.monotonic() - began
        except (OSError, http.client.HTTPException):  # 503 (an OSError), not answering, or
            time.sleep(0.1)  # a reply that is not HTTP yet (a replica half started)
    raise RuntimeError(f"{part.name}'s /ready did not say 200 within {seconds:g} s")


def stop(parts: list[Part]) -> None:
    """Stop each part's process group, then remove its cgroup."""
    for part in parts:
        if part.process.poll() is None:
            os.killpg(part.process.pid, signal.SIGTERM)
    for part in parts:
        try:
            part.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(part.process.pid, signal.SIGKILL)
            part.process.wait()
        if part.cgroup is not None:
            part.cgroup.remove()


# Learners -------------------------------------------------------------------------------------


@dataclass
class Record:
    """One submission: when it was sent (monotonic), how long to the verdict, of what kind."""

    sent: float
    seconds: float | None  # None: lost (no verdict, or the session failed)
    kind: str


ARRIVAL, MOVE, CHROMIUM_OPEN = "arrival", "move", "chromium"  # the kinds of page opens


@dataclass
class Open:
    """One exercise page opened: when (monotonic), of what kind, and the seconds from the open's
    start to the editor drawn (the editor's delta; in chromium, its ace content painted) and to
    the page's run over (None: the open failed)."""

    began: float
    kind: str  # ARRIVAL, MOVE or CHROMIUM_OPEN
    editor: float | None
    done: float | None = None


@dataclass
class Class:
    """What the learners share: the answers, the think time, and what they recorded."""

    url: str
    think: tuple[float, float]
    answers: dict
    move: bool = False  # after a right answer a learner opens the next exercise (--move)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    records: list[Record] = field(default_factory=list)
    opens: list[Open] = field(default_factory=list)
    arrived: int = 0  # learners whose page is open (or who gave up opening it)
    failures: list[str] = field(default_factory=list)


async def open_page(group: Class, exercise: str, kind: str, cookie: str | None = None):
    """Open an exercise page in a new session (with cookie: the same browser's), record the
    open, and return the session (closed again if the open failed)."""
    session = StreamlitSession(group.url, exercise)
    session.returning(cookie)
    began, start = time.monotonic(), time.perf_counter()
    try:
        await session.open()
    except (ClientError, OSError):
        group.opens.append(Open(began, kind, None))
        await session.close()
        raise
    editor = session.editor_at - start if session.editor_at is not None else None
    group.opens.append(Open(began, kind, editor, time.perf_counter() - start))
    return session


def next_exercise(group: Class, exercise: str) -> str:
    """Return the exercise a learner moves on to after solving exercise (in the answers' order)."""
    names = list(group.answers)
    return names[(names.index(exercise) + 1) % len(names)]


async def learner(number: int, group: Class) -> None:
    """One learner: open an exercise page, then think, type, submit, again and again; with
    group.move, a right answer is followed by the next exercise's page (a new session of the
    same browser, as a new tab or a reload is)."""
    rng = random.Random(number)
    exercise = list(group.answers)[number % len(group.answers)]
    if await pause(group, rng.uniform(0, 3)):  # a class does not arrive in one instant
        return
    session = None
    try:
        try:
            session = await open_page(group, exercise, ARRIVAL)
        finally:
            group.arrived += 1
        cookie = session.cookie  # the identity the first page gave this browser
        while not await pause(group, rng.uniform(*group.think)):
            verdict = await answer(group, session, exercise, rng)
            if verdict is None:
                break
            if group.move and verdict.kind == "solved":
                exercise = next_exercise(group, exercise)
                await session.close()
                session = None
                session = await open_page(group, exercise, MOVE, cookie)
    except (ClientError, OSError) as err:
        group.failures.append(f"learner {number}: {err}")
    finally:
        if session is not None:
            await session.close()


async def answer(group: Class, session, exercise: str, rng: random.Random):
    """Type an answer (a third right), pause, submit it; record and return the verdict (None:
    lost, or the run stopped first)."""
    right, wrongs = group.answers[exercise]
    code = right if rng.random() < 1 / 3 else rng.choice(wrongs)
    await session.change(code)
    if await pause(group, 1.0):  # the learner pauses, then presses Ctrl+Enter
        return None
    sent = time.monotonic()
    try:
        verdict = await session.submit(code, timeout=30)
    except ClientError as err:
        group.records.append(Record(sent, None, "lost"))
        group.failures.append(str(err))
        return None
    group.records.append(Record(sent, verdict.seconds, verdict.kind))
    return verdict


async def pause(group: Class, seconds: float) -> bool:
    """Sleep, unless the run stops first; return whether it stopped."""
    try:
        await asyncio.wait_for(group.stopping.wait(), seconds)
    except TimeoutError:
        return False
    return True


# Browsers -------------------------------------------------------------------------------------

EDITOR = "iframe[title*='code_editor']"
WATCH = paint_watch(30000)  # bench_app.py's script, with 30 s before a paint counts as lost


@dataclass
class Browsing:
    """What the chromium thread records: each submission's (sent, painted ms or None), and the
    fresh pages it opened every `every` seconds (0: none)."""

    every: float = 15.0
    painted: list = field(default_factory=list)
    opens: list[Open] = field(default_factory=list)


def open_fresh(context, url: str, exercise: str) -> Open:
    """Open an exercise in a new page of context (a tab of a browser seen before) and time
    goto -> the editor's ace content drawn; close the page."""
    page = context.new_page()
    began = time.monotonic()
    try:
        page.goto(f"{url}/{exercise}", timeout=60_000)
        page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=60_000)
        seconds = time.monotonic() - began
    except Exception:  # noqa: BLE001 - Playwright's timeout or a page that broke: not drawn
        seconds = None
    finally:
        page.close()
    return Open(began, CHROMIUM_OPEN, seconds, seconds)


def browsers(url: str, count: int, stopping: threading.Event, out: Browsing, ready):
    """Open count chromium pages on an exercise; submit wrong answers in turn until stopped,
    appending (sent, painted ms or None) to out.painted; every out.every seconds open a fresh
    page in a context of its own (opened once before, unrecorded: a returning browser)."""
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            pages = []
            for _ in range(count):  # a context each: an identity (and a rate limit) each
                page = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
                page.goto(f"{url}/dprobs")
                page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=120_000)
                pages.append(page)
            fresh = browser.new_context(viewport={"width": 1400, "height": 1600})
            exercises = list(WRONG)
            if out.every:
                open_fresh(fresh, url, exercises[-1])  # the identity's first page: unrecorded
            ready.set()
            turn, due = 0, time.monotonic() + out.every
            while not stopping.is_set():
                if out.every and time.monotonic() >= due:
                    out.opens.append(
                        open_fresh(fresh, url, exercises[len(out.opens) % len(exercises)])
                    )
                    due = time.monotonic() + out.every
                page = pages[turn % count]
                turn += 1
                began = time.monotonic()
                content = page.frame_locator(EDITOR).locator(".ace_content")
                content.click()
                page.keyboard.press("Control+a")
                page.keyboard.type(f"dprobs = torch.ones_like(probs) * {turn + 2}.25")
                page.wait_for_timeout(1000)  # the auto-save settles, as when a learner pauses
                page.evaluate(WATCH)
                sent = time.monotonic()
                page.keyboard.press("Control+Enter")
                out.painted.append((sent, page.evaluate("window.painted")))
                stopping.wait(max(0.0, 3.0 - (time.monotonic() - began)))
            browser.close()
    finally:
        ready.set()


# The ramp -------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


@dataclass
class Step:
    learners: int
    submissions: int
    lost: int
    p50: float
    p95: float
    rate: float  # submissions per second
    painted: list[float]
    painted_lost: int
    cpu: float  # CPU seconds the server side used in the step
    load: float
    seconds: float  # the step's length
    generator: float = 0.0  # CPU seconds of this process (the learners' client) in the step
    chromium: float = 0.0  # CPU seconds of its child processes (Playwright's driver, chromium)
    generator_core: float = 0.0  # how busy the generator's core was, 0 to 1 (everyone's work)
    arrivals: list[Open] = field(default_factory=list)  # the step's new pages, before its window
    moves: list[Open] = field(default_factory=list)  # the learners' next pages in the window
    fresh: list[Open] = field(default_factory=list)  # chromium's fresh pages in the window


def opens_in(opens: list[Open], kind: str, start: float, end: float) -> list[Open]:
    """Return the opens of kind that began in [start, end)."""
    return [o for o in opens if o.kind == kind and start <= o.began < end]


def open_figures(opens: list[Open]) -> str:
    """Return the opens' count, p50 and p95 to the editor drawn, the p50 to the run over (when
    known), and how many failed."""
    drawn = [o.editor for o in opens if o.editor is not None]
    if not drawn:
        return f"n=0, {len(opens)} failed"
    over = [o.done for o in opens if o.done is not None and o.kind != CHROMIUM_OPEN]
    return (
        f"n={len(drawn)}, p50 {percentile(drawn, 50):.2f} s, p95 {percentile(drawn, 95):.2f} s"
        + (f" (run over p50 {percentile(over, 50):.2f} s)" if over else "")
        + f", {len(opens) - len(drawn)} failed"
    )


def opens_line(step: Step) -> str:
    """Return the step's page opens: its arrivals (before the window), then inside the window
    the learners' moves and chromium's fresh pages, each from the open's start to the editor."""
    return (
        f"        page opened, to the editor drawn: arrivals (the step's new pages at once, before"
        f" the window) {open_figures(step.arrivals)}; in the window: moves "
        f"{open_figures(step.moves)}; in chromium {open_figures(step.fresh)}"
    )


def step_line(step: Step) -> str:
    painted = "painted: none"
    if step.painted:
        painted = (
            f"painted p50 {percentile(step.painted, 50):.0f} ms, "
            f"p95 {percentile(step.painted, 95):.0f} ms (n={len(step.painted)}"
            f", {step.painted_lost} lost)"
        )
    graded = step.submissions + step.lost + len(step.painted) + step.painted_lost
    per = f"{step.cpu / graded * 1000:.0f} ms" if graded else "-"  # chromium's count too
    return (
        f"  {step.learners:4d} learners: n={step.submissions:4d} ({step.rate:.2f}/s), "
        f"p50 {step.p50 * 1000:5.0f} ms, p95 {step.p95 * 1000:5.0f} ms, lost {step.lost}; "
        f"{painted}; server CPU {step.cpu / step.seconds:.2f} cores, {per}/submission; "
        f"generator {step.generator / step.seconds:.2f} cores, chromium "
        f"{step.chromium / step.seconds:.2f} cores, the generator's core "
        f"{step.generator_core:.0%} busy; load {step.load:.1f}"
    )


def tree_cpu(servers: frozenset[int] = frozenset()) -> tuple[float, float]:
    """Return the CPU seconds of this process (the learners' client: every thread) and of its
    living descendants (Playwright's driver and chromium's processes), read from /proc; the
    servers' processes (their pids) and theirs are left out: the replicas are children too."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    own, found, todo = used.get(os.getpid(), 0.0), 0.0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        if pid in servers:
            continue
        found += used.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return own, found


def core_busy(core: int) -> tuple[int, int]:
    """Return the busy and total jiffies of one core so far (/proc/stat)."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith(f"cpu{core} "):
            jiffies = [int(x) for x in line.split()[1:]]
            idle = jiffies[3] + jiffies[4]  # idle and iowait
            return sum(jiffies) - idle, sum(jiffies)
    return 0, 0


async def ramp(
    url: str, args, cpu, browser_url: str, servers: frozenset[int] = frozenset()
) -> list[Step]:
    """Add learners step by step; return each step's figures (stop after p95 passes 1 s)."""
    group = Class(url, args.think, answers(), args.move)
    stopping, chrome, ready = threading.Event(), Browsing(args.fresh), threading.Event()
    thread = threading.Thread(
        target=browsers, args=(browser_url, args.browsers, stopping, chrome, ready), daemon=True
    )
    if args.browsers:
        thread.start()
        await asyncio.to_thread(ready.wait)
    tasks, steps = [], []
    try:
        for count in args.ramp:
            while len(tasks) < count:
                tasks.append(asyncio.create_task(learner(len(tasks), group)))
            opening = time.monotonic()  # the new pages open first: the window is steady work
            while group.arrived < count and time.monotonic() - opening < 120:
                await asyncio.sleep(0.1)
            await asyncio.sleep(args.settle)  # the arrivals' opens and first answers pass
            start, used = time.monotonic(), cpu()
            mine, browsing = tree_cpu(servers)
            busy, total = core_busy(args.generator_core)
            await asyncio.sleep(args.seconds)
            end = time.monotonic()
            step = summarise(group, chrome.painted, count, start, end, cpu() - used)
            step.arrivals = opens_in(group.opens, ARRIVAL, opening, start)
            step.moves = opens_in(group.opens, MOVE, start, end)
            step.fresh = opens_in(chrome.opens, CHROMIUM_OPEN, start, end)
            now_mine, now_browsing = tree_cpu(servers)
            now_busy, now_total = core_busy(args.generator_core)
            step.generator, step.chromium = now_mine - mine, max(0.0, now_browsing - browsing)
            step.generator_core = (now_busy - busy) / max(1, now_total - total)
            steps.append(step)
            print(step_line(step), flush=True)
            print(opens_line(step), flush=True)
            if step.p95 > GOAL:
                break
    finally:
        group.stopping.set()
        stopping.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        if thread.is_alive():
            await asyncio.to_thread(thread.join, 60)
    print_totals(group, chrome)
    return steps


def print_totals(group: Class, chrome: Browsing) -> None:
    """Print the ramp's totals: chromium's submissions, the failures, the page opens."""
    painted = chrome.painted
    shown = [ms for _, ms in painted if ms is not None]
    print(
        f"  chromium: {len(painted)} submissions in all, {len(painted) - len(shown)} without "
        "feedback within 30 s"
        + (
            f", painted p50 {percentile(shown, 50):.0f} ms, max {max(shown):.0f} ms"
            if shown
            else ""
        )
    )
    if group.failures:
        print(f"  failures ({len(group.failures)}): {group.failures[:3]}")
    arrived = [o.done for o in group.opens if o.kind == ARRIVAL and o.done is not None]
    if arrived:  # today's figure before this split: each step's new pages, opened at once
        print(
            f"  page opened at arrival (each step's new learners at once; to the run over): "
            f"p50 {percentile(arrived, 50):.2f} s, p95 {percentile(arrived, 95):.2f} s "
            f"(n={len(arrived)})"
        )
    for kind, opens in ((MOVE, group.opens), (CHROMIUM_OPEN, chrome.opens)):
        if any(o.kind == kind for o in opens):
            every = opens_in(opens, kind, 0.0, float("inf"))
            print(f"  {kind} page opens in all, the ramp's: {open_figures(every)}")


def summarise(group: Class, painted, count, start, end, cpu_used) -> Step:
    inside = [r for r in group.records if start <= r.sent < end]
    times = [r.seconds for r in inside if r.seconds is not None]
    shown = [p for sent, p in painted if start <= sent < end]
    step = Step(
        count,
        len(times),
        len(inside) - len(times),
        percentile(times, 50) if times else 0.0,
        percentile(times, 95) if times else 0.0,
        len(times) / (end - start),
        [p for p in shown if p is not None],
        sum(1 for p in shown if p is None),
        cpu_used,
        os.getloadavg()[0],
        end - start,
    )
    return step


async def warm(urls: list[str]) -> None:
    """Grade every answer once on each replica, as a live app would have (references built)."""
    for url in urls:
        for exercise, (right, wrongs) in answers().items():
            session = StreamlitSession(url, exercise)
            await session.open(timeout=180)
            for code in (right, *wrongs):
                await session.submit(code, timeout=180)
            await session.close()


@dataclass
class Side:
    """One checkout's replica in a side-by-side run: its label, address and CPU counter."""

    label: str
    url: str
    cpu: object  # () -> CPU seconds used so far


async def costs(sides: list[Side], rounds: int = 4) -> dict[str, dict[str, float]]:
    """Print the server's CPU per action of one learner alone, each waited out: opening an
    exercise page, an auto-save, a right answer, a wrong one (with its heatmaps). With several
    sides (the baseline's replica and this checkout's) the rounds alternate between them, so
    that both see the same machine; return {side: {action: median CPU seconds}}."""
    spent = {s.label: {"open": [], "auto-save": [], "right": [], "wrong": []} for s in sides}
    exercises = list(answers().items())
    for number in range(rounds):
        exercise, (right, wrongs) = exercises[number % len(exercises)]
        for side in sides if number % 2 == 0 else sides[::-1]:
            await one_learner_alone(side, exercise, right, wrongs, spent[side.label])
    medians = {
        label: {k: percentile(v, 50) for k, v in kinds.items() if v}
        for label, kinds in spent.items()
    }
    for label, figures in medians.items():
        print(
            f"  {label}: server CPU per action, one learner alone (median of {rounds}): "
            + "; ".join(f"{k} {v * 1000:.0f} ms" for k, v in figures.items()),
            flush=True,
        )
    if len(sides) == 2:
        base, new = (medians[s.label] for s in sides)
        print(
            f"  {sides[0].label} / {sides[1].label}: "
            + "; ".join(f"{k} x{base[k] / new[k]:.2f}" for k in base if new.get(k)),
            flush=True,
        )
    return medians


async def one_learner_alone(side: Side, exercise: str, right: str, wrongs, spent) -> None:
    """Open exercise, auto-save, answer right, then wrong; add each action's CPU to spent."""
    session = StreamlitSession(side.url, exercise)
    used = side.cpu()
    await session.open()
    spent["open"].append(side.cpu() - used)
    await asyncio.sleep(1.0)  # the learner reads the page before typing
    for kind, code in (("auto-save", wrongs[0]), ("right", right), ("wrong", wrongs[1])):
        used = side.cpu()
        if kind == "auto-save":
            await session.change(code)
        else:
            await session.submit(code)
        await session.quiet()
        await asyncio.sleep(0.5)  # anything the page asked for afterwards
        await session.quiet()
        spent[kind].append(side.cpu() - used)
    await session.close()


async def first_submission(url: str, healthy: float) -> tuple[float, float, float, int]:
    """A learner waiting at the door as the server answers its health check: open an exercise
    page (again while it is not served yet), submit the right answer. Return the seconds from
    health to the verdict, the submission's own seconds, the seconds of the open that served
    the page (the server's first page run, unless an open before it was refused), and how many
    opens were tried."""
    exercise, (right, _) = next(iter(answers().items()))
    tries = 0
    while True:
        tries += 1
        session = StreamlitSession(url, exercise)
        try:
            began = time.monotonic()
            await session.open(timeout=180)
            opened = time.monotonic() - began
            verdict = await session.submit(right, timeout=180)
            return time.monotonic() - healthy, verdict.seconds, opened, tries
        except ClientError:
            if time.monotonic() - healthy > 300:
                raise
            await asyncio.sleep(0.2)
        finally:
            await session.close()


def compare(
    codes: list[tuple[str, Path, Ordinary | None]], folder: Path, proofs: Path, args
) -> None:
    """For each arrival time, start each checkout's replica in turn and time a first learner
    who arrives that many seconds after the health check (0: at once, while the server still
    starts its background work; later: once it is idle), from the health check to the verdict;
    then, one replica of each running, each action's server CPU, rounds alternating. A code's
    user (--as-user) runs its replica as the ordinary user, its data beside the user's copy."""
    print("\n== side by side: " + ", ".join(label for label, _, _ in codes), flush=True)
    for turn, arrive in enumerate(args.arrive):  # an arrival named twice (0,20,0,20) repeats
        for number, (label, code, user) in enumerate(codes):
            first(label, code, user, arrive, f"{turn}-{number}", folder, proofs, args)
    parts, sides = [], []
    try:
        for number, (label, code, user) in enumerate(codes):
            group, why = make_cgroup(f"side{number}", None, args.weight)
            where = (user.root.parent if user else folder) / f"side{number}"
            part = start_replica(where, proofs, args.server_core, group, code, user)
            parts.append(part)
            if group is None:
                print(f"  {label}: {why}: no CPU figures")
                return
            sides.append(Side(label, part.url, group.cpu_seconds))
        asyncio.run(warm([s.url for s in sides]))
        asyncio.run(costs(sides, args.rounds))
        if args.browsers:
            chromium_opens(sides, CHROMIUM_ROUNDS)
    finally:
        stop(parts)


def chromium_opens(sides: list[Side], rounds: int) -> None:
    """Print, per side, what opening an exercise page in chromium costs alone: a browser that
    opened a page there before opens another (goto -> the editor drawn, then closed), rounds
    alternating between the sides; the server's CPU from goto to a second after the close, and
    the seconds to the editor. Then the ratios baseline / new."""
    from playwright.sync_api import sync_playwright

    spent = {s.label: {"CPU": [], "drawn": []} for s in sides}
    exercises = list(WRONG)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        contexts = {
            s.label: browser.new_context(viewport={"width": 1400, "height": 1600}) for s in sides
        }
        for side in sides:  # the browser's first page there: its identity, what it may keep
            open_fresh(contexts[side.label], side.url, exercises[-1])
        for number in range(rounds):
            for side in sides if number % 2 == 0 else sides[::-1]:
                used = side.cpu()
                exercise = exercises[number % len(exercises)]
                opened = open_fresh(contexts[side.label], side.url, exercise)
                time.sleep(1.0)  # the closed page's session ends
                spent[side.label]["CPU"].append(side.cpu() - used)
                spent[side.label]["drawn"].append(opened.editor or float("inf"))
        browser.close()
    medians = {
        label: {k: percentile(v, 50) for k, v in kinds.items()} for label, kinds in spent.items()
    }
    for label, figures in medians.items():
        print(
            f"  {label}: a page opened in chromium alone (a browser seen before; median of"
            f" {rounds}): server CPU {figures['CPU'] * 1000:.0f} ms, editor drawn"
            f" {figures['drawn']:.2f} s",
            flush=True,
        )
    if len(sides) == 2:
        base, new = (medians[s.label] for s in sides)
        print(
            f"  {sides[0].label} / {sides[1].label}: chromium open CPU"
            f" x{base['CPU'] / new['CPU']:.2f}, drawn x{base['drawn'] / new['drawn']:.2f}",
            flush=True,
        )


def first(
    label, code, user, arrive: float | str, name: str, folder: Path, proofs: Path, args
) -> None:
    """Start the replica of code (as user, if any) and time a learner arriving arrive seconds
    after its health check (or, arrive "ready", as soon as /ready says 200: the first learner
    HAProxy would send), to the first verdict; print it, with the load."""
    group, _ = make_cgroup(f"first{name}", None, args.weight)
    where = (user.root.parent if user else folder) / f"first{arrive}-{name}"
    part = start_replica(where, proofs, args.server_core, group, code, user)
    healthy = time.monotonic()
    door = "the health check"
    try:
        if arrive == READY:
            arrive = wait_ready(part)
            door = "the health check, as /ready first said 200"
        else:
            time.sleep(arrive)
        total, own, opened, tries = asyncio.run(first_submission(part.url, healthy))
    except ClientError as err:
        log = (where / "replica.log").read_text()[-2000:]
        print(f"  {label}: no first verdict ({err}); its log ends:\n{log}", flush=True)
        return
    finally:
        cpu = f", server CPU {group.cpu_seconds():.1f} s since its start" if group else ""
        stop([part])
    print(
        f"  {label}: first submission, the learner arriving {arrive:.2f} s after {door}:"
        f" verdict {total:.2f} s after it ({total - arrive:.2f} s after the arrival;"
        f" {tries} opens tried, the page opened in {opened:.2f} s), the submission itself"
        f" {own:.2f} s{cpu};"
        f" load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def run_setup(
    name: str, folder: Path, proofs: Path, args, label: str = "new", code: Path = ROOT
) -> tuple[list[Step], str]:
    """Start the setup's server side from the checkout at code, warm it, ramp; return the steps
    and how it was limited."""
    folder.mkdir()
    parts, note = [], ""
    try:
        if name == "one":
            group, note = make_cgroup("one", None, args.weight)  # no quota: to count its CPU
            parts.append(start_replica(folder / "r1", proofs, args.server_core, group, code))
            url = parts[0].url
            note = note or f"one replica, taskset core {args.server_core}"
        else:
            for i in (1, 2):
                group, why = make_cgroup(f"pair{i}", 0.5, args.weight // 2)
                note = why or note
                parts.append(start_replica(folder / f"r{i}", proofs, args.server_core, group, code))
            proxy = start_proxy(folder, parts, args.server_core)
            parts.append(proxy)
            url = proxy.url
            if not note:
                knob = "cpu.max" if parts[0].cgroup.v2 else "cpu.cfs_quota_us"
                note = (
                    f"two replicas, each in a cgroup of half a core ({knob} {PERIOD // 2} of"
                    f" {PERIOD} us), HAProxy; all on taskset core {args.server_core}"
                )
        print(f"\n== {label}, {name}: {note}", flush=True)
        asyncio.run(warm([p.url for p in parts if p.name != "haproxy"]))

        def cpu() -> float:
            return sum(p.cgroup.cpu_seconds() for p in parts if p.cgroup is not None)

        if parts[0].cgroup is not None:
            asyncio.run(costs([Side(label or "new", url, cpu)]))
        steps = asyncio.run(ramp(url, args, cpu, url, frozenset(p.process.pid for p in parts)))
        for part in parts:
            if part.cgroup is not None and name == "pair":
                periods, seconds = part.cgroup.throttled()
                print(
                    f"  {part.name}: throttled by its quota in {periods} periods, {seconds:.1f} s"
                )
    finally:
        stop(parts)
    return steps, note


def served(steps: list[Step]) -> Step | None:
    """Return the largest step whose p95 met the goal."""
    met = [s for s in steps if s.submissions and s.p95 <= GOAL]
    return met[-1] if met else None


def summarise_all(results: dict, args) -> None:
    """Print, per checkout and setup, the largest step that met the goal."""
    print("\nsummary (p95 submit -> verdict delta <= 1 s)")
    mean_think = sum(args.think) / 2 + 1.0
    for (label, name), (steps, note) in results.items():
        best = served(steps)
        if best is None:
            print(f"  {label}, {name}: no step met the goal ({note})")
            continue
        print(
            f"  {label}, {name}: {best.learners} learners served (p95 {best.p95 * 1000:.0f} ms, "
            f"{best.rate:.2f} submissions/s, one every {mean_think:.0f} s each); "
            f"at one submission a minute each that rate is {best.rate * 60:.0f} learners; "
            f"server CPU {best.cpu / (best.submissions + len(best.painted)) * 1000:.0f} ms"
            " per submission (the learners' and chromium's)"
        )


@contextlib.contextmanager
def checkouts(baseline: str, folder: Path) -> Iterator[list[tuple[str, Path]]]:
    """Yield the checkouts to run, labelled: this one, after the baseline commit checked out
    into a temporary git worktree (detached; removed at the end) when one is named."""
    if not baseline:
        yield [("new", ROOT)]
        return
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(
        [*git, "rev-parse", "--verify", f"{baseline}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    path = folder / "baseline"
    subprocess.run([*git, "worktree", "add", "--detach", "--quiet", str(path), commit], check=True)
    try:
        yield [(f"baseline {commit[:7]}", path), ("new", ROOT)]
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(path)], check=False)


def both_users(codes: list[tuple[str, Path]], stack: contextlib.ExitStack, args) -> list:
    """Return the sides of --as-user and --each-as-user: each checkout run as root and as the
    ordinary user (with --baseline, the baseline's two and this checkout's two, labelled)."""
    sides = []
    for label, code in codes:
        user = stack.enter_context(as_ordinary_user(code))
        prefix = f"{label}, " if args.baseline else ""
        name = ordinary_user().USER
        sides += [(f"{prefix}root", code, None), (f"{prefix}{name}", user.root, user)]
    return sides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", choices=("one", "pair", "both", "none"), default="both")
    parser.add_argument(
        "--baseline",
        default="",
        help="a commit (main, a935282) to run side by side with this checkout, from a temporary"
        " git worktree: first submission after start, CPU per action, then each setup's ramp",
    )
    parser.add_argument("--rounds", type=int, default=4, help="rounds of the CPU per action")
    parser.add_argument(
        "--arrive",
        default="0,20",
        help="with --baseline or --as-user: the first learner arrives this many seconds after"
        " the health check (each in turn; one named twice, 0,20,0,20, is timed twice), or"
        " `ready`: as soon as the replica's /ready says 200, as HAProxy would send one",
    )
    parser.add_argument(
        "--as-user",
        action="store_true",
        help="run as root: the side-by-side figures (first submission, CPU per action) compare"
        " this checkout's replica run as root with one run as the tests' ordinary user"
        " (tests/grader/ordinary_user.py: ninjatest, made if missing; its readable copy and venv"
        " in a new temporary directory, its data directory there too)",
    )
    parser.add_argument(
        "--each-as-user",
        action="store_true",
        help="run as root, with --baseline: the side-by-side figures for each checkout run as"
        " root and as the ordinary user (four replicas in turn, as --as-user makes its)",
    )
    parser.add_argument("--ramp", default="5,10,20,40,80")
    parser.add_argument("--seconds", type=float, default=25.0)
    parser.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait after a step's new pages are open before its window: 0 measures "
        "the arrival's wake (opens, first answers), 60 (the longest think) a steady class",
    )
    parser.add_argument("--think", default="5,15", help="think time range, seconds")
    parser.add_argument("--browsers", type=int, default=2)
    parser.add_argument(
        "--move",
        action="store_true",
        help="after a right answer a learner opens the next exercise's page (a new session of"
        " the same browser); the opens inside each step's window are timed",
    )
    parser.add_argument(
        "--fresh",
        type=float,
        default=15.0,
        help="seconds between chromium's fresh pages (goto -> the editor drawn; 0: none)",
    )
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--generator-core", type=int, default=1)
    parser.add_argument(
        "--weight",
        type=int,
        default=0,
        help="cpu.shares of the server side's cgroups (1024 is everyone's; split by the pair):"
        " on a busy machine, so that the replica gets its core",
    )
    args = parser.parse_args()
    if args.as_user and (args.baseline or os.geteuid() != 0):
        parser.error("--as-user runs as root, and without --baseline (root against the user)")
    if args.each_as_user and (not args.baseline or os.geteuid() != 0):
        parser.error("--each-as-user runs as root, with --baseline")
    args.ramp = [int(n) for n in args.ramp.split(",")]
    args.think = tuple(float(s) for s in args.think.split(","))
    args.arrive = [s if s == READY else float(s) for s in args.arrive.split(",")]
    os.sched_setaffinity(0, {args.generator_core})  # chromium and the learners inherit it
    print(
        f"bench_class: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{os.cpu_count()} cores; server on core {args.server_core}, generator on core "
        f"{args.generator_core}; think {args.think[0]:g}-{args.think[1]:g} s; steps of "
        f"{args.seconds:g} s after {args.settle:g} s to settle; {args.browsers} chromium pages; "
        f"learners move on after a right answer: {'yes' if args.move else 'no'}; "
        f"chromium's fresh page every {args.fresh:g} s; "
        "server cpu.shares "
        f"{args.weight or 'default'}; "
        f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )
    setups = {"both": ("one", "pair"), "none": ()}.get(args.setup, (args.setup,))
    results = {}
    generator = make_cgroup("generator", None, args.weight)[0] if args.weight else None
    if generator is not None:  # the learners and chromium get their core as the server does
        generator.join()
    try:
        with (
            tempfile.TemporaryDirectory(prefix="ninja-bench-class-") as tmp,
            checkouts(args.baseline, Path(tmp)) as codes,
            contextlib.ExitStack() as stack,
        ):
            proofs = prove(Path(tmp))
            if args.baseline and not args.each_as_user:
                compare([(*c, None) for c in codes], Path(tmp) / "compare", proofs, args)
            if args.as_user or args.each_as_user:
                compare(both_users(codes, stack, args), Path(tmp) / "compare", proofs, args)
            for name in setups:
                for label, code in codes:
                    folder = Path(tmp) / f"{name}-{label.split()[0]}"
                    results[label, name] = run_setup(name, folder, proofs, args, label, code)
    finally:
        if generator is not None:
            generator.leave()
            generator.remove()
    summarise_all(results, args)
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
