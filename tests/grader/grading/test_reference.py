"""Autograd runs of a scenario, and vector-Jacobian products rebuilt from its statements."""

from __future__ import annotations

import pytest
import torch

from grader.grading.cases import ALT, LECTURE, RANDOM, fresh, prepare
from grader.grading.reference import Pullback, path_statements, run_forward, vjp


def test_lecture_figures_on_names(mlp, names_dataset):
    sizes = mlp.sizes | {"vocab_size": names_dataset.vocab_size}
    run = run_forward(mlp, sizes, (names_dataset.Xtr, names_dataset.Ytr))
    assert sum(run.values[p].numel() for p in mlp.params) == 4137
    wide = run_forward(mlp, sizes | {"n_hidden": 200}, (names_dataset.Xtr, names_dataset.Ytr))
    assert sum(wide.values[p].numel() for p in mlp.params) == 12297


def test_every_parameter_is_non_zero_and_seeded(mlp, runs):
    run = runs.get(mlp, LECTURE)
    for name in mlp.params:
        assert bool((run.values[name] != 0).all()), name
    again = run_forward(mlp, run.sizes, (runs.dataset.Xtr, runs.dataset.Ytr))
    assert torch.equal(again.values["W1"], run.values["W1"])
    assert torch.equal(again.values["Xb"], run.values["Xb"])


def test_the_other_configuration_changes_every_size(mlp, runs):
    lecture, alt = runs.get(mlp, LECTURE), runs.get(mlp, ALT)
    for key in ("n", "n_embd", "n_hidden", "block_size", "vocab_size"):
        assert lecture.sizes[key] != alt.sizes[key], key
    assert alt.values["logits"].shape == (alt.sizes["n"], alt.sizes["vocab_size"])


@pytest.mark.parametrize("config", [LECTURE, ALT])
def test_vjp_through_the_consumers_equals_autograd(mlp, runs, config):
    run = runs.get(mlp, config)
    for target in mlp.whole_pass:
        given = {c: run.grads[c] for c in mlp.consumers(target)}
        assert torch.allclose(vjp(mlp, run, target, given), run.grads[target], atol=1e-7), target


def test_vjp_with_one_consumer_misses_the_other(mlp, runs):
    run = runs.get(mlp, LECTURE)
    dprobs, dsum = run.grads["probs"], run.grads["counts_sum"]
    partial = vjp(mlp, run, "counts", {"probs": dprobs, "counts_sum": torch.zeros_like(dsum)})
    assert torch.allclose(partial, run.values["counts_sum_inv"] * dprobs)
    assert not torch.allclose(partial, run.grads["counts"])


def test_fused_paths_stop_at_the_given_tensor(mlp):
    names = [s.target for s in path_statements(mlp, "hprebn", ("hpreact",))]
    assert names == ["bnmeani", "bndiff", "bndiff2", "bnvar", "bnvar_inv", "bnraw", "hpreact"]
    names = [s.target for s in path_statements(mlp, "counts", ("probs", "counts_sum"))]
    assert names == ["counts_sum", "probs"]


def test_fused_cross_entropy_reference(mlp, runs):
    run = runs.get(mlp, LECTURE)
    loss = run.values["loss"]
    d = vjp(mlp, run, "logits", {"loss": torch.ones_like(loss)})
    assert torch.allclose(d, run.grads["logits"], atol=1e-9)


def test_the_lecture_batch_is_the_videos(mlp, names_dataset):
    """The seeded generator draws C, W1, b1, W2, b2 then the batch, as the lecture's cell does."""
    sizes = mlp.sizes | {"vocab_size": names_dataset.vocab_size}
    run = run_forward(mlp, sizes, (names_dataset.Xtr, names_dataset.Ytr))
    assert run.values["Yb"][:6].tolist() == [8, 14, 15, 22, 0, 19]


NON_SCALAR = """
title = "t"
output = "y"
params = ["w"]
[sizes]
n = 3
[alt_sizes]
n = 4
[setup]
code = "w = torch.randn(n, generator=g)\\nc = torch.randn(n, generator=g)"
[forward]
code = "y = w * w"
"""


@pytest.mark.parametrize(
    ("extra", "cotangent"),
    [("", lambda v: torch.ones(3)), ('output_grad = "c"\n', lambda v: v["c"])],
)
def test_a_non_scalar_output_is_pulled_back_with_its_cotangent(tmp_path, extra, cotangent):
    from grader.course.scenario import load_scenario

    (tmp_path / "01_x").mkdir()
    path = tmp_path / "01_x" / "scenario.toml"
    path.write_text(extra + NON_SCALAR)
    scenario = load_scenario(path)
    run = run_forward(scenario, scenario.sizes)
    assert torch.equal(run.grads["y"], cotangent(run.values))
    assert torch.allclose(run.grads["w"], 2 * run.values["w"] * cotangent(run.values))


def test_a_pullback_recorded_once_answers_each_call_on_its_own(mlp, runs):
    run = runs.get(mlp, LECTURE)
    consumers = tuple(mlp.consumers("hprebn"))
    back = Pullback(mlp, run, "hprebn", consumers)
    g = torch.Generator().manual_seed(7)
    draws = [{c: torch.randn(run.grads[c].shape, generator=g) for c in consumers} for _ in range(3)]
    got = [back(d) for d in draws]
    for drawn, answer in zip(draws, got, strict=True):  # each as if recorded for it alone
        assert torch.equal(answer, vjp(mlp, run, "hprebn", drawn))
    assert not torch.equal(got[0], got[1])
    got[0].add_(1.0)  # a caller writing into its result, and into the gradients it gave
    draws[1][consumers[0]].mul_(3.0)
    assert torch.equal(back(draws[0]), vjp(mlp, run, "hprebn", draws[0]))
    true = {c: run.grads[c] for c in consumers}
    assert torch.allclose(back(true), run.grads["hprebn"], atol=1e-7)


def test_each_submission_is_graded_against_its_own_draw(catalog, runs):
    for exercise in catalog.exercises:
        if exercise.answers:
            continue
        prepared = prepare(exercise, runs)
        first, second = fresh(prepared, runs), fresh(prepared, runs)
        for drawn in (second, first, second):  # in any order: nothing kept from a call
            for case in (RANDOM, ALT):
                run, cots = drawn.runs[case], drawn.cotangents[case]
                expected = vjp(exercise.scenario, run, exercise.target, cots)
                assert torch.equal(drawn.expected[case], expected), (exercise.id, case)
        assert not torch.equal(
            first.cotangents[RANDOM][exercise.given[0]],
            second.cotangents[RANDOM][exercise.given[0]],
        ) or exercise.given == (exercise.scenario.output,), exercise.id
