"""`grade-batch`: grade a class into a gradebook (the work is in grader/gradebook/)."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from grader import gradebook
from grader.cli import inputs
from grader.cli.common import GRADER_FAILED, SOLVED, emit, load_dataset, say, start_sandbox
from grader.course import BadInput, discover
from grader.gradebook import (
    Book,
    Graded,
    Item,
    LmsRoster,
    carried,
    read_manifest,
    read_previous,
    safetext,
    stamped,
)


def add_arguments(parser) -> None:
    """Add the arguments of `python -m grader grade-batch`."""
    parser.add_argument("folder", type=Path, help="a .py file or a folder per learner")
    parser.add_argument("--out", type=Path, default=Path("gradebook"), help="OUT.csv, OUT.json")
    parser.add_argument("--scenario", help="the whole pass a learner's .py is (default: first)")
    parser.add_argument("--data", help="default, names, or a word-list file (txt or csv)")
    parser.add_argument("--cache", type=Path, help="where names.txt is (default: var/cache)")
    parser.add_argument("--slots", type=_slots, default=2, help="runs at once, 1-16 (default 2)")
    parser.add_argument("--exercises", type=Path, help="another exercises folder (a course)")
    parser.add_argument(
        "--roster",
        type=Path,
        help="a file of the expected learners, one a line; with --format, the LMS's roster export",
    )
    parser.add_argument(
        "--format",
        choices=LmsRoster.FORMATS,
        help="also write OUT.<format>.csv, the LMS's gradebook import file (needs --roster)",
    )
    parser.add_argument(
        "--grade-sound",
        action="store_true",
        help="grade a course with problems: only the exercises that loaded (else exit 2)",
    )
    parser.add_argument("--manifest", type=Path, help="the submission times (an LMS's export, CSV)")
    parser.add_argument("--timezone", help="the zone of a manifest's times without an offset")
    parser.add_argument("--previous", type=Path, help="the earlier book (JSON): mark regrades")
    parser.add_argument(
        "--reference-fails",
        choices=(REFUSE, WARN),
        default=REFUSE,
        help="when an exercise's reference answer fails: refuse (exit 2, the default) or grade "
        "with the warning in the book",
    )


REFUSE, WARN = "refuse", "warn"
NO_MANIFEST = (
    "warning: no --manifest: the submission times of {count} answer(s) are their files' "
    "modification times (said so in the book); a copy that did not keep them changes who is late"
)


NOT_ON_ROSTER = (
    "warning: on no row of the {lms} roster (matched by login id or e-mail address), so not in "
    "its import file: {names}"
)


def lms_roster(args):
    """Return the LMS's roster export of --format (None without one); BadInput if --format
    has no --roster."""
    if not args.format:
        return None
    if not args.roster:
        raise BadInput(f"--format {args.format} needs --roster: the {args.format} roster export")
    return LmsRoster.read(args.roster, args.format)


def _slots(text: str) -> int:
    """Parse --slots: 1 to 16 runs at once."""
    if not text.isdigit() or not 1 <= int(text) <= 16:
        raise BadInput(f"--slots must be a number from 1 to 16, got {text!r}")
    return int(text)


def run(args) -> int:
    """Grade a class and write the gradebook; 3 if the grader failed on an item, else 0."""
    lms = lms_roster(args)  # a roster export that cannot be used stops it before anything
    catalog = discover(*inputs.course_folder(args.exercises))
    sound_only(catalog, args.grade_sound)
    roster = gradebook.read_roster(args.roster) if args.roster and not lms else None
    items, refused, learners = gradebook.collect_class(
        args.folder, catalog, default_scenario(catalog, args.scenario)
    )
    if lms:
        roster = lms.names(learners)
        unknown = lms.unmatched(learners)
        if unknown:
            say(
                NOT_ON_ROSTER.format(lms=args.format, names=", ".join(map(safetext.shown, unknown)))
            )
    manifest = read_manifest(args.manifest, args.timezone) if args.manifest else None
    items = stamped(items, manifest)
    earlier = read_previous(args.previous) if args.previous else {}
    from grader.proving import require_runnable  # runs the scenarios: torch, after the inputs

    require_runnable(gradebook.scenarios_of(items, catalog))
    info = {"course": gradebook.course_info(catalog)}
    columns = gradebook.columns_of(catalog)
    book = Book(columns, tuple(learners), roster, info, course=catalog.course, lms=lms)
    graded = grade_class(catalog, load_dataset(args), items, refused, args, book, earlier)
    rows, paths, seconds = graded
    from_files = sum(i.time_from == "file" for i in items)
    if from_files:
        say(NO_MANIFEST.format(count=from_files))
    for line in summary(rows, paths, seconds):
        emit(line)
    return GRADER_FAILED if any(r.status == "grader_failed" for r in rows) else SOLVED


def default_scenario(catalog, wanted: str | None) -> str:
    """Return the slug of the whole pass a learner's lone .py file is graded as: --scenario,
    else the first scenario with one; "" for a course without whole passes (such a file is
    then refused, and answers to exercises are graded as ever)."""
    if wanted is None and not any(s.whole_pass for s in catalog.scenarios):
        return ""
    return inputs.scenario(catalog, wanted).slug


def sound_only(catalog, told: bool) -> None:
    """Refuse (BadInput, exit 2) to grade a course with problems (a file that does not load, a
    duplicate id, a bad key in course.toml): an answer to an exercise that failed to load would
    be refused as if the learner had misnamed it. With --grade-sound, grade what loaded and
    say which problems were left out, on stderr."""
    if not catalog.errors:
        return
    lines = [f"{e.where}: {e.problem}" for e in catalog.errors]
    if not told:
        count = len(lines)
        raise inputs.BadInput(
            f"the course has {count} problem{'s' if count != 1 else ''}; fix "
            f"{'them' if count != 1 else 'it'} (`validate`) or pass --grade-sound to grade the "
            "exercises that loaded: " + "; ".join(lines)
        )
    for line in lines:
        say(f"warning: not graded, the course's problem: {line}")


def summary(rows: list[Graded], paths: tuple[Path, ...], seconds: float) -> list[str]:
    """Return the lines printed after a batch."""
    solved, learners = sum(r.solved for r in rows), len({r.learner for r in rows})
    return [
        f"{len(rows)} items of {learners} learners graded in {seconds:.1f} s, {solved} solved.",
        f"Gradebook: {', '.join(map(str, paths[:-1]))} and {paths[-1]}",
    ]


def grade_class(catalog, dataset, items: list[Item], refused: list[Graded], args, book, earlier):
    """Grade the items on a sandbox of args.slots slots, each graded exercise's reference
    answer first; carry the earlier book's verdicts onto the same answers (regrades); write the
    book; return rows, paths, seconds."""
    from grader.grading import Grader

    started = time.monotonic()
    sandbox, owned = start_sandbox(args.slots)
    try:
        grader = Grader(dataset, catalog, sandbox)
        book = replace(book, references=references(grader, items, args))
        rows = refused + gradebook.grade_all(
            grader, items, args.slots, lambda k, n: progress_bar(k, n, started)
        )
    finally:
        if owned:
            sandbox.close()
    rows = carried(rows, earlier)
    seconds = time.monotonic() - started
    info = {"dataset": dataset.name, "seconds": round(seconds, 2)} | book.info
    return rows, gradebook.write_gradebook(rows, args.out, info, book), seconds


def references(grader, items: list[Item], args) -> dict[str, str]:
    """Grade the reference answer of each exercise the class answered, once; refuse (BadInput,
    exit 2) naming those that fail, or with --reference-fails warn say so and return them for
    the book."""
    from grader.proving import failing_references

    ids = {i.target for i in items if i.kind == "exercise"}
    failing = failing_references(grader, ids, args.slots)
    named = "; ".join(f"`{i}`: {problem}" for i, problem in failing.items())
    if failing and args.reference_fails == REFUSE:
        raise BadInput(
            f"the reference answer of {len(failing)} exercise(s) fails its own grading, so "
            f"nobody is graded against it: {named}. Fix it (`validate`), or pass "
            "--reference-fails warn to grade with the warning in the book"
        )
    for exercise_id, problem in failing.items():
        say(f"warning: the reference answer of `{exercise_id}` fails its own grading: {problem}")
    return failing


def progress_bar(done: int, total: int, started: float, stream=None) -> None:
    """Draw a one-line progress bar on stderr (the one in sys.stderr when drawn)."""
    stream = stream or sys.stderr
    width = 30
    filled = int(width * done / total) if total else width
    elapsed = time.monotonic() - started
    bar = "#" * filled + "-" * (width - filled)
    line = safetext.shown(f"[{bar}] {done}/{total} graded, {elapsed:.1f} s")
    print(f"\r{line}", end="", file=stream, flush=True)  # the bar's own return: it redraws
    if done == total:
        print(file=stream)
