"""Draw the README's picture: an exercise page with the feedback on a wrong answer.

    .venv/bin/python scripts/exercise_screenshot.py [docs/img/exercise.png]

Starts the app as the browser tests do (tests/e2e/e2e_helpers.py: a fresh data directory, the
exercises proven first, a free localhost port), opens the `dcounts` exercise in Debian's headless
chromium, submits an answer that forgets a consumer, waits for the feedback and saves the page
from its top to just below the feedback as a PNG of few colours (small enough to commit).
tests/e2e/test_screenshot.py runs `shoot` against the browser tests' own server.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _e2e_helpers():
    """Return tests/e2e/e2e_helpers.py (the browser tests' helpers), imported by its path: the
    tests are not installed, and nothing is added to the import path."""
    path = ROOT / "tests" / "e2e" / "e2e_helpers.py"
    spec = importlib.util.spec_from_file_location("e2e_helpers", path)
    module = sys.modules["e2e_helpers"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


e2e = _e2e_helpers()

DEFAULT = ROOT / "docs" / "img" / "exercise.png"
EXERCISE = "dcounts"
WRONG = "dcounts = counts_sum_inv * dprobs"
FEEDBACK = "also used by"  # the missing-consumer diagnosis names the other consumer
VIEWPORT = {"width": 1280, "height": 2600}  # tall: the page need not scroll
COLOURS = 64
MARGIN = 60  # pixels of page below the feedback


def shoot(page, url: str, path: Path, settle_ms: int = 0) -> Path:
    """Open the exercise at url, submit the wrong answer, save the page once feedback shows
    (after settle_ms more, for a picture without half-faded elements)."""
    e2e.open_page(page, f"{url}/{EXERCISE}")
    e2e.type_and_submit(page, WRONG)
    feedback = page.get_by_text(FEEDBACK, exact=False).first
    feedback.wait_for(timeout=e2e.WAIT_MS)
    page.wait_for_timeout(settle_ms)
    box, window = feedback.bounding_box(), page.viewport_size
    bottom = min(box["y"] + box["height"] + MARGIN, window["height"])
    clip = {"x": 0, "y": 0, "width": window["width"], "height": bottom}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_small_png(page.screenshot(clip=clip)))
    return path


def _small_png(png: bytes) -> bytes:
    """Return png with its colours reduced to a palette (a page has few), optimised."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(COLOURS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(argv: list[str]) -> int:
    """Start the app and chromium, draw the picture to argv[0] (default docs/img/exercise.png)."""
    from playwright.sync_api import sync_playwright

    target = Path(argv[0]).resolve() if argv else DEFAULT
    if not e2e.CHROMIUM.exists():
        print(
            f"Debian's chromium is not at {e2e.CHROMIUM} (apt-get install chromium)",
            file=sys.stderr,
        )
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        server = e2e.start_server(Path(tmp) / "var", Path(tmp) / "server.log")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS
                )
                page = browser.new_context(viewport=VIEWPORT).new_page()
                print(shoot(page, server.url, target, settle_ms=1000))
                browser.close()
        finally:
            e2e.stop_server(server.process)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
