"""The layering of docs/rooms.md: grader/ without Streamlit, app/ without maths or torch, the
rooms in the order pyproject.toml's import-linter contracts declare, with no import cycle."""

from __future__ import annotations

import ast
import importlib.util
import logging
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


# The rooms of docs/rooms.md: each a package whose face (`__init__.py`) declares `__all__`.
ROOMS = (
    "cli",
    "gradebook",
    "proving",
    "notebook",
    "training",
    "grading",
    "feedback",
    "course",
    "sandbox",
    "language",
)
MAX_ROOT_FILES = 6
MAX_APP_DOORS = 7  # the 7th: grader.gradebook, whose book the instructor dashboard writes


def test_import_linter_contracts_hold(monkeypatch):
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    loggers = logging.root.manager.loggerDict.values()
    enabled = [g for g in loggers if isinstance(g, logging.Logger) and not g.disabled]
    try:
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    finally:  # its logging.config.dictConfig disables every logger that existed: not for the
        for logger in enabled:  # tests that run after this one in the same process
            logger.disabled = False
    assert code == 0, "lint-imports found a broken contract (run `lint-imports` to see which)"


def _graph():
    """Return grimp's import graph of grader/ and app/ (imports inside functions included), with
    the lazy faces' names (`_HOMES`, imported on first use) as imports of their homes."""
    import grimp

    graph = grimp.build_graph("grader", "app", cache_dir=None)
    for face in ("grader", *(f"grader.{room}" for room in ROOMS)):
        module = sys.modules.get(face) or __import__(face, fromlist=["_HOMES"])
        for home in set(getattr(module, "_HOMES", {}).values()):
            if home != face:
                graph.add_import(importer=face, imported=home)
    return graph


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected groups of more than one node (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1 or node in edges.get(node, ()):
                found.append(sorted(group))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def _room(module: str) -> str:
    """Return the room a module lives in (its first two names), or the module at grader's root."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "grader" and len(parts) > 2 else module


def test_no_import_cycle_between_modules_even_inside_functions():
    graph = _graph()
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    assert _cycles(edges) == []


def test_no_import_cycle_between_rooms():
    graph = _graph()
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if _room(module) != _room(imported):
                edges.setdefault(_room(module), set()).add(_room(imported))
    assert _cycles(edges) == []


def test_the_grader_root_holds_only_its_face_and_shared_words():
    loose = sorted(p.name for p in (ROOT / "grader").glob("*.py"))
    assert len(loose) <= MAX_ROOT_FILES, loose


def test_every_room_has_a_face_with_a_small_all():
    for room in ROOMS:
        face = __import__(f"grader.{room}", fromlist=["__all__"])
        assert 0 < len(face.__all__) <= 25, room


def _app_doors(type_only: bool = False) -> set[str]:
    """Return every grader module that app/ imports (a name imported from a package counts as
    that package unless it is one of its modules): at run time, or (type_only) in the
    `if TYPE_CHECKING:` blocks that name types for annotations only."""
    doors = set()
    for path in (ROOT / "app").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        blocks = [n for n in tree.body if isinstance(n, ast.If) and _type_checking(n)]
        for node in ast.walk(ast.Module(blocks, []) if type_only else _without(tree, blocks)):
            if isinstance(node, ast.Import):
                doors.update(a.name for a in node.names if a.name.split(".")[0] == "grader")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "grader":
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    is_module = _package(node.module) and importlib.util.find_spec(sub) is not None
                    doors.add(sub if is_module else node.module)
    return doors


def _type_checking(node: ast.If) -> bool:
    """Return whether a top-level `if` is `if TYPE_CHECKING:`."""
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _without(tree: ast.Module, blocks: list[ast.stmt]) -> ast.Module:
    """Return the module without some of its top-level statements."""
    return ast.Module([n for n in tree.body if n not in blocks], [])


def _package(name: str) -> bool:
    """Return whether a module name is a package (a folder with a face)."""
    return (ROOT / Path(*name.split(".")) / "__init__.py").is_file()


def test_the_app_comes_in_through_at_most_six_faces():
    doors = _app_doors()
    assert len(doors) <= MAX_APP_DOORS, sorted(doors)
    assert all(_package(door) for door in doors), sorted(d for d in doors if not _package(d))


def test_bench_and_scripts_leave_the_import_path_alone():
    """The project is installed (editable): nothing in bench/ or scripts/ edits `sys.path`."""
    edits = []
    for path in [*(ROOT / "bench").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.path":
                edits.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not edits, edits


def test_types_named_for_annotations_come_from_faces_or_the_shared_words():
    doors = _app_doors(type_only=True)
    assert doors, "the app names grader types in its annotations"
    assert all(_package(door) or door == "grader.result" for door in doors), sorted(doors)
