"""LTI 1.3's command line (docs/lms.md): `python -m app.classroom.lti <verb>`.

    python -m app.classroom.lti register --issuer https://canvas.instructure.com \\
        --client-id 1000000001 --login-url URL --token-url URL --keys-url URL \\
        --deployment 7:abc                      # an LMS may launch the tool
    python -m app.classroom.lti list            # the registered LMSs, as JSON
    python -m app.classroom.lti new-key         # a key pair for .streamlit/secrets.toml
    python -m app.classroom.lti retire-key KID  # stop publishing a replaced key
    python -m app.classroom.lti sync            # send every launched learner's scores
    python -m app.classroom.lti roster          # read every course's roster (NRPS) now

The database is `NINJA_DATABASE_URL` (or the local default), or `--url`. `new-key` prints the
`[lti]` section to paste into the secrets file (never into git): a new key and kid, and the key
it replaces kept published (its public half, under `previous`) so that an LMS holding the old
key set still checks the tool's requests; `retire-key KID` prints the section without it, once
every LMS has fetched /lti/jwks again. Both read the secrets file in use (`--secrets`, else
`NINJA_SECRETS_FILE`, else Streamlit's .streamlit/secrets.toml).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from dataclasses import asdict

from jwcrypto.jwk import JWK

from app import services
from app.classroom.lti import keys
from app.config import streamlit_secrets
from app.storage import StorageUnavailable
from app.storage.lti import Registration
from app.storage.store import open_store


def main(argv: list[str] | None = None) -> int:
    """Run one verb; say what went wrong in one line (exit 2) rather than a traceback."""
    args = _parser().parse_args(argv)
    try:
        return args.verb(args)
    except (ValueError, StorageUnavailable) as err:  # a bad setting or URL (ConfigError, ...)
        print(err, file=sys.stderr)
        return 2


def _store(args: argparse.Namespace):
    return open_store(args.url or services.config().database_url)


def _register(args: argparse.Namespace) -> int:
    """Add (or replace) an LMS's registration."""
    found = Registration(
        args.issuer, args.client_id, args.login_url, args.token_url, args.keys_url,
        tuple(args.deployment),
    )  # fmt: skip
    _store(args).lti.add(found)
    print(f"Registered {found.issuer} (client id {found.client_id}): the LMS may launch the tool.")
    return 0


def _list(args: argparse.Namespace) -> int:
    """Print every registration as JSON."""
    print(json.dumps([asdict(r) for r in _store(args).lti.registrations()], indent=2))
    return 0


def _secrets(args: argparse.Namespace) -> dict:
    """Return the secrets in use: --secrets, else NINJA_SECRETS_FILE, else Streamlit's."""
    named = args.secrets or services.config().secrets_file
    return streamlit_secrets([str(named)] if named else None)


def _new_key(args: argparse.Namespace) -> int:
    """Print the secrets file's `[lti]` section with a new RSA key pair and kid, the key it
    replaces still published."""
    key = JWK.generate(kty="RSA", size=2048)
    pem = key.export_to_pem(private_key=True, password=None).decode()
    print(keys.toml(keys.rotated(keys.section(_secrets(args)), pem, str(uuid.uuid4()))), end="")
    return 0


def _retire_key(args: argparse.Namespace) -> int:
    """Print the secrets file's `[lti]` section without a replaced key."""
    print(keys.toml(keys.retired(keys.section(_secrets(args)), args.kid)), end="")
    return 0


def _sync(args: argparse.Namespace) -> int:
    """Send every launched learner's scores to their LMS; 1 if an LMS refused one."""
    from app.classroom.lti import grades

    key = keys.tool_key(_secrets(args))
    if key is None:
        print("No [lti] key in the secrets: run `new-key` first.", file=sys.stderr)
        return 2
    sent = grades.sync(_store(args), services.declared(), key)
    for p in sent:
        if not p.ok:
            print(f"{p.identity} {p.item}: refused ({p.status}): {p.answer}", file=sys.stderr)
    print(f"{sum(p.ok for p in sent)} of {len(sent)} score(s) taken by the LMS.")
    return 0 if all(p.ok for p in sent) else 1


def _roster(args: argparse.Namespace) -> int:
    """Read every roster an instructor's launch offered, now; 1 if one could not be read."""
    from app.classroom.lti import roster

    key = keys.tool_key(_secrets(args))
    if key is None:
        print("No [lti] key in the secrets: run `new-key` first.", file=sys.stderr)
        return 2
    done = roster.read_all(_store(args), key)
    for r in done:
        said = f"not read: {r.error}" if r.error else f"{r.added} new person(s)"
        print(f"{r.roster.title or r.roster.url}: {said}")
    if not done:
        print("No roster yet: an instructor's launch from the LMS offers the course's roster.")
    return 1 if any(r.error for r in done) else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app.classroom.lti", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--url", help="the database (default: NINJA_DATABASE_URL)")
    verbs = parser.add_subparsers(required=True)
    added = verbs.add_parser("register", help="let an LMS launch the tool")
    for name in ("issuer", "client-id", "login-url", "token-url", "keys-url"):
        added.add_argument(f"--{name}", required=True)
    added.add_argument("--deployment", action="append", default=[], help="a deployment id")
    added.set_defaults(verb=_register)
    verbs.add_parser("list", help="print the registered LMSs").set_defaults(verb=_list)
    parser.add_argument("--secrets", help="the secrets file (default: NINJA_SECRETS_FILE)")
    verbs.add_parser("new-key", help="print a key pair for the secrets").set_defaults(verb=_new_key)
    retire = verbs.add_parser("retire-key", help="print the secrets without a replaced key")
    retire.add_argument("kid")
    retire.set_defaults(verb=_retire_key)
    verbs.add_parser("sync", help="send every launched learner's scores").set_defaults(verb=_sync)
    verbs.add_parser("roster", help="read every course's roster now").set_defaults(verb=_roster)
    return parser


if __name__ == "__main__":
    sys.exit(main())
