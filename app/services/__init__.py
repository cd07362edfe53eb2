"""The shared services: the app's one door to grader/, data/ and storage, as objects kept per
server process (memo.py: keyed by what changes them, such as the exercise files' signature).

Pages call these functions and never build a Grader, a Dataset or a Store themselves, so tests
can patch one function here (this face is the door: its functions are what the room offers).
A Grader caches references per dataset, so there is one per dataset fingerprint (and per
version of the exercise files). background.py holds the work started once, in threads (the
scenarios' first run, the sandbox).

    >>> from app import services
    >>> services.store().work.statuses(profile)
    >>> services.grader("default").grade("dlogprobs", code)
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

import grader as grader_lib  # the grader's faces: their names load on first use (no torch here)
from app.config import AppConfig, from_env
from app.services import memo
from app.services.background import LayerProbe, ScenarioRuns, Warmup, map_modules, open_early
from app.storage import StorageUnavailable as StorageUnavailable  # what a page run catches
from app.storage import Store, open_store, wordlists
from grader import proving, training

if TYPE_CHECKING:
    from data import Dataset
    from grader import Catalog, Grader
    from grader.sandbox import Load
    from grader.training import Trainer

T = TypeVar("T")
RUN_MEMO = "_ninja_run_memo"  # the attribute of a script run's context that once_per_run uses
DEFAULT_SOURCE = "default"
NAMES_SOURCE = "names"
UPLOAD_PREFIX = wordlists.PREFIX


def config() -> AppConfig:
    """Return the configuration from the environment (read once per script run)."""
    return once_per_run("config", lambda: from_env(os.environ))


def once_per_run(key: str, compute: Callable[[], T]) -> T:
    """Return compute()'s value, computed once per script run (or fragment run) of this session;
    outside a script run (a thread of the server's, a test), computed on every call.

    A page asks for the configuration and the exercise files' version dozens of times a run; the
    run's context is reset with new cursors at each run's start, so a value kept beside them is
    never seen by a later run.
    """
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return compute()
    memo = getattr(ctx, RUN_MEMO, None)
    if memo is None or memo[0] is not ctx.cursors:
        memo = (ctx.cursors, {})
        setattr(ctx, RUN_MEMO, memo)
    if key not in memo[1]:
        memo[1][key] = compute()
    return memo[1][key]


def forget(key: str) -> None:
    """Drop the value once_per_run keeps under key in this run: a write changed it, so the
    run's next call computes it again."""
    ctx = get_script_run_ctx(suppress_warning=True)
    memo = getattr(ctx, RUN_MEMO, None) if ctx is not None else None
    if memo is not None and memo[0] is ctx.cursors:
        memo[1].pop(key, None)


def revise(key: str, change: Callable[[T], T]) -> None:
    """Replace the value once_per_run keeps under key in this run by change(value), if it keeps
    one: a write whose effect on it is known, so the run need not read it again."""
    ctx = get_script_run_ctx(suppress_warning=True)
    memo = getattr(ctx, RUN_MEMO, None) if ctx is not None else None
    if memo is not None and memo[0] is ctx.cursors and key in memo[1]:
        memo[1][key] = change(memo[1][key])


def store() -> Store:
    """Return the progress store named by the configured database URL, for the served course
    (progress is keyed by course id: see grader's course.toml `id`); looked up once per run."""
    return once_per_run("store", lambda: _store(config().database_url, declared().course.id))


@memo.shared()
def _store(url: str, course: str) -> Store:
    """Open a store once per URL and course."""
    return open_store(url, course)


def exercise_version(key: str) -> str:
    """Return the content version of the exercise with this id (or part id), "" for other keys
    (a whole pass, the training page)."""
    found = once_per_run("versions", lambda: {e.id: e.version for e in declared().exercises})
    return found.get(key.split(":")[0], "")


def identity_secret() -> bytes:
    """Return the key that signs browser identities, kept in the data dir (config/identity.py)."""
    return _identity_secret(str(config().data_dir))


@memo.shared()
def _identity_secret(data_dir: str) -> bytes:
    """Read (or draw) the secret once per data directory."""
    from app.config.identity import KEY_FILE, load_secret

    return load_secret(Path(data_dir) / KEY_FILE)


def catalog() -> Catalog:
    """Return the exercises to serve, re-read when a file under the exercises folder changes.

    A scenario that fails to run is withdrawn with its exercises; until every scenario has run
    once (in the background, from the first call) none is served. An exercise that `validate`
    would refuse (its solution fails, its starter or zeros pass, a listed mistake is not
    caught) is withdrawn and reported with the unreadable files, on the Problems page; one not
    proven yet is held back until it is. The proofs run in the background and are remembered
    by file content. Looked up once per page run (a page asks for it several times).
    """
    return once_per_run("catalog", _served)[0]


def held_back() -> int:
    """Return how many exercises this run's catalog holds back until they are proven, counted
    when it was taken: proofs that end later in the run are not in it, and a page that finds
    fewer pending than this draws itself again (Home's timer)."""
    return once_per_run("catalog", _served)[1]


def _served() -> tuple[Catalog, int]:
    """Return the catalog served now (`catalog`), from the background's state, and how many
    exercises it holds back until they are proven."""
    full = ran_catalog()
    if full is None:
        files = declared()
        held = len(files.exercises)
        return files.withdraw((), scenarios=tuple(s.slug for s in files.scenarios)), held
    failed, pending = proofs_failed(), proofs_pending()
    if not failed and not pending:
        return full, 0
    found = tuple(grader_lib.SchemaError(f.where, f.problem) for fs in failed.values() for f in fs)
    return full.withdraw(found, exercises=(*failed, *pending)), len(pending)


def course_title() -> str:
    """Return the course's title, read from the files without running anything."""
    return declared().course.title


def declared() -> Catalog:
    """Return every exercise the files declare (read, nothing run or proven)."""
    return once_per_run("declared", lambda: _declared(*_version()))


def ran_catalog(wait: bool = False) -> Catalog | None:
    """Return the catalog without the scenarios that fail to run, or None until they have run
    (unless told to wait for them)."""
    runs = once_per_run("runs", lambda: _runs(*_version()))
    return runs.wait() if wait or runs.done.is_set() else None


def proofs_failed() -> dict:
    """Return {exercise id: findings} of the exercises proven wrong so far (background)."""
    return _proofs_now().failed()


def proofs_pending() -> set[str]:
    """Return the ids of the exercises not proven yet (every one while the scenarios run)."""
    full = ran_catalog()
    if full is None:
        return {e.id for e in declared().exercises}
    proofs = _proofs_now()
    if proofs.done.is_set():
        return set()
    return {e.id for e in full.exercises} - proofs.proven()


def _proofs_now() -> proving.Proofs:
    """Return the proofs of the files' version (`_proofs`), looked up once per script run."""
    return once_per_run("proofs", lambda: _proofs(*_version(), str(config().cache_dir)))


def training_available(served: Catalog) -> bool:
    """Return whether the course has the training page: it wants one and the lecture's MLP
    exercises that make up its backward section are all served, on the scenario that trains
    on the dataset."""
    ids = {e.id for e in served.exercises if e.scenario.uses_dataset}
    if not (served.course.training and ids):  # no torch import while nothing is served
        return False
    return all(part in ids for part, _ in training.PARTS)


@memo.shared(max_entries=2)  # an evicted version's thread ends when its proofs are done
def _proofs(root: str, signature: str, cache_dir: str) -> proving.Proofs:
    """Start proving the catalog once per version of the files, in a thread."""
    proofs = proving.Proofs(
        _catalog(root, signature), grader(DEFAULT_SOURCE), Path(cache_dir) / "proofs.json"
    )
    proofs.recall()  # those proven before are served at once, even by this first page
    threading.Thread(target=proofs.run, name="exercise-proofs", daemon=True).start()
    return proofs


def _version() -> tuple[str, str]:
    """Return the exercises folder and the signature of its files (once per script run: the
    walk cost about 10 ms, and the page asked for it some 30 times a run)."""
    root = exercises_root()
    return str(root), once_per_run(f"signature:{root}", lambda: _signature(root))


def exercises_root() -> Path:
    """Return the exercises folder: the configured one, or the grader's default."""
    return config().exercises_dir or grader_lib.EXERCISES_DIR


def _signature(root: Path) -> str:
    """Return a digest of the names, sizes and times of every file under root, to notice edits
    (a short text: the memos below are keyed by it). Every file is looked at in every run; the
    digest is made again only when what was found differs from the last walk's."""
    stamps = sorted(_stamps(str(root)))
    last = _LAST_WALK[0]  # one read: another run's thread may replace it meanwhile
    if last is not None and last[0] == stamps:
        return last[1]
    digest = hashlib.sha256(repr(stamps).encode()).hexdigest()
    _LAST_WALK[0] = (stamps, digest)
    return digest


_LAST_WALK: list[tuple[list, str] | None] = [None]  # the last walk's stamps and their digest


def _stamps(root: str) -> list[tuple[str, int, int]]:
    """Return (path, size, modified) of every file under root, links to folders followed (as
    os.walk(root, followlinks=True) finds them, for two thirds of its CPU)."""
    stamps, folders = [], [root]
    while folders:
        try:
            entries = os.scandir(folders.pop())
        except OSError:  # a folder removed meanwhile, or not readable: os.walk skips it too
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        folders.append(entry.path)
                        continue
                    found = entry.stat()
                except OSError:  # a broken link, or a file removed meanwhile: not a file to read
                    continue
                stamps.append((entry.path, found.st_size, found.st_mtime_ns))
    return stamps


def _catalog(root: str, signature: str) -> Catalog:
    """Return the catalog without the scenarios that fail to run, waiting for them to run."""
    return _runs(root, signature).wait()


@memo.shared(max_entries=2)
def _declared(root: str, signature: str) -> Catalog:
    """Discover the exercises once per version of the folder (files read, nothing run)."""
    return grader_lib.discover(Path(root))


@memo.shared(max_entries=2)
def _runs(root: str, signature: str) -> ScenarioRuns:
    """Return the thread that runs the scenarios once per version of the folder."""
    return ScenarioRuns(_declared(root, signature))


def dataset(source: str) -> Dataset:
    """Return the dataset for a source: "default", "names" or "upload:<path>" (looked up once
    per script run)."""
    return once_per_run(f"dataset-of:{source}", lambda: _dataset(source, str(config().cache_dir)))


@memo.shared(max_entries=4)
def _dataset(source: str, cache_dir: str) -> Dataset:
    """Build a dataset once per source."""
    uploads = config().uploads_dir
    kept = store().word_lists if source.startswith(wordlists.PREFIX) else None  # uploads only
    return wordlists.load_dataset(source, Path(cache_dir), uploads, kept)


def grader(source: str) -> Grader:
    """Return the grader for a dataset source, shared by every session that uses it (looked up
    once per script run)."""
    return once_per_run(f"grader-of:{source}", lambda: _grader_of(dataset(source)))


def _grader_of(chosen: Dataset) -> Grader:
    """Return the shared grader of a dataset (`_grader`) for the files' version."""
    return _grader(chosen.fingerprint, *_version(), _dataset=chosen)


@memo.shared(max_entries=4)
def _grader(fingerprint: str, root: str, signature: str, *, _dataset: Dataset) -> Grader:
    """Build a grader once per dataset fingerprint and version of the exercise files."""
    return grader_lib.Grader(_dataset, _catalog(root, signature))


def trainer(source: str) -> Trainer:
    """Return Exercise 4's trainer for a dataset source, shared by every session that uses it."""
    chosen = dataset(source)
    return _trainer(chosen.fingerprint, *_version(), str(config().data_dir), _dataset=chosen)


@memo.shared(max_entries=4)
def _trainer(
    fingerprint: str, root: str, signature: str, data_dir: str, *, _dataset: Dataset
) -> Trainer:
    """Build a trainer once per dataset; its autograd references are kept under the data dir."""
    return training.Trainer(_dataset, Path(data_dir) / "training", _catalog(root, signature))


def missing_layers() -> dict[str, str] | None:
    """Return the sandbox layers this machine lacks -> why, or None while the sandbox starts.

    The sandbox starts in the background once a page is drawn (`start_background`), so no page
    waits for it; with `NINJA_REQUIRE_ALL_LAYERS` the call starts it, waits and raises
    MissingLayers if any layer is off.
    """
    probe = _layer_probe(config().require_all_layers, config().time_limit)
    if config().require_all_layers:
        probe.begin()
        probe.join()
        if probe.error is not None:
            raise probe.error
    return probe.missing


def sandbox_probe() -> LayerProbe:
    """Return the thread that starts the process-wide sandbox, without starting it: its
    `sandbox` once started, its `error` if it could not start (app/services/readiness.py)."""
    return _layer_probe(config().require_all_layers, config().time_limit)


def sandbox_load() -> Load | None:
    """Return how busy the process-wide sandbox is, None before it has started."""
    started = sandbox_probe().sandbox
    return None if started is None else started.load()


def active_sessions() -> int | None:
    """Return how many browser sessions are connected to this server (None without one)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.stats import ACTIVE_SESSIONS_FAMILY

    if not Runtime.exists():
        return None
    found = Runtime.instance().stats_mgr.get_stats([ACTIVE_SESSIONS_FAMILY])
    return sum(stat.value for stat in found.get(ACTIVE_SESSIONS_FAMILY, ()))


def start_background() -> None:
    """Start, in threads, what the pages will need: the scenarios' first run, the sandbox, and
    the warm-up (the store opened, the default dataset's grader with every exercise's
    references).

    Called as the server starts (app/server.py's lifespan) and again once a page is drawn (the
    calls after the first do nothing): no page waits for this work, and the first submission
    finds it done.
    """
    _runs(*_version()).begin()
    start_sandbox()
    start_warmup()


def start_warmup() -> None:
    """Start warming the default dataset's grader in the background, if not yet."""
    _warmup(*_version()).begin()


def warming_up() -> bool:
    """Return whether the warm-up has started and not finished: a submission now waits for
    what it computes."""
    warmup = once_per_run("warmup", lambda: _warmup(*_version()))
    return warmup.ident is not None and not warmup.done.is_set()


def warmed_up() -> Warmup | None:
    """Return the first of this process's warm-ups to end (failed or not), None before one has
    (readiness: a replica gets learners once their first submissions need not wait)."""
    return Warmup.first


@memo.shared(max_entries=2)
def _warmup(root: str, signature: str) -> Warmup:
    """Return the thread that warms the default dataset's grader once per version of the files."""
    return Warmup(_warm)


def _warm() -> None:
    """Do before any learner comes what the first page run and the first submission would do:
    open the store (`background.open_early`: a new SQLite file is created and migrated here),
    build the default dataset's grader (the scenarios' run waited for), compute every
    exercise's references, and map the modules now loaded to their files
    (`background.map_modules`)."""
    open_early(store)
    chosen = grader(DEFAULT_SOURCE)
    for exercise in chosen.catalog.exercises:
        chosen.prepared(exercise)
    map_modules()


def start_sandbox() -> None:
    """Start the process-wide sandbox in the background, if not yet."""
    _layer_probe(config().require_all_layers, config().time_limit).begin()


@memo.shared()
def _layer_probe(require_all: bool, time_limit: float) -> LayerProbe:
    """Return the thread that starts the process-wide sandbox once and records missing layers."""
    return LayerProbe(require_all, time_limit)
