"""The page's own CSS: what the theme (.streamlit/config.toml) cannot set.

Streamlit colours code tokens from a fixed palette of its own, several of which read below the
4.5:1 that WCAG AA asks of text on the code blocks' near-white (comments 3.6:1, numbers 2.6:1,
True and False 2.3:1: axe-core's findings, tests/e2e/test_a11y.py). The same hues, darkened to
5.3:1 or more, are set here for every page, in one style element that takes no room.
"""

from __future__ import annotations

from urllib.parse import quote

import streamlit as st

# The page icon: 🥷 drawn as Streamlit's frontend draws an emoji icon (an SVG of the character),
# written in ASCII. Given the emoji itself, Streamlit loads its table of every emoji to check it
# (once per process, 0.1 to 0.4 s of the first page run); given a Material icon, the browser
# fetches it from a public font server, and nothing may leave the machine.
PAGE_ICON = "data:image/svg+xml," + quote(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'>"
    "<text y='.9em' font-size='90'>\U0001f977</text></svg>"
)

# Prism's token classes, as Streamlit's highlighter groups them, and a colour for each group
# with at least 5.2:1 on #fcfcfb (the code blocks' background) and on white.
TOKEN_COLOURS = {
    ".token.comment, .token.prolog, .token.doctype, .token.cdata, .token.punctuation,"
    " .token.unchanged.line": "#5c5f6e",
    ".token.attr-name, .token.property, .token.variable": "#00708f",
    ".token.boolean, .token.constant, .token.symbol, .token.inserted": "#177a35",
    ".token.number, .token.regex": "#0f7466",
    ".token.string, .token.char, .token.attr-value": "#0b7a30",
    ".token.operator, .token.entity, .token.decorator, .token.atrule": "#b0480a",
    ".token.keyword, .token.tag": "#0b62b8",
    ".token.deleted": "#c62828",
}


# A caption is drawn at 60% opacity, and its code spans with it: their green (#0c5a44) then
# reads 3.0:1 (#6d9c8f on #fdfdfd, axe-core on Exercise 2's forward lines' notes). In a caption
# they take the caption's own near-black, which reads 4.9:1 at that opacity.
CAPTION_CODE = '[data-testid="stCaptionContainer"] code'


def css() -> str:
    """Return the style element's text."""
    rules = [
        f"{selector} {{ color: {colour} !important; }}"
        for selector, colour in TOKEN_COLOURS.items()
    ]
    rules.append(f"{CAPTION_CODE} {{ color: inherit !important; }}")
    return "<style>\n" + "\n".join(rules) + "\n</style>"


# The navigation cuts a long page title with "…" and offers no tooltip: this script gives each
# cut title its whole text as the link's tooltip (Streamlit keeps it in the label's `label`), and
# looks again whenever the navigation is redrawn or the window resized.
TOOLTIPS = """<script>
(() => {
  if (window.ninjaTooltips) return;
  window.ninjaTooltips = true;
  const mark = () => document.querySelectorAll("[data-testid='stSidebarNavLink']").forEach((a) => {
    const label = a.querySelector("span[label]");
    if (!label) return;
    const cut = label.scrollWidth > label.clientWidth;
    const title = cut ? label.getAttribute("label") : null;
    if (title && a.title !== title) a.title = title;
    if (!title && a.hasAttribute("title")) a.removeAttribute("title");
  });
  new MutationObserver(mark).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", mark);
  mark();
})();
</script>"""


def apply() -> None:
    """Add the app's CSS to the page, and the script that gives cut navigation titles their
    tooltip (once per run; neither element is drawn)."""
    st.html(css())
    st.html(TOOLTIPS, unsafe_allow_javascript=True)
