"""A small Streamlit client over the websocket, for load benchmarks: one learner's session.

It speaks Streamlit's own protobuf messages (streamlit.proto's BackMsg and ForwardMsg, from
the installed streamlit) on `/_stcore/stream`, as the page's JavaScript does:
- opening a page is a `rerun_script` BackMsg naming the page (its URL path);
- the code editor (app/panels/editor.py, streamlit-code-editor) is a component widget; typing
  sends its value `{"id", "type": "change", "text", ...}` after the debounce, and Ctrl+Enter (or
  Submit) sends `{"type": "submit", ...}`, each as the component's JSON widget state in a
  `rerun_script` of the editor's fragment (`fragment_id`: the exercise's work area is an
  `st.fragment`). The page's stamp script (editor.STAMP_SCRIPT) adds `page`, `seq` and
  `submitted` to every value once a submission was made; so does this client;
- a fragment with `run_every` (a training run's progress, say) asks the page, with an `auto_rerun`
  ForwardMsg, to rerun it at an interval until a `stop_auto_rerun` or a full run drops it;
  this client does the same, so the server sees the traffic a browser would cause.

The verdict is the ForwardMsg delta that carries the feedback's alert (app/views/results.py):
"**Solved.** ..." or "**Not yet.** ...", or a busy or rate-limit warning. `submit` returns the
time from sending the submission to that delta arriving. `editor_at` is when the editor's delta
arrived (the page's editor drawn, before its run ends). A browser's first page gets its identity
as a cookie set by a script (app/config/identity.py); the session keeps it (`cookie`), and a
later session given it (`returning`) is the same browser opening another page.

    session = StreamlitSession("http://127.0.0.1:8501", "dprobs")
    await session.open()
    verdict = await session.submit("dprobs = 1 / 0")   # Verdict(kind="not yet", seconds=...)
    await session.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
from dataclasses import dataclass

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

EDITOR_KEY = "editor:"  # the exercise editor's widget key starts so (app/panels/workbench.py)
SOLVED, NOT_YET = "**Solved.**", "**Not yet.**"  # app/views/results.py's verdicts
BUSY = "Your code is kept in the editor."  # results.show_busy
TOO_FAST = "You are submitting very fast"  # app/ratelimit.too_fast
FULL_RUN = ForwardMsg.FINISHED_SUCCESSFULLY
RERUN_FOLLOWS = ForwardMsg.FINISHED_EARLY_FOR_RERUN  # another run starts at once
MAX_MESSAGE = 200 * 2**20  # a page may carry images and charts (the heatmaps' numbers)
COOKIE = "ninja_learner"  # the identity's cookie (app/config/identity.py), set by a script
COOKIE_SET = re.compile(rf"document\.cookie = '{COOKIE}=([0-9a-f]+\.[0-9a-f]+);")


class ClientError(RuntimeError):
    """The session did not behave as a page expects (no editor, no verdict in time)."""


@dataclass(frozen=True)
class Verdict:
    """What the page showed for one submission: its kind, and how long it took to arrive."""

    kind: str  # "solved", "not yet", "busy" or "too fast"
    seconds: float
    text: str


def verdict_kind(body: str) -> str | None:
    """Return the kind of feedback an alert's body is, None if it is not feedback."""
    if body.startswith(SOLVED):
        return "solved"
    if body.startswith(NOT_YET):
        return "not yet"
    if BUSY in body:
        return "busy"
    if TOO_FAST in body:
        return "too fast"
    return None


def stream_url(base: str) -> str:
    """Return the websocket address of a Streamlit server's base http(s) URL."""
    return base.rstrip("/").replace("http", "ws", 1) + "/_stcore/stream"


class StreamlitSession:
    """One browser tab's session, driven over the websocket."""

    def __init__(self, base_url: str, page: str):
        self.base_url, self.page = base_url, page
        self.page_hash = ""  # the page's script hash, from the navigation message
        self.editor_id = ""  # the exercise editor's widget id
        self.fragment_id = ""  # the fragment the editor is drawn in
        self.values: dict[str, dict] = {}  # widget id -> the component's JSON value
        self.token = secrets.token_hex(6)  # the page's stamp (editor.STAMP_SCRIPT)
        self.seq, self.last_submit = 0, None
        self.runs_finished = 0
        self.elements = 0  # elements the server has drawn (new_element deltas), every run's
        self.editor_at: float | None = None  # perf_counter when the editor's delta first came
        self.cookie: str | None = None  # the identity cookie the page set, if it set one
        self._socket = None
        self._reader = self._ticker = None
        self._finished = asyncio.Event()
        self._verdict: asyncio.Future | None = None
        self._auto: dict[str, float] = {}  # fragment id -> interval (s), being rerun
        self._registered: dict[str, float] = {}  # auto reruns asked for during this run
        self._due: dict[str, float] = {}
        self.error: BaseException | None = None
        # More for websockets.connect: headers (cookies, Origin), an SSL context, subprotocols
        # (Streamlit reads the XSRF token from the second), as a signed-in browser sends them.
        self.connect_options: dict = {"subprotocols": ["streamlit"]}

    # Opening and closing ---------------------------------------------------------------------

    def returning(self, cookie: str | None) -> None:
        """Send the identity cookie of an earlier session when opening: the same browser."""
        if cookie:
            self.connect_options["additional_headers"] = {"Cookie": f"{COOKIE}={cookie}"}

    async def open(self, timeout: float = 60.0) -> None:
        """Connect, ask for the page, and wait until its editor is drawn and the run is over."""
        self._socket = await websockets.connect(
            stream_url(self.base_url),
            max_size=MAX_MESSAGE,
            open_timeout=timeout,
            ping_interval=None,
            **self.connect_options,
        )
        self._reader = asyncio.create_task(self._read())
        self._ticker = asyncio.create_task(self._tick())
        await self._rerun()
        await self.quiet(timeout)
        if not self.editor_id:
            raise ClientError(f"page {self.page!r} showed no code editor")

    async def close(self) -> None:
        """Close the websocket and stop the session's tasks."""
        for task in (self._ticker, self._reader):
            if task is not None:
                task.cancel()
        if self._socket is not None:
            await self._socket.close()

    # What a learner does ---------------------------------------------------------------------

    async def change(self, code: str, timeout: float = 60.0) -> None:
        """Send the editor's debounced change (the auto-save), and wait for its run to end."""
        await self.quiet(timeout)
        await self._set_editor(self._value("change", code))
        await self.quiet(timeout)

    async def submit(self, code: str, timeout: float = 60.0) -> Verdict:
        """Press Ctrl+Enter on code; return the verdict and the time to its delta."""
        await self.quiet(timeout)
        self.seq += 1
        self.last_submit = (self.seq, code)
        self._verdict = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        await self._set_editor(self._value("submit", code))
        try:
            kind, text = await asyncio.wait_for(self._verdict, timeout)
        except TimeoutError:
            raise ClientError(f"no feedback within {timeout:g} s") from None
        finally:
            self._verdict = None
        return Verdict(kind, time.perf_counter() - start, text)

    async def quiet(self, timeout: float = 60.0) -> None:
        """Wait until no run is going and no fragment is being rerun on a timer."""
        deadline = time.monotonic() + timeout
        while not self._finished.is_set() or self._auto:
            self._check()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClientError(f"the page did not settle within {timeout:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._finished.wait(), min(left, 0.1))
        self._check()

    # Messages ----------------------------------------------------------------------------------

    def _value(self, kind: str, code: str) -> dict:
        """Return the component's value for an event, stamped as the page's script does."""
        value = {
            "id": secrets.token_hex(4),
            "type": kind,
            "lang": "python",
            "text": code,
            "selected": "",
            "cursor": {"row": code.count("\n"), "column": len(code.rsplit("\n", 1)[-1])},
        }
        if self.last_submit is not None:
            seq, submitted = self.last_submit
            value |= {"page": self.token, "seq": seq, "submitted": submitted}
        return value

    async def _set_editor(self, value: dict) -> None:
        self.values = {self.editor_id: value}
        await self._rerun(self.fragment_id)

    async def _rerun(self, fragment_id: str = "", auto: bool = False) -> None:
        """Send a rerun_script BackMsg with the widgets' states, as the page does."""
        back = BackMsg()
        state = back.rerun_script
        state.query_string = ""
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page
        state.fragment_id = fragment_id
        state.is_auto_rerun = auto
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        state.context_info.url = f"{self.base_url.rstrip('/')}/{self.page}"
        for widget_id, value in self.values.items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.json_value = json.dumps(value)
        if not auto:
            self._finished.clear()
        await self._socket.send(back.SerializeToString())

    async def _read(self) -> None:
        try:
            async for raw in self._socket:
                message = ForwardMsg()
                message.ParseFromString(raw)
                self._handle(message)
        except BaseException as err:  # noqa: BLE001 - kept, raised by the learner's next call
            self.error = err
            if self._verdict is not None and not self._verdict.done():
                self._verdict.set_exception(ClientError(f"connection lost: {err!r}"))
            raise
        self.error = ClientError("the server closed the connection")
        if self._verdict is not None and not self._verdict.done():
            self._verdict.set_exception(self.error)

    def _handle(self, message: ForwardMsg) -> None:
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self._registered = {}
        elif kind == "navigation":  # st.navigation: the page being shown (new_session names
            self.page_hash = message.navigation.page_script_hash  # the main script)
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self.elements += 1
            self._element(message.delta.new_element, message.delta.fragment_id)
        elif kind == "auto_rerun":
            self._registered[message.auto_rerun.fragment_id] = message.auto_rerun.interval
            self._auto[message.auto_rerun.fragment_id] = message.auto_rerun.interval
        elif kind == "stop_auto_rerun":
            for fragment in message.stop_auto_rerun.fragment_ids:
                self._auto.pop(fragment, None)
        elif kind == "script_finished":
            if message.script_finished == FULL_RUN:  # a full run keeps only what it asked for
                self._auto = dict(self._registered)
            if message.script_finished != RERUN_FOLLOWS:
                self.runs_finished += 1
                self._finished.set()
            else:  # st.rerun() from the script: the run that follows is the server's own
                self._finished.clear()

    def _element(self, element, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "component_instance" and EDITOR_KEY in element.component_instance.id:
            if self.editor_at is None:
                self.editor_at = time.perf_counter()
            if element.component_instance.id != self.editor_id:
                self.values.pop(self.editor_id, None)
                self.editor_id = element.component_instance.id
            self.fragment_id = fragment_id
        elif kind == "alert" and self._verdict is not None and not self._verdict.done():
            found = verdict_kind(element.alert.body)
            if found is not None:
                self._verdict.set_result((found, element.alert.body))
        elif kind == "html" and (match := COOKIE_SET.search(element.html.body)):
            self.cookie = match.group(1)

    async def _tick(self) -> None:
        """Rerun each fragment that asked for it at its interval, as the page's timers do."""
        while True:
            await asyncio.sleep(0.05)
            now = time.monotonic()
            for fragment, interval in list(self._auto.items()):
                due = self._due.setdefault(fragment, now + interval)
                if now >= due:
                    self._due[fragment] = now + interval
                    await self._rerun(fragment, auto=True)
            for fragment in set(self._due) - set(self._auto):
                del self._due[fragment]

    def _check(self) -> None:
        if self.error is not None:
            raise ClientError(f"connection lost: {self.error!r}")
