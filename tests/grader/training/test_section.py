"""The backward section of Exercise 4: assembled from answers, shown in a loop that really runs."""

from __future__ import annotations

import ast

import pytest
import torch
import torch.nn.functional as F

from grader.sandbox.training.loop import compile_section, prepare, section_backward, train
from grader.training.records import TrainSettings
from grader.training.section import PARTS, compose, loop_into, program, unfinished, whole_program


@pytest.fixture(scope="module")
def lecture(model):
    """Return the lecture's loop program (the name `program` is the function under test)."""
    return model.program()


STARTERS = {exercise_id: f"{exercise_id} = ...\n" for exercise_id, _ in PARTS}
LECTURE_DC = """
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        ix = Xb[k, j]
        dC[ix] += demb[k, j]
"""


def test_each_part_is_the_solved_answer_else_the_starter():
    section = compose(STARTERS, {"dh": "dh = dlogits @ W2.T\n"})
    assert "dh = dlogits @ W2.T" in section
    assert "dlogits_fused = ..." in section and "dh = ..." not in section
    lines = section.splitlines()
    assert lines.index("# 2nd layer backprop") < lines.index("dh = dlogits @ W2.T")


def test_the_parts_come_in_backward_order():
    order = [exercise_id for exercise_id, _ in PARTS]
    assert order[0] == "dlogits_fused" and order[-1] == "dC"
    assert order.index("dhprebn_fused") < order.index("dW1")


def test_the_program_shows_the_settings(lecture):
    settings = TrainSettings(steps=20_000, batch_size=64, decay_step=10_000, n_hidden=100)
    before, after = program(settings, 27, 3, lecture)
    assert "max_steps = 20000" in before and "batch_size = 64" in before
    assert "n_hidden = 100" in before and "vocab_size, block_size = 27, 3" in before
    assert "lr = 0.1 if i < 10000 else 0.01" in after
    assert "grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]" in after


def test_the_shown_loop_is_the_loop_that_runs(lecture, default_data, reference_section):
    settings = TrainSettings(steps=40, decay_step=20)
    wire = settings.wire(default_data.vocab_size, default_data.block_size)
    shown = {"torch": torch, "F": F, "Xtr": default_data.Xtr, "Ytr": default_data.Ytr}
    exec(whole_program(settings, default_data.vocab_size, 3, lecture, reference_section), shown)
    ns, losses = prepare(lecture, wire, default_data.Xtr, default_data.Ytr), []
    with torch.inference_mode():
        backward = section_backward(compile_section(reference_section))
        train(lecture, ns, wire, backward, lambda step, elapsed, got: losses.extend(got), every=0.0)
    expected = torch.tensor(losses).log10()
    assert torch.allclose(torch.tensor(shown["lossi"]), expected, rtol=0, atol=1e-6)
    assert torch.equal(shown["W1"], ns["W1"])


def test_ellipsis_lines_are_unfinished():
    tree = ast.parse("dlogits = ...\ndh = dlogits @ W2.T\ndC = ...  # (27, 10)\n")
    assert unfinished(tree) == ("dlogits", "dC")
    assert unfinished(ast.parse("x = y\n")) == ()


@pytest.mark.parametrize(
    ("code", "line"),
    [
        (LECTURE_DC, 3),
        ("dC = torch.zeros_like(C)\nfor k, i in enumerate(Xb.view(-1)):\n    dC[i] += 1\n", 2),
        ("dC = C * 0\nk = 0\nwhile k < 3:\n    dC[k, :] = dC[k, :] + 1\n    k += 1\n", 3),
        ("dC = torch.zeros_like(C)\ndC.index_add_(0, Xb.view(-1), demb.view(-1, 10))\n", None),
        ("for k in range(3):\n    demb[k] += 1\n", None),
    ],
)
def test_a_python_loop_into_dc_is_found(code, line):
    assert loop_into(ast.parse(code), "dC") == line


LECTURE_DLOGITS = "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\ndlogits /= n\n"


def test_the_reference_section_trains_as_the_lectures_bit_for_bit(
    lecture, default_data, catalog, reference_section
):
    """The reference answers may be written for speed, never to other numbers: the lecture's
    200,000-step run (bench/bench_training.py --full) is reproduced only so."""
    solved = {exercise_id: catalog.get(exercise_id).solution() for exercise_id, _ in PARTS}
    lectures = compose(solved, {**solved, "dlogits_fused": LECTURE_DLOGITS})
    assert "range(n)" in lectures and "range(n)" not in reference_section
    wire = TrainSettings(steps=30, decay_step=15).wire(default_data.vocab_size, 3)
    trained = []
    for section in (reference_section, lectures):
        ns = prepare(lecture, wire, default_data.Xtr, default_data.Ytr)
        with torch.inference_mode():
            backward = section_backward(compile_section(section))
            train(lecture, ns, wire, backward, lambda *_: None)
        trained.append([ns[name] for name in lecture.params])
    for mine, lectures_own in zip(*trained, strict=True):
        assert torch.equal(mine, lectures_own)
