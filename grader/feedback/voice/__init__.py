"""The one voice the learner reads: every sentence, one function per kind of message.

    >>> from grader.feedback import voice
    >>> voice.wrong_shape("dW1", (64, 30), (30, 64))
    '`dW1` has the wrong shape: got (64, 30), expected (30, 64).'

The learner's variable comes first, in backticks; one present-tense sentence; evidence as
"got …, expected …"; an optional second sentence starting "Hint:". Never the reference tensor.
The voice is one vocabulary read in chapters: checks.py (what each check says), hints.py (the
"Hint:" tied to a failed check), diagnoses.py (what the detectors found, a whole pass's root
cause), steps.py (what the detectors beyond the answer's own line found), claims.py (what was
measured where nothing was named), sentences.py (a misconception id said as a hint or a
diagnosis), training.py (Exercise 4), notebook.py (a learner's notebook); words.py writes a
shape.
"""

from __future__ import annotations

from grader.feedback.voice import (
    checks,
    claims,
    diagnoses,
    hints,
    notebook,
    sentences,
    steps,
    training,
)
from grader.feedback.voice.checks import *  # noqa: F403
from grader.feedback.voice.claims import *  # noqa: F403
from grader.feedback.voice.diagnoses import *  # noqa: F403
from grader.feedback.voice.hints import *  # noqa: F403
from grader.feedback.voice.notebook import *  # noqa: F403
from grader.feedback.voice.sentences import *  # noqa: F403
from grader.feedback.voice.steps import *  # noqa: F403
from grader.feedback.voice.training import *  # noqa: F403

__all__ = [
    *checks.__all__,
    *hints.__all__,
    *diagnoses.__all__,
    *steps.__all__,
    *claims.__all__,
    *sentences.__all__,
    *training.__all__,
    *notebook.__all__,
]
