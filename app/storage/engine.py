"""One engine per database URL, the connection every store call runs in, and the parts of a store.

SQLite (the local mode) keeps a few connections open between calls (a connection is used by one
thread at a time; more are opened when more threads call at once, and closed after); PostgreSQL
keeps a pool whose connections are tested before use, so a server restarted mid-class costs the
calls made while it was down, and nothing after. A call that cannot reach the database raises
StorageUnavailable, which the app shows as "try again" (app/main.py).

    >>> with transaction(engine) as db:
    ...     db.execute("SELECT code FROM drafts WHERE profile_id = :p", {"p": 1}).fetchall()

A store (store.py) is made of parts, each a small object whose calls run in one transaction of
the store's (`Part._db()`); a room above storage adds its own (app/training/queue.py,
app/classroom/classview.py) the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import QueuePool
from sqlalchemy.sql import Executable
from sqlalchemy.sql.elements import TextClause

from app.config.dburl import SQLITE, driver_url, kind, redact

SQLITE_WAIT = 10  # seconds a SQLite writer waits for another's lock before giving up
# SQLite connections kept open between calls: opening one per call cost about 1 ms of CPU a
# call, and closing the last one checkpointed the WAL each time (bench/README.md, 2026-12-06)
SQLITE_KEPT = 5
POOL_SIZE, POOL_OVERFLOW = 10, 30  # PostgreSQL connections kept per process, and added at a peak


class StorageUnavailable(RuntimeError):
    """The database cannot be reached (down, restarting, locked); the call may be tried again."""


class Db:
    """A connection inside one transaction that runs SQL text with named parameters (`:name`),
    the one dialect both engines share."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def execute(self, sql: str | Executable, params: Mapping | None = None) -> CursorResult:
        """Run SQL text (or a SQLAlchemy statement) with its named parameters."""
        statement = statement_of(sql) if isinstance(sql, str) else sql
        return self.connection.execute(statement, dict(params or {}))

    def executemany(self, sql: str, rows: list[Mapping]) -> CursorResult:
        """Run SQL text once per row of named parameters, in one round of the driver."""
        return self.connection.execute(statement_of(sql), [dict(row) for row in rows])

    @property
    def dialect(self) -> str:
        """Return "sqlite" or "postgresql"."""
        return self.connection.dialect.name

    @property
    def driver(self) -> object:
        """Return the driver's own connection (psycopg's or sqlite3's), inside this transaction:
        a library that writes its own rows in our transaction takes it (procrastinate's defer)."""
        return self.connection.connection.driver_connection


@functools.lru_cache(maxsize=1024)
def statement_of(sql: str) -> TextClause:
    """Return the statement of an SQL text, made once per text and shared by every call (a
    statement is never changed once made): `text()` reads the text's named parameters again
    at each call, and a submission ran about ten statements."""
    return text(sql)


class Opened(Protocol):
    """What a part needs of its store (a Store): the engine and the course it keeps."""

    @property
    def engine(self) -> Engine: ...

    @property
    def course(self) -> str: ...


class Part:
    """Some of a store's calls, on the tables they own: each call runs in one transaction of
    its own (`self._db()`), with named parameters, for the store's course (`self.course`)."""

    def __init__(self, store: Opened):
        self.store = store

    @property
    def course(self) -> str:
        """Return the course whose progress the store keeps."""
        return self.store.course

    def _db(self) -> AbstractContextManager[Db]:
        """Return one transaction of the store's engine."""
        return transaction(self.store.engine)


def make_engine(url: str) -> Engine:
    """Return an engine for a database URL (app/config/dburl.py says which are usable)."""
    if kind(url) == SQLITE:
        engine = create_engine(
            url,
            poolclass=QueuePool,
            pool_size=SQLITE_KEPT,
            max_overflow=-1,  # no cap: a connection past the kept ones is closed after its call
            connect_args={"timeout": SQLITE_WAIT, "check_same_thread": False},
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(
        driver_url(url), pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW
    )


def _sqlite_pragmas(connection: object, _record: object) -> None:
    """Enforce foreign keys (SQLite leaves them off unless each connection asks)."""
    connection.execute("PRAGMA foreign_keys=ON")


@contextmanager
def transaction(engine: Engine) -> Iterator[Db]:
    """Yield a Db inside one transaction: committed on success, rolled back on an error; a
    database out of reach raises StorageUnavailable."""
    try:
        with engine.begin() as connection:
            yield Db(connection)
    except OperationalError as err:
        raise unavailable(engine, err) from err
    except DBAPIError as err:
        if not err.connection_invalidated:
            raise
        raise unavailable(engine, err) from err


def unavailable(engine: Engine, err: Exception) -> StorageUnavailable:
    """Return the error that says the database is out of reach (its URL without a password)."""
    where = redact(engine.url.render_as_string(hide_password=True))
    return StorageUnavailable(
        f"The progress database ({where}) did not answer: {err.__class__.__name__}."
    )
