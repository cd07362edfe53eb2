"""Grade a class's items, in parallel on the sandbox's slots, into the gradebook's rows; a
file that cannot be read is refused, never the grader's fault."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

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
    try:
        code = read_item(item)
    except BadInput as err:
        why = str(err)
        return Graded(
            item.learner, label, item.kind, False, "refused", why, str(item.file), version
        )
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
    status = GRADER_FAILED if result.status == BUSY else result.status  # never graded, then
    file = str(item.file)
    flag = AUTOGRAD if result.failed_check == NO_AUTOGRAD else ""
    row = Graded(item.learner, label, item.kind, result.solved, status, summary, file, version)
    return replace(row, integrity=flag, late=_late(grader.catalog.course.deadline_of(label), item))


def _late(deadline, item: Item) -> bool:
    """Return whether the file was modified after its item's deadline (none: never late)."""
    return deadline is not None and item.mtime > deadline.timestamp()
