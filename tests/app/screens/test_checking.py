"""Home is drawn before the scenarios have run once; their exercises appear once they have, and
an address of another page waits for them."""

from __future__ import annotations

import shutil
import threading

from app import links, nav, services
from app.screens import checking
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from ..app_helpers import main_test, nav_sections, page_test, texts

REAL_PROOFS_PENDING = services.proofs_pending  # the autouse fixture replaces it during tests
REAL_RAN_CATALOG = services.ran_catalog  # and this one


class _Proven:
    """Proofs finished, every exercise sound."""

    done = threading.Event()
    done.set()

    def proven(self) -> set[str]:
        return set()

    def failed(self) -> dict:
        return {}


def _running(monkeypatch) -> dict:
    """Make the scenarios still running until the returned switch says "ran"; record waits."""
    state = {"ran": False, "waited": 0}

    def ran_catalog(wait: bool = False):
        state["waited"] += wait
        state["ran"] = state["ran"] or wait  # waiting lets them finish
        if state["ran"]:
            return services._catalog(*services._version())
        return None

    monkeypatch.setattr(services, "ran_catalog", ran_catalog)
    monkeypatch.setattr(services, "proofs_pending", REAL_PROOFS_PENDING)
    monkeypatch.setattr(services, "_proofs", lambda *args: _Proven())
    return state


def test_home_is_drawn_while_the_scenarios_run_then_lists_their_exercises(
    fake, monkeypatch, instructor
):
    state = _running(monkeypatch)
    at = main_test().run()
    assert not at.exception
    assert at.title[0].value == "Backprop Ninja"
    declared = len(services._declared(*services._version()).exercises)
    assert f"{declared} exercise(s) are being checked" in texts(at)
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert urls == ["", "progress", "instructor", "problems"], "no exercise before it has run"
    assert state["waited"] == 0
    state["ran"] = True
    at.run()
    assert not at.exception and "being checked" not in texts(at)
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert {"dlogprobs", "whole_pass", "training"} <= set(urls) and "problems" not in urls


def test_an_address_other_than_home_waits_for_the_scenarios(fake, monkeypatch):
    state = _running(monkeypatch)
    monkeypatch.setattr(nav, "_address", lambda: "dprobs")
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert state["waited"] == 1 and "dprobs" in urls


def test_the_scenarios_run_in_a_thread_and_a_raising_one_is_withdrawn(
    app_env, tmp_path, monkeypatch
):
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, root)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    path = root / "03_attention" / "scenario.toml"
    path.write_text(path.read_text().replace("k = x @ Wk  #", "k = x @ Wk.T  #"))
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    runs = services._runs(*services._version())
    assert runs.name == "scenario-runs" and runs.wait() is runs.catalog
    assert "03_attention" not in [s.slug for s in runs.catalog.scenarios]
    assert any("raises with sizes" in e.problem for e in runs.catalog.errors)
    declared = services._declared(*services._version())
    assert "03_attention" in [s.slug for s in declared.scenarios], "read, not run"


def test_the_scenarios_start_running_once_a_page_is_drawn(fake, tmp_path, monkeypatch):
    shutil.copytree(EXERCISES_DIR, tmp_path / "exercises")  # a version of its own
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(tmp_path / "exercises"))
    monkeypatch.setattr(services, "ran_catalog", REAL_RAN_CATALOG)
    monkeypatch.setattr(services, "proofs_pending", REAL_PROOFS_PENDING)
    monkeypatch.setattr(services, "_proofs", lambda *args: _Proven())
    runs = services._runs(*services._version())
    nav_sections()
    assert runs.ident is None, "building the navigation starts nothing"
    at = main_test().run()
    assert at.title[0].value == "Backprop Ninja" and runs.ident is not None
    assert runs.wait() is runs.catalog


def _db1_being_proven(monkeypatch, rounds: int, failed: bool = False) -> None:
    """Make db1 the one exercise not proven yet, for `rounds` looks, then proven (or failed)."""
    looks = {"n": 0}

    def pending() -> set[str]:
        looks["n"] += 1
        return {"db1"} if looks["n"] <= rounds else set()

    monkeypatch.setattr(services, "proofs_pending", pending)
    monkeypatch.setattr(services, "proofs_failed", lambda: {"db1": ["wrong"]} if failed else {})


def test_a_deep_link_to_an_exercise_being_proven_opens_a_waiting_page(fake, monkeypatch):
    _db1_being_proven(monkeypatch, rounds=10**6)
    monkeypatch.setattr(nav, "_address", lambda: "db1")
    pages = {p.url_path: p for group in nav_sections().values() for p in group}
    assert "db1" in pages, "the address is registered, never 'Page not found'"
    assert pages["db1"].icon == links.CHECKING_ICON
    assert pages["db1"].title == services.declared().get("db1").title
    monkeypatch.setattr(nav, "_address", lambda: "dprobs")
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert "db1" not in urls, "held back while proven, unless asked for"


def test_a_deep_link_proven_while_the_pages_are_listed_still_has_its_page(fake, monkeypatch):
    """db1 is proven between two looks at what is pending (the proofs run in a thread): its
    address must have a page, its own or the waiting one, never none (which opens Home)."""
    _db1_being_proven(monkeypatch, rounds=1)
    monkeypatch.setattr(nav, "_address", lambda: "db1")
    pages = {p.url_path: p for group in nav_sections().values() for p in group}
    assert "db1" in pages, "the bookmark would open Home"


def test_the_waiting_page_says_it_checks_then_reports_a_withdrawn_exercise(fake, monkeypatch):
    _db1_being_proven(monkeypatch, rounds=2, failed=True)
    at = page_test("db1", page="checking").run()
    assert not at.exception
    assert at.title[0].value == services.declared().get("db1").title
    assert checking.CHECKING in texts(at)
    assert [e.value for e in at.error] == [checking.WITHDRAWN]


def test_home_taken_while_the_last_proof_ends_draws_itself_again(fake, monkeypatch):
    """db1 is pending when the run's catalog is taken and proven by the time Home looks again
    (the proofs run in a thread): Home must not stay drawn without it and with no timer (a
    run of 2026-12-06 showed a course's Home with an empty map for 60 s); it draws itself
    again, and the second run serves db1."""
    _db1_being_proven(monkeypatch, rounds=1)
    served = []
    real = services._served
    monkeypatch.setattr(services, "_served", lambda: served.append(1) or real())
    at = page_test(page="home").run()
    assert not at.exception
    assert len(served) == 2, "the page ran again once it found fewer pending than held back"
    assert "being checked" not in texts(at)
    db1 = services.declared().get("db1")
    group = db1.group or db1.scenario.title
    members = [e for e in services.declared().exercises if (e.group or e.scenario.title) == group]
    assert f"0 of {len(members)} solved" in [c.value for c in at.caption], "db1 is on the map"
