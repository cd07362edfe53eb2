"""The schema's version: Alembic's revisions (app/storage/alembic/versions/), applied by one
command, `python -m app.storage upgrade` (docs/classroom.md), and checked when a store opens.

SQLite (the local mode) upgrades itself when opened: one person's file, one server, and an
older version's file (schema 1 to 6, before Alembic) is first brought to schema 6 by legacy.py.
PostgreSQL is upgraded only by the command: replicas starting together must not race to
change a class's schema, so a store behind the code's head is refused (SchemaBehind).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from app.storage.engine import StorageUnavailable, transaction
from app.storage.legacy import bring_to_six, is_legacy

SCRIPTS = Path(__file__).resolve().parent / "alembic"
UPGRADE = "python -m app.storage upgrade"
FIRST = "0001"  # schema 6, the last one written by hand


class SchemaBehind(StorageUnavailable):
    """The database's schema is older than the code's: the upgrade command must run first."""


def head() -> str:
    """Return the code's newest revision."""
    return ScriptDirectory.from_config(_config()).get_current_head()


def current(engine: Engine) -> str | None:
    """Return the database's revision (None: no schema yet)."""
    with transaction(engine) as db:
        return MigrationContext.configure(db.connection).get_current_revision()


def upgrade(engine: Engine, to: str = "head") -> None:
    """Bring the database to a revision (the head by default), in one transaction."""
    path = sqlite_path(engine)
    if path is not None and is_legacy(path):
        bring_to_six(path)
        _run(engine, command.stamp, FIRST)
    _run(engine, command.upgrade, to)


def check(engine: Engine) -> None:
    """Raise SchemaBehind unless the database is at the code's head."""
    found, wanted = current(engine), head()
    if found != wanted:
        raise SchemaBehind(
            f"The progress database is at schema {found or 'none'}, the code needs {wanted}:"
            f" run `{UPGRADE}` (docs/classroom.md)."
        )


def sqlite_path(engine: Engine) -> Path | None:
    """Return the file of a SQLite engine, None for a server database."""
    if engine.dialect.name != "sqlite":
        return None
    return Path(engine.url.database)


def _run(engine: Engine, step: Callable[[Config, str], None], revision: str) -> None:
    """Run one Alembic command on a connection of ours, in its transaction."""
    config = _config()
    with transaction(engine) as db:
        if db.dialect == "sqlite":  # one commit for all the steps (else one per statement), and
            db.execute("BEGIN IMMEDIATE")  # two servers opening one file upgrade it in turn
        config.attributes["connection"] = db.connection
        step(config, revision)


def _config() -> Config:
    """Return Alembic's configuration, made in code (no alembic.ini to find)."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS).replace("%", "%%"))
    return config
