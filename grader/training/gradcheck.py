"""Exercise 4's gradient check, as the lecture's early `break`: seven gradients against autograd.

A first step of the loop (the parameters the training run starts from, on a batch drawn afresh
for each submission: see `drawn_step`) runs here with autograd; the learner's section runs once
in the sandbox on detached copies of its values. The comparison happens here, in the trusted
process, one cmp line per parameter.
"""

from __future__ import annotations

import secrets
from dataclasses import replace

import torch

from grader.feedback import diagnose
from grader.feedback import voice as feedback
from grader.grading import GRADCHECK, LECTURE, Source, Subject, checks, pipeline
from grader.grading.hints import Clues
from grader.language import LANGUAGE
from grader.result import FAIL, Check, GradRow, facts_of
from grader.sandbox import Case, RunOutcome, Sandbox
from grader.sandbox.training import Program, prepare, scalars
from grader.training.records import GradCheck
from grader.training.section import unfinished

BACKWARD_ORDER = ("W2", "b2", "bngain", "bnbias", "W1", "b1", "C")
NOT_SENT = ("Xtr", "Ytr")  # the section needs the batch, not the whole training set
POOLED = 8  # a smaller batch is drawn from the whole training set (a pool of 2 could repeat
# one example n times: a batch without variance)


def first_step(
    program: Program, settings: dict, Xtr, Ytr, batch: torch.Generator | None = None
) -> tuple[dict, dict]:
    """Run the loop's first step with autograd; return its tensors and the parameters' gradients
    (`batch`, if given, draws the minibatch in place of the loop's own generator)."""
    ns = prepare(program, settings, Xtr, Ytr)
    if batch is not None:
        ns["g"] = batch
    with torch.enable_grad():
        for name in program.params:
            ns[name].requires_grad_(True)
        exec(program.step_code, ns)
        ns["loss"].backward()
    values = {
        k: v.detach().clone()
        for k, v in ns.items()
        if isinstance(v, torch.Tensor) and k not in NOT_SENT
    }
    grads = (ns[name].grad.detach().clone() for name in program.params)
    return values, dict(zip(program.grads, grads, strict=True))


def drawn_step(
    program: Program, settings: dict, Xtr, Ytr, seed: int | None = None
) -> tuple[dict, dict]:
    """Run a first step on a batch no one has seen: the run's starting parameters, and a
    minibatch drawn with replacement, by the loop's own line, from a pool of about `n`
    training examples picked from `seed` (default: a new secret one). Drawn from a pool that
    small, some examples come twice or more and some not at all: a random weighting of the
    examples in the batch's mean loss, fresh at every submission, so that gradients computed
    offline cannot pass."""
    g = torch.Generator().manual_seed(secrets.randbits(62) if seed is None else seed)
    n = settings["n"]
    if n >= POOLED:
        size = int(torch.randint(n // 2, n + 1, (1,), generator=g))
        pool = torch.randint(0, len(Xtr), (size,), generator=g)
        Xtr, Ytr = Xtr[pool], Ytr[pool]
    return first_step(program, settings, Xtr, Ytr, batch=g)


def check(
    code: str, program: Program, settings: dict, Xtr, Ytr, sandbox: Sandbox, language=LANGUAGE
) -> GradCheck:
    """Grade the learner's section on the first step; training may start only if it passes
    (code outside the course's exercise language is refused before anything runs)."""
    source = checks.screen(code, language)
    if source.refused:
        failed = pipeline.failure(pipeline.run(GRADCHECK, Subject("", source), pipeline.RUN))
        return _refused(failed.message, failed)
    missing = unfinished(source.tree)
    if missing:
        return _refused(feedback.unfinished(missing))
    values, expected = drawn_step(program, settings, Xtr, Ytr)
    case = Case(LECTURE, values, scalars(settings), program.grads)
    outcome = sandbox.run(code, [case])
    return judge(outcome, expected, settings["n"], source, case)


def _refused(message: str, failed: Check | None = None) -> GradCheck:
    """Return a check that failed before running the code."""
    return GradCheck(False, (), None, message, **facts_of(failed, ran=False))


def judge(outcome: RunOutcome, expected: dict, n: int, source: Source, case: Case) -> GradCheck:
    """Compare the returned gradients with autograd's; name the first wrong one, backward."""
    stdout = "".join(c.stdout for c in outcome.cases)
    run = Subject("", source, outcome, {LECTURE: case})
    failed = pipeline.failure(pipeline.run(GRADCHECK, run, pipeline.RUN))
    if failed is not None:
        error = checks.learner_error(outcome)
        facts = facts_of(failed, ran=False) | {"fault": outcome.status == "internal"}
        return GradCheck(False, (), None, failed.message, error, stdout, **facts)
    noise = diagnose.noise_level({}, expected, next(iter(expected.values())).dtype)
    rows = tuple(_row(run, name, grad, n, noise) for name, grad in expected.items())
    wrong = {r.name for r in rows if r.status == FAIL}
    root = next((f"d{p}" for p in BACKWARD_ORDER if f"d{p}" in wrong), None)
    message = feedback.training_check_root(root) if root else feedback.training_check_passed()
    failed = next((pipeline.failure(list(r.checks)) for r in rows if r.name == root), None)
    return GradCheck(root is None, rows, root, message, stdout=stdout, **facts_of(failed))


def _row(run: Subject, name: str, expected: torch.Tensor, n: int, noise: float) -> GradRow:
    """Compare one gradient with autograd's, the lecture's cmp line named by its shape.

    The batch is drawn afresh, so the tolerance is a drawn case's (it grows with round-off of
    the largest value), and a gradient that is only float noise of the step (`db1`, cancelled
    by batchnorm) cannot decide: `noise` is the round-off of the step's largest gradient."""
    shape = tuple(expected.shape)
    clues = {LECTURE: Clues(expected, expected, name[1:], n)}  # a sign or a factor, named
    subject = replace(
        run,
        name=name,
        expected={LECTURE: expected},
        row=True,
        clues=clues,
        base=_within_noise(diagnose.tolerance(expected, drawn=True), noise),
        noise=lambda: noise,
    )
    return pipeline.gradient_row(GRADCHECK, subject, label=str(shape), shape=shape)


def _within_noise(tolerance: tuple[float, float], noise: float) -> tuple[float, float]:
    """Return a drawn case's tolerance with atol at least the step's float noise, so the cmp
    line's `approximate` agrees with the check on a gradient that only noise can decide."""
    atol, rtol = tolerance
    return max(atol, noise), rtol
