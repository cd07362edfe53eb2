"""The why cards' "other correct forms": each one named in a card is graded solved, so a card
never teaches an answer the grader refuses."""

from __future__ import annotations

import pytest

from grader import Grader

# (exercise, an answer in another correct form); the first line's right-hand side is quoted in
# the exercise's why card.
FORMS = [
    ("dlogprobs", "dlogprobs = -F.one_hot(Yb, num_classes=logprobs.shape[1]).float() / n"),
    ("dprobs", "dprobs = dlogprobs / probs"),
    ("dprobs", "dprobs = probs**-1 * dlogprobs"),
    ("dcounts_sum_inv", "dcounts_sum_inv = (counts * dprobs).sum(1).view(-1, 1)"),
    ("dcounts_sum_inv", "dcounts_sum_inv = torch.einsum('ij,ij->i', counts, dprobs).unsqueeze(1)"),
    ("dcounts_sum", "dcounts_sum = -dcounts_sum_inv / counts_sum**2"),
    ("dcounts_sum", "dcounts_sum = -counts_sum_inv**2 * dcounts_sum_inv"),
    ("dcounts", "dcounts = counts_sum_inv * dprobs + dcounts_sum"),
    ("dnorm_logits", "dnorm_logits = norm_logits.exp() * dcounts"),
    ("dlogit_maxes", "dlogit_maxes = -dnorm_logits.sum(1, keepdim=True)"),
    ("dlogits", "dlogits = dnorm_logits + (logits == logit_maxes) * dlogit_maxes"),
    (
        "dlogits",
        "dlogits = dnorm_logits.clone()\n"
        "dlogits[range(n), logits.argmax(1)] += dlogit_maxes.view(-1)",
    ),
    ("dh", "dh = (W2 @ dlogits.T).T"),
    ("dh", "dh = torch.einsum('ij,kj->ik', dlogits, W2)"),
    ("dW2", "dW2 = (dlogits.T @ h).T"),
    ("dW2", "dW2 = torch.einsum('ik,ij->kj', h, dlogits)"),
    ("db2", "db2 = torch.ones(n) @ dlogits"),
    ("db2", "db2 = dlogits.sum(0, keepdim=True).view(-1)"),
    ("dhpreact", "dhpreact = (1 - torch.tanh(hpreact)**2) * dh"),
    ("dhpreact", "dhpreact = dh * (1 - h) * (1 + h)"),
    ("dbngain", "dbngain = torch.einsum('ij,ij->j', bnraw, dhpreact).view(1, -1)"),
    ("dbnbias", "dbnbias = dhpreact.sum(0).view(1, -1)"),
    ("dbnbias", "dbnbias = torch.ones(1, n) @ dhpreact"),
    ("dbnraw", "dbnraw = dhpreact * bngain"),
    ("dbnraw", "dbnraw = bngain.expand_as(bnraw) * dhpreact"),
    ("dbnvar_inv", "dbnvar_inv = torch.einsum('ij,ij->j', bndiff, dbnraw).view(1, -1)"),
    ("dbnvar", "dbnvar = -0.5 * bnvar_inv**3 * dbnvar_inv"),
    ("dbndiff2", "dbndiff2 = dbnvar.expand_as(bndiff2) / (n - 1)"),
    ("dbndiff2", "dbndiff2 = torch.ones_like(bndiff2) * dbnvar / (n - 1)"),
    ("dbndiff", "dbndiff = bnvar_inv * dbnraw\ndbndiff += 2 * bndiff * dbndiff2"),
    ("dbnmeani", "dbnmeani = -dbndiff.sum(0, keepdim=True)"),
    ("dhprebn", "dhprebn = dbndiff + dbnmeani / n"),
    ("dembcat", "dembcat = torch.einsum('ik,fk->if', dhprebn, W1)"),
    ("dW1", "dW1 = (dhprebn.T @ embcat).T"),
    ("dW1", "dW1 = torch.einsum('if,ik->fk', embcat, dhprebn)"),
    ("db1", "db1 = dhprebn.sum(0, keepdim=True).view(-1)"),
    ("demb", "demb = dembcat.reshape(n, block_size, n_embd)"),
    ("demb", "demb = dembcat.view(emb.shape[0], block_size, -1)"),
    (
        "dC",
        "dC = torch.zeros_like(C)\nfor i in range(n):\n    for j in range(block_size):\n"
        "        dC[Xb[i, j]] += demb[i, j]",
    ),
    ("dC", "dC = torch.zeros_like(C).index_add_(0, Xb.view(-1), demb.view(-1, n_embd))"),
    ("dC", "dC = F.one_hot(Xb.view(-1), vocab_size).float().T @ demb.view(-1, n_embd)"),
    (
        "dC",
        "dC = torch.zeros_like(C)\n"
        "dC.index_put_((Xb.view(-1),), demb.view(-1, n_embd), accumulate=True)",
    ),
    ("dlogits_fused", "dlogits = (F.softmax(logits, 1) - F.one_hot(Yb, vocab_size)) / n"),
    ("dlogits_fused", "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\ndlogits /= n"),
    (
        "dhprebn_fused",
        "dhprebn = bngain * bnvar_inv * (dhpreact - dhpreact.mean(0)"
        " - bnraw * (dhpreact * bnraw).sum(0) / (n - 1))",
    ),
    ("dxhat", "dxhat = dy * gamma.view(1, -1)"),
    ("drstd", "drstd = torch.einsum('ij,ij->i', xc, dxhat).unsqueeze(-1)"),
    (
        "dx_ln_fused",
        "dxhat = gamma * dy\n"
        "dx = rstd * (dxhat - dxhat.mean(-1, keepdim=True)"
        " - xhat * (dxhat * xhat).mean(-1, keepdim=True))",
    ),
]


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


@pytest.mark.parametrize(("exercise_id", "code"), FORMS, ids=[f[0] for f in FORMS])
def test_every_other_correct_form_in_a_why_card_is_solved(grader, catalog, exercise_id, code):
    first = code.splitlines()[0]
    assert first.split(" = ", 1)[1] in catalog.get(exercise_id).explain, "quoted in the card"
    result = grader.grade(exercise_id, code + "\n")
    assert result.solved, result.summary_with_hint()


def test_every_why_card_offers_another_correct_form(catalog):
    shown = {exercise_id for exercise_id, _ in FORMS}
    for exercise in catalog.exercises:
        if exercise.explain:
            assert "**Other correct forms.**" in exercise.explain, exercise.id
            assert exercise.id in shown, f"{exercise.id}: no form of its card is tested here"
