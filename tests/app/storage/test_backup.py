"""Backups (`python -m app.storage backup|restore`): a class's database backed up, dropped, and
restored into an empty one gives back every learner's attempts, drafts and runs, every row of
every table (counts and a digest), on SQLite and on the suite's PostgreSQL server."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from app.storage import open_store
from app.storage.__main__ import main
from app.storage.engine import make_engine

from .test_storage_privacy import ADA, BOB, _fill


def contents(url: str) -> dict[str, tuple[int, str]]:
    """Return each table's row count and a digest of its rows (sorted), the schema's version
    and the queue's tables included."""
    engine = make_engine(url)
    found = {}
    with engine.connect() as db:
        for table in sorted(inspect(engine).get_table_names()):
            rows = sorted(repr(tuple(row)) for row in db.execute(text(f'SELECT * FROM "{table}"')))
            found[table] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest())
    engine.dispose()
    return found


@pytest.fixture
def class_url(store_url):
    """Return a database holding two learners, each with a row in every table of theirs."""
    _fill(open_store(store_url), ADA, "ada")
    _fill(open_store(store_url, course="other"), BOB, "bob")
    return store_url


def drop(url: str, request) -> None:
    """Drop the database and make it again, empty (SQLite: delete its file)."""
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[1])
        path.unlink()
        assert not path.exists()
        return
    server = request.getfixturevalue("postgres")
    name = url.split("?")[0].rsplit("/", 1)[1]
    server.sql("postgres", f"DROP DATABASE {name} WITH (FORCE)")
    server.sql("postgres", f"CREATE DATABASE {name}")
    assert contents(url) == {}


def test_a_restore_into_an_empty_database_gives_back_every_row(class_url, tmp_path, request):
    before = contents(class_url)
    for table in ("attempts", "drafts", "training_runs", "profiles"):
        assert before[table][0] >= 2, table  # both learners have rows there
    folder = tmp_path / "backups"
    folder.mkdir()
    assert main(["--url", class_url, "backup", str(folder)]) == 0
    (written,) = folder.iterdir()
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    drop(class_url, request)
    assert main(["--url", class_url, "restore", str(written)]) == 0
    assert contents(class_url) == before
    assert main(["--url", class_url, "check"]) == 0


def test_a_restore_never_overwrites_a_database_in_use(class_url, tmp_path, capsys):
    backup = tmp_path / "class.backup"
    assert main(["--url", class_url, "backup", str(backup)]) == 0
    assert main(["--url", class_url, "backup", str(backup)]) == 2
    assert "exists already" in capsys.readouterr().err
    before = contents(class_url)
    assert main(["--url", class_url, "restore", str(backup)]) == 2
    assert "restore into" in capsys.readouterr().err
    assert contents(class_url) == before


def test_a_file_that_is_no_backup_is_refused(tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/progress.sqlite3"
    (tmp_path / "notes.txt").write_text("not a backup")
    assert main(["--url", url, "restore", str(tmp_path / "notes.txt")]) == 2
    assert "is not a backup made by" in capsys.readouterr().err
    assert not (tmp_path / "progress.sqlite3").exists()
