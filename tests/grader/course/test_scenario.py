"""The scenario file: parsing, consumers, and its schema errors."""

from __future__ import annotations

import pytest

from grader.course.scenario import load_scenario, parse_program
from grader.course.schema import SchemaError


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
        ("print(1)", "line 1: write it as `name = ...`"),
        ("x = 1\nx[0] = 2", "line 2: assign to names only"),
        ("a, *b = 1, 2", "line 1: assign to names only"),
        ("x = 1\nx.zero_()", "line 2: `zero_` has no out-of-place form `zero`"),
        ("for i in range(n):\n    x = i", "line 1: a loop must run over `range` of literal"),
        ("for i in [1, 2]:\n    x = i", "line 1: a loop must run over `range` of literal"),
        ("for i in range(2):\n    i = 1", "line 2: `i` is the loop variable"),
        ("for i in range(2):\n    x = 1\nelse:\n    y = 2", "line 1: a loop needs one"),
        ("while True:\n    x = 1", "line 1: write it as"),
        ("for i in range(600):\n    x = i", "the loop runs 600 times"),
        ("x = 1\nx = 2\nx_1 = 3", "line 3: `x_1` is also the name of write 1 of `x`"),
        ("y = x.add_(1) * 2", "line 1: `x.add_(...)` changes `x` in place inside an expression"),
    ],
)
def test_parse_program_rejects_what_the_language_cannot_say(source, problem):
    with pytest.raises(SchemaError) as err:
        parse_program(source, "f.toml: forward.code")
    assert problem in err.value.problem
    assert err.value.where == "f.toml: forward.code"


@pytest.mark.parametrize(
    ("source", "lowered"),
    [
        ("y = x * 2  # (n,)", ["y = x * 2"]),
        ("y = x * 2\ny += x", ["y_1 = x * 2", "y = y_1 + x"]),
        ("y = x * 2\ny.mul_(x)", ["y_1 = x * 2", "y = y_1.mul(x)"]),
        ("y = x\ny_01 = x\ny += 1", ["y_1 = x", "y_01 = x", "y = y_1 + 1"]),
        ("y = x\ny = y + 1\nz = y", ["y_1 = x", "y = y_1 + 1", "z = y"]),
        ("a, b = x.chunk(2)", ["a, _ = x.chunk(2)", "_, b = x.chunk(2)"]),
        (
            "h = x\nfor i in range(2):\n    h = h @ W[i]",
            ["h_1 = x", "h_2 = h_1 @ W[0]", "h = h_2 @ W[1]"],
        ),
        (
            "for i in range(1, 5, 2):\n    for j in range(2):\n        v = x[i, j]",
            ["v_1 = x[1, 0]", "v_2 = x[1, 1]", "v_3 = x[3, 0]", "v = x[3, 1]"],
        ),
    ],
)
def test_the_language_lowers_to_single_assignments(source, lowered):
    assert [s.source for s in parse_program(source, "f.toml: forward.code")] == lowered


def test_a_lowered_line_keeps_its_line_and_shape_comment():
    a, b = parse_program("\n\na, b = x.chunk(2)  # (n, d) halves", "f")
    assert (a.target, b.target, a.line, a.shape, a.note) == ("a", "b", 3, "(n, d)", "halves")
    assert a.reads == b.reads == ("x",)


def test_setup_and_forward_share_one_namespace_of_versions(tmp_path):
    text = BASE.replace(
        'code = "loss = (w * w).sum()"', 'code = "v = w * 2\\nv += 1\\nloss = v.sum()"'
    )
    scenario = load_scenario(_write(tmp_path, text))
    assert [s.source for s in scenario.forward] == ["v_1 = w * 2", "v = v_1 + 1", "loss = v.sum()"]
    assert scenario.consumers("v_1") == ("v",) and scenario.consumers("v") == ("loss",)


@pytest.mark.parametrize(
    ("line", "carries"),
    [
        ("m = (w > 0).float()", False),
        ("m = w.argmax(0)", False),
        ("m = w.max(0).indices", False),
        ("m = w.detach() * 2", False),
        ("m = w.data * 2", False),
        ("m = torch.sign(w)", False),
        ("m = w.max(0).values", True),
        ("m = w[w.argmax(0)]", True),
        ("m = torch.where(w > 0, w, 0.0)", True),
        ("m = w.float()", True),
    ],
)
def test_what_carries_a_gradient_is_read_from_the_line(tmp_path, line, carries):
    text = BASE.replace('code = "loss = (w * w).sum()"', f'code = "{line}\\nloss = (w * w).sum()"')
    scenario = load_scenario(_write(tmp_path, text))
    assert scenario.statement("m").differentiable is carries
    assert scenario.differentiable("m") is carries
    assert ("m" in scenario.consumers("w")) is carries


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
        (
            lambda t: t.replace('code = "loss', 'code = "w = w * 2\\nloss'),
            "params",
            "`w` is written again in forward",
        ),
        (
            lambda t: t.replace('params = ["w"]', 'params = ["w"]\nwhole_pass = ["m"]').replace(
                'code = "loss', 'code = "m = (w > 0)\\nloss'
            ),
            "whole_pass",
            "`m` carries no gradient",
        ),
        (
            lambda t: t.replace('params = ["w"]', 'params = ["w"]\noutput_grad = "loss"'),
            "output_grad",
            "`loss` is not drawn in setup",
        ),
    ],
)
def test_schema_errors_name_file_and_field(tmp_path, change, field, problem):
    path = _write(tmp_path, change(BASE))
    with pytest.raises(SchemaError) as err:
        load_scenario(path)
    assert str(path) in err.value.where
    assert err.value.where.endswith(field) or not field
    assert problem in err.value.problem
