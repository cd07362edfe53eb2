"""Benchmark: what the worst uploads within the caps cost the app's process, and whether the
server keeps answering other learners meanwhile.

For each shape (long cells, many cells, deep nesting, tiny JSON objects, one huge word, many
columns, ...), a fresh process stands in for the app's: it reads the upload as the app does
(grader.notebook.read, data.read_upload) and prints its own peak memory growth, its wall and
CPU time, and the peak memory of the child that did the reading. A spare child is warm, as it is
between two uploads of a live app; the first (cold) read is printed apart. Then, in one process
with the app's sandbox (2 slots), a second learner submits answers one after another while a
first learner uploads every shape in turn: the second learner's p50 / p95, beside the same with
nobody uploading, and beside the uploads read in the process itself (no child), for contrast.
Goal (issue 19): every upload within the caps costs the app's process under 100 MiB and 2 s.

    .venv/bin/python bench/bench_uploads.py [--submissions 40]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_MIB, GOAL_S = 100, 2.0
PROBE = """
import json, resource, sys, time
from pathlib import Path
from data import DatasetError, read_upload
from grader.notebook import NotebookError, read

def peak_kib():
    return int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])

def upload(kind, raw, name):
    try:
        read(raw, name) if kind == "notebook" else read_upload(raw, name, None)
        return "read"
    except (NotebookError, DatasetError) as err:
        return "refused: " + str(err)

kind, path, name = sys.argv[1:]
raw = Path(path).read_bytes()
upload(kind, raw, name)  # cold: no spare child yet; this read leaves one
cold_use = resource.getrusage(resource.RUSAGE_CHILDREN)
cold, cold_cpu = cold_use.ru_maxrss, cold_use.ru_utime + cold_use.ru_stime
time.sleep(3)  # a learner's pause: the spare child has imported what it needs
Path("/proc/self/clear_refs").write_text("5")
before, cpu, wall = peak_kib(), time.process_time(), time.perf_counter()
outcome = upload(kind, raw, name)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"grown": peak_kib() - before, "wall": wall, "cpu": cpu,
                  "child": max(cold, used.ru_maxrss), "outcome": outcome,
                  "child_cpu": used.ru_utime + used.ru_stime - cold_cpu}))
"""


def code(source) -> dict:
    fields = {"metadata": {}, "execution_count": None, "outputs": [], "source": source}
    return {"cell_type": "code", **fields}


def notebook(cells: list, metadata: bytes = b"{}") -> bytes:
    """Return an nbformat 4 notebook with these cells and raw JSON metadata."""
    body = json.dumps({"nbformat": 4, "nbformat_minor": 4, "cells": cells}).encode()
    return body[:-1] + b', "metadata": ' + metadata + b"}"


def lecture(**answers) -> bytes:
    """Return the lecture's notebook (the tests' fixture), every exercise written."""
    import nbformat

    path = ROOT / "tests" / "grader" / "fixtures" / "lecture_notebook.py"
    spec = importlib.util.spec_from_file_location("lecture_notebook", path)  # tests: not installed
    lecture_notebook = sys.modules["lecture_notebook"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lecture_notebook)
    return nbformat.writes(lecture_notebook.build(**answers)).encode()


def tiny_objects() -> bytes:
    """Return 8 MiB of empty JSON objects in a notebook's metadata."""
    count = ((8 << 20) - 200) // 3
    return notebook([], b'{"a": [' + b",".join([b"{}"] * count) + b"]}")


def words(width: int, count: int) -> bytes:
    """Return `count` distinct words of `width` letters, one a line."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    made = ("".join(letters[(i // 26**k) % 26] for k in range(width)) for i in range(count))
    return "\n".join(made).encode()


def shapes() -> list[tuple[str, str, str, bytes]]:
    """Return (label, kind, file name, bytes): the worst shapes within the caps, and beyond."""
    nb = "my.ipynb"
    return [
        ("lecture notebook (honest)", "notebook", nb, lecture()),
        ("long cell: 99,000 chars", "notebook", nb, lecture(exercise2="x = 1\n" * 16_500)),
        ("many cells: 500 x 1,990 chars", "notebook", nb, notebook([code("x=1\n" * 497)] * 500)),
        ("deep nesting: 64 levels", "notebook", nb, notebook([], b'{"a": ' + _nested(62) + b"}")),
        ("tiny objects: 8 MiB of {}", "notebook", nb, tiny_objects()),
        ("one 8 MiB markdown cell", "notebook", nb, notebook([_markdown((8 << 20) - 300)])),
        ("deep nesting: 100,000 (refused)", "notebook", nb, _nested(100_000)),
        ("long cell: 3 MB (refused)", "notebook", nb, notebook([code("x = 1\n" * 500_000)])),
        ("words: 2 MB of 100-char words", "words", "w.txt", words(100, 19_800)),
        ("words: 2 MB of 3-letter words", "words", "w.txt", words(4, 399_000)),
        ("one enormous word (refused)", "words", "w.txt", b"ann\n" * 9 + b"x" * 1_990_000),
        ("many columns: 2 MB header", "words", "w.csv", _columns()),
    ]


def _nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def _markdown(size: int) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": "x" * size}


def _columns() -> bytes:
    header = b",".join(b"c%d" % i for i in range(240_000))[:1_990_000]
    rows = b"".join(b"%s,1\n" % w for w in words(4, 50).split())
    return header.rsplit(b",", 1)[0] + b"\n" + rows


def probe(kind: str, name: str, raw: bytes) -> dict:
    """Read one upload in a fresh process standing in for the app's; return its figures."""
    with tempfile.NamedTemporaryFile() as file:
        file.write(raw)
        file.flush()
        command = [sys.executable, "-c", PROBE, kind, file.name, name]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def costs(table: list) -> None:
    """Print each shape's cost to the app's process and to its child, beside the goal."""
    print(f"{'upload':<34} {'size':>9} {'app +MiB':>8} {'app s':>6} {'app cpu':>7} "
          f"{'child MiB':>9} {'child cpu':>9}  outcome")  # fmt: skip
    worst_mib = worst_s = worst_cpu = 0.0
    for label, kind, name, raw in table:
        got = probe(kind, name, raw)
        grown, child = got["grown"] / 1024, got["child"] / 1024
        worst_mib, worst_s = max(worst_mib, grown), max(worst_s, got["wall"])
        worst_cpu = max(worst_cpu, got["cpu"])
        print(
            f"{label:<34} {len(raw) / 2**20:7.2f} M {grown:8.1f} {got['wall']:6.2f} "
            f"{got['cpu']:7.2f} {child:9.0f} {got['child_cpu']:9.2f}  {got['outcome'][:60]}"
        )
    memory = "met" if worst_mib < GOAL_MIB else "NOT met"
    wall = "met" if worst_s < GOAL_S else "NOT met"
    print(f"worst: app's process +{worst_mib:.1f} MiB (goal < {GOAL_MIB} MiB: {memory}), "
          f"{worst_cpu:.2f} s of its CPU; learner's wait {worst_s:.2f} s "
          f"(goal < {GOAL_S:g} s: {wall})")  # fmt: skip


def second_learner(table: list, submissions: int) -> None:
    """Print a second learner's latency: quiet, beside child uploads, beside in-process ones."""
    from bench_load import figures

    import data
    from grader import Grader, notebook
    from grader.notebook import cells
    from grader.sandbox import Sandbox

    grader = Grader(data.default_dataset(), sandbox=Sandbox())
    answer = grader.catalog.get("dh").solution()
    grader.grade("dh", answer)  # warm: the reference and the workers

    def in_child(kind, name, raw):
        return notebook.read(raw, name) if kind == "notebook" else data.read_upload(raw, name)

    def in_process(kind, name, raw):
        if kind == "notebook":
            return cells.read(raw, name)
        return data.preview(data.load_words(raw, filename=name).words)

    for title, reader in (("nobody uploading", None), ("uploads read in a child", in_child),
                          ("uploads read in the process (contrast)", in_process)):  # fmt: skip
        times, uploads = _during(grader, answer, table, reader, submissions)
        print(f"second learner, {title} ({uploads} uploads): {figures(times)}")


def _during(grader, answer, table, reader, submissions) -> tuple[list[float], int]:
    """Time `submissions` gradings while another thread uploads every shape in turn."""
    stop, count = threading.Event(), [0]

    def uploader():
        while not stop.is_set():
            for _, kind, name, raw in table:
                if stop.is_set():
                    return
                with contextlib.suppress(Exception):  # a refusal, as the app shows it
                    reader(kind, name, raw)
                count[0] += 1

    thread = threading.Thread(target=uploader) if reader else None
    if thread:
        thread.start()
    times = []
    for _ in range(submissions):
        start = time.perf_counter()
        grader.grade("dh", answer)
        times.append(time.perf_counter() - start)
    stop.set()
    if thread:
        thread.join()
    return times, count[0]


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=40)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    table = shapes()
    costs(table)
    second_learner(table, args.submissions)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
