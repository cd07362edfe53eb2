"""The deployment's files agree with the code: NOTICE lists every package of the lock at its
version with the licence its metadata declares (deploy/licences.py), the compose file's images
default to this version, what it gives the sandbox is what docs/operations.md measured, and the
Grafana dashboard asks only for metrics a replica serves."""

from __future__ import annotations

import json
import re
import tomllib

import yaml
from prometheus_client.parser import text_string_to_metric_families

from .conftest import ROOT, operator_tool

COMPOSE = ROOT / "deploy" / "compose.yaml"
DASHBOARD = ROOT / "deploy" / "grafana" / "backprop-ninja.json"
SANDBOX_CAPS = ["SYS_ADMIN", "SETUID", "SETGID", "DAC_OVERRIDE"]


def test_notice_lists_every_locked_package_with_its_licence():
    licences = operator_tool("licences")
    text = (ROOT / "NOTICE").read_text()
    listed = text.split(licences.BEGIN + "\n")[1].split(licences.END)[0].splitlines()
    assert listed == licences.lines(), "run `deploy/licences.py --write NOTICE`"
    assert len(listed) == len(licences.pins()) > 60


def test_the_compose_files_images_are_this_versions():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    images = [s["image"] for s in yaml.safe_load(COMPOSE.read_text())["services"].values()]
    assert images and all(image.endswith(f":${{IMAGE_TAG:-{version}}}") for image in images)


def test_replicas_and_the_worker_get_what_the_sandbox_needs_and_no_more():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    for name in ("replica1", "replica2", "worker"):
        service = services[name]
        assert service["cap_drop"] == ["ALL"] and service["cap_add"] == SANDBOX_CAPS, name
        assert service["security_opt"] == ["systempaths=unconfined"], name
        assert "privileged" not in service and "user" not in service, name
    for name in ("postgres", "migrate", "haproxy", "backup"):
        assert "cap_add" not in services[name], name


def test_the_grafana_dashboard_asks_only_for_metrics_a_replica_serves(monkeypatch):
    from app.services import metrics
    from grader.sandbox import Load

    monkeypatch.setattr(metrics.LIVE, "sandbox", lambda: Load(2, 0, 0, 2))
    monkeypatch.setattr(metrics.LIVE, "runs", lambda: {})
    monkeypatch.setattr(metrics.LIVE, "sessions", lambda: 0)
    families = text_string_to_metric_families(metrics.exposition().decode())
    served = {sample.name for family in families for sample in family.samples} | {"up"}
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    asked = {name for q in queries for name in re.findall(r"\b(ninja_\w+|process_\w+|up)\b", q)}
    assert asked - served == set(), "the dashboard asks for metrics no replica serves"
    families = {n for n in asked if n.startswith("ninja_")}
    assert len(families) >= 10, sorted(families)  # every family of docs/operations.md's table
    assert dashboard["__inputs"][0]["pluginId"] == "prometheus"
