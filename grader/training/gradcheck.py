"""Exercise 4's gradient check, as the lecture's early `break`: seven gradients against autograd.

The loop's first step (the same parameters and batch the training run starts from) runs here
with autograd; the learner's section runs once in the sandbox on detached copies of its values.
The comparison happens here, in the trusted process, one cmp line per parameter.
"""

from __future__ import annotations

import torch

from grader import feedback, rules
from grader.checks import gradient_row
from grader.result import FAIL, GradRow
from grader.sandbox import Case, RunOutcome, Sandbox
from grader.sandbox.training import GRADS, PARAMS, Program, prepare, scalars
from grader.training.records import GradCheck
from grader.training.section import unfinished

BACKWARD_ORDER = ("W2", "b2", "bngain", "bnbias", "W1", "b1", "C")
NOT_SENT = ("Xtr", "Ytr")  # the section needs the batch, not the whole training set


def first_step(program: Program, settings: dict, Xtr, Ytr) -> tuple[dict, dict]:
    """Run the loop's first step with autograd; return its tensors and the seven gradients."""
    ns = prepare(program, settings, Xtr, Ytr)
    with torch.enable_grad():
        for name in PARAMS:
            ns[name].requires_grad_(True)
        exec(program.step_code, ns)
        ns["loss"].backward()
    values = {
        k: v.detach().clone()
        for k, v in ns.items()
        if isinstance(v, torch.Tensor) and k not in NOT_SENT
    }
    return values, {f"d{name}": ns[name].grad.detach().clone() for name in PARAMS}


def check(code: str, program: Program, settings: dict, Xtr, Ytr, sandbox: Sandbox) -> GradCheck:
    """Grade the learner's section on the first step; training may start only if it passes."""
    tree = rules.parse(code)
    if isinstance(tree, rules.Problem):
        return _refused(feedback.syntax_error(tree.what, tree.line, tree.column))
    problem = rules.autograd_use(tree)
    if problem:
        return _refused(feedback.uses_autograd(problem.what, problem.line, problem.dynamic))
    missing = unfinished(tree)
    if missing:
        return _refused(feedback.unfinished(missing))
    values, expected = first_step(program, settings, Xtr, Ytr)
    case = Case("check", values, scalars(settings), GRADS)
    outcome = sandbox.run(code, [case])
    return judge(outcome, expected, settings["n"])


def _refused(message: str) -> GradCheck:
    """Return a check that failed before running the code."""
    return GradCheck(False, (), None, message)


def judge(outcome: RunOutcome, expected: dict, n: int) -> GradCheck:
    """Compare the returned gradients with autograd's; name the first wrong one, backward."""
    stdout = "".join(c.stdout for c in outcome.cases)
    if outcome.status != "ok":
        return GradCheck(False, (), None, outcome.message, stdout=stdout)
    case = outcome.cases[0]
    if case.error is not None:
        err = case.error
        return GradCheck(False, (), None, feedback.raised(err.type, err.line), err, stdout)
    rows = tuple(_row(name, case.returned.get(name), expected[name], n) for name in GRADS)
    wrong = {r.name for r in rows if r.status == FAIL}
    root = next((f"d{p}" for p in BACKWARD_ORDER if f"d{p}" in wrong), None)
    message = feedback.training_check_root(root) if root else feedback.training_check_passed()
    return GradCheck(root is None, rows, root, message, stdout=stdout)


def _row(name: str, returned, expected: torch.Tensor, n: int) -> GradRow:
    """Compare one gradient with autograd's, the lecture's cmp line named by its shape."""
    shape = tuple(expected.shape)
    return gradient_row(name, returned, expected, label=str(shape), shape=shape, n=n)
