"""The app's house, measured (docs/rooms.md): at most six modules at app/'s root, at most 16
rooms and 50 arrows between them (grimp's import graph, imports inside functions included),
every collaborator a function takes typed, the grader's faces imported at the top of a module,
and no object of the store with more than 20 public calls. Print the figures with

    .venv/bin/python tests/app/test_rooms.py
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
MAX_ROOT_FILES, MAX_ROOMS, MAX_ARROWS = 6, 16, 50
MAX_GRADER_IMPORTS_IN_FUNCTIONS = 5
MAX_PUBLIC_CALLS = 20
# The objects a function is handed (its collaborators), by the names the app gives them.
COLLABORATORS = {
    "store", "trainer", "grader", "catalog", "view", "queue", "config", "profile", "settings",
    "report", "reference", "status", "check", "run", "job", "exercise", "engine", "db", "context",
}  # fmt: skip
# Every module whose classes are parts of a store (app/storage's `Part`).
PART_MODULES = ("app.storage", "app.training.queue", "app.classroom.classview")


def root_files() -> list[str]:
    """Return the modules at app/'s root besides its face."""
    return sorted(p.name for p in APP.glob("*.py") if p.name != "__init__.py")


def room_of(module: str) -> str:
    """Return a module's room: app's first-level package or module (`app.screens.home` ->
    `app.screens`)."""
    return ".".join(module.split(".")[:2])


def rooms_and_arrows() -> tuple[set[str], set[tuple[str, str]]]:
    """Return the app's rooms and the arrows between them (A -> B: a module of A imports one
    of B, inside a function or not)."""
    import grimp

    graph = grimp.build_graph("app", cache_dir=None)
    rooms = {room_of(m) for m in graph.modules if m != "app"}
    arrows = {
        (room_of(m), room_of(t))
        for m in graph.modules
        for t in graph.find_modules_directly_imported_by(m)
        if t.startswith("app.") and m != "app" and room_of(m) != room_of(t)
    }
    return rooms, arrows


def _functions(folder: Path) -> list[tuple[Path, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Return every function and method defined under a folder."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((path, node))
    return found


def untyped(names: set[str] | None = None, folder: Path = APP) -> list[str]:
    """Return `file:line function(parameter)` for each parameter without a type (of the given
    names only, if given)."""
    found = []
    for path, node in _functions(folder):
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        for argument in every:
            wanted = names is None or argument.arg in names
            if argument.annotation is None and argument.arg not in ("self", "cls") and wanted:
                where = path.relative_to(folder.parent)
                found.append(f"{where}:{node.lineno} {node.name}({argument.arg})")
    return found


def grader_imports_in_functions(folder: Path = APP) -> list[str]:
    """Return `file:line module` for each import of the grader inside a function."""
    found = []
    for path, node in _functions(folder):
        for inner in ast.walk(node):
            names = []
            if isinstance(inner, ast.ImportFrom) and not inner.level:
                names = [inner.module or ""]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            for name in names:
                if name.split(".")[0] == "grader":
                    found.append(f"{path.relative_to(folder.parent)}:{inner.lineno} {name}")
    return sorted(set(found))


def public_calls() -> dict[str, int]:
    """Return each object of the store (the Store and its parts) -> its public calls."""
    for name in PART_MODULES:
        importlib.import_module(name)
    from app.storage import Part, Store

    parts = [Store, *Part.__subclasses__()]
    return {
        cls.__name__: sum(
            1 for n, value in inspect.getmembers(cls) if not n.startswith("_") and callable(value)
        )
        for cls in parts
    }


def test_the_app_root_holds_at_most_six_modules():
    assert len(root_files()) <= MAX_ROOT_FILES, root_files()


def test_the_app_has_at_most_16_rooms_and_50_arrows():
    rooms, arrows = rooms_and_arrows()
    assert len(rooms) <= MAX_ROOMS, sorted(rooms)
    assert len(arrows) <= MAX_ARROWS, sorted(arrows)
    assert {"app.screens", "app.storage", "app.training"} <= rooms


def test_every_collaborator_a_function_takes_is_typed():
    assert untyped(COLLABORATORS) == []


def test_the_grader_is_imported_at_the_top_of_app_modules():
    found = grader_imports_in_functions()
    assert len(found) <= MAX_GRADER_IMPORTS_IN_FUNCTIONS, found


def test_no_object_of_the_store_has_more_than_20_public_calls():
    calls = public_calls()
    assert {"Store", "Work", "Learners", "Queue", "ClassView"} <= set(calls)
    assert max(calls.values()) <= MAX_PUBLIC_CALLS, calls


def test_the_measures_find_what_they_measure(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "page.py").write_text(
        "import grader\n\n\ndef show(store, view: int, *rest):\n    from grader import feedback\n"
    )
    assert untyped(COLLABORATORS, folder) == ["app/page.py:4 show(store)"]
    assert untyped(None, folder) == ["app/page.py:4 show(store)", "app/page.py:4 show(rest)"]
    assert grader_imports_in_functions(folder) == ["app/page.py:5 grader"]
    assert room_of("app.screens.home") == "app.screens" and room_of("app.nav") == "app.nav"


if __name__ == "__main__":
    rooms, arrows = rooms_and_arrows()
    print(f"modules at app/'s root besides __init__.py: {len(root_files())} {root_files()}")
    print(f"rooms / arrows: {len(rooms)} / {len(arrows)}")
    print(f"untyped collaborator parameters: {len(untyped(COLLABORATORS))}")
    print(f"untyped parameters, any name: {len(untyped())}")
    print(f"grader imports inside functions: {len(grader_imports_in_functions())}")
    print(f"public calls per object of the store: {public_calls()}")
