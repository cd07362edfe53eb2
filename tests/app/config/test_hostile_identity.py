"""A cookie the app did not write, and the privacy of what the app keeps on disk.

The identity cookie is parsed only when it is in the app's own format: anything else (non-ASCII,
malformed, oversized) gets the browser a new identity instead of an exception on every page.
The data directory is created 0700 and the progress database's files are 0600, so another local
user reads neither. No learner code runs here.
"""

from __future__ import annotations

import stat

import pytest

from app import services
from app.config import identity
from app.storage import open_store

from ..app_helpers import BROWSER, main_test

KEY = bytes(range(32))
SIGNED = identity.sign("a1b2", KEY)
FOREIGN = [
    ("non-ASCII identity", "é" + SIGNED),
    ("non-ASCII signature", SIGNED[:-1] + "é"),
    ("full-width digits", "ａ1b2." + SIGNED.partition(".")[2]),
    ("an emoji", "\U0001f36a"),
    ("a lone surrogate", "a1b2.\udc80"),
    ("a NUL", SIGNED + "\x00"),
    ("a trailing newline", SIGNED + "\n"),
    ("spaces around it", f" {SIGNED} "),
    ("upper-case hex", SIGNED.upper()),
    ("two dots", "a1b2." + SIGNED),
    ("an identity of 10,000 digits", "a" * 10_000 + "." + SIGNED.partition(".")[2]),
    ("a quoted value", f'"{SIGNED}"'),
]


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("case", "cookie"), FOREIGN, ids=[c for c, _ in FOREIGN])
def test_a_foreign_cookie_is_refused_not_raised_on(case, cookie):
    assert identity.verify(cookie, KEY) is None
    assert identity.verify(SIGNED, KEY) == "a1b2", "the app's own cookie still verifies"


@pytest.mark.parametrize("cookie", ["é.x", "ＡＢ.é", "a1b2.ä" + "0" * 63])
def test_a_non_ascii_cookie_gets_a_new_identity_and_the_page_renders(fake, browser, cookie):
    browser["cookie"] = cookie
    at = main_test().run()
    assert not at.exception, at.exception
    new = at.session_state[identity.SESSION_KEY]
    assert new != BROWSER and identity.FORMAT.fullmatch(identity.sign(new, b"k" * 32))
    scripts = [e.proto.body for e in at.get("html") if identity.COOKIE in e.proto.body]
    assert [identity.sign(new, services.identity_secret()) in s for s in scripts] == [True]


def test_the_data_directory_and_database_are_private(fake, app_env):
    main_test().run()
    store = services.store()
    store.learners.add_profile("ada", BROWSER)
    assert _mode(app_env) == 0o700
    files = sorted(p for p in app_env.iterdir() if p.name.startswith("progress.sqlite3"))
    assert files, list(app_env.iterdir())
    assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert _mode(app_env / identity.KEY_FILE) == 0o600


def test_a_new_store_creates_its_folder_0700_and_its_files_0600(tmp_path):
    folder = tmp_path / "new" / "var"
    store = open_store(f"sqlite:///{folder}/progress.sqlite3")
    store.learners.add_profile("ada")
    assert _mode(folder) == 0o700
    wal = folder / "progress.sqlite3-wal"
    assert _mode(folder / "progress.sqlite3") == 0o600 and (not wal.exists() or _mode(wal) == 0o600)


def test_an_old_readable_database_is_narrowed_and_its_folder_left_alone(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)  # a folder the app did not make: e.g. one a database URL names
    open_store(f"sqlite:///{folder}/progress.sqlite3").learners.add_profile("ada")
    for name in ("progress.sqlite3", "progress.sqlite3-wal", "progress.sqlite3-shm"):
        if (folder / name).exists():
            (folder / name).chmod(0o644)
    open_store(f"sqlite:///{folder}/progress.sqlite3")
    assert _mode(folder / "progress.sqlite3") == 0o600
    assert all(_mode(p) == 0o600 for p in folder.iterdir())
    assert _mode(folder) == 0o755
