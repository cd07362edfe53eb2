"""The scenario file: parsing, consumers, and its schema errors."""

from __future__ import annotations

import pytest

from grader.scenario import load_scenario, parse_program
from grader.schema import SchemaError


def test_forward_program_keeps_the_lecture_order_and_shapes(mlp):
    names = [s.target for s in mlp.forward]
    assert names[0] == "emb" and names[-1] == "loss"
    assert len(names) == 20
    assert mlp.statement("hpreact").shape == "(n, n_hidden)"
    assert mlp.statement("bnvar").reads == ("n", "bndiff2")


@pytest.mark.parametrize(
    ("name", "consumers"),
    [
        ("counts", ("counts_sum", "probs")),
        ("logits", ("logit_maxes", "norm_logits")),
        ("hprebn", ("bnmeani", "bndiff")),
        ("bndiff", ("bndiff2", "bnraw")),
        ("logprobs", ("loss",)),
        ("C", ("emb",)),
    ],
)
def test_consumers_follow_the_reads(mlp, name, consumers):
    assert mlp.consumers(name) == consumers


def test_whole_pass_lists_the_26_gradients_in_backward_order(mlp):
    assert len(mlp.whole_pass) == 26
    assert mlp.whole_pass[0] == "logprobs" and mlp.whole_pass[-1] == "C"


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("x = (", "syntax error on line 1"),
        ("x += 1", "line 1 is not a single assignment"),
        ("a, b = 1, 2", "line 1 must assign one plain name"),
        ("print(1)", "line 1 is not a single assignment"),
    ],
)
def test_parse_program_rejects_what_is_not_single_assignment(source, problem):
    with pytest.raises(SchemaError) as err:
        parse_program(source, "f.toml: forward.code")
    assert problem in err.value.problem
    assert err.value.where == "f.toml: forward.code"


def _write(tmp_path, text):
    folder = tmp_path / "01_x"
    folder.mkdir()
    path = folder / "scenario.toml"
    path.write_text(text)
    return path


BASE = """
title = "t"
output = "loss"
params = ["w"]
[sizes]
n = 2
[alt_sizes]
n = 3
[setup]
code = "w = torch.randn(n, generator=g)"
[forward]
code = "loss = (w * w).sum()"
"""


def test_a_small_scenario_loads(tmp_path):
    scenario = load_scenario(_write(tmp_path, BASE))
    assert scenario.slug == "01_x" and scenario.names() == ("w", "loss")


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (lambda t: t + 'colour = "red"\n', "colour", "unknown key"),
        (lambda t: t.replace('title = "t"\n', ""), "title", "is required but missing"),
        (lambda t: t.replace('params = ["w"]', 'params = ["v"]'), "params", "never assigned"),
        (lambda t: t.replace('output = "loss"', "output = 3"), "output", "must be a string"),
        (lambda t: t + "[[", "", "is not valid TOML"),
    ],
)
def test_schema_errors_name_file_and_field(tmp_path, change, field, problem):
    path = _write(tmp_path, change(BASE))
    with pytest.raises(SchemaError) as err:
        load_scenario(path)
    assert str(path) in err.value.where
    assert err.value.where.endswith(field) or not field
    assert problem in err.value.problem
