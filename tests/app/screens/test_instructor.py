"""Problems with the course's files are the instructor's: a learner never sees server paths, and
the local mode's default is a learner's copy (`NINJA_INSTRUCTOR=1` makes it the instructor's)."""

from __future__ import annotations

import pytest

from app import services
from app.config import ConfigError, from_env
from app.screens.home import WITHDRAWN
from app.screens.problems import LEARNERS

from ..app_helpers import main_test, nav_sections, page_test, texts


def _urls() -> list[str]:
    services.ran_catalog(wait=True)  # the scenarios run once, outside the page's time limit
    return [p.url_path for group in nav_sections().values() for p in group]


def test_a_learner_has_no_problems_page_and_sees_no_path(fake, broken_exercises):
    # the default: no setting at all
    assert "problems" not in _urls() and "dlogprobs" in _urls()
    home = main_test().run()
    assert not home.exception
    assert "99_broken" not in texts(home) and str(broken_exercises) not in texts(home)
    assert [i.value for i in home.info if i.value == WITHDRAWN] == [WITHDRAWN]
    page = page_test(page="problems").run()
    assert [i.value for i in page.info] == [LEARNERS] and not page.error


def test_the_instructor_has_the_problems_page_and_home_lists_them(
    fake, broken_exercises, instructor
):
    assert "problems" in _urls()
    home = main_test().run()
    assert "99_broken.toml" in texts(home)
    assert not [i for i in home.info if i.value == WITHDRAWN]
    assert "99_broken.toml" in page_test(page="problems").run().error[0].value


@pytest.mark.parametrize(("raw", "expected"), [("0", False), ("no", False), ("1", True)])
def test_the_instructor_setting_is_a_flag(raw, expected):
    assert from_env({"NINJA_INSTRUCTOR": raw}).instructor is expected
    assert not from_env({}).instructor, "a learner's copy by default: the instructor opts in"


def test_a_bad_instructor_setting_is_refused_by_name():
    with pytest.raises(ConfigError, match="`NINJA_INSTRUCTOR` must be 1 or 0"):
        from_env({"NINJA_INSTRUCTOR": "maybe"})
