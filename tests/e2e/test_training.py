"""In a real browser: write the backward section, check it, train a short run to the end."""

from __future__ import annotations

import pytest
from e2e_helpers import OUTPUT, open_page, type_and_submit

pytestmark = pytest.mark.e2e

# The lecture's Exercise 4 section, one statement per line (typed into Ace as it is).
SECTION = """\
dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h**2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnbias = dhpreact.sum(0, keepdim=True)
dhprebn = bngain*bnvar_inv/n*(n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
dC.index_add_(0, Xb.view(-1), demb.view(-1, demb.shape[-1]))
"""
TIMEOUT_MS = 120_000


def _set_number(page, label: str, value: int) -> None:
    """Type a value into a number input and commit it."""
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    page.wait_for_timeout(500)


def test_a_short_training_runs_to_the_end(server, page):
    open_page(page, f"{server.url}/training")
    page.get_by_text("The loop around your code").wait_for(timeout=TIMEOUT_MS)
    type_and_submit(page, SECTION)
    page.get_by_text("All seven gradients match autograd").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Settings", exact=True).click()
    _set_number(page, "Steps", 600)
    _set_number(page, "Decay at step", 300)
    page.get_by_role("button", name="Start training").click()
    page.get_by_text("Training finished: 600 steps in", exact=False).wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("yours is", exact=False).wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Your finished runs").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Training finished", exact=False).scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "training-finished.png")
    page.get_by_text("Your finished runs").scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "training-runs.png")
    log = server.log_text()
    for bad in ("Traceback", "WARNING", "Warning", "Error", "error"):
        assert bad not in log, f"the server log has {bad!r}:\n{log}"
