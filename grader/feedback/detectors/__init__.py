"""The detectors that name the misconception behind a wrong answer, by family: a shape mismatch
(shapes.py), PyTorch's errors (errors.py), a wrong local derivative (derivatives.py), a slip of
indexing with the targets (indexing.py), a wrong formula's structure (formulas.py), the chain
rule's neighbouring lines (chain.py), an embedding lookup's routing (lookups.py), and the
rewrites of the learner's code a remedy is checked with (rewrites.py, brackets.py).

    >>> from grader.feedback import detectors
    >>> detectors.shape_mismatch(torch.zeros(32), torch.zeros(32, 1)).misconception
    'keepdim_lost'

Each detector reads tensors the grading parent already holds (forward values, autograd's
gradients) or the learner's source as a tree; none runs learner code. The grading room declares
the order they are tried in (`DETECTORS` in grader/grading/hints.py).
"""

from __future__ import annotations

from grader.feedback.detectors import (
    brackets,
    chain,
    derivatives,
    errors,
    formulas,
    indexing,
    lookups,
    rewrites,
    shapes,
)
from grader.feedback.detectors.brackets import *  # noqa: F403
from grader.feedback.detectors.chain import *  # noqa: F403
from grader.feedback.detectors.derivatives import *  # noqa: F403
from grader.feedback.detectors.errors import *  # noqa: F403
from grader.feedback.detectors.formulas import *  # noqa: F403
from grader.feedback.detectors.indexing import *  # noqa: F403
from grader.feedback.detectors.lookups import *  # noqa: F403
from grader.feedback.detectors.rewrites import *  # noqa: F403
from grader.feedback.detectors.shapes import *  # noqa: F403

__all__ = [
    *shapes.__all__,
    *errors.__all__,
    *derivatives.__all__,
    *indexing.__all__,
    *formulas.__all__,
    *chain.__all__,
    *lookups.__all__,
    *rewrites.__all__,
    *brackets.__all__,
]
