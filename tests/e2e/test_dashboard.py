"""In real browsers: the instructor dashboard of the classroom mode, signed in through a real
OpenID Connect provider on loopback (test_classroom.py's), on the app's own database.

Two learners each solve a different exercise (Bob after a mistake the exercise lists, which
carries its own misconception id); neither sees the other's work; the instructor sees both in
the grid, the misconception in the words of its name, a learner's history, and downloads a
gradebook that validates against docs/gradebook.schema.json; the open dashboard redraws itself
when a learner solves one more (no reload) and says when; a learner who opens /instructor is
refused; a signed-out browser gets only the sign-in page there.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import jsonschema
import pytest
from jwcrypto.jwk import JWK
from playwright.sync_api import expect

from app.storage import open_store
from app.views.dashboard import REFRESH

from ..app.lti.lms_platform import ISSUER, Platform
from .e2e_helpers import EDITOR, OUTPUT, ROOT, WAIT_MS, editor_text, open_page, type_and_submit
from .test_classroom import TOOL_KEY, classroom, provider, shows_only_the_sign_in_page, sign_in
from .test_identity import DLOGPROBS, SOLVED, badge

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
__all__ = ["classroom", "provider"]  # the fixtures, shared with test_classroom.py

DPROBS_TIMES = "dprobs = probs * dlogprobs\n"  # a mistake dprobs lists, by its own name:
TIMES_WORDS = "multiplies by probs where the log's derivative divides"
DPROBS = "dprobs = (1.0 / probs) * dlogprobs\n"
REFRESH_MS = (REFRESH + 60) * 1000  # one redraw, on a busy machine
REFUSED = "This page is for the course's instructors only."


@pytest.fixture
def three(browser):
    """Yield three pages in three browser contexts: three people, each with their own cookies."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1800}) for _ in range(3)]
    pages = [c.new_page() for c in contexts]
    yield pages
    for n, (page, context) in enumerate(zip(pages, contexts, strict=True)):
        page.screenshot(path=OUTPUT / f"dashboard-end-{n}.png", full_page=True)  # to see a failure
        context.close()


def code_shown(page) -> str:
    """Return the editor's text once the editor is drawn (slow on a busy machine)."""
    page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=WAIT_MS)
    return editor_text(page)


def tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click(timeout=WAIT_MS)


def pick(page, box, option: str) -> None:
    """Choose an option of a selectbox (its input)."""
    box.click(timeout=WAIT_MS)
    page.get_by_role("option", name=option).click(timeout=WAIT_MS)


@pytest.mark.timeout(1800)  # three sign-ins, three answers graded, on a busy machine
def test_the_instructor_sees_the_class_and_learners_are_refused(classroom, provider, three):
    ada, bob, ivy = three
    sign_in(ada, classroom.url, provider, "ada")
    open_page(ada, f"{classroom.url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)
    sign_in(bob, classroom.url, provider, "bob")
    open_page(bob, f"{classroom.url}/dprobs")
    assert "-1.0 / n" not in code_shown(bob), "bob sees ada's code"
    type_and_submit(bob, DPROBS_TIMES)
    bob.get_by_text("is divided by", exact=False).first.wait_for(timeout=WAIT_MS)
    type_and_submit(bob, DPROBS)
    badge(bob, SOLVED)
    open_page(bob, f"{classroom.url}/dlogprobs")
    assert "-1.0 / n" not in code_shown(bob), "bob sees ada's code"

    open_page(bob, f"{classroom.url}/instructor")  # a learner, at the dashboard's address
    expect(bob.get_by_text(REFUSED)).to_be_visible(timeout=WAIT_MS)
    assert bob.get_by_role("tab").count() == 0 and bob.get_by_text("Ada").count() == 0
    assert bob.locator("[data-testid='stSidebarNav'] a[href$='/instructor']").count() == 0

    sign_in(ivy, classroom.url, provider, "ivy")
    nav = ivy.locator("[data-testid='stSidebarNav'] a[href$='/instructor']")
    expect(nav).to_be_visible(timeout=WAIT_MS)
    nav.click()
    expect(ivy.locator("h1").first).to_contain_text("Instructor dashboard", timeout=WAIT_MS)
    expect(ivy.get_by_text("2 learner(s), 2 exercise(s) solved in all.")).to_be_visible(
        timeout=WAIT_MS
    )
    # The grid is drawn on a canvas (its cells are checked in tests/app/screens/test_dashboard.py);
    # here each learner's row is read in the Learner tab, which lists the same cells as text.
    expect(ivy.locator("[data-testid='stDataFrame']").first).to_be_visible(timeout=WAIT_MS)
    ivy.screenshot(path=OUTPUT / "dashboard-class.png", full_page=True)

    tab(ivy, "Exercises")
    said = ivy.get_by_text(f"dprobs: {TIMES_WORDS} (1 attempt(s), 1 learner(s))")
    expect(said).to_be_visible(timeout=WAIT_MS)
    assert ivy.get_by_text("listed_mistake").count() == 0
    ivy.screenshot(path=OUTPUT / "dashboard-misconceptions.png", full_page=True)
    tab(ivy, "Learner")
    learner = ivy.locator("[data-testid='stSelectbox']", has_text="Learner").locator("input")
    pick(ivy, learner, "Ada Lovelace (ada@uni.test)")
    expect(ivy.get_by_text("dlogprobs: solved after 1 attempt(s)")).to_be_visible(timeout=WAIT_MS)
    expect(ivy.get_by_text("1 attempt(s), 0 hint(s) shown")).to_be_visible(timeout=WAIT_MS)
    pick(ivy, learner, "Bob Babbage (bob@uni.test)")
    expect(ivy.get_by_text("2 attempt(s), 0 hint(s) shown")).to_be_visible(timeout=WAIT_MS)
    expect(ivy.get_by_text("dprobs: solved after 2 attempt(s)")).to_be_visible(timeout=WAIT_MS)
    assert ivy.get_by_text("dlogprobs: solved after").count() == 0, "bob's history is bob's"
    wrong = ivy.locator("[data-testid='stExpander']", has_text=f"dprobs · {TIMES_WORDS}")
    wrong.get_by_text(f"dprobs · {TIMES_WORDS}").click(timeout=WAIT_MS)
    expect(wrong.locator("code")).to_contain_text("probs * dlogprobs", timeout=WAIT_MS)
    expect(wrong).to_contain_text("divided by")
    ivy.screenshot(path=OUTPUT / "dashboard-learner.png", full_page=True)

    tab(ivy, "Gradebook")
    with ivy.expect_download(timeout=WAIT_MS) as download:
        ivy.get_by_role("button", name="Download gradebook.json").click(timeout=WAIT_MS)
    book = json.loads(download.value.path().read_text())
    schema = json.loads((ROOT / "docs" / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(book)
    solved = {
        e["learner"]: [i["item"] for i in e["items"] if i["solved"]] for e in book["learners"]
    }
    assert solved == {"ada@uni.test": ["dlogprobs"], "bob@uni.test": ["dprobs"]}
    tab(ivy, "Class")  # open, untouched, while Ada solves one more
    updated = ivy.get_by_text("Updated at ", exact=False).first.inner_text()
    open_page(ada, f"{classroom.url}/dprobs")
    type_and_submit(ada, DPROBS)
    badge(ada, SOLVED)
    expect(ivy.get_by_text("3 exercise(s) solved in all.")).to_be_visible(timeout=REFRESH_MS)
    assert ivy.get_by_text("Updated at ", exact=False).first.inner_text() != updated
    _audited(ivy, classroom.database)


def _audited(ivy, database: str) -> None:
    """The audit log holds Ivy's first sign-in as an instructor, the two histories she opened
    and the gradebook she downloaded, by her, and its tab draws them (a canvas: read here from
    the database, as the tab reads them; tests/app/screens/test_dashboard.py reads its cells)."""
    tab(ivy, "Audit log")
    expect(ivy.get_by_text("Each action that read or changed")).to_be_visible(timeout=WAIT_MS)
    ivy.screenshot(path=OUTPUT / "dashboard-audit.png", full_page=True)
    entries = list(reversed(open_store(database).audit.entries()))
    found = [(e.action, e.subject_name, e.detail.get("file", e.detail.get("to"))) for e in entries]
    assert found == [
        ("role", "Ivy Instructor", "instructor"),
        ("view", "Ada Lovelace", None),
        ("view", "Bob Babbage", None),
        ("gradebook", "", "gradebook.json"),
    ]
    assert {(e.actor_name, e.actor.split()[-1]) for e in entries[1:]} == {("Ivy Instructor", "ivy")}


def test_a_signed_out_browser_at_the_dashboard_sees_only_the_sign_in_page(classroom, page):
    open_page(page, f"{classroom.url}/instructor")
    shows_only_the_sign_in_page(page)
    assert page.get_by_text(REFUSED).count() == 0


@pytest.mark.timeout(1200)
def test_an_lms_launches_a_learner_who_solves_and_the_lms_holds_the_score(classroom, browser):
    """LTI 1.3 in chromium (issue 36): a platform of our own on loopback launches Ada, who lands
    on the course signed in, solves an exercise and is refused the dashboard; its instructor's
    launch reads the roster into the dashboard (Bob never opened the tool) and "Sync grades"
    puts Ada's score, out of the item's points, in the platform's score store. Her solve also
    queued its push for the classroom's worker (none runs here: tests/app/lti/test_later.py
    runs one)."""
    platform = Platform()
    platform.tool_key = JWK.from_json(TOOL_KEY.export_public())
    open_store(classroom.database).lti.add(platform.registration())
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1800}) for _ in range(2)]
    ada, ivy = (c.new_page() for c in contexts)
    try:
        launch(ada, classroom.url, platform, "user-42")
        ada.get_by_text("Signed in as Ada Lovelace").wait_for(timeout=WAIT_MS)
        open_page(ada, f"{classroom.url}/dlogprobs")
        type_and_submit(ada, DLOGPROBS)
        badge(ada, SOLVED)
        assert _lti_jobs(classroom.database) == [(f"{ISSUER} user-42", "dlogprobs")]
        open_page(ada, f"{classroom.url}/instructor")  # a learner at an instructor's page
        expect(ada.get_by_text(REFUSED)).to_be_visible(timeout=WAIT_MS)
        launch(ivy, classroom.url, platform, "teacher-1")
        ivy.get_by_text("Signed in as Ivy (instructor)").wait_for(timeout=WAIT_MS)
        open_page(ivy, f"{classroom.url}/instructor")
        bob = ivy.locator("[role='gridcell']", has_text="Bob Never").first  # the roster's
        bob.wait_for(state="attached", timeout=WAIT_MS)
        tab(ivy, "Gradebook")
        ivy.get_by_role("button", name="Sync grades").click(timeout=WAIT_MS)
        ivy.get_by_text("taken by the LMS").wait_for(timeout=WAIT_MS)
        items = {li["resourceId"]: li for li in platform.lineitems}
        (score,) = platform.scores[items["dlogprobs"]["id"]]
        assert (score["userId"], score["scoreGiven"]) == ("user-42", 1)
        assert items["dlogprobs"]["scoreMaximum"] == 1 == score["scoreMaximum"]
    finally:
        for context in contexts:
            context.close()
        platform.close()


def _lti_jobs(url: str) -> list[tuple[str, str]]:
    """Return the score pushes the server queued for the worker: (whose, which item)."""
    with open_store(url).transaction() as db:
        rows = db.execute(
            "SELECT args FROM procrastinate_jobs WHERE task_name = 'lti_push' ORDER BY id"
        ).fetchall()
    found = [json.loads(r[0]) if isinstance(r[0], str) else r[0] for r in rows]
    return [(a["identity"], a["item"]) for a in found]


def launch(page, app_url: str, platform: Platform, who: str) -> None:
    """Launch the tool from the platform as who: its login, the platform's page that posts
    the launch, the tool's course."""
    asked = platform.login_params() | {"login_hint": who}
    page.goto(f"{app_url}/lti/login?{urlencode(asked)}")
    page.wait_for_url(f"{app_url}/**", timeout=WAIT_MS)
    page.locator("h1").first.wait_for(timeout=WAIT_MS)
