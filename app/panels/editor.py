"""The code editor, behind one function: Ace in the browser, a plain text area in tests.

`code_input` returns an EditorEvent when the learner changed the code (for drafts) or submitted
it (Ctrl/Cmd+Enter, or the Submit button). The Ace editor (streamlit-code-editor) ships its
JavaScript in its wheel; the app serves a copy whose web-font import is local (offline.py),
so it works offline. NINJA_EDITOR=plain swaps in `st.text_area`, which AppTest can drive.

The component has one value, and its auto-save (a debounced change, or a blur) replaces a
submission that the server has not read yet. So a small script on the page stamps every value
an editor's frame sends with the frame's latest submission: a number from one counter that only
grows while the page is open, and the text submitted. A submission is reported until the page
says it was taken (`taken`), whichever event carries it, and its ticket (page and number) keeps
it from being graded twice.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

TICKETS = "editor:tickets"  # the submissions this session has taken
SUBMIT_LABEL = "Submit (Ctrl+Enter)"
PRIMARY = "#c62828"  # the theme's primaryColor (.streamlit/config.toml), if it is not read
# The Submit label sits in a strip of its own under the text, so that it never covers a line
# (Ace scrolls the cursor's line to the very bottom, whatever margin it is given). The strip is
# content, not padding: the component sizes its frame to its content box.
STRIP_CSS = (
    ".streamlit_code-editor::after"
    " { content: ''; display: block; order: 9; flex: none; height: 3rem; }"
)
# The component draws its buttons as grey text with no background, which reads "disabled"; the
# Submit button is always ready (an unchanged answer is graded again), so it looks like the
# page's other primary buttons: filled with the theme's colour, white words, a focus ring.
BUTTON_CSS = (
    ".streamlit_code-editor button.always-on"
    " { background: PRIMARY !important; border-radius: 0.5rem; padding: 0 0.3rem; }"
    " .streamlit_code-editor button.always-on:hover { filter: brightness(0.88); }"
    " .streamlit_code-editor button.always-on:focus-visible"
    " { outline: 2px solid PRIMARY; outline-offset: 2px; }"
    " .streamlit_code-editor button.always-on > span { color: #ffffff !important; }"
    " .streamlit_code-editor button.always-on > svg { stroke: #ffffff !important; }"
)
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


# Runs once per page: each code editor's frame, once loaded, sends its values through a stamp
# (its `parent` is replaceable; the stamp, made in the frame, keeps the frame as the sender).
FRAME_STAMP = """(() => {
  if (window.ninjaStamp) return;
  window.ninjaStamp = true;
  const real = window.parent, shared = window.top.ninjaSubmits;
  let last = null;
  window.parent = { postMessage(message, origin) {
    const value = message && message.value;
    if (message && message.type === "streamlit:setComponentValue" && value && value.type) {
      if (value.type === "submit") last = { seq: ++shared.seq, text: value.text };
      if (last) Object.assign(value, { page: shared.page, seq: last.seq, submitted: last.text });
    }
    real.postMessage(message, origin);
  } };
})();"""
STAMP_SCRIPT = """<script>
(() => {
  if (window.ninjaSubmits) return;
  const page = Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
  window.ninjaSubmits = { page, seq: 0 };
  const code = FRAME_STAMP;
  const stamp = (frame) => { try { frame.contentWindow.eval(code); } catch (e) {} };
  const scan = () => document.querySelectorAll("iframe[title*='code_editor']").forEach((f) => {
    if (f.ninjaWatched) return;
    f.ninjaWatched = true;
    f.addEventListener("load", () => stamp(f));
    if (f.contentDocument && f.contentDocument.readyState === "complete") stamp(f);
  });
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
  scan();
})();
</script>""".replace("FRAME_STAMP", json.dumps(FRAME_STAMP))


@dataclass(frozen=True)
class EditorEvent:
    """The code in the editor, and what the learner asked to be graded (with its ticket).

    `submitted` is None when the event is only a change; `ticket` names the submission once,
    so that it is graded once even when several events (or a restart) carry it.
    """

    code: str
    submitted: str | None = None
    ticket: str = ""


def code_input(
    key: str,
    initial: str,
    *,
    kind: str = "ace",
    lines: int = 8,
    label: str = SUBMIT_LABEL,
    on_event: Callable[[], object] | None = None,
) -> EditorEvent | None:
    """Show an editor holding initial; return the learner's latest change or submission (its
    button says `label`: Submit, or Run for the scratchpad). on_event is the callback of the
    editor's events (the Ace editor's every value, the plain editor's text), called before
    the run that reads them; in it, `submits(key)` tells a submission, `changed(key)` takes a
    change."""
    if kind == "plain":
        return _plain(key, initial, lines, label, on_event)
    return _ace(key, initial, lines, label, on_event)


def submits(key: str) -> bool:
    """Return whether the editor key's latest event (read in its callback) is a submission
    not taken yet: the plain editor's Submit button, or an Ace value with a new ticket."""
    if st.session_state.get(f"{key}:submit"):
        return True
    response = st.session_state.get(key)
    return isinstance(response, dict) and bool(response.get("id")) and _ticket(response) is not None


def changed(key: str) -> str | None:
    """Return the code of the editor key's latest event, read in its callback, if it is a
    change not reported yet (then it never is: the run that follows is told it was seen)."""
    response, seen = st.session_state.get(key), f"{key}:seen"
    if isinstance(response, str):  # the plain editor's text
        if st.session_state.get(seen) == response:
            return None
        st.session_state[seen] = response
        return response
    if not isinstance(response, dict) or not response.get("id"):
        return None
    if _ticket(response) is not None or st.session_state.get(seen) == response["id"]:
        return None
    st.session_state[seen] = response["id"]
    return as_text(response.get("text"))


def _ace(
    key: str,
    initial: str,
    lines: int,
    label: str = SUBMIT_LABEL,
    on_event: Callable[[], object] | None = None,
) -> EditorEvent | None:
    """Render the Ace editor; report each response once (the component repeats its last)."""
    st.html(STAMP_SCRIPT, unsafe_allow_javascript=True)
    response = _ace_component()(
        code=initial,
        lang="python",
        theme="default",
        shortcuts="vscode",
        key=key,
        # Tuples, not lists: each argument that is a list or a dict is checked for a data
        # frame (1.5 ms for these five lists, each time the editor is drawn); a tuple is not,
        # and reaches the browser as the same JSON array.
        height=(lines, 2 * lines + 14),
        focus=False,
        snippets=("", ""),
        completions=(),
        keybindings={},
        buttons=(SUBMIT_BUTTON | {"name": label},),
        options=ACE_OPTIONS,
        props=ACE_PROPS,
        editor_props={},
        component_props=component_props(),
        menu={},
        info={},
        allow_reset=False,
        replace_completer=False,
        response_mode=("debounce", "blur"),
        ghost_text="",
        default=EMPTY_RESPONSE,
        on_change=on_event,
    )
    if not response or not response.get("id"):
        return None
    code, ticket = as_text(response.get("text")), _ticket(response)
    if ticket is not None:  # reported on every run until `taken` says it was
        return EditorEvent(code, as_text(response.get("submitted", response.get("text"))), ticket)
    seen = f"{key}:seen"
    if st.session_state.get(seen) == response["id"]:
        return None
    st.session_state[seen] = response["id"]
    return EditorEvent(code)


def component_props() -> dict:
    """Return the editor's own CSS: the strip under the text and a Submit button that looks
    ready, in the theme's primary colour."""
    primary = st.get_option("theme.primaryColor") or PRIMARY
    return {"globalCSS": STRIP_CSS + " " + BUTTON_CSS.replace("PRIMARY", primary)}


def _ticket(response: dict) -> str | None:
    """Return the ticket of the submission a response carries, unless it was taken already.

    Without the page's stamp (its script not loaded yet), a submit response is its own ticket.
    """
    if "seq" in response:
        ticket = f"{response.get('page')}:{response.get('seq')}"
    elif response.get("type") == "submit":
        ticket = f"id:{response['id']}"
    else:
        return None
    return None if ticket in st.session_state.get(TICKETS, ()) else ticket


def taken(event: EditorEvent) -> None:
    """Remember that a submission was taken (queued for grading, or refused): once is enough."""
    st.session_state.setdefault(TICKETS, set()).add(event.ticket)


@st.cache_resource(show_spinner=False)
def _ace_component():
    """Declare streamlit-code-editor's frontend from its offline copy (offline.py).

    The arguments above are the ones `code_editor.code_editor` passes to its own component.
    """
    from streamlit.components.v1 import declare_component

    from app import services
    from app.panels import offline

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


def _plain(
    key: str,
    initial: str,
    lines: int,
    label: str = SUBMIT_LABEL,
    on_event: Callable[[], object] | None = None,
) -> EditorEvent | None:
    """Render a text area and a Submit button (for AppTest and for browsers without JS)."""
    code = st.text_area(
        "Your code", value=initial, key=key, height=24 * lines + 16, on_change=on_event
    )
    submitted = st.button(label, key=f"{key}:submit", type="primary")
    seen = f"{key}:seen"
    differs = st.session_state.get(seen, initial) != code
    st.session_state[seen] = code
    if submitted:
        return EditorEvent(code, code, f"plain:{uuid.uuid4().hex}")
    return EditorEvent(code) if differs else None
