"""The editor behind one function: the plain fallback reports changes and submissions."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app.panels.editor import ACE_PROPS, SUBMIT_LABEL, as_text

from ..app_helpers import TIMEOUT


def _script(kind: str) -> None:
    import streamlit as st

    from app.panels.editor import code_input

    event = code_input("ed", "x = 1\n", kind=kind)
    if event is not None:
        st.session_state.setdefault("events", []).append((event.code, event.submitted))
        if event.ticket:
            st.session_state.setdefault("tickets", []).append(event.ticket)


def test_the_plain_editor_reports_a_change_then_a_submission():
    at = AppTest.from_function(_script, args=("plain",), default_timeout=TIMEOUT).run()
    assert at.text_area[0].value == "x = 1\n" and "events" not in at.session_state
    at.text_area[0].input("x = 2\n").run()
    at.button(key="ed:submit").click().run()
    at.button(key="ed:submit").click().run()
    submitted = ("x = 2\n", "x = 2\n")
    assert at.session_state["events"] == [("x = 2\n", None), submitted, submitted]
    first, second = at.session_state["tickets"]
    assert first != second, "each submission has a ticket of its own"
    assert at.button(key="ed:submit").label == SUBMIT_LABEL


def test_the_ace_editor_renders_its_component_without_completion_popups():
    at = AppTest.from_function(_script, args=("ace",), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.get("iframe") or at.get("component_instance") or at.get("custom_component")
    assert ACE_PROPS["enableLiveAutocompletion"] is False


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        ("x = 1\n", "x = 1\n"),
        ("s = 'zoë 😀'\n", "s = 'zoë 😀'\n"),
        ("s = '\ud83d\ude00'", "s = '😀'"),
        ("s = '\udcff'", "s = '\ufffd'"),
        ("a\ud800", "a\ufffd"),
        (None, ""),
        ({"code": "x"}, ""),
    ],
)
def test_what_the_browser_sends_becomes_well_formed_text(sent, code):
    assert as_text(sent) == code
    as_text(sent).encode("utf-8")
