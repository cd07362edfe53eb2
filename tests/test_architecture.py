"""docs/ARCHITECTURE.md's drawing of the rooms is the import graph as the code stands now."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "architecture_diagram.py"


def _script():
    """Import scripts/architecture_diagram.py (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("architecture_diagram", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diagram = _script()


def test_a_room_is_a_first_level_package_or_a_top_level_module():
    assert diagram.room_of("grader.sandbox.training.loop") == "grader.sandbox"
    assert diagram.room_of("app.screens.home") == "app.screens"
    assert diagram.room_of("grader.cli") == "grader.cli"
    assert diagram.room_of("grader") == "grader"


def test_imports_inside_a_room_draw_no_arrow():
    imports = {
        "grader.sandbox.client": {"grader.sandbox.zygote", "grader.result"},
        "app.screens.home": {"app.screens.exercise", "grader.sandbox"},
    }
    assert diagram.room_edges(imports) == {
        ("grader.sandbox", "grader.result"),
        ("app.screens", "grader.sandbox"),
    }


def test_mermaid_puts_each_room_in_its_package_and_draws_each_arrow_once():
    text = diagram.mermaid({"app.main", "grader.cli"}, {("app.main", "grader.cli")})
    assert text.startswith("```mermaid\nflowchart") and text.endswith("\n```")
    assert text.index('grader__cli["grader.cli"]') > text.index("subgraph grader_pkg")
    assert text.count("app__main --> grader__cli") == 1


def test_the_block_between_the_markers_is_replaced_and_nothing_else():
    text = f"before\n{diagram.BEGIN}\nold\n{diagram.END}\nafter\n"
    fresh = f"before\n{diagram.BEGIN}\nnew\n{diagram.END}\nafter\n"
    assert diagram.with_diagram(text, "new") == fresh
    with pytest.raises(ValueError, match="rooms:begin"):
        diagram.with_diagram("no markers", "new")


def test_the_committed_diagram_is_current():
    committed = diagram.DOC.read_text(encoding="utf-8")
    assert diagram.with_diagram(committed, diagram.diagram()) == committed, (
        f"docs/ARCHITECTURE.md's rooms diagram is stale: run `{diagram.REFRESH}` from the "
        "checkout and commit docs/ARCHITECTURE.md"
    )


def test_the_diagram_shows_the_sandbox_and_the_app_reaching_the_grader():
    committed = diagram.DOC.read_text(encoding="utf-8")
    block = committed.split(diagram.BEGIN, 1)[1].split(diagram.END, 1)[0]
    assert '["grader.sandbox"]' in block and '["app.main"]' in block
    arrows = [line.strip() for line in block.splitlines() if "-->" in line]
    assert any(a.startswith("app__") and "--> grader" in a for a in arrows)


def test_check_mode_exits_0_on_the_committed_file():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_architecture_makes_no_claim_the_code_contradicts():
    text = diagram.DOC.read_text(encoding="utf-8")
    for claim in ("only render", "one door"):
        assert claim not in text, f"docs/ARCHITECTURE.md still says {claim!r}"
