"""LTI 1.3's command line (app/classroom/lti/__main__.py): a registration added and listed, and a
new key pair whose public half /lti/jwks publishes (app/classroom/lti/keys.py)."""

from __future__ import annotations

import json
import tomllib

import jwt

from app.classroom.lti import keys
from app.classroom.lti.__main__ import main


def test_a_registration_is_added_once_and_listed(tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/progress.sqlite3"
    flags = ["--issuer", "https://moodle.uni.test", "--client-id", "abc"]
    flags += ["--login-url", "L", "--token-url", "T", "--keys-url", "K", "--deployment", "1"]
    assert main(["--url", url, "register", *flags]) == 0
    assert main(["--url", url, "register", *flags[:-1], "2"]) == 0  # the same one, replaced
    capsys.readouterr()
    assert main(["--url", url, "list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["issuer"], r["client_id"], r["deployments"]) for r in listed] == [
        ("https://moodle.uni.test", "abc", ["2"])
    ]


def _new_section(args: list[str], capsys) -> dict:
    """Run a key verb; return the `[lti]` section it printed."""
    assert main(args) == 0
    return tomllib.loads(capsys.readouterr().out)["lti"]


def _verifies(token: str, section: dict) -> bool:
    """Return whether a token checks against the key set /lti/jwks publishes for a section,
    as a platform checks the tool's requests (the key its kid names)."""
    published = jwt.PyJWKSet.from_dict(keys.jwks(section))
    try:
        key = published[jwt.get_unverified_header(token)["kid"]]
    except KeyError:
        return False
    return jwt.decode(token, key.key, algorithms=["RS256"]) == {"sub": "tool"}


def test_a_new_key_is_published_as_its_public_half(capsys, tmp_path):
    secrets = tmp_path / "secrets.toml"
    section = _new_section(["--secrets", str(secrets), "new-key"], capsys)
    (published,) = keys.jwks(section)["keys"]
    assert published["kid"] == section["kid"] and "d" not in published, "never the private part"
    signed = jwt.encode({"sub": "tool"}, section["private_key"], "RS256", {"kid": section["kid"]})
    assert _verifies(signed, section)


def test_a_rotated_key_verifies_until_it_is_retired(capsys, tmp_path):
    secrets = tmp_path / "secrets.toml"
    first = _new_section(["--secrets", str(secrets), "new-key"], capsys)
    secrets.write_text(keys.toml(first))
    old = jwt.encode({"sub": "tool"}, first["private_key"], "RS256", {"kid": first["kid"]})
    rotated = _new_section(["--secrets", str(secrets), "new-key"], capsys)
    assert rotated["kid"] != first["kid"] and rotated["previous"][0]["kid"] == first["kid"]
    assert _verifies(old, rotated), "an LMS's request signed before the rotation still checks"
    secrets.write_text(keys.toml(rotated))
    assert main(["--secrets", str(secrets), "retire-key", rotated["kid"]]) == 2, "the current one"
    assert "the current key" in capsys.readouterr().err
    retired = _new_section(["--secrets", str(secrets), "retire-key", first["kid"]], capsys)
    assert "previous" not in retired and retired["kid"] == rotated["kid"]
    assert not _verifies(old, retired), "a retired key is no longer published"
    new = jwt.encode({"sub": "tool"}, retired["private_key"], "RS256", {"kid": retired["kid"]})
    assert _verifies(new, retired)
