"""The lecture's MLP is written once, in its scenario; Exercise 4 derives its loop and scoring."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from grader.course.scenario import load_scenario
from grader.grading.cases import ALT, LECTURE
from grader.sandbox.training import prepare
from grader.training.evaluate import calibrate, forward
from grader.training.model import (
    BATCH_STATS,
    FUSED,
    SEED,
    Model,
    execute,
    line,
    model_of,
    target,
)
from grader.training.records import TrainSettings

ROOT = Path(__file__).resolve().parents[3]
FUSED_NAMES = {last for _, last in FUSED}


def _spanned(scenario) -> set[str]:
    """Return the forward names inside a FUSED span."""
    names = [s.target for s in scenario.forward]
    spans = [names[names.index(a) : names.index(b) + 1] for a, b in FUSED]
    return {name for span in spans for name in span}


def test_the_loop_draws_the_scenarios_parameters_then_its_batch_each_step(mlp, model):
    params = [line(s) for s in mlp.setup if s.target in mlp.params]
    assert model.init == (SEED, *params)
    assert model.batch == tuple(line(s) for s in mlp.setup if s.target not in mlp.params)
    assert [target(text) for text in model.batch] == ["ix", "Xb", "Yb"]
    assert model.params == mlp.params == ("C", "W1", "b1", "W2", "b2", "bngain", "bnbias")
    assert model.program().params == mlp.params


def test_the_steps_forward_is_the_scenarios_lines_but_the_fused_spans(mlp, model):
    written = {s.target: line(s) for s in mlp.forward}
    kept = [text for text in model.forward if target(text) not in FUSED_NAMES]
    assert kept == [written[s.target] for s in mlp.forward if s.target not in _spanned(mlp)]
    fused = [text for text in model.forward if target(text) in FUSED_NAMES]
    assert [text.split("  #")[0] for text in fused] == [f"{b} = {c}" for (_, b), c in FUSED.items()]


def test_the_program_the_worker_runs_is_the_models_lines(model):
    program = model.program()
    assert program.init.splitlines() == list(model.init)
    body = [text for text in program.step.splitlines() if not text.startswith("#")]
    assert body == [*model.batch, *model.forward]


def test_no_second_copy_of_the_forward_pass_is_written_in_code(mlp):
    sources = [p for folder in ("grader", "app", "bench") for p in (ROOT / folder).rglob("*.py")]
    texts = {p.relative_to(ROOT): p.read_text(encoding="utf-8") for p in sources}
    for stmt in mlp.setup + mlp.forward:
        expression = stmt.source.split(" = ", 1)[1]
        assert [p for p, text in texts.items() if expression in text] == [], stmt.source


def test_a_change_to_the_scenario_flows_into_training_and_evaluation(tmp_path, default_data):
    folder = tmp_path / "01_mlp"
    shutil.copytree(ROOT / "exercises" / "01_mlp", folder)
    path = folder / "scenario.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("torch.tanh(hpreact)", "torch.relu(hpreact)"), encoding="utf-8")
    changed = model_of(load_scenario(path))
    assert "h = torch.relu(hpreact)  # (n, n_hidden)" in changed.program().step.splitlines()
    assert "h = torch.relu(hpreact)  # (n, n_hidden)" in changed.inference("logits")
    wire = TrainSettings(n_hidden=16).wire(default_data.vocab_size, 3)
    ns = prepare(changed.program(), wire, default_data.Xtr, default_data.Ytr)
    exec(changed.program().step_code, ns)
    assert bool((ns["h"] >= 0).all()) and float(ns["h"].max()) > 1  # relu, not tanh


def test_the_parameters_shapes_are_the_scenarios_for_the_sizes(model):
    wire = TrainSettings().wire(27, 3)
    assert model.param_shapes(wire) == {
        "C": (27, 10), "W1": (30, 200), "b1": (200,), "W2": (200, 27), "b2": (27,),
        "bngain": (1, 200), "bnbias": (1, 200),
    }  # fmt: skip


def test_a_parameter_reshaped_in_the_scenario_is_trained_and_checked_in_its_shape(
    tmp_path, default_data
):
    folder = tmp_path / "01_mlp"
    shutil.copytree(ROOT / "exercises" / "01_mlp", folder)
    path = folder / "scenario.toml"
    text = path.read_text(encoding="utf-8")
    old = "b1 = torch.randn(n_hidden, generator=g) * 0.1  # (n_hidden,)"
    assert old in text
    new = "b1 = torch.randn((1, n_hidden), generator=g) * 0.1  # (1, n_hidden)"
    path.write_text(text.replace(old, new), encoding="utf-8")
    changed = model_of(load_scenario(path))
    wire = TrainSettings(n_hidden=16).wire(default_data.vocab_size, 3)
    assert changed.param_shapes(wire)["b1"] == (1, 16)
    ns = prepare(changed.program(), wire, default_data.Xtr, default_data.Ytr)
    assert {name: tuple(ns[name].shape) for name in changed.program().params} == (
        changed.param_shapes(wire)
    )


def test_a_parameter_without_a_shape_of_sizes_is_refused(model):
    odd = Model(model.init, model.batch, model.forward, ("C",), ("(vocab_size, width)",))
    with pytest.raises(ValueError, match="`C`"):
        odd.param_shapes(TrainSettings().wire(27, 3))


def test_a_scenario_without_a_fused_span_is_refused(mlp):
    from dataclasses import replace

    forward = tuple(s for s in mlp.forward if s.target != "logit_maxes")
    with pytest.raises(ValueError, match="logit_maxes..loss"):
        model_of(replace(mlp, forward=forward))


@pytest.mark.parametrize("config", [LECTURE, ALT])
def test_each_fused_call_computes_what_its_span_of_the_scenario_computes(config, mlp, model, runs):
    run = runs.get(mlp, config)
    ns = {"torch": torch, "F": F, **run.env()}
    got = execute(model.forward, ns, tuple(FUSED_NAMES))
    for name in sorted(FUSED_NAMES):
        assert torch.allclose(got[name], run.values[name], rtol=1e-5, atol=1e-6), name


def test_calibration_and_inference_are_the_forward_with_the_statistics_calibrated(mlp, model, runs):
    run = runs.get(mlp, LECTURE)
    p = {name: run.values[name] for name in mlp.params}
    X = run.values["Xb"]
    assert [target(t) for t in model.calibration()][-2:] == list(BATCH_STATS)
    assert not {target(t) for t in model.inference("loss")} & set(BATCH_STATS)
    bn = calibrate(model, p, X)  # the batch itself: the statistics are the batch's own
    got = forward(model, p, bn, X, "loss", run.values["Yb"])
    assert torch.allclose(got, run.values["loss"], rtol=1e-5)


def test_inference_is_the_lectures_last_cell(model, runs, mlp):
    run = runs.get(mlp, LECTURE)
    p = {name: run.values[name] for name in mlp.params}
    bnmean, bnvar = torch.randn(1, 64), torch.rand(1, 64) + 0.5
    X = run.values["Xb"]
    hpreact = p["C"][X].view(X.shape[0], -1) @ p["W1"] + p["b1"]  # the lecture's cell, as test
    hpreact = p["bngain"] * (hpreact - bnmean) * (bnvar + 1e-5) ** -0.5 + p["bnbias"]
    expected = torch.tanh(hpreact) @ p["W2"] + p["b2"]
    got = forward(model, p, (bnmean, bnvar), X, "logits")
    assert torch.allclose(got, expected, atol=1e-6)


def test_evaluation_keeps_no_intermediate_it_no_longer_needs(model, runs, mlp):
    run = runs.get(mlp, LECTURE)
    ns = {"torch": torch, "F": F, **run.env()}
    execute(model.forward, ns, ("loss",))
    assert "loss" in ns and not {"emb", "hprebn", "bnraw", "h", "logits"} & set(ns)


def test_the_model_travels_as_json_data(model):
    assert Model(**{part: tuple(lines) for part, lines in model.wire().items()}) == model
