"""The exercise page: prompt and tensors, submissions and feedback, hints, reveal, drafts."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from app import services
from app.panels import workbench
from app.panels.workbench import Submission
from app.screens.exercise import GRADED_AGAIN
from app.storage import Profile

from ..app_helpers import (
    RAISES,
    RANDOM_ONLY,
    SHAPE,
    SOLVED,
    VALUES,
    counting_navigations,
    page_test,
    submit,
    texts,
)


def _profile() -> Profile:
    return services.store().learners.profiles()[0]


def test_shows_prompt_forward_line_tensors_and_starter(fake):
    at = page_test("dcounts").run()
    assert not at.exception
    assert at.title[0].value == "dcounts: a tensor with two consumers"
    assert "`counts` is used twice" in texts(at)
    assert "logprobs = probs.log()" in texts(at)
    table = at.dataframe[0].value
    assert list(table["role"]) == ["forward value", "given (upstream)", "you write this"]
    assert at.text_area[0].value.startswith("dcounts = ...")


@pytest.mark.parametrize("exercise", ["dlogprobs", "dcounts_sum_inv", "dW2"])
def test_a_correct_submission_is_solved_and_recorded(fake, exercise):
    at = page_test(exercise).run()
    at = submit(at, f"{SOLVED}\nanswer = 1\n")
    assert not at.exception
    assert at.success[0].value.startswith("**Solved.**")
    assert [a.solved for a in services.store().work.attempts(_profile(), exercise)] == [True]
    assert fake.graded == [(exercise, f"{SOLVED}\nanswer = 1\n")]


@pytest.mark.parametrize(
    ("exercise", "marker", "expected"),
    [
        ("dcounts_sum_inv", SHAPE, "has the wrong shape: got (32,), expected (32, 1)."),
        ("dprobs", RAISES, "Your code raised ZeroDivisionError on line 2:"),
        ("dcounts", VALUES, "is inaccurate: max abs diff 1.0e+00"),
    ],
)
def test_an_incorrect_submission_says_why(fake, exercise, marker, expected):
    at = submit(page_test(exercise).run(), f"{marker}\n")
    assert not at.exception
    assert expected in at.error[0].value
    assert at.error[0].value.startswith("**Not yet.**")
    attempt = services.store().work.attempts(_profile(), exercise)[0]
    assert not attempt.solved and expected in attempt.summary


def test_the_shape_hint_sits_under_its_check(fake):
    at = submit(page_test("dcounts_sum_inv").run(), f"{SHAPE}\n")
    checks = at.markdown[-1].value if "keepdim" in at.markdown[-1].value else texts(at)
    assert ":red[✗] **Plain float tensor, exact shape, finite:**" in checks
    assert "_Hint: the values are right but a dimension was dropped" in checks
    assert ":gray[·] **Main batch" in checks


def test_an_exception_shows_the_learners_traceback(fake):
    at = submit(page_test("dprobs").run(), f"{RAISES}\n")
    assert any('File "<your code>", line 2' in c.value for c in at.code)


def test_wrong_values_show_the_cmp_line_and_heatmaps(fake):
    at = submit(page_test("dcounts").run(), f"{VALUES}\n")
    assert any("exact: False" in c.value and "maxdiff: 1.0e+00" in c.value for c in at.code)
    assert heatmaps(at), "the heatmaps are drawn, in the run that shows the verdict"
    assert "**Where the values differ**" in [m.value for m in at.markdown]


def test_submitting_unchanged_code_grades_it_again_and_says_so(fake):
    at = submit(page_test("dcounts").run(), f"{VALUES}\n")
    assert GRADED_AGAIN not in texts(at), "a first submission is not graded 'again'"
    at = submit(at, f"{VALUES}\n")
    assert at.error[0].value.startswith("**Not yet.**")
    assert GRADED_AGAIN in texts(at)
    assert fake.graded == [("dcounts", f"{VALUES}\n")] * 2
    assert len(services.store().work.attempts(_profile(), "dcounts")) == 2
    at = submit(at, f"{VALUES}\n# changed\n")
    assert GRADED_AGAIN not in texts(at), "changed code is not graded 'again'"


def test_the_heatmaps_come_with_the_verdict_as_pictures_and_values_and_stay(fake):
    at = submit(page_test("dcounts").run(), f"{VALUES}\n")
    assert at.error[0].value.startswith("**Not yet.**") and len(heatmaps(at)) == 1
    html = heatmaps(at)[0].proto.body
    assert html.count("data:image/png;base64,") == 3, "three small pictures, sent in the page"
    for title in ("your dcounts", "autograd", "yours − autograd"):
        assert f"<figcaption>{title}</figcaption>" in html
    assert not at.get("vega_lite_chart") and not at.get("image"), "no chart, no media file"
    (values,) = [e for e in at.expander if e.label == "The values, cell by cell"]
    assert not values.dataframe, "folded: the table is not built (issue 39)"
    at.run()
    assert len(heatmaps(at)) == 1, "shown on every rerun"
    at.session_state["heatmap-values:dcounts:dcounts"] = True  # the learner unfolds it: a rerun
    (values,) = [e for e in at.run().expander if e.label == "The values, cell by cell"]
    cells = values.dataframe[0].value
    assert list(cells.columns) == ["row", "col", "yours", "autograd", "diff"]
    assert len(cells) == 2 and cells["yours"].tolist() == [1.0, 2.0], "every cell, readable"
    assert len(heatmaps(at)) == 1, "the pictures stay above it"


def heatmaps(at) -> list:
    """Return the page's heatmaps (HTML of three pictures: the exercise page's only st.html)."""
    return [e for e in at.get("html") if "bn-heat" in e.proto.body]


def test_values_wrong_only_for_random_upstreams_say_so_above_the_heatmaps(fake):
    at = submit(page_test("dlogit_maxes").run(), f"{RANDOM_ONLY}\n")
    where = "**Where the values differ** (with random upstream gradients)"
    assert where in [m.value for m in at.markdown]
    assert heatmaps(at), "the heatmaps are drawn"


def test_hints_are_revealed_one_at_a_time_and_remembered(fake):
    at = page_test("dlogprobs").run()
    assert not at.info
    at.button(key="hint:dlogprobs").click().run()
    assert len(at.info) == 1 and at.info[0].value.startswith("**Hint 1.**")
    at.button(key="hint:dlogprobs").click().run()
    assert len(at.info) == 2 and at.info[1].value.startswith("**Hint 2.**")
    total = len(fake.catalog.get("dlogprobs").hints)
    for _ in range(total - 2):
        at.button(key="hint:dlogprobs").click().run()
    assert len(at.info) == total
    assert not any(b.key == "hint:dlogprobs" for b in at.button), "no hints left"
    assert len(page_test("dlogprobs").run().info) == total, "a new session sees the same hints"


def _revealed() -> list[bool]:
    return [
        p.revealed
        for p in services.store().work.progress(_profile())
        if p.exercise_id == "dlogprobs"
    ]


def _reveal_offered(at) -> bool:
    return any(b.key == "reveal:dlogprobs" for b in at.button)


def test_the_solution_is_revealed_after_a_real_attempt_and_a_confirmation(fake):
    at = submit(page_test("dlogprobs").run(), f"{VALUES}\n")
    at.button(key="reveal:dlogprobs").click().run()
    assert "Show the reference solution?" in at.warning[0].value
    assert not any("dlogprobs[range(n), Yb]" in c.value for c in at.code), "not before yes"
    assert _revealed() == [False]
    at.button(key="reveal_yes:dlogprobs").click().run()
    assert any("dlogprobs[range(n), Yb]" in c.value for c in at.code)
    assert _revealed() == [True]


def test_cancelling_the_confirmation_reveals_nothing(fake):
    at = submit(page_test("dlogprobs").run(), f"{VALUES}\n")
    at.button(key="reveal:dlogprobs").click().run()
    at.button(key="reveal_no:dlogprobs").click().run()
    assert _reveal_offered(at) and not at.warning and _revealed() == [False]


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("the untouched starter", None),
        ("the starter with blank lines", "\n{starter}\n\n"),
        ("code that raised", f"{RAISES}\n"),
    ],
)
def test_an_attempt_that_is_not_real_does_not_unlock_the_solution(fake, case, code):
    at = page_test("dlogprobs").run()
    starter = at.text_area[0].value
    assert not _reveal_offered(at) and "after one attempt of your own" in texts(at)
    at = submit(at, starter if code is None else code.format(starter=starter))
    assert services.store().work.attempts(_profile(), "dlogprobs"), "it was graded and recorded"
    assert not _reveal_offered(at) and "0 so far" in texts(at)


def test_the_number_of_attempts_before_a_reveal_is_a_setting(fake, monkeypatch):
    monkeypatch.setenv("NINJA_REVEAL_AFTER", "2")
    at = submit(page_test("dlogprobs").run(), f"{VALUES}\n")
    assert not _reveal_offered(at) and "after 2 attempts of your own" in texts(at)
    at = submit(at, f"{VALUES}\n# again\n")
    assert _reveal_offered(at)


def test_a_reveal_after_of_zero_switches_revealing_off(fake, monkeypatch):
    monkeypatch.setenv("NINJA_REVEAL_AFTER", "0")
    at = submit(page_test("dlogprobs").run(), f"{VALUES}\n")
    assert not _reveal_offered(at) and "switched off" in texts(at)


def test_typed_code_survives_a_new_session(fake):
    at = page_test("dh").run()
    at.text_area[0].input("dh = dlogits @ W2.T  # typed\n").run()
    again = page_test("dh").run()
    assert again.text_area[0].value == "dh = dlogits @ W2.T  # typed\n"


def test_an_auto_save_reruns_only_the_notices_above_the_editor(fake, monkeypatch):
    """The editor's callback keeps a change as the draft and reruns the notices alone (a draft
    too long to keep is refused there), never the work area with the feedback and hints.

    A browser's event reruns the fragment that holds its widget; AppTest runs the whole script
    for every event, as a page's run folded with the event would: the callback then leaves the
    change to that run. So the browser's case is told to the callback here."""
    runs, real = [], workbench.submission
    monkeypatch.setattr(workbench, "submission", lambda *args: runs.append(args[0]) or real(*args))
    at = page_test("dh").run()
    at.text_area[0].input("dh = 1  # a run of the page takes it\n").run()
    assert services.store().work.draft(_profile(), "dh") == "dh = 1  # a run of the page takes it\n"
    assert at.text_area.len == 1 and runs == ["dh", "dh"], "the page's run, work area included"
    monkeypatch.setattr(workbench, "one_fragment", lambda: True)  # the editor's fragment
    monkeypatch.setattr(workbench, "SETTLED", 0.0)  # its last run reached the browser
    at.text_area[0].input("x = '" + "a" * 66_000 + "'\n").run()
    assert [w.value for w in at.warning if "longer than the 64 KiB" in w.value], "in the notices"
    assert services.store().work.draft(_profile(), "dh") == "dh = 1  # a run of the page takes it\n"
    at = page_test("dh").run()
    at.text_area[0].input("dh = dlogits @ W2.T  # typed\n").run()
    assert services.store().work.draft(_profile(), "dh") == "dh = dlogits @ W2.T  # typed\n"
    assert at.text_area.len == 0 and not at.warning, "this run drew the notices alone: none"
    assert runs == ["dh"] * 3, "only the pages' runs ran the work area"
    submit(page_test("dh").run(), "dh = dlogits @ W2.T\n")
    assert runs == ["dh"] * 5, "a submission reruns it"


def test_an_auto_save_shows_a_stopped_servers_submission_and_the_next_run_reads_it_again(
    fake, monkeypatch
):
    """The editor's callback reads the submissions a stopped server left when it keeps a
    change, and the run of the notices alone that follows shows them (it looks nothing up);
    a later run of the page reads them again, never the callback's old list."""
    monkeypatch.setattr(workbench, "one_fragment", lambda: True)  # the editor's fragment
    monkeypatch.setattr(workbench, "SETTLED", 0.0)  # its last run reached the browser
    at = page_test("dlogprobs").run()
    assert not at.warning
    left = f"{SOLVED}\n# submitted before the crash\n"
    store = services.store()
    store.submissions.begin_submission(_profile(), "dlogprobs", "old:1", left, left, "gone")
    walks, walk = [], services._signature
    monkeypatch.setattr(services, "_signature", lambda root: walks.append(root) or walk(root))
    at.text_area[0].input("dlogprobs = 1  # typed\n").run()
    assert at.text_area.len == 0, "the notices' run alone"
    assert [w for w in at.warning if "was not graded" in w.value], "read by the callback"
    assert len(walks) == 1, "the callback's run looked the store up; the notices' run did not"
    store.submissions.finish_submission(_profile(), "old:1", None)  # gone meanwhile
    at.run()
    assert at.text_area.len == 1 and not at.warning, "the page's run read them again"


def test_a_change_soon_after_the_work_areas_run_reruns_it(fake, monkeypatch):
    """A change that comes as the work area's run ends (the editor's debounced auto-save while
    a submission is graded) reruns the work area: a run of the notices alone would leave the
    elements of its run that Streamlit had not sent yet (the verdict) dropped."""
    runs, real = [], workbench.submission
    monkeypatch.setattr(workbench, "submission", lambda *args: runs.append(args[0]) or real(*args))
    monkeypatch.setattr(workbench, "one_fragment", lambda: True)  # the editor's fragment
    monkeypatch.setattr(workbench, "SETTLED", 60.0)
    at = submit(page_test("dlogprobs").run(), f"{SOLVED}\n")
    assert runs == ["dlogprobs"] * 2 and at.success
    at.text_area[0].input(f"{SOLVED}\n# typed on\n").run()
    assert runs == ["dlogprobs"] * 3 and at.success, "the work area and its verdict drawn again"
    assert services.store().work.draft(_profile(), "dlogprobs") == f"{SOLVED}\n# typed on\n"
    monkeypatch.setattr(workbench, "SETTLED", 0.0)
    at.text_area[0].input(f"{SOLVED}\n# and on\n").run()
    assert runs == ["dlogprobs"] * 3, "settled: the notices alone"
    assert services.store().work.draft(_profile(), "dlogprobs") == f"{SOLVED}\n# and on\n"


def test_a_solved_exercise_stays_solved_in_a_new_session(fake):
    submit(page_test("dlogprobs").run(), f"{SOLVED}\n")
    again = page_test("dlogprobs").run()
    assert "Your last attempt (1 so far): solved." in texts(again)
    assert services.store().work.statuses(_profile()) == {"dlogprobs": "solved"}


def test_an_interrupted_submission_is_graded_on_the_next_run(fake):
    at = page_test("dlogprobs").run()
    at.session_state["pending:dlogprobs"] = [Submission("t:1", f"{SOLVED}\n")]
    at.run()
    assert at.success and fake.graded == [("dlogprobs", f"{SOLVED}\n")]
    at.run()
    assert len(fake.graded) == 1, "graded once"


def test_a_submission_is_recorded_before_it_is_graded(fake, monkeypatch):
    at = page_test("dlogprobs").run()
    seen = []
    grade = fake.grade

    def watched(exercise_id, code):
        seen.append([p.code for p in services.store().submissions.pending(_profile(), exercise_id)])
        seen.append(services.store().work.draft(_profile(), exercise_id))
        return grade(exercise_id, code)

    monkeypatch.setattr(fake, "grade", watched)
    at = submit(at, f"{VALUES}\nx = 1\n")
    assert seen == [[f"{VALUES}\nx = 1\n"], f"{VALUES}\nx = 1\n"]
    assert services.store().submissions.pending(_profile(), "dlogprobs") == [], (
        "its attempt replaced it"
    )
    assert len(services.store().work.attempts(_profile(), "dlogprobs")) == 1


def test_a_submission_a_stopped_server_left_is_shown_not_graded(fake):
    at = page_test("dlogprobs").run()
    left = f"{SOLVED}\n# submitted before the crash\n"
    services.store().submissions.begin_submission(
        _profile(), "dlogprobs", "old:1", left, left, "gone"
    )
    at = page_test("dlogprobs").run()
    assert "was not graded: the app stopped before it finished" in at.warning[0].value
    assert any(c.value == left.strip() for c in at.code), "its code is shown"
    assert at.text_area[0].value == left, "and the editor opens on it"
    assert services.store().work.attempts(_profile(), "dlogprobs") == [] and fake.graded == []
    at = submit(at, left)
    assert at.success and not at.warning, "submitting again grades it and clears the notice"
    assert services.store().submissions.pending(_profile(), "dlogprobs") == []


# With the real grader: learner code runs in the sandbox.


@pytest.mark.parametrize(
    ("exercise", "code", "solved", "expected"),
    [
        (
            "dlogprobs",
            "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0/n\n",
            True,
            "`dlogprobs` is also right with",
        ),
        (
            "dcounts_sum_inv",
            "dcounts_sum_inv = (counts * dprobs).sum(1)\n",
            False,
            "**Not yet.** `dcounts_sum_inv` has the wrong shape: the values are right but a "
            "dimension was dropped; sum with keepdim=True. Got (32,) = (n,), expected (32, 1) = "
            "(n, 1).",
        ),
        (
            "dprobs",
            "x = 0\ndprobs = dlogprobs / (1 / x)\n",
            False,
            "Your code raised ZeroDivisionError on line 2:",
        ),
    ],
)
def test_the_real_grader_end_to_end(app_env, exercise, code, solved, expected):
    at = submit(page_test(exercise).run(), code)
    assert not at.exception
    verdict = (at.success if solved else at.error)[0].value
    assert expected in verdict


def test_a_new_status_redraws_the_badge_and_the_navigation_with_no_rerun_of_the_page(
    fake, monkeypatch
):
    reruns, real = [], st.rerun
    monkeypatch.setattr(st, "rerun", lambda **kwargs: reruns.append(kwargs) or real(**kwargs))
    at = counting_navigations("exercise", "dprobs").run()
    assert _badge(at) == "Not attempted yet" and at.session_state["navigations"] == 0
    at = submit(at, f"{VALUES}\n")  # its heatmaps are drawn by the browser: no rerun of theirs
    assert _badge(at) == "Attempted, not solved yet", "drawn after the grading, in its run"
    assert at.session_state["navigations"] == 1, "the navigation's icon follows the status"
    at = submit(at, f"{SHAPE}\n")
    assert at.error[0].value.startswith("**Not yet.**") and "wrong shape" in texts(at)
    assert at.session_state["navigations"] == 1, "still attempted: the navigation is kept"
    at = submit(at, f"{SOLVED}\n")
    assert at.success[0].value.startswith("**Solved.**") and _badge(at) == "Solved"
    assert at.session_state["navigations"] == 2
    assert reruns == [], "the fragment that graded draws what the status changes"


def _badge(at) -> str:
    """Return the text of the page's status badge."""
    (badge,) = [m.value for m in at.markdown if "badge[" in m.value]
    return badge.split("]", 1)[0].rsplit(": ", 1)[-1]


def test_the_reveal_is_not_offered_once_the_exercise_is_solved(fake):
    at = submit(page_test("dlogprobs").run(), f"{VALUES}\n")
    assert _reveal_offered(at)
    at = submit(at, f"{SOLVED}\n")
    assert not _reveal_offered(at) and "can be revealed" not in texts(at)


def test_a_step_page_shows_its_forward_line_once_and_keeps_its_note(app_env):
    at = page_test("dcounts_sum").run()
    assert not at.exception
    line = "counts_sum_inv = counts_sum**-1"
    assert sum(line in m.value for m in at.markdown) == 1, "the prompt quotes it"
    assert not [c.value for c in at.code if line in c.value], "not a second time below it"
    (note,) = [c.value for c in at.caption if c.value.startswith(f"`{line}`")]
    assert "so that a hand-written gradient can match autograd bit for bit" in note
    assert list(at.dataframe[0].value["role"])[-1] == "you write this"


def test_a_rerun_that_drops_the_work_areas_unsent_deltas_leaves_a_page_that_can_be_drawn(
    fake, monkeypatch
):
    """When a run starts, Streamlit drops the deltas that the fragments it reruns have not sent
    yet (AppSession's `_clear_queue`), and keeps those of any other fragment: the notices'
    fragment, nested in the work area's. After a burst of submissions under load, a page went
    white: a kept delta of the notices put a block inside what the browser held as an element
    (the place above the editor, sent as st.empty before it became a container), and the
    browser's tree update threw ("'setIn' cannot be called on an ElementNode").

    Here, the deltas of a submission's run that its fragments draw are replayed on the page
    as the previous run left it, cut at every point: those before the cut reached the
    browser, and of those after it only the ones of other fragments than the work area's.
    Every delta must land in a block."""
    sent: list = []
    enqueue = ForwardMsgQueue.enqueue
    monkeypatch.setattr(
        ForwardMsgQueue, "enqueue", lambda queue, msg: sent.append(msg) or enqueue(queue, msg)
    )
    at = page_test("dlogprobs").run()
    first = len(sent)  # the page's run; then the submission's
    submit(at, f"{VALUES}\n")
    page, last = _drawn(sent[:first]), sent[first:]
    work = next(m.delta.fragment_id for m in last if _element(m) == "text_area")
    drawn = [m for m in last if m.WhichOneof("type") == "delta" and m.delta.fragment_id]
    assert any(m.delta.fragment_id != work for m in drawn), "a fragment nested in the work area"
    for cut in range(len(drawn) + 1):
        kept = [m for m in drawn[cut:] if m.delta.fragment_id != work]
        _drawn(drawn[:cut] + kept, dict(page), f"cut after {cut} of {len(drawn)}")


def _element(message) -> str | None:
    """Return the kind of element a delta draws, if it draws one."""
    if message.WhichOneof("type") != "delta" or message.delta.WhichOneof("type") != "new_element":
        return None
    return message.delta.new_element.WhichOneof("type")


def _drawn(messages: list, page: dict | None = None, when: str = "") -> dict:
    """Apply the deltas to a page (each place's path: "block" or "element"), as the browser's
    tree does, and return it; fail on a delta whose parent is not a block."""
    page = page if page is not None else {(): "block", **{(i,): "block" for i in range(4)}}
    for message in messages:
        if message.WhichOneof("type") != "delta":
            continue
        path, kind = tuple(message.metadata.delta_path), message.delta.WhichOneof("type")
        parent = page.get(path[:-1])
        assert parent == "block", f"{when}: a {kind} at {list(path)} inside {parent or 'nothing'}"
        if kind == "add_block":
            page[path] = "block"  # a block of the same kind keeps its children
        elif kind == "new_element" or path not in page:  # a spinner (transient) keeps its place
            for place in [p for p in page if p[: len(path)] == path and p != path]:
                del page[place]
            page[path] = "element"
    return page
