"""The proofs of `validate`, run where exercises are served, and remembered by file content.

An exercise is served only if its solution passes, its starter and an all-zeros answer fail and
each listed mistake is caught with its message (grader/proving/prover.py). Proving all of them costs
seconds of sandbox time, so each result is kept in a JSON file under a key made of the bytes of
the scenario file, the exercise file and its solution: an unchanged exercise is proven once.

    >>> proofs = Proofs(catalog, grader, Path("var/cache/proofs.json"))
    >>> proofs.run()                       # in a thread: results fill in as they come
    >>> proofs.failed()                    # {exercise id: [Finding, ...]} of those that failed
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path

from grader.proving.prover import Finding, prove

log = logging.getLogger("grader")
VERSION = "1"  # change when what a proof checks changes: every cached proof is redone


def proof_key(exercise) -> str:
    """Return the content key of an exercise: its scenario, its file, its solution."""
    digest = hashlib.sha256(VERSION.encode())
    for path in (exercise.scenario.path, exercise.path, exercise.solution_path):
        digest.update(path.read_bytes() if path.exists() else b"(missing)")
        digest.update(b"\0")
    return digest.hexdigest()[:32]


class Proofs:
    """Prove a catalog's exercises once per content, remembering the outcome on disk."""

    def __init__(self, catalog, grader, cache: Path):
        self.catalog, self.grader, self.cache = catalog, grader, cache
        self._results: dict[str, list[Finding]] = {}
        self._lock = threading.Lock()
        self.done = threading.Event()

    def run(self) -> None:
        """Prove every exercise not proven before with the same content; never raises."""
        known = self._load()
        try:
            for exercise in self.catalog.exercises:
                key = proof_key(exercise)
                if key not in known:
                    known[key] = [f.__dict__ for f in prove(exercise, self.grader)]
                    self._save(known)
                with self._lock:
                    self._results[exercise.id] = [Finding(**f) for f in known[key]]
        except Exception:  # a proof that cannot run proves nothing; the exercise stays served
            log.exception("proving the exercises failed")
        finally:
            self.done.set()

    def recall(self) -> None:
        """Take the remembered outcome of every unchanged exercise now, proving nothing, so that
        a page drawn before `run` has started already serves them."""
        known = self._load()
        found = {e.id: known.get(proof_key(e)) for e in self.catalog.exercises}
        with self._lock:
            for exercise_id, findings in found.items():
                if findings is not None:
                    self._results[exercise_id] = [Finding(**f) for f in findings]

    def failed(self) -> dict[str, list[Finding]]:
        """Return the exercises proven wrong so far, with what is wrong."""
        with self._lock:
            return {k: v for k, v in self._results.items() if v}

    def proven(self) -> set[str]:
        """Return the ids of the exercises proven so far, right or wrong."""
        with self._lock:
            return set(self._results)

    def _load(self) -> dict:
        """Read the remembered proofs (a damaged file is forgotten)."""
        try:
            loaded = json.loads(self.cache.read_text(encoding="utf-8"))
            return loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save(self, known: dict) -> None:
        """Write the remembered proofs atomically."""
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        # One name per process and thread: an edit while proving starts a second prover.
        partial = self.cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        partial.write_text(json.dumps(known), encoding="utf-8")
        os.replace(partial, self.cache)


def prove_all(cache: Path, folder: Path | None = None) -> None:
    """Prove every exercise of a course folder into `cache`, as a finished first start would.

    For the browser tests and the app benchmark, which open exercises at once.
    `python -m grader.proving.proofs CACHE [FOLDER]` runs it in a process of its own.
    """
    from data import default_dataset
    from grader import Grader
    from grader.course import discover
    from grader.proving.scenarios import runnable

    catalog = runnable(discover(folder) if folder else discover())
    Proofs(catalog, Grader(default_dataset(), catalog), cache).run()


if __name__ == "__main__":
    import sys

    prove_all(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
