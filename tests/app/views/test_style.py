"""The page's own CSS (app/views/style.py) and the theme: text colours that pass WCAG AA."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import unquote

import pytest
import streamlit

from app.views import style

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / ".streamlit" / "config.toml"
STREAMLIT_JS = Path(streamlit.__file__).parent / "static" / "static" / "js"
CODE_BACKGROUND, WHITE, SIDEBAR = "#fcfcfb", "#ffffff", "#f0f2f6"  # Streamlit's light theme


def _luminance(colour: str) -> float:
    """Return the relative luminance of #rrggbb, as WCAG 2 defines it."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """Return the WCAG contrast ratio of two colours."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _at(colour: str, opacity: float, background: str) -> str:
    """Return colour drawn at an opacity over a background."""
    mixed = [
        round(opacity * int(colour[i : i + 2], 16) + (1 - opacity) * int(background[i : i + 2], 16))
        for i in (1, 3, 5)
    ]
    return "#" + "".join(f"{c:02x}" for c in mixed)


@pytest.mark.parametrize("selector", list(style.TOKEN_COLOURS))
def test_every_code_token_colour_reads_at_4_5_to_1_on_a_code_block(selector):
    colour = style.TOKEN_COLOURS[selector]
    assert contrast(colour, CODE_BACKGROUND) >= 4.5, (selector, colour)
    assert f"{selector} {{ color: {colour} !important; }}" in style.css()


def test_the_theme_passes_for_captions_and_primary_buttons():
    theme = tomllib.loads(CONFIG.read_text())["theme"]
    caption = _at(theme["textColor"], 0.6, WHITE)  # Streamlit's fadedText60
    assert contrast(caption, WHITE) >= 4.5
    assert contrast(_at(theme["textColor"], 0.6, SIDEBAR), SIDEBAR) >= 4.5, "in the sidebar"
    assert contrast(WHITE, theme["primaryColor"]) >= 4.5, "white words on a primary button"


def test_code_in_a_caption_takes_the_captions_colour_which_passes_at_its_opacity():
    theme = tomllib.loads(CONFIG.read_text())["theme"]
    assert f"{style.CAPTION_CODE} {{ color: inherit !important; }}" in style.css()
    assert contrast(_at(theme["textColor"], 0.6, CODE_BACKGROUND), CODE_BACKGROUND) >= 4.5
    assert contrast(_at("#0c5a44", 0.6, CODE_BACKGROUND), CODE_BACKGROUND) < 4.5, "the green's"


def _frontend_emoji_icon(emoji: str) -> str:
    """Return the favicon Streamlit's frontend draws for an emoji page icon (its bundle's own
    SVG template, read from the installed package)."""
    template = re.compile(r"`(data:image/svg\+xml,<svg [^`]*>)\$\{e\}(</text></svg>)`")
    for bundle in STREAMLIT_JS.glob("index.*.js"):
        if found := template.search(bundle.read_text(encoding="utf-8")):
            return found.group(1) + emoji + found.group(2)
    raise AssertionError("the frontend's emoji icon template was not found")


def test_the_page_icon_is_the_ninja_as_the_frontend_draws_an_emoji():
    assert unquote(style.PAGE_ICON) == _frontend_emoji_icon("\U0001f977")


def test_streamlit_takes_the_page_icon_as_it_is_without_its_emoji_table():
    probe = (
        "import sys; from streamlit.commands.page_config import _get_favicon_string;"
        "from app.views import style; print(_get_favicon_string(style.PAGE_ICON) =="
        " style.PAGE_ICON, 'streamlit.emojis' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["True", "False"], done.stderr[-2000:]
