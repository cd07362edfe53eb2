"""`grade-batch`: grade a class into a gradebook (the work is in batch.py)."""

from __future__ import annotations

from grader.cli import batch, inputs
from grader.cli.common import GRADER_FAILED, SOLVED, emit, load_dataset, say
from grader.course import discover


def add_arguments(parser) -> None:
    """Add the arguments of `grade-batch`."""
    batch.add_arguments(parser)


def run(args) -> int:
    """Grade a class and write the gradebook; 3 if the grader failed on an item, else 0."""
    catalog = discover(*inputs.course_folder(args.exercises))
    sound_only(catalog, args.grade_sound)
    roster = batch.read_roster(args.roster) if args.roster else None
    items, refused, learners = batch.collect_class(
        args.folder, catalog, default_scenario(catalog, args.scenario)
    )
    from grader.proving import require_runnable  # runs the scenarios: torch, after the inputs

    require_runnable(batch.scenarios_of(items, catalog))
    info = {"course": batch.course_info(catalog)}
    columns = batch.columns_of(catalog)
    points = tuple(catalog.course.points_of(c) for c in columns)
    book = batch.Book(columns, tuple(learners), roster, info, points)
    rows, paths, seconds = batch.run(catalog, load_dataset(args), items, refused, args, book)
    for line in batch.summary(rows, paths, seconds):
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
