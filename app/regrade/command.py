"""The command: find the stale attempts, prove their exercises, grade them again, record."""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import grader as grader_lib
from app.classroom.lti import later
from app.config import ConfigError, from_env
from app.regrade import audit
from app.regrade.report import Change, inert, report
from app.storage import (
    EDITOR,
    REGRADE,
    Attempt,
    StorageError,
    Store,
    facts_of,
    open_store,
    wordlists,
)
from grader import proving, sandbox

if TYPE_CHECKING:
    from app.config import AppConfig
    from app.storage import Profile
    from grader import Catalog, Exercise, Grader, Result

DONE, BAD_INPUT, GRADER_FAILED = 0, 2, 3
BUSY_RETRIES = 20
UNSOUND = "its exercise is not sound now (`python -m grader validate`)"


class Refused(Exception):
    """Bad input: one line says what and how to fix it; nothing is graded."""


@dataclass(frozen=True)
class Stale:
    """A stored attempt to grade again: whose it is, the attempt, the exercise as it is now."""

    profile: Profile
    attempt: Attempt
    exercise: Exercise


def main(argv: list[str] | None = None) -> int:
    """Run the command; return the exit code."""
    args = parser().parse_args(argv)
    try:
        return run(args)
    except (Refused, ConfigError, StorageError) as err:
        print(inert(f"error: {err}"), file=sys.stderr)
        return BAD_INPUT
    except Exception as err:  # the grader's own fault: one line
        print(inert(f"error: the grader failed ({type(err).__name__}: {err})"), file=sys.stderr)
        return GRADER_FAILED


def parser() -> argparse.ArgumentParser:
    """Return the command's argument parser."""
    found = argparse.ArgumentParser(
        prog="python -m app.regrade",
        description="Grade the app's stored attempts again after an exercise was fixed "
        "(docs/gradebook.md). A dry run unless --apply.",
        epilog="exit codes: 0 done, 2 bad input (nothing graded), 3 the grader failed",
    )
    found.add_argument("--apply", action="store_true", help="record the new verdicts")
    found.add_argument("--exercise", action="append", default=[], help="only this exercise id")
    found.add_argument("--every", action="store_true", help="also attempts at the current version")
    found.add_argument("--database", help="a database URL (default: the app's)")
    found.add_argument("--exercises", type=Path, help="the course folder (default: the app's)")
    found.add_argument("--json", action="store_true", help="print one JSON document")
    found.add_argument(
        "--grade-sound",
        action="store_true",
        help="skip the exercises with problems instead of refusing (exit 2)",
    )
    return found


def run(args: argparse.Namespace) -> int:
    """Find the stale attempts, grade them again, report, and record them with --apply."""
    config = from_env(os.environ)
    catalog = course(args.exercises or config.exercises_dir, args.grade_sound)
    store = open_store(database(args.database or config.database_url), catalog.course.id)
    stale = stale_attempts(store, exercises(catalog, args.exercise), args.every)
    sound: set[str] = set()
    if stale:
        start_sandbox(config)
        ids = {s.exercise.id for s in stale}
        sound = proven(catalog, ids, config.cache_dir, args.grade_sound)
    regrader = Regrader(catalog, config.cache_dir, store, config.uploads_dir)
    changes, recorded = [], {}
    for one in stale:
        change, attempt = regrader.grade(one, one.exercise.id in sound)
        if args.apply and attempt is not None:
            store.work.record_attempt(one.profile, attempt)
            change = replace(change, recorded=True)
            recorded.setdefault(one.profile.owner, set()).add(one.exercise.id)
        changes.append(change)
    for owner, items in recorded.items():  # a mark a regrade changed goes to their LMS too
        later.after_attempts(store, owner, sorted(items))
    audit.record(store, [one.profile for one in stale], changes, args.apply)
    report(changes, catalog.course.id, args.apply, args.json)
    return GRADER_FAILED if any(c.failed for c in changes) else DONE


def course(folder: Path | None, grade_sound: bool) -> Catalog:
    """Return the course's catalog; Refused if it has problems (unless told to skip them)."""
    root = folder or grader_lib.EXERCISES_DIR
    if not root.is_dir():
        raise Refused(f"--exercises {root} is not a course folder")
    catalog = grader_lib.discover(root)
    problems = [f"{e.where}: {e.problem}" for e in catalog.errors]
    if problems and not grade_sound:
        raise Refused(
            f"the course has problems; fix them (`python -m grader validate {root}`) or pass "
            "--grade-sound to re-grade the exercises that loaded: " + "; ".join(problems)
        )
    return catalog


def database(url: str) -> str:
    """Return the URL of a database that exists: re-grading never makes an empty one."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not Path(url[len(prefix) :]).is_file():
        raise Refused(f"no progress database at {url[len(prefix) :]} (--database, NINJA_DATA_DIR)")
    return url


def exercises(catalog: Catalog, asked: list[str]) -> dict[str, Exercise]:
    """Return {id: exercise} of the exercises to re-grade: those asked, else every one."""
    known = {e.id: e for e in catalog.exercises}
    unknown = [a for a in asked if a not in known]
    if unknown:
        raise Refused(f"no exercise {', '.join(unknown)} in the course; known: {', '.join(known)}")
    return {a: known[a] for a in asked} if asked else known


def stale_attempts(store: Store, chosen: dict[str, Exercise], every: bool) -> list[Stale]:
    """Return the attempts typed in the editor at an earlier version (with every: at any),
    oldest first, leaving out those already re-graded at the current version. Attempts from a
    notebook are left out: a notebook is graded whole (grade it again)."""
    found = []
    for profile in store.learners.profiles():
        attempts = [a for a in store.work.attempts(profile) if a.exercise_id in chosen]
        done = {_key(a) for a in attempts if a.origin == REGRADE}
        for a in attempts:
            exercise = chosen[a.exercise_id]
            current = a.version == exercise.version
            if a.origin != EDITOR or (current and not every):
                continue
            if _key(a, exercise.version) not in done:
                found.append(Stale(profile, a, exercise))
    return found


def _key(attempt: Attempt, version: str | None = None) -> tuple:
    """Return what names a re-grade: the answer (exercise, code, time) and the version."""
    at = attempt.version if version is None else version
    return attempt.exercise_id, attempt.code, attempt.created_at, at


def start_sandbox(config: AppConfig) -> None:
    """Start the process-wide sandbox with the app's limits, as the app grades (a learner's
    code gets the time it got there; with NINJA_REQUIRE_ALL_LAYERS, every layer or nothing)."""
    limits = sandbox.Limits(cpu_seconds=config.time_limit, wall_seconds=2 * config.time_limit)
    sandbox.default_sandbox(config.require_all_layers, limits)


def proven(catalog: Catalog, ids: set[str], cache_dir: Path, grade_sound: bool) -> set[str]:
    """Return the ids whose scenario runs and which `validate`'s proofs find sound (remembered
    under the app's cache, as the app remembers them); Refused naming the others, unless told
    to skip them."""
    others = [e.id for e in catalog.exercises if e.id not in ids]
    chosen = catalog.withdraw((), exercises=others)
    ran = proving.runnable(chosen)
    proofs = proving.Proofs(
        ran,
        grader_lib.Grader(wordlists.load_dataset("default", cache_dir), ran),
        cache_dir / "proofs.json",
    )
    proofs.run()
    lines = [f"{e.where}: {e.problem}" for e in ran.errors]
    lines += [f"{f.where}: {f.problem}" for found in proofs.failed().values() for f in found]
    unproven = sorted({e.id for e in ran.exercises} - proofs.proven())
    lines += [f"{i}: could not be proven (its proof did not run; see the log)" for i in unproven]
    if lines and not grade_sound:
        raise Refused(
            "an exercise to re-grade is not sound; fix it (`python -m grader validate`) or pass "
            "--grade-sound to skip it: " + "; ".join(lines)
        )
    return proofs.proven() - set(proofs.failed())


class Regrader:
    """Grades stored answers again: one grader per dataset the answers were graded on, all on
    the process-wide sandbox."""

    def __init__(
        self,
        catalog: Catalog,
        cache_dir: Path,
        store: Store | None = None,
        uploads_dir: Path | None = None,
    ):
        self.catalog, self.cache_dir = catalog, cache_dir
        self.store, self.uploads_dir = store, uploads_dir  # where uploaded word lists are found
        self.graders: dict = {}

    def grade(self, stale: Stale, sound: bool = True) -> tuple[Change, Attempt | None]:
        """Return what changed for one answer, and the attempt to record (None: nothing to
        record: its exercise is not sound, its dataset is gone, or the grader failed)."""
        a, exercise = stale.attempt, stale.exercise
        old = a.facts.status or ("solved" if a.solved else "not_solved")
        change = Change(
            stale.profile.name, stale.profile.id, exercise.id, a.created_at, old, "",
            a.version, exercise.version,
        )  # fmt: skip
        if not sound:
            return replace(change, skipped=UNSOUND), None
        try:
            grader = self._grader(a.dataset)
        except Exception as err:  # the dataset cannot be loaded: say so, grade nothing
            return replace(change, skipped=f"its dataset {a.dataset} cannot be loaded: {err}"), None
        result = _graded(grader, exercise.id, a.code)
        new = "grader_failed" if result.busy else result.status  # still busy: never graded
        change = replace(change, new_status=new)
        if change.failed:
            return change, None
        return change, Attempt(
            exercise.id, a.code, result.solved, result.summary_with_hint(), result.elapsed,
            0.0, a.dataset, a.created_at, facts_of(result), exercise.version, REGRADE,
        )  # fmt: skip

    def _grader(self, source: str) -> Grader:
        """Return the grader of a dataset source, built once."""
        if source not in self.graders:
            kept = self.store.word_lists if self.store else None
            chosen = wordlists.load_dataset(source, self.cache_dir, self.uploads_dir, kept)
            self.graders[source] = grader_lib.Grader(chosen, self.catalog)
        return self.graders[source]


def _graded(grader: Grader, exercise_id: str, code: str) -> Result:
    """Grade code in the sandbox, waiting for a slot while it is busy."""
    for _ in range(BUSY_RETRIES):
        result = grader.grade(exercise_id, code)
        if not result.busy:
            break
        time.sleep(0.2)
    return result
