"""The layering of docs/ARCHITECTURE.md: grader/ without Streamlit, app/ without maths or torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(folder: str) -> set[str]:
    """Return the top-level module names imported anywhere under a folder."""
    found = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found


def test_importing_the_grader_leaves_streamlit_out():
    code = (
        "import sys, grader, grader.grading.engine, grader.cli, grader.sandbox\n"
        "from grader import Grader\n"
        "assert 'streamlit' not in sys.modules, 'streamlit was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_grader_and_data_never_import_streamlit():
    assert "streamlit" not in _imports("grader")
    assert "streamlit" not in _imports("data")


def test_app_holds_no_maths():
    assert not {"torch", "numpy"} & _imports("app")
