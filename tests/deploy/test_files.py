"""The deployment's files agree with the code: NOTICE lists every package of the lock at its
version with the licence its metadata declares (deploy/licences.py), the compose file's images
default to this version, and what it gives the sandbox is what docs/operations.md measured."""

from __future__ import annotations

import tomllib

import yaml

from .conftest import ROOT, operator_tool

COMPOSE = ROOT / "deploy" / "compose.yaml"
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
