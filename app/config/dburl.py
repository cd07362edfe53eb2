"""Database URLs: which engine one names, refused with one line when it names none.

    >>> kind("sqlite:////srv/ninja/progress.sqlite3"), kind("postgresql://ninja@db/ninja")
    ('sqlite', 'postgresql')

It imports nothing heavy and nothing of app.storage: settings.py checks the URL before the
server starts, and the store (app/storage/) opens it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

SQLITE, POSTGRESQL = "sqlite", "postgresql"
SHAPES = "`sqlite:///<path>` or `postgresql://<user>@<host>/<database>`"
SCHEMES = {
    "sqlite": SQLITE,
    "postgresql": POSTGRESQL,
    "postgres": POSTGRESQL,
    "postgresql+psycopg": POSTGRESQL,
}
SQLITE_PREFIX = "sqlite:///"


class StorageError(ValueError):
    """A database URL or a profile name cannot be used; the message says why."""


def kind(url: str) -> str:
    """Return SQLITE or POSTGRESQL for a usable URL; raise StorageError saying what is wrong."""
    scheme, colon, _ = url.partition(":")
    found = SCHEMES.get(scheme.lower()) if colon else None
    if found is None:
        raise StorageError(f"The database URL must look like {SHAPES}: got {redact(url)!r}.")
    if found == SQLITE:
        _check_sqlite(url)
    else:
        _check_postgresql(url)
    return found


def _check_sqlite(url: str) -> None:
    """Refuse a SQLite URL without a file path (or an in-memory one, which keeps nothing)."""
    path = url[len(SQLITE_PREFIX) :] if url.startswith(SQLITE_PREFIX) else ""
    if not path or path.endswith(":memory:"):
        raise StorageError(f"The database URL must look like `sqlite:///<path>`: got {url!r}.")


def _check_postgresql(url: str) -> None:
    """Refuse a PostgreSQL URL that names no database or has an unreadable port."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (reading it validates it)
    except ValueError:
        raise StorageError(f"The database URL has a bad port: {redact(url)!r}.") from None
    if not parts.path.strip("/") or "/" in parts.path.strip("/"):
        raise StorageError(
            f"The database URL must name one database, `postgresql://<user>@<host>/<database>`:"
            f" got {redact(url)!r}."
        )


def driver_url(url: str) -> str:
    """Return the URL SQLAlchemy opens: PostgreSQL always through psycopg 3."""
    if kind(url) == SQLITE:
        return url
    return "postgresql+psycopg:" + url.partition(":")[2]


def redact(url: str) -> str:
    """Return url without its password, fit for a message or a log."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()
