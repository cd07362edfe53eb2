"""The editor's offline copy: no web-font import left, the font beside it, made once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import code_editor

from app.panels import offline

ROOT = Path(__file__).resolve().parents[3]
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


def _installed_copy(tmp_path: Path, monkeypatch) -> Path:
    """Stand a copy of the installed build in for it, so that a failing test edits no package."""
    installed = tmp_path / "installed"
    shutil.copytree(ORIGINAL, installed, ignore=shutil.ignore_patterns(*offline.SKIPPED))
    monkeypatch.setattr(offline, "_installed", lambda: installed)
    return installed


def test_the_copy_links_the_files_it_keeps_and_leaves_the_installed_ones_as_they_were(
    tmp_path, monkeypatch
):
    installed = _installed_copy(tmp_path, monkeypatch)
    before = {p: p.read_bytes() for p in offline.remote_imports(installed)}
    build = offline.editor_build(tmp_path / "components")
    assert {p: p.read_bytes() for p in offline.remote_imports(installed)} == before
    kept = installed / "index.html"
    assert (build / "index.html").stat().st_ino == kept.stat().st_ino, "a link, not a copy"
    for script in before:
        rewritten = build / script.relative_to(installed)
        assert rewritten.stat().st_ino != script.stat().st_ino


def test_the_copy_is_whole_where_no_link_can_be_made(tmp_path, monkeypatch):
    installed = _installed_copy(tmp_path, monkeypatch)

    def refused(source, target):
        raise PermissionError(1, "Operation not permitted", source)

    monkeypatch.setattr(os, "link", refused)
    build = offline.editor_build(tmp_path / "components")
    kept = sorted(p.relative_to(installed) for p in installed.rglob("*") if p.is_file())
    made = sorted(p.relative_to(build) for p in build.rglob("*") if p.is_file())
    assert made == sorted([*kept, Path(offline.FONT_FILE)])
    assert offline.remote_imports(build) == []
    assert (build / "index.html").read_bytes() == (installed / "index.html").read_bytes()


def test_the_copy_is_made_without_importing_the_editor_package(tmp_path):
    probe = (
        "import sys; from pathlib import Path; from app.panels import offline;"
        f"offline.editor_build(Path({str(tmp_path)!r})); print('code_editor' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["False"], done.stderr[-2000:]
