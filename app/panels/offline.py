"""The code editor's frontend, made to ask nothing of the network.

streamlit-code-editor's build styles Ace with `@import url('https://fonts.googleapis.com/...')`,
so every page with an editor would ask a public font server for Source Code Pro. The app serves
a copy of that build instead, made once under the data directory, in which the import is a local
`@font-face` for the same font as Streamlit ships it (SIL Open Font License). The installed
package is never edited; a new version of it gets a new copy.

The copy is made of hard links where the file system allows them (about 10 ms against 0.1 to
0.6 s for copying 11 MB on a server's first page run); the few files rewritten are new files.
"""

from __future__ import annotations

import os
import re
import shutil
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

PACKAGE = "streamlit-code-editor"
FONT_IMPORT = re.compile(r"@import url\('https://fonts\.googleapis\.com/[^']*'\);")
FONT_FILE = "SourceCodeVF-Upright.woff2"
FONT_FACE = (
    "@font-face { font-family: 'Source Code Pro'; font-weight: 200 900;"
    f" src: url('./{FONT_FILE}') format('woff2'); }}"
)
SKIPPED = ("*.map", "*.LICENSE.txt")  # source maps: never fetched, and most of the build's size


def editor_build(components_dir: Path) -> Path:
    """Return the folder of the editor's offline build under components_dir, made if missing."""
    target = components_dir / f"code_editor-{metadata.version(PACKAGE)}"
    if not (target / "index.html").exists():
        _make(target)
    return target


def _make(target: Path) -> None:
    """Copy the build, rewrite its font imports and add the font, then move it into place."""
    source = _installed()
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, ignore=shutil.ignore_patterns(*SKIPPED), copy_function=_link)
    for script in partial.rglob("*.js"):
        text = script.read_text(encoding="utf-8")
        if FONT_IMPORT.search(text):
            script.unlink()  # perhaps a link to the installed file: write a new one in its place
            script.write_text(FONT_IMPORT.sub(FONT_FACE, text), encoding="utf-8")
    shutil.copyfile(_streamlit_font(), partial / FONT_FILE)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def _installed() -> Path:
    """Return the installed package's build folder (found, not imported: its import declares
    a component and cost 0.1 to 0.2 s of a first page run)."""
    return Path(find_spec("code_editor").origin).parent / "frontend" / "build"


def _link(source: str, target: str) -> None:
    """Hard-link target to source, or copy it where a link cannot be made (another file system;
    another user's file, under fs.protected_hardlinks)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _streamlit_font() -> Path:
    """Return the Source Code Pro file that Streamlit serves for its own code blocks."""
    import streamlit

    media = Path(streamlit.__file__).parent / "static" / "static" / "media"
    return next(media.glob("SourceCodeVF-Upright*.woff2"))


def remote_imports(build: Path) -> list[Path]:
    """Return the files of a build that still import anything from the network."""
    return [p for p in build.rglob("*.js") if "@import url('http" in p.read_text("utf-8")]
