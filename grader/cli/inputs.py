"""Check what the command line is given before anything heavy loads (no torch, no dataset).

The answer file (or notebook), the exercise id, the scenario and the --data path are each checked
here; a refusal is a BadInput whose message is one line (the CLI prints it as `error: ...`, exit
2).

    >>> code = read_answer(Path("answer.py"))  # or BadInput("answer.py: no such file")
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from grader.course import BadInput
from grader.gradebook import MAX_ANSWER_BYTES, answer_text


def exercise(catalog, wanted: str):
    """Return the exercise `wanted`, or refuse with the closest ids."""
    ids = [e.id for e in catalog.exercises]
    if wanted in ids:
        return catalog.get(wanted)
    close = difflib.get_close_matches(wanted, ids, n=3)
    maybe = f"; did you mean {', '.join(close)}?" if close else ""
    raise BadInput(f"no exercise `{wanted}`{maybe} (`python -m grader list` shows them all)")


def scenario(catalog, wanted: str | None):
    """Return the scenario whose whole pass to grade: `wanted` (slug, with or without NN_)."""
    passes = [s for s in catalog.scenarios if s.whole_pass]
    known = ", ".join(s.slug for s in passes) or "none"
    if wanted is None:
        if not passes:
            raise BadInput("no scenario has a whole pass; give --exercise")
        return passes[0]
    found = [s for s in catalog.scenarios if wanted in (s.slug, s.slug.split("_", 1)[-1])]
    if not found:
        raise BadInput(f"no scenario `{wanted}`; known: {known}")
    if not found[0].whole_pass:
        raise BadInput(f"scenario `{found[0].slug}` has no whole pass; these have one: {known}")
    return found[0]


def course_folder(folder: Path | None) -> tuple[Path, ...]:
    """Return discover()'s arguments for an --exercises folder: none for the project's own."""
    if folder is None:
        return ()
    if not any(folder.glob("*/scenario.toml")):
        raise BadInput(f"{folder} is not an exercises folder (no NN_slug/scenario.toml in it)")
    return (folder,)


def data_path(source: str | None) -> None:
    """Refuse a --data word-list path that does not exist or is a directory."""
    if source in (None, "default", "names"):
        return
    path = Path(source)
    if not path.exists():
        raise BadInput(f"--data {source}: no such file (give default, names or a word list)")
    if path.is_dir():
        raise BadInput(f"--data {source} is a directory; give a word-list file (txt or csv)")


def read_answer(path: Path) -> str:
    """Return the learner's code from a file or stdin; refuse what is not a text file."""
    if str(path) == "-":
        return answer_text(sys.stdin.buffer.read(MAX_ANSWER_BYTES + 1), "standard input")
    return answer_text(_read(path, MAX_ANSWER_BYTES + 1, ".py"), str(path))


def is_notebook(path: Path) -> bool:
    """Return whether the answer is a Jupyter notebook (by its name: `.ipynb`)."""
    return path.suffix.lower() == ".ipynb"


def read_notebook(path: Path):
    """Return the lecture's exercises found in a notebook; refuse one that cannot be graded.

    Only nbformat loads here (no torch): a malformed notebook, one that is not the lecture's,
    or one with nothing written yet is refused at once.
    """
    from grader import notebook

    raw = _read(path, notebook.MAX_NOTEBOOK_BYTES + 1, ".ipynb")
    try:
        return notebook.read(raw, path.name)
    except notebook.NotebookError as err:
        raise BadInput(str(err)) from None


def _read(path: Path, limit: int, kind: str) -> bytes:
    """Return up to `limit` bytes of a file; refuse a directory or a file that is not there."""
    if path.is_dir():
        raise BadInput(f"{path} is a directory; give the {kind} file that holds your answer")
    try:
        with path.open("rb") as f:
            return f.read(limit)
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except OSError as err:
        raise BadInput(f"cannot read {path}: {err.strerror or err}") from None


def exercises_path(path: Path | None) -> Path | None:
    """Return what `validate` should prove: an exercises folder, a scenario folder or one file.

    A scenario.toml stands for its folder. Refuse a path that does not exist, a file that is not
    an exercise file beside a scenario.toml, and a folder that holds no scenario at all.
    """
    if path is None:
        return None
    if not path.exists():
        raise BadInput(f"{path}: no such file or folder")
    if path.is_file():
        if path.suffix != ".toml":
            raise BadInput(f"{path} is not an exercise file (.toml) or a folder")
        if not (path.parent / "scenario.toml").is_file():
            raise BadInput(f"{path} is not in a scenario folder (one with a scenario.toml)")
        return path.parent if path.name == "scenario.toml" else path
    if not (path / "scenario.toml").is_file() and not any(path.glob("*/scenario.toml")):
        raise BadInput(f"{path} holds no scenario.toml, nor do its folders; nothing to validate")
    return path
