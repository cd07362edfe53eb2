"""The editor's offline copy: no web-font import left, the font beside it, made once."""

from __future__ import annotations

from pathlib import Path

import code_editor

from app.panels import offline

ORIGINAL = Path(code_editor.__file__).parent / "frontend" / "build"


def test_the_installed_editor_imports_a_web_font_and_the_copy_does_not(tmp_path):
    assert offline.remote_imports(ORIGINAL), "the installed build asks a public font server"
    build = offline.editor_build(tmp_path)
    assert offline.remote_imports(build) == []
    assert (build / "index.html").exists() and (build / offline.FONT_FILE).stat().st_size > 0
    patched = [p for p in build.rglob("*.js") if offline.FONT_FACE in p.read_text("utf-8")]
    assert patched, "the import became a local @font-face"
    assert not list(build.rglob("*.map")), "source maps are left out"


def test_the_copy_is_made_once_per_version_of_the_package(tmp_path):
    build = offline.editor_build(tmp_path)
    stamp = (build / "index.html").stat().st_mtime_ns
    assert offline.editor_build(tmp_path) == build
    assert (build / "index.html").stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [build.name], "no partial copy left behind"
