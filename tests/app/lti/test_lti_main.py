"""LTI 1.3's command line (app/classroom/lti/__main__.py): a registration added and listed, and a
new key pair whose public half /lti/jwks publishes (app/classroom/lti/keys.py)."""

from __future__ import annotations

import json
import tomllib

import jwt
from jwcrypto.jwk import JWK

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


def test_a_new_key_is_published_as_its_public_half(capsys):
    assert main(["new-key"]) == 0
    section = tomllib.loads(capsys.readouterr().out)["lti"]
    pair = (section["private_key"], section["kid"])
    (published,) = keys.jwks(pair)["keys"]
    assert published["kid"] == section["kid"] and "d" not in published, "never the private part"
    signed = jwt.encode({"sub": "tool"}, section["private_key"], algorithm="RS256")
    public = JWK(**published).export_to_pem()
    assert jwt.decode(signed, public, algorithms=["RS256"]) == {"sub": "tool"}
