"""Draw the rooms of grader/ and app/ from their import graph, as a Mermaid diagram.

    .venv/bin/python scripts/architecture_diagram.py           # rewrite docs/ARCHITECTURE.md's
    .venv/bin/python scripts/architecture_diagram.py --check   # exit 1 if the drawing is stale

A room is a first-level subpackage of `grader` or `app` (`grader.sandbox`, `app.screens`); a
module at a package's top level is a room of its own, and the package's `__init__.py` is drawn as
the package's name. An arrow A --> B says that some module of A imports some module of B,
imports inside functions included (grimp reads every import statement). The drawing goes
between the two marker lines in docs/ARCHITECTURE.md; nothing else in the file changes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("grader", "app")
BEGIN = "<!-- rooms:begin (scripts/architecture_diagram.py writes this block) -->"
END = "<!-- rooms:end -->"
REFRESH = ".venv/bin/python scripts/architecture_diagram.py"


def room_of(module: str) -> str:
    """Return the room a module belongs to: its package and first-level name.

    >>> room_of("grader.sandbox.training.loop"), room_of("app"), room_of("grader.cli")
    ('grader.sandbox', 'app', 'grader.cli')
    """
    return ".".join(module.split(".")[:2])


def room_edges(imports: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Return (importer room, imported room) for every import between two different rooms.

    >>> sorted(room_edges({"app.main": {"app.screens.home", "grader.cli"}}))
    [('app.main', 'app.screens'), ('app.main', 'grader.cli')]
    """
    edges = set()
    for importer, imported in imports.items():
        for target in imported:
            edge = (room_of(importer), room_of(target))
            if edge[0] != edge[1]:
                edges.add(edge)
    return edges


def import_graph() -> dict[str, set[str]]:
    """Return each module of PACKAGES -> the modules of PACKAGES it imports (grimp's graph)."""
    import grimp

    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    return {
        module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }


def mermaid(rooms: set[str], edges: set[tuple[str, str]]) -> str:
    """Return a Mermaid flowchart: one subgraph per package, its rooms sorted, then the arrows."""
    lines = ["```mermaid", "flowchart LR"]
    for package in PACKAGES:
        lines.append(f"  subgraph {package}_pkg [{package}/]")
        for room in sorted(r for r in rooms if r.split(".")[0] == package):
            lines.append(f'    {_node(room)}["{room}"]')
        lines.append("  end")
    lines += [f"  {_node(a)} --> {_node(b)}" for a, b in sorted(edges)]
    lines.append("```")
    return "\n".join(lines)


def _node(room: str) -> str:
    """Return a Mermaid node id for a room (dots are not allowed in ids)."""
    return room.replace(".", "__")


def diagram() -> str:
    """Return the Mermaid block drawn from the import graph as the code stands now."""
    imports = import_graph()
    rooms = {room_of(module) for module in imports}
    return mermaid(rooms, room_edges(imports))


def with_diagram(text: str, block: str) -> str:
    """Return text with the lines between BEGIN and END replaced by block."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{DOC.name} has no lines {BEGIN!r} and {END!r} to draw between")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the diagram in DOC, or with --check say whether it is current (exit 1 if not)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the diagram is stale")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    fresh = with_diagram(text, diagram())
    if args.check:
        if fresh != text:
            print(f"{DOC} is stale: run `{REFRESH}`", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
