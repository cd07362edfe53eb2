"""Feedback: the one voice the learner reads, the maths that finds what to say, its renderings.

    >>> from grader.feedback import voice
    >>> voice.wrong_shape("dW1", (64, 30), (30, 64))

voice/ holds every sentence (one function per kind of message, in chapters: checks, hints,
diagnoses, training, notebook); diagnose.py compares tensors (the cmp line, tolerances, where
values differ, constant factors); detectors/ names the misconception a wrong answer shows, by
family (a shape mismatch, PyTorch's errors, wrong local derivatives, indexing slips, a wrong
formula's structure); picture.py draws a wrong gradient's heatmaps as small PNGs; render.py
writes a result as text and checkjson.py as the JSON of docs/check-json.md. Names are imported
on first use.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "GRADER_FAULT": "grader.feedback.voice",
    "Panel": "grader.feedback.picture",
    "cmp_line": "grader.feedback.render",
    "duration": "grader.feedback.voice",
    "heatmap_panels": "grader.feedback.picture",
    "reference_running": "grader.feedback.voice",
    "speed_comparison": "grader.feedback.voice",
    "status": "grader.feedback.checkjson",
    "training_interrupted": "grader.feedback.voice",
    "training_queued": "grader.feedback.voice",
    "training_stopped_queued": "grader.feedback.voice",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.feedback", _HOMES)
