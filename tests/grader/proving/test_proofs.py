"""Proofs of the exercises, remembered by the content of their files."""

from __future__ import annotations

import shutil

from grader.course.exercises import EXERCISES_DIR, discover
from grader.proving import proofs
from grader.proving.proofs import Proofs, proof_key


def test_a_proof_is_made_once_per_content(tmp_path, monkeypatch, default_data):
    root = tmp_path / "exercises" / "01_mlp"
    root.mkdir(parents=True)
    for name in ("scenario.toml", "01_dlogprobs.toml"):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, root / name)
    calls = []
    monkeypatch.setattr(proofs, "prove", lambda e, g: calls.append(e.id) or [])
    catalog = discover(root.parent)
    first = Proofs(catalog, None, tmp_path / "proofs.json")
    first.run()
    Proofs(catalog, None, tmp_path / "proofs.json").run()
    assert calls == ["dlogprobs"], "the second start reads the remembered proof"
    key = proof_key(catalog.get("dlogprobs"))
    (root / "01_dlogprobs.toml").write_text((root / "01_dlogprobs.toml").read_text() + "\n")
    changed = discover(root.parent)
    assert proof_key(changed.get("dlogprobs")) != key
    Proofs(changed, None, tmp_path / "proofs.json").run()
    assert calls == ["dlogprobs", "dlogprobs"], "an edited file is proven again"


def test_remembered_proofs_are_recalled_before_any_is_run(tmp_path, monkeypatch):
    catalog = discover()
    monkeypatch.setattr(proofs, "prove", lambda e, g: [])
    Proofs(
        catalog.withdraw((), exercises=[e.id for e in catalog.exercises[1:]]),
        None,
        tmp_path / "proofs.json",
    ).run()
    recalled = Proofs(catalog, None, tmp_path / "proofs.json")
    assert recalled.proven() == set()
    recalled.recall()
    assert recalled.proven() == {"dlogprobs"} and not recalled.done.is_set()


def test_a_damaged_cache_is_forgotten_and_a_failure_is_reported(tmp_path, monkeypatch):
    from grader.proving.prover import Finding

    (tmp_path / "proofs.json").write_text("{not json")
    catalog = discover()
    bad = Finding("somewhere: starter", "passes every check; it must fail")
    monkeypatch.setattr(proofs, "prove", lambda e, g: [bad] if e.id == "dprobs" else [])
    done = Proofs(catalog, None, tmp_path / "proofs.json")
    done.run()
    assert done.failed() == {"dprobs": [bad]} and done.done.is_set()


def test_two_provers_in_one_process_save_without_colliding(tmp_path, monkeypatch):
    """An exercise edited while the app proves starts a second prover in the same process."""
    import json
    import os
    import threading

    cache = tmp_path / "proofs.json"
    first, second = Proofs(None, None, cache), Proofs(None, None, cache)
    real = os.replace

    def the_other_saves_first(source, target):
        monkeypatch.setattr(proofs.os, "replace", real)
        other = threading.Thread(target=second._save, args=({"b": []},))
        other.start()
        other.join()
        real(source, target)

    monkeypatch.setattr(proofs.os, "replace", the_other_saves_first)
    first._save({"a": []})
    assert json.loads(cache.read_text()) == {"a": []}, "the last writer wins, nobody fails"
