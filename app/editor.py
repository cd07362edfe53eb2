"""The code editor, behind one function: Ace in the browser, a plain text area in tests.

`code_input` returns an EditorEvent when the learner changed the code (for drafts) or submitted
it (Ctrl/Cmd+Enter, or the Submit button). The Ace editor (streamlit-code-editor) ships its
JavaScript in its wheel; the app serves a copy whose web-font import is local (app/offline.py),
so it works offline. NINJA_EDITOR=plain swaps in `st.text_area`, which AppTest can drive.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

SUBMIT_LABEL = "Submit (Ctrl+Enter)"
# The Submit label sits in a strip of its own under the text, so that it never covers a line
# (Ace scrolls the cursor's line to the very bottom, whatever margin it is given). The strip is
# content, not padding: the component sizes its frame to its content box.
SUBMIT_STRIP = {
    "globalCSS": (
        ".streamlit_code-editor::after"
        " { content: ''; display: block; order: 9; flex: none; height: 3rem; }"
    )
}
SUBMIT_BUTTON = {
    "name": SUBMIT_LABEL,
    "feather": "Play",
    "primary": True,
    "hasText": True,
    "showWithIcon": True,
    "alwaysOn": True,
    "commands": ["submit"],
    "style": {"bottom": "0.2rem", "right": "0.4rem"},  # in the strip under the text
}
ACE_OPTIONS = {"tabSize": 4, "useSoftTabs": True, "showLineNumbers": True, "wrap": False}
# No completion pop-ups: Enter must always start a new line, never accept a keyword.
ACE_PROPS = {
    "enableLiveAutocompletion": False,
    "enableBasicAutocompletion": False,
    "enableSnippets": False,
    "debounceChangePeriod": 800,
    # No scroll margin: with one, Ace scrolls the text but not the line numbers as the editor
    # grows, and the numbers end up a third of a line off the lines they count.
    "scrollMargin": [0, 0, 0, 0],
}


EMPTY_RESPONSE = {"id": "", "type": "", "lang": "", "text": "", "selected": "", "cursor": ""}


@dataclass(frozen=True)
class EditorEvent:
    """The code in the editor, and whether the learner asked for it to be graded."""

    code: str
    submitted: bool


def code_input(key: str, initial: str, *, kind: str = "ace", lines: int = 8) -> EditorEvent | None:
    """Show an editor holding initial; return the learner's latest change or submission."""
    if kind == "plain":
        return _plain(key, initial, lines)
    return _ace(key, initial, lines)


def _ace(key: str, initial: str, lines: int) -> EditorEvent | None:
    """Render the Ace editor; report each response once (the component repeats its last)."""
    response = _ace_component()(
        code=initial,
        lang="python",
        theme="default",
        shortcuts="vscode",
        key=key,
        height=[lines, 2 * lines + 14],
        focus=False,
        snippets=["", ""],
        completions=[],
        keybindings={},
        buttons=[SUBMIT_BUTTON],
        options=ACE_OPTIONS,
        props=ACE_PROPS,
        editor_props={},
        component_props=SUBMIT_STRIP,
        menu={},
        info={},
        allow_reset=False,
        replace_completer=False,
        response_mode=["debounce", "blur"],
        ghost_text="",
        default=EMPTY_RESPONSE,
    )
    if not response or not response.get("id"):
        return None
    seen = f"{key}:seen"
    if st.session_state.get(seen) == response["id"]:
        return None
    st.session_state[seen] = response["id"]
    return EditorEvent(as_text(response.get("text")), response.get("type") == "submit")


@st.cache_resource(show_spinner=False)
def _ace_component():
    """Declare streamlit-code-editor's frontend from its offline copy (app/offline.py).

    The arguments above are the ones `code_editor.code_editor` passes to its own component.
    """
    from streamlit.components.v1 import declare_component

    from app import offline, services

    build = offline.editor_build(services.config().data_dir / "components")
    return declare_component("code_editor", path=str(build))


def as_text(value: object) -> str:
    """Return what the browser sent as well-formed text: a lone surrogate becomes U+FFFD.

    A component's value arrives as JSON, which can carry half of a surrogate pair (or no
    string at all); such text cannot be stored in SQLite or read as code.
    """
    if not isinstance(value, str):
        return ""
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _plain(key: str, initial: str, lines: int) -> EditorEvent | None:
    """Render a text area and a Submit button (for AppTest and for browsers without JS)."""
    code = st.text_area("Your code", value=initial, key=key, height=24 * lines + 16)
    submitted = st.button(SUBMIT_LABEL, key=f"{key}:submit", type="primary")
    seen = f"{key}:seen"
    changed = st.session_state.get(seen, initial) != code
    st.session_state[seen] = code
    return EditorEvent(code, submitted) if submitted or changed else None
