"""The tables declared once (app/storage/tables.py) are what the Alembic revisions build: an empty
database upgraded to the head has exactly their tables, columns, types, defaults, keys and
indexes, on SQLite and on PostgreSQL (Alembic's own comparison, as `alembic check` runs it)."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from app.storage.engine import make_engine
from app.storage.schema import upgrade
from app.storage.tables import metadata


def _ours(name: str | None, type_: str) -> bool:
    """Leave out Alembic's own table and procrastinate's (the classroom's queue, revision 0004)."""
    return not (
        type_ == "table" and (name == "alembic_version" or name.startswith("procrastinate"))
    )


def _plain(default: str | None) -> str | None:
    """Return a server default without the quotes, parentheses and casts each engine adds."""
    if default is None:
        return None
    text = re.sub(r"::[a-z ]+", "", str(default)).strip("()")
    return text.strip("'")


def _defaults_differ(ctx, found_column, declared_column, found, declared, rendered) -> bool:
    """Compare a column's server default as the engine reports it with the declared one."""
    return _plain(found) != _plain(rendered)


def differences(engine: sa.Engine, declared: sa.MetaData = metadata) -> list:
    """Return what Alembic finds between the database and tables.py ([] when they agree)."""
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "compare_server_default": _defaults_differ,
                "include_name": lambda name, type_, parent: _ours(name, type_),
            },
        )
        return compare_metadata(context, declared)


@pytest.fixture
def upgraded(store_url):
    """Return an engine on an empty database brought to the head (SQLite, then PostgreSQL)."""
    engine = make_engine(store_url)
    upgrade(engine)
    yield engine
    engine.dispose()


def test_upgrading_to_the_head_gives_exactly_the_declared_tables(upgraded):
    assert differences(upgraded) == []
    inspector = sa.inspect(upgraded)
    assert set(metadata.tables) <= set(inspector.get_table_names())
    found = [i for t in metadata.tables for i in inspector.get_indexes(t)]
    indexes = {i["name"] for i in found if not i.get("duplicates_constraint")}  # a UNIQUE's own
    assert indexes == {i.name for table in metadata.tables.values() for i in table.indexes}


def test_a_column_the_revisions_lack_is_a_difference(upgraded):
    declared = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(declared)
    declared.tables["word_lists"].append_column(sa.Column("kept_by", sa.Text()))
    found = differences(upgraded, declared)
    assert [(d[0], d[2], d[3].name) for d in found] == [("add_column", "word_lists", "kept_by")]
