"""The database URL in the configuration: refused before the server starts when unusable, and
the classroom mode refused on SQLite; the local mode needs no database server."""

from __future__ import annotations

import pytest

from app.config import ConfigError, check_database, from_env

PG = "postgresql://ninja@db.uni.edu/class"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "mysql://db/x",
            "`NINJA_DATABASE_URL`: The database URL must look like `sqlite:///<path>`",
        ),
        ("progress.db", "`NINJA_DATABASE_URL`: The database URL must look like"),
        ("postgresql://db.uni.edu", "must name one database"),
        ("postgresql://db.uni.edu:five/x", "has a bad port"),
        ("sqlite:///", "must look like `sqlite:///<path>`"),
    ],
)
def test_an_unusable_url_is_refused_naming_the_setting(url, message):
    with pytest.raises(ConfigError, match="NINJA_DATABASE_URL") as refused:
        from_env({"NINJA_DATABASE_URL": url})
    assert message in str(refused.value)


@pytest.mark.parametrize("url", [None, "sqlite:////srv/ninja/progress.sqlite3"])
def test_the_classroom_mode_on_sqlite_is_refused(url):
    settings = {"NINJA_MODE": "classroom"} | ({"NINJA_DATABASE_URL": url} if url else {})
    with pytest.raises(ConfigError, match="`NINJA_MODE=classroom` needs a PostgreSQL database"):
        check_database(from_env(settings))


def test_the_classroom_mode_on_postgresql_and_the_local_mode_on_sqlite_pass():
    check_database(from_env({"NINJA_MODE": "classroom", "NINJA_DATABASE_URL": PG}))
    check_database(from_env({}))
    assert from_env({"NINJA_DATABASE_URL": PG}).database_url == PG
