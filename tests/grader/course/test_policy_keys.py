"""A course's grading policy as the instructor writes it (grader/course/policy.py): `[grading]`
in course.toml and extensions.csv beside it, each bad key, value or row refused on its own with
the key, word or id it may mean; and "did you mean" for course.toml's keys and `given`."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from grader.course.course import read_course
from grader.course.exercises import EXERCISES_DIR, discover
from grader.course.policy import Extension, Grading

LANGUAGE = Path(__file__).parents[1] / "fixtures" / "language" / "exercises"


def test_the_grading_table_is_read():
    text = (
        '[grading]\npartial_credit = "per_check"\nlate = "per_day"\nlate_percent_per_day = 20\n'
        'late_floor_percent = 40.5\nregrades = "keep_credit"\n'
    )
    course, problems = _read(text)
    assert problems == ()
    assert course.grading == Grading("per_check", "per_day", 20, 40.5, "keep_credit")
    assert _read("")[0].grading == Grading(), "no table: none, none, latest"


def _read(text: str, folder: Path | None = None):
    folder = folder or Path(tempfile.mkdtemp())
    (folder / "course.toml").write_text(text)
    return read_course(folder)


@pytest.mark.parametrize(
    "text, where, problem",
    [
        ('[grading]\npartial_credit = "per_gradiant"\n', "grading.partial_credit",
         "got 'per_gradiant'; did you mean `per_gradient`?"),
        ('[grading]\nlate = "cut-off"\n', "grading.late", "did you mean `cutoff`?"),
        ('[grading]\nlate = "per_day"\nlate_flor_percent = 3\n', "grading.late_flor_percent",
         "unknown key (known keys: late, late_floor_percent, late_percent_per_day, partial_credit,"
         " regrades); did you mean `late_floor_percent`?"),
        ('[grading]\nlate = "per_day"\nlate_percent_per_day = 0\n',
         "grading.late_percent_per_day", "above 0, at most 100, got 0"),
        ('[grading]\nlate = "per_day"\nlate_floor_percent = 100\n',
         "grading.late_floor_percent", "below 100, got 100"),
        ('[grading]\nlate = "per_day"\nlate_floor_percent = true\n',
         "grading.late_floor_percent", "must be a percentage"),
        ("[grading]\nlate_percent_per_day = 5\n", "grading.late_percent_per_day",
         'counts only with late = "per_day"'),
        ('[grading]\nregrades = 1\n', "grading.regrades", "must be one of latest, keep_credit"),
        ('grading = "strict"\n', "grading", "must be a table"),
        ('[deadline]\ndh = 2026-12-01T23:59:00Z\n', "deadline", "did you mean `deadlines`?"),
        ('Title = "Mine"\n', "Title", "did you mean `title`?"),
    ],
)  # fmt: skip
def test_a_bad_policy_key_is_refused_alone_with_what_it_may_mean(tmp_path, text, where, problem):
    course, problems = _read('id = "kept"\n' + text, tmp_path)
    assert course.id == "kept", "the rest of the course is kept"
    (found,) = problems
    assert found.where == f"{tmp_path / 'course.toml'}: {where}" and problem in found.problem
    assert course.grading.late in ("none", "per_day"), "a refused value keeps the default"


def test_one_bad_policy_key_keeps_the_others(tmp_path):
    course, problems = _read('[grading]\nlate = "cutoff"\nregrades = "never"\n', tmp_path)
    assert course.grading == Grading(late="cutoff") and len(problems) == 1


EXTENSIONS = """\ufefflearner,item,due,days
ada,dhr,2026-12-03T23:59:00Z,
 grace ,*,,1.5
bob,dhr,,
cy,dhr,2026-12-03,
dee,dhr,,0
ada,dhr,,2
eve,dhr,,2,extra
"""


def test_extensions_are_read_beside_the_course_and_each_bad_row_is_named(tmp_path):
    (tmp_path / "extensions.csv").write_text(EXTENSIONS, encoding="utf-8")
    course, problems = read_course(tmp_path)  # no course.toml: extensions all the same
    due = datetime(2026, 12, 3, 23, 59, tzinfo=UTC)
    assert course.extensions == (
        Extension("ada", "dhr", due=due, line=2),
        Extension("grace", "*", days=1.5, line=3),
    )
    where = str(tmp_path / "extensions.csv")
    assert [(p.where.removeprefix(where), p.problem.split(",")[0]) for p in problems] == [
        (": line 4", "gives a new deadline in `due` or a number of `days`"),
        (": line 5: due", "must be a time with an offset (2026-12-03T23:59:00Z)"),
        (": line 6: days", "must be a number of days above 0"),
        (": line 7", "repeats one"),
        (": line 8", "has more cells than the header"),
    ]


def test_an_extensions_file_with_an_unknown_column_is_refused_whole(tmp_path):
    (tmp_path / "extensions.csv").write_text("learner,item,dayz\nada,dhr,2\n")
    course, (problem,) = read_course(tmp_path)
    assert course.extensions == () and "did you mean `days`?" in problem.problem
    assert problem.where == f"{tmp_path / 'extensions.csv'}: dayz"


def test_discover_names_an_item_that_is_no_item_with_the_one_it_may_mean(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(LANGUAGE, course)
    (course / "course.toml").write_text(
        '[points]\ndhR = 2\n[deadlines]\n"whole_pass:90_languag" = 2026-12-01T00:00:00Z\n'
    )
    (course / "extensions.csv").write_text("learner,item,days\nada,db_,1\nbob,*,1\n")
    problems = sorted((e.where, e.problem) for e in discover(course).errors)
    assert problems == [
        (f"{course / 'course.toml'}: deadlines.whole_pass:90_languag",
         "`whole_pass:90_languag` is not an exercise id or whole_pass:<slug>; did you mean "
         "`whole_pass:90_language`?"),
        (f"{course / 'course.toml'}: points.dhR",
         "`dhR` is not an exercise id or whole_pass:<slug>; did you mean `dhr`?"),
        (f"{course / 'extensions.csv'}: line 2: item",
         "`db_` is not an exercise id or whole_pass:<slug>; did you mean `db`?"),
    ]  # fmt: skip


def test_a_misspelt_given_name_is_told_the_tensor_it_may_mean(tmp_path):
    folder = tmp_path / "01_mlp"
    folder.mkdir()
    shutil.copy(EXERCISES_DIR / "01_mlp" / "scenario.toml", folder)
    text = (EXERCISES_DIR / "01_mlp" / "05_dcounts.toml").read_text()
    given = 'target = "counts"\ngiven = ["probs", "counts_sums"]'
    (folder / "05_dcounts.toml").write_text(text.replace('target = "counts"', given))
    (error,) = discover(tmp_path).errors
    assert error.where.endswith("05_dcounts.toml: given")
    assert error.problem == "`counts_sums` is not in the scenario; did you mean `counts_sum`?"
