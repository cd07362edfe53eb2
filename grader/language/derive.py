"""Derive the forward operations the exercise language can dispatch, by running its vocabulary.

Each example of vocabulary.toml (every attribute name, those a course may add, and what the
syntax and builtins dispatch: operators, indexing, printing) runs here on made-up tensors under
a dispatch mode that records every operation's name; operations.txt keeps them, one line per
example. The worker's dispatch audit lets through exactly these (grader/sandbox/audit.py).

    python -m grader.language.derive            # rewrite operations.txt
    python -m grader.language.derive --check    # exit 1 if it is not current

This runs trusted code (the vocabulary's examples) in the calling process.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from . import declared
from .operations import HEADER, PATH, parse

SHAPES = {"x": (3, 4), "y": (3, 4), "v": (4,), "u": (3,), "w": (4, 5), "a": (2, 3, 4)}
SHAPES |= {"c": (2, 4, 5), "s": ()}


class Recorder(TorchDispatchMode):
    """Remember the qualified name of every operation dispatched (e.g. "aten::mul")."""

    def __init__(self):
        super().__init__()
        self.seen: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.add(func._schema.name)
        return func(*args, **(kwargs or {}))


def samples() -> dict:
    """Return the names the examples use: float tensors, indices, a mask, a size."""
    g = torch.Generator().manual_seed(0)
    found = {k: torch.randn(shape, generator=g) for k, shape in SHAPES.items()}
    found["d"] = torch.randn((3, 4), generator=g, dtype=torch.float64)
    found["i"] = torch.tensor([0, 2, 1])
    found["k"] = torch.randint(0, 4, (3, 4), generator=g)
    found["m"] = found["x"] > 0
    return found | {"n": 3, "torch": torch, "F": F, "math": __import__("math")}


def record(snippet: str) -> tuple[str, ...]:
    """Return the operations one example dispatches, sorted (printing as the worker prints)."""
    code = compile(snippet, "<example>", "exec", dont_inherit=True)
    namespace = samples()
    recorder = Recorder()
    with torch.no_grad(), printing(), contextlib.redirect_stdout(io.StringIO()), recorder:
        exec(code, namespace)
    return tuple(sorted(recorder.seen))


@contextlib.contextmanager
def printing():
    """Format tensors without leaving the dispatch modes, as the worker does (a tensor's repr
    leaves them otherwise, and a worker cannot: grader/sandbox/noautograd.py)."""
    from torch import _tensor_str

    original = _tensor_str._str
    _tensor_str._str = lambda t, *, tensor_contents=None: _tensor_str._str_intern(
        t, tensor_contents=tensor_contents
    )
    try:
        yield
    finally:
        _tensor_str._str = original


def derive() -> dict[str, tuple[str, ...]]:
    """Return each example's label (family.name) -> the operations it dispatches."""
    torch.set_num_threads(1)
    return {
        f"{family}.{name}": record(snippet)
        for family, table in declared.VOCABULARY.items()
        for name, snippet in table.items()
    }


def render(table: dict[str, tuple[str, ...]]) -> str:
    """Return operations.txt's text for a derived table."""
    lines = [f"{label} {' '.join(ops)}".rstrip() for label, ops in table.items()]
    return HEADER + "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite operations.txt, or with --check say whether it is current (exit 1 if not)."""
    text = render(derive())
    if "--check" in argv:
        current = PATH.read_text(encoding="utf-8") == text
        print("operations.txt is current" if current else "operations.txt is out of date")
        return 0 if current else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH.name}: {len(parse(text))} operations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
