"""Every measured claim the feedback makes across the banks is true of its answer, measured here
anew: the answer is run again in the sandbox on the main batch and compared with autograd's.

- "almost every entry differs (X% of them)": 90% or more of the entries differ, X as measured;
- "not an index": the slips of indexing apply here (a class index per row in scope, or a
  lookup), and none of them, nor wrong target entries, nor an embedding's routing, fits;
- "leaves out the ... part/term": that term of the fused formula is part of autograd's answer
  and not float noise, the answer is a mix of the terms to float precision, and its weight is 0;
- "N% of the entries differ, one (at most k) per row": the share and the count per row.
"""

from __future__ import annotations

import re

import pytest
import torch

from grader.feedback import detectors
from grader.grading.cases import LECTURE, scope_names
from grader.grading.reference import path_terms

ALMOST = re.compile(r"almost every entry differs(?: \((\d+)% of them\))?")
SHARE = re.compile(r"(\d+)% of the entries differ, (one|at most (\d+)) per row")
LEAVES = re.compile(r"leaves out (the .+?)(?:\. |; it |$)")


def _differs(got: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """Return, on a 2-D view, where got differs from autograd's beyond the lecture's tolerance."""
    bad = ~torch.isclose(got.to(expected.dtype), expected, rtol=1e-5, atol=1e-8)
    return bad.reshape(1, -1) if bad.dim() <= 1 else bad.reshape(bad.shape[0], -1)


@pytest.fixture(scope="module")
def claims(graded_banks, bank_grader, catalog):
    """Return (claim, answer, what the learner read, the answer on the main batch, the prepared
    exercise) for every failed check of the banks that makes one of the claims."""
    found = []
    for answer, result in graded_banks:
        failed = getattr(result, "failed", None)
        if failed is None or not hasattr(result, "checks"):
            continue
        said = f"{failed.message} {failed.hint}"
        kinds = [k for k, p in (("almost", ALMOST), ("share", SHARE)) if p.search(said)]
        kinds += ["index"] if "not an index" in said else []
        kinds += ["term"] if LEAVES.search(said) and _fused(answer, catalog) else []
        if not kinds:
            continue
        prepared = bank_grader.prepared(catalog.get(answer["exercise"]))
        outcome = bank_grader.sandbox.run(answer["code"], [prepared.case(LECTURE)])
        got = outcome.cases[0].returned[prepared.exercise.answer].tensor
        found += [(kind, answer, said, got, prepared) for kind in kinds]
    return found


def _fused(answer: dict, catalog) -> bool:
    """Return whether an answer's exercise is a fused formula (its given gradient is more than
    one line away from its target)."""
    exercise = catalog.get(answer["exercise"])
    return exercise.answer in ("dhprebn", "dlogits", "dx") and exercise.given[0] in (
        "hpreact",
        "loss",
        "y",
    )


def _named(kind, claims):
    return [c for c in claims if c[0] == kind]


def test_every_claim_kind_is_in_the_banks(claims, capsys):
    counts = {k: len(_named(k, claims)) for k in ("almost", "index", "term", "share")}
    with capsys.disabled():
        print(f"\nclaims measured across the banks: {counts}")
    assert all(counts.values()), counts


def test_almost_every_entry_is_measured(claims):
    for _, answer, said, got, prepared in _named("almost", claims):
        bad = _differs(got, prepared.expected[LECTURE])
        share = float(bad.float().mean())
        assert share >= 0.9, f"{answer['id']}: {share:.0%} of the entries: {said}"
        said_share = ALMOST.search(said).group(1)
        assert said_share is None or int(said_share) == round(share * 100), answer["id"]


def test_a_share_and_a_count_per_row_are_measured(claims):
    for _, answer, said, got, prepared in _named("share", claims):
        bad = _differs(got, prepared.expected[LECTURE])
        found = SHARE.search(said)
        assert int(found.group(1)) == round(float(bad.float().mean()) * 100), answer["id"]
        most = 1 if found.group(2) == "one" else int(found.group(3))
        assert int(bad.sum(1).max()) == most, f"{answer['id']}: {said}"


def test_not_an_index_follows_the_index_slips_tried(claims):
    for _, answer, _, got, prepared in _named("index", claims):
        run, expected = prepared.runs[LECTURE], prepared.expected[LECTURE]
        scope = set(scope_names(prepared.case(LECTURE)))
        values = {k: v for k, v in run.values.items() if k in scope}
        per_row = [
            v for v in values.values() if v.dtype == torch.int64 and v.shape == expected.shape[:1]
        ]
        assert expected.dim() == 2 and per_row, f"no index was tried: {answer['id']}"
        got = got.to(expected.dtype)
        assert detectors.index_slip(got, expected, values) is None, answer["id"]
        assert detectors.target_entries(got, expected, values) is None, answer["id"]
        assert float(_differs(got, expected).float().mean()) >= 0.9, answer["id"]


def _terms(prepared):
    """Return a fused formula's terms on the main batch, each scaled by its share of autograd's
    answer, leaving out those it does not hold (fitted here, by least squares)."""
    exercise, run = prepared.exercise, prepared.runs[LECTURE]
    terms = path_terms(exercise.scenario, run, exercise.target, prepared.cotangents[LECTURE])
    basis = torch.stack([t.reshape(-1).double() for _, t in terms], 1)
    truth = torch.linalg.lstsq(basis, prepared.expected[LECTURE].reshape(-1, 1).double())
    return [
        (k, t * float(c)) for (k, t), c in zip(terms, truth.solution, strict=True) if abs(c) > 1e-3
    ]


def _left_out(phrase: str, parts: dict) -> str | None:
    """Return the statistic of the term a phrase names ("" for the one with every statistic
    held constant): by the course's name for it, or by its path."""
    named = [k for k, p in parts.items() if phrase.startswith(p)]
    if named:
        return named[0]
    through = re.search(r"through `(\w+)`", phrase)
    return through.group(1) if through else ("" if "direct" in phrase else None)


def test_a_term_left_out_is_part_of_the_gradient_and_weighs_nothing_in_the_answer(claims):
    for _, answer, said, got, prepared in _named("term", claims):
        parts = dict(getattr(prepared.exercise, "named_parts", ()))
        left_out = _left_out(LEAVES.search(said).group(1), parts)
        assert left_out is not None, f"{answer['id']}: which term? {said}"
        terms = _terms(prepared)
        assert left_out in dict(terms), f"{answer['id']}: not a term of the gradient: {said}"
        largest = max(float(t.abs().max()) for _, t in terms)
        named = dict(terms)[left_out]
        assert float(named.abs().max()) > 1e-4 * largest, f"{answer['id']}: a term of noise"
        basis = torch.stack([t.reshape(-1).double() for _, t in terms], 1)
        fit = torch.linalg.lstsq(basis, got.reshape(-1, 1).double())
        fitted = (basis @ fit.solution).reshape(got.shape)
        assert torch.allclose(got.double(), fitted, rtol=1e-4, atol=1e-6 * largest), answer["id"]
        weight = float(fit.solution[[k for k, _ in terms].index(left_out)])
        assert abs(weight) < 1e-3, f"{answer['id']}: weighs {weight:.3g}: {said}"
