"""Exercise 4's training runs: where they train, chosen once by the mode, and the classroom's
training worker.

    >>> from app.training import runs
    >>> checked = runs.start(trainer, code, settings)   # gradients checked, then a run
    >>> runs.current().status()                          # the same protocol in either mode

runs.py is what a page uses: the `Run` protocol (status, stop, wait, position), runs in this
process (the local mode) or on the task queue (the classroom). queue.py keeps a classroom run's
row beside its procrastinate job (tasks.py), the job being the run's state; wire.py turns the
grader's report into fields and a row into what the page draws. The worker, `python -m
app.training` (__main__.py, runner.py), trains queued runs through the grader's one door to a
run (`Trainer.start`, as the local mode does). Only the pages import runs.py (and Streamlit);
the worker imports none of it.
"""

__all__ = ["queue", "runner", "runs", "tasks", "wire"]
