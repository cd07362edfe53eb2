"""Autograd references, one per configuration: trained once in a plain subprocess, kept on disk.

The subprocess runs trusted code only (autograd.py); it is not sandboxed, but it is tied to this
process: it exits when its stdin reaches end of file, and it is killed at exit.

    >>> refs = References(Path("var/training"), lecture_model())
    >>> refs.status(dataset, settings).state     # "running" the first time, later "done"
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
import weakref
from collections import deque
from dataclasses import asdict
from pathlib import Path

from grader.feedback import voice as feedback
from grader.training.autograd import VERSION
from grader.training.model import Model
from grader.training.records import Evaluation, ReferenceStatus, TrainSettings

log = logging.getLogger("grader.training")
ROOT = Path(__file__).resolve().parents[2]
ENV = {"PATH": os.defpath, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_open: weakref.WeakSet[References] = weakref.WeakSet()


class _Job:
    """One reference being trained: its subprocess and the last step it reported."""

    def __init__(self, job_path: Path, out_path: Path):
        command = [sys.executable, "-m", "grader.training.autograd", str(job_path), str(out_path)]
        self.proc = subprocess.Popen(
            command, cwd=ROOT, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        self.job_path, self.step, self.tail = job_path, 0, deque(maxlen=20)
        threading.Thread(target=self._follow, name="reference", daemon=True).start()

    def _follow(self) -> None:
        """Read the subprocess's progress lines until it ends."""
        for line in self.proc.stdout:
            if line.startswith("step "):
                self.step = int(line.split()[1])
            else:
                self.tail.append(line.rstrip())
        self.proc.wait()
        self.job_path.unlink(missing_ok=True)
        if self.proc.returncode:
            log.error("autograd reference failed (%s): %s", self.proc.returncode, list(self.tail))

    def kill(self) -> None:
        """Kill the subprocess (it leads its own process group) and reap it."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()


class References:
    """The autograd reference of every configuration trained on this machine."""

    def __init__(self, cache_dir: Path, model: Model):
        self.dir, self.model = Path(cache_dir), model
        self._jobs: dict[str, _Job] = {}
        self._lock = threading.Lock()
        _open.add(self)

    def key(self, dataset, settings: TrainSettings) -> str:
        """Return the cache key of a configuration: dataset, settings, model and loop version."""
        parts = [VERSION, dataset.fingerprint, asdict(settings), self.model.wire()]
        text = json.dumps(parts, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def status(self, dataset, settings: TrainSettings, start: bool = True) -> ReferenceStatus:
        """Return the reference for a configuration, starting its training if needed."""
        key = self.key(dataset, settings)
        with self._lock:
            done = self._load(key)
            if done is not None:
                return done
            job = self._jobs.get(key)
            if job is None and not start:
                return ReferenceStatus("missing", 0, settings.steps)
            if job is None:
                job = self._jobs[key] = self._start(key, dataset, settings)
        if job.proc.poll() not in (None, 0):
            return ReferenceStatus("failed", job.step, settings.steps, feedback.GRADER_FAULT)
        return ReferenceStatus("running", job.step, settings.steps)

    def _start(self, key: str, dataset, settings: TrainSettings) -> _Job:
        """Write the job file and start the subprocess."""
        self.dir.mkdir(parents=True, exist_ok=True)
        job_path = self.dir / f"{key}.job.json"
        job = {"words": list(dataset.words), "block_size": dataset.block_size}
        job |= {"name": dataset.name, "fingerprint": dataset.fingerprint}
        job |= {"model": self.model.wire()}
        job_path.write_text(json.dumps(job | {"settings": asdict(settings)}), encoding="utf-8")
        return _Job(job_path, self.dir / f"{key}.json")

    def _load(self, key: str) -> ReferenceStatus | None:
        """Return the cached reference, or None if there is none (or it is unreadable)."""
        path = self.dir / f"{key}.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            steps, scores = raw["settings"]["steps"], raw["evaluation"]
            evaluation = Evaluation(**scores | {"samples": tuple(scores["samples"])})
            curve = tuple(raw["curve"])
            return ReferenceStatus("done", steps, steps, "", raw["steps_per_s"], curve, evaluation)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def close(self) -> None:
        """Kill every reference still training."""
        with self._lock:
            jobs, self._jobs = list(self._jobs.values()), {}
        for job in jobs:
            job.kill()


@atexit.register
def _close_all() -> None:
    """Leave no reference training behind when this process exits."""
    for refs in list(_open):
        refs.close()
