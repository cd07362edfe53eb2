"""The banner for missing sandbox layers, and the refusal when every layer is required."""

from __future__ import annotations

import pytest

from app import services
from app.config import ConfigError, from_env
from grader.sandbox.layers import MissingLayers

from ..app_helpers import main_test, texts

REAL_START_SANDBOX = services.start_sandbox  # the autouse fixture replaces it during tests


def test_no_banner_when_every_layer_is_on(fake):
    at = main_test().run()
    assert not at.exception
    assert not [w for w in at.warning if "sandbox" in w.value]


def test_missing_layers_are_named_on_every_page(fake, monkeypatch):
    monkeypatch.setattr(services, "missing_layers", lambda: {"seccomp": "no libseccomp"})
    at = main_test().run()
    assert not at.exception
    banner = next(w.value for w in at.warning if "sandbox" in w.value)
    assert "seccomp" in banner and "grader doctor" in banner


def test_required_layers_that_are_missing_stop_the_app(fake, monkeypatch):
    def refuse():
        raise MissingLayers({"uid": "no newuidmap", "seccomp": "no libseccomp"})

    monkeypatch.setattr(services, "missing_layers", refuse)
    at = main_test().run()
    assert not at.exception
    assert "will not grade" in at.error[0].value and "uid" in at.error[0].value
    assert "Submit" not in texts(at)


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("true", True), ("0", False), ("", False)])
def test_the_setting_is_a_yes_or_no(raw, value):
    assert from_env({"NINJA_REQUIRE_ALL_LAYERS": raw}).require_all_layers is value


def test_a_setting_that_is_neither_says_which(tmp_path):
    with pytest.raises(ConfigError, match="NINJA_REQUIRE_ALL_LAYERS"):
        from_env({"NINJA_REQUIRE_ALL_LAYERS": "maybe"})


def test_the_real_sandbox_is_probed_in_the_background(app_env, monkeypatch):
    monkeypatch.setenv("NINJA_TIME_LIMIT", "7")
    probe = services._layer_probe(False, 7.0)
    assert probe.ident is None and probe.missing is None, "not started before a page is drawn"
    REAL_START_SANDBOX()
    assert probe.name == "sandbox-layers" and probe.ident is not None
    probe.join(timeout=180)
    assert probe.error is None, probe.error
    assert isinstance(probe.missing, dict)
    assert all(isinstance(why, str) and why for why in probe.missing.values())
    from grader.sandbox import Limits, default_sandbox

    limits, default_sandbox().limits = default_sandbox().limits, Limits()  # others expect 5 s
    assert (limits.cpu_seconds, limits.wall_seconds) == (7.0, 14.0), "the setting reached it"
