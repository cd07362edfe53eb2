"""Back up and restore the progress database: `python -m app.storage backup|restore`.

PostgreSQL goes through its own tools: `pg_dump --format=custom` (a consistent snapshot while the
class works) and `pg_restore` into an empty database, in one transaction. SQLite goes through
its online backup API (a consistent copy while the app runs), restored into a file that does not
exist yet. A backup is written beside its final name and renamed into place, readable by its
owner only (it holds every learner's work). Restore never overwrites: the target database must be
empty (docs/operations.md says how to empty it for a roll-back).

    >>> backup("postgresql://ninja@db/ninja", Path("/var/backups/backprop-ninja"))
    PosixPath('/var/backups/backprop-ninja/progress-20261206T101500Z.pgdump')
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

from app.config.dburl import SQLITE, StorageError, kind, redact

PG_MAGIC, SQLITE_MAGIC = b"PGDMP", b"SQLite format 3\x00"
SUFFIX = {SQLITE: ".sqlite3", "postgresql": ".pgdump"}
TIMEOUT = 6 * 3600  # seconds a dump or a restore may take (a large class on a slow disk)


def backup(url: str, target: Path) -> Path:
    """Write a backup of the database at url to target (a file, or a folder to name one in);
    return the file written."""
    engine = kind(url)
    if target.is_dir():
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = target / f"progress-{stamp}{SUFFIX[engine]}"
    if target.exists():
        raise StorageError(f"{target} exists already: a backup never overwrites a file.")
    partial = target.with_name(f".{target.name}.part")
    _private(partial)
    try:
        if engine == SQLITE:
            _sqlite_copy(_sqlite_file(url), partial)
        else:
            _run(_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                 f"--file={partial}", url=url)  # fmt: skip
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def restore(url: str, source: Path) -> None:
    """Restore the backup in source into the database at url, which must be empty."""
    engine = kind(url)
    found = _kind_of(source)
    if found != engine:
        raise StorageError(f"{source} is a {found} backup; {redact(url)} is a {engine} database.")
    if engine == SQLITE:
        path = _sqlite_file(url)
        if path.exists():
            raise StorageError(f"{path} exists: restore into a file that does not exist yet.")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _private(path)
        _sqlite_copy(source, path)
        return
    _refuse_nonempty(url)
    _run(_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
         "--single-transaction", str(source), url=url)  # fmt: skip


def _kind_of(source: Path) -> str:
    """Return which engine a backup file is for, from its first bytes."""
    try:
        with source.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
    except OSError as err:
        raise StorageError(f"Cannot read the backup {source}: {err.strerror}.") from None
    if head.startswith(PG_MAGIC):
        return "postgresql"
    if head == SQLITE_MAGIC:
        return SQLITE
    raise StorageError(f"{source} is not a backup made by `python -m app.storage backup`.")


def _sqlite_file(url: str) -> Path:
    return Path(url.split("///", 1)[1].split("?", 1)[0])


def _sqlite_copy(source: Path, target: Path) -> None:
    """Copy a SQLite database page by page with its backup API (consistent while in use)."""
    if not source.is_file():
        raise StorageError(f"There is no SQLite database at {source}.")
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
        checked = dst.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.DatabaseError as err:
        raise StorageError(f"SQLite could not copy {source}: {err}.") from None
    finally:
        src.close()
        dst.close()
    if checked != "ok":
        raise StorageError(f"The copy of {source} failed SQLite's integrity check.")


def _private(path: Path) -> None:
    """Create path empty, readable and writable by its owner only."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _refuse_nonempty(url: str) -> None:
    """Refuse a PostgreSQL database that holds any table already."""
    import psycopg

    conninfo, secret = _libpq(url)
    with psycopg.connect(conninfo, **secret, connect_timeout=30) as db:
        found = db.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog',"
            " 'information_schema')"
        ).fetchone()[0]
    if found:
        raise StorageError(
            f"{redact(url)} holds {found} tables: restore into an empty database"
            ' (docs/operations.md, "Roll back").'
        )


def _tool(name: str) -> str:
    """Return PostgreSQL's program name: the newest server version's, else the one on PATH."""
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=_major)
    found = versions[-1] if versions else shutil.which(name)
    if not found:
        raise StorageError(f"{name} is not installed (Debian: postgresql-client).")
    return found


def _major(path: str) -> int:
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


def _libpq(url: str) -> tuple[str, dict]:
    """Return libpq's connection string for url without its password, and the password apart
    (given to the tools through their environment, never on a command line)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict("postgresql:" + url.partition(":")[2])
    password = params.pop("password", None)
    return make_conninfo(**params), ({"password": password} if password else {})


def _run(program: str, *args: str, url: str) -> None:
    """Run a PostgreSQL tool on the database at url; its error is a StorageError."""
    conninfo, secret = _libpq(url)
    env = {**os.environ, **({"PGPASSWORD": secret["password"]} if secret else {})}
    done = subprocess.run(
        [program, f"--dbname={conninfo}", *args],
        env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise StorageError(f"{Path(program).name} failed: {done.stderr.strip()[-2000:]}")
