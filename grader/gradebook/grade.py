"""Grade a class's items, in parallel on the sandbox's slots, into the gradebook's rows; a
file that cannot be read is refused, never the grader's fault."""

from __future__ import annotations

import hashlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace

from grader.course import BadInput
from grader.feedback import voice as feedback
from grader.gradebook.book import AUTOGRAD, NO_AUTOGRAD, WHOLE_PASS, Graded
from grader.gradebook.collect import Item, read_item
from grader.result import BUSY, GRADER_FAILED

BUSY_RETRIES = 20


def grade_all(grader, items: list[Item], slots: int, progress=None) -> list[Graded]:
    """Grade every item, `slots` at a time; call progress(done, total) after each."""
    done, lock = [0], threading.Lock()

    def one(item: Item) -> Graded:
        row = grade_one(grader, item)
        with lock:
            done[0] += 1
            if progress:
                progress(done[0], len(items))
        return row

    with ThreadPoolExecutor(max_workers=max(1, slots)) as pool:
        return list(pool.map(one, items))


def grade_one(grader, item: Item) -> Graded:
    """Grade one item; a file that cannot be read is refused, never the grader's fault."""
    label = item.target if item.kind == "exercise" else f"{WHOLE_PASS}:{item.target}"
    version = grader.catalog.get(item.target).version if item.kind == "exercise" else ""
    when = {"submitted_at": item.submitted, "time_from": item.time_from}
    try:
        code = read_item(item)
    except BadInput as err:
        why = str(err)
        row = Graded(item.learner, label, item.kind, False, "refused", why, str(item.file), version)
        return replace(row, **when)
    result, summary = _graded(grader, item, code)
    status = GRADER_FAILED if result.status == BUSY else result.status  # never graded, then
    file = str(item.file)
    flag = AUTOGRAD if result.failed_check == NO_AUTOGRAD else ""
    row = Graded(item.learner, label, item.kind, result.solved, status, summary, file, version)
    tally = asdict(result.tally)
    return replace(row, integrity=flag, answer=digest(code), **when, **tally)


def _graded(grader, item: Item, code: str):
    """Grade an item's code, waiting for a slot while the sandbox is busy; return the result
    and its one line of feedback."""
    for _ in range(BUSY_RETRIES):
        if item.kind == "exercise":
            result = grader.grade(item.target, code)
            solved = result.solved and not result.busy
            summary = feedback.batch_solved(item.target) if solved else result.summary_with_hint()
        else:
            result = grader.grade_pass(code, item.target)
            summary = result.message
        if not result.busy:
            break
        time.sleep(0.2)
    return result, summary


def digest(code: str) -> str:
    """Return a short digest of an answer's code: the same answer graded again has the same."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()[:12]
