"""The LTI tests' fixtures: the platform of our own on loopback (lms_platform.py), the tool's
database in the session's PostgreSQL with the platform registered, a client of the tool's
routes, and the tool's key pair."""

from __future__ import annotations

import logging

import pytest
from jwcrypto.jwk import JWK
from starlette.applications import Starlette
from starlette.testclient import TestClient

from app.classroom import lti
from app.storage import open_store
from app.storage.engine import make_engine
from app.storage.schema import upgrade

from .lms_platform import Platform


@pytest.fixture(autouse=True)
def lti_log(monkeypatch):
    """Hear app.lti's log lines even after import-linter's dictConfig (tests/test_layers.py, in
    this process) disabled every logger that existed then."""
    monkeypatch.setattr(logging.getLogger("app.lti"), "disabled", False)


@pytest.fixture(scope="module")
def platform():
    found = Platform()
    yield found
    found.close()


@pytest.fixture(scope="module")
def database(postgres, platform):
    """Return a database of the tool's, upgraded, with the platform registered."""
    url = postgres.new_database()
    upgrade(make_engine(url))
    store = open_store(url, "default")
    store.lti.add(platform.registration())
    store.engine.dispose()
    return url


@pytest.fixture
def tool(database, tmp_path, monkeypatch):
    """Return a client of the LTI routes on the tool's database."""
    monkeypatch.setenv("NINJA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("NINJA_DATABASE_URL", database)
    return TestClient(Starlette(routes=lti.ROUTES))


@pytest.fixture(scope="module")
def tool_key(platform) -> tuple[str, str]:
    """Return the tool's key pair (PEM, kid), its public half given to the platform."""
    key = JWK.generate(kty="RSA", size=2048, kid="tool-1")
    platform.tool_key = JWK.from_json(key.export_public())
    return key.export_to_pem(private_key=True, password=None).decode(), "tool-1"
