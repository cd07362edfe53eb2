"""The progress store's command line: `python -m app.storage <verb>`.

    python -m app.storage upgrade                         # bring the schema to the code's head
    python -m app.storage check                           # exit 2 unless it is there
    python -m app.storage export --identity "ISS SUB"     # one learner's data, as JSON
    python -m app.storage delete --profile 7 --yes        # one learner's data, gone
    python -m app.storage audit                           # who read or changed learners' data
    python -m app.storage backup /var/backups/ninja/      # the whole database, to a file
    python -m app.storage restore FILE                    # into an empty database

The database is `NINJA_DATABASE_URL` (or the local default of app/config/settings.py), or `--url`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import ConfigError, StorageError, from_env
from app.config.dburl import redact
from app.storage import auditlog, backup
from app.storage.engine import StorageUnavailable, make_engine
from app.storage.migrations import DEFAULT_COURSE
from app.storage.schema import UPGRADE, check, current, head, sqlite_path, upgrade
from app.storage.store import open_store

if TYPE_CHECKING:
    from app.storage.profiles import Profile
    from app.storage.store import Store

AUDIT_FORMAT = "backprop-ninja/audit-log/1"


def main(argv: list[str] | None = None) -> int:
    """Run one verb; say what went wrong in one line (exit 2) rather than a traceback."""
    args = _parser().parse_args(argv)
    try:
        url = args.url or from_env(os.environ).database_url
        return args.verb(args, url)
    except (ConfigError, StorageError, StorageUnavailable) as err:
        before = "Not starting: " if args.verb is _check else ""  # scripts/run's check
        print(f"{before}{err}", file=sys.stderr)
        return 2


def _upgrade(args: argparse.Namespace, url: str) -> int:
    """Bring the database's schema to the code's head."""
    engine = make_engine(url)
    path = sqlite_path(engine)
    before = current(engine) if path is None or path.exists() else None
    if path is None:
        upgrade(engine)
    else:
        open_store(url)  # creates the file (0600, in a 0700 folder) if new, and upgrades it
    print(f"{redact(url)}: schema {before or 'none'} -> {head()}")
    return 0


def _check(args: argparse.Namespace, url: str) -> int:
    """Exit 0 when the schema is at the code's head (a SQLite file upgrades itself: 0 too)."""
    engine = make_engine(url)
    if engine.dialect.name != "sqlite":
        check(engine)
    return 0


def _export(args: argparse.Namespace, url: str) -> int:
    """Print (or write) one learner's data as JSON."""
    store = open_store(url)
    profiles = _chosen(store, args)
    store.audit.record_many(auditlog.command_line(), auditlog.EXPORT, _whose(profiles))
    data = store.privacy.export_profiles(profiles)  # with the entry just made
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    else:
        print(text)
    return 0


def _delete(args: argparse.Namespace, url: str) -> int:
    """Delete one learner's data, after --yes."""
    store = open_store(url)
    profiles = _chosen(store, args)
    names = ", ".join(f"{p.id} ({p.name})" for p in profiles)
    if not args.yes:
        print(f"Would delete profile {names} and all their rows: add --yes.", file=sys.stderr)
        return 1
    gone = store.privacy.delete_profiles(profiles)
    details = {who: {**ids, "rows": gone} for who, ids in _whose(profiles).items()}
    store.audit.record_many(auditlog.command_line(), auditlog.DELETE, details)
    print(f"Deleted profile {names}: {gone} rows.")
    return 0


def _backup(args: argparse.Namespace, url: str) -> int:
    """Write the whole database to a file (or into a folder); say where."""
    written = backup.backup(url, args.target)
    print(f"{redact(url)}: backed up to {written} ({written.stat().st_size:,} bytes)")
    return 0


def _restore(args: argparse.Namespace, url: str) -> int:
    """Restore a backup into an empty database."""
    backup.restore(url, args.source)
    print(f"{redact(url)}: restored from {args.source}; next, `{UPGRADE}` if the code is newer")
    return 0


def _audit(args: argparse.Namespace, url: str) -> int:
    """Print the audit log's latest entries (this course's and the class-wide) as JSON."""
    store = open_store(url, args.course)
    entries = [asdict(e) for e in store.audit.entries(args.last)]
    print(json.dumps({"format": AUDIT_FORMAT, "entries": entries}, indent=2, ensure_ascii=False))
    return 0


def _whose(profiles: list[Profile]) -> dict[str, dict]:
    """Return {owner: {"profiles": [ids]}}: the audit log's subjects, and what of each."""
    found: dict[str, dict] = {}
    for p in profiles:
        found.setdefault(p.owner, {"profiles": []})["profiles"].append(p.id)
    return found


def _chosen(store: Store, args: argparse.Namespace) -> list[Profile]:
    """Return the profiles named by --identity or --profile; none found is an error."""
    if args.identity is not None:
        found = store.learners.profiles(args.identity)
    else:
        found = [p for p in [store.learners.profile(args.profile)] if p is not None]
    if not found:
        who = f"identity {args.identity!r}" if args.identity is not None else f"id {args.profile}"
        raise StorageError(f"No profile with {who} in this database.")
    return found


def _parser() -> argparse.ArgumentParser:
    """Return the parser: one sub-command per verb."""
    parser = argparse.ArgumentParser(
        prog="python -m app.storage", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--url", help="database URL (default: NINJA_DATABASE_URL or the local file)"
    )
    verbs = parser.add_subparsers(required=True)
    verbs.add_parser("upgrade", help="bring the schema to the code's head").set_defaults(
        verb=_upgrade
    )
    verbs.add_parser("check", help="exit 2 unless the schema is current").set_defaults(verb=_check)
    for name, verb, what in (("export", _export, "print"), ("delete", _delete, "delete")):
        sub = verbs.add_parser(name, help=f"{what} one learner's data")
        who = sub.add_mutually_exclusive_group(required=True)
        who.add_argument("--identity", help='the owner: "<issuer> <subject>" in the classroom')
        who.add_argument("--profile", type=int, help="a profile id")
        sub.set_defaults(verb=verb)
    verbs.choices["export"].add_argument("--out", help="write the JSON to this file")
    saved = verbs.add_parser("backup", help="write the whole database to a file")
    saved.add_argument("target", type=Path, help="the backup file, or a folder to write it in")
    saved.set_defaults(verb=_backup)
    restored = verbs.add_parser("restore", help="restore a backup into an empty database")
    restored.add_argument("source", type=Path, help="a file written by `backup`")
    restored.set_defaults(verb=_restore)
    verbs.choices["delete"].add_argument("--yes", action="store_true", help="really delete")
    audit = verbs.add_parser("audit", help="print the audit log's latest entries as JSON")
    audit.add_argument("--course", default=DEFAULT_COURSE, help="a course id (default: default)")
    audit.add_argument("--last", type=int, default=500, help="how many entries (default: 500)")
    audit.set_defaults(verb=_audit)
    return parser


if __name__ == "__main__":
    sys.exit(main())
