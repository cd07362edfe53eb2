"""The whole app on PostgreSQL while the database is down: every page says "try again" in one
message, with no traceback, and works again once the database is back."""

from __future__ import annotations

from app.storage.engine import make_engine
from app.storage.schema import upgrade

from ..app_helpers import main_test, texts

TRY_AGAIN = "The progress database is not answering right now. Try again in a moment"


def test_the_app_says_try_again_while_the_database_is_down(fake, postgres, monkeypatch):
    url = postgres.new_database()
    upgrade(make_engine(url))
    monkeypatch.setenv("NINJA_DATABASE_URL", url)
    at = main_test().run()
    assert not at.exception and TRY_AGAIN not in texts(at)
    postgres.stop()
    try:
        down = main_test().run()
        assert not down.exception
        assert [e.value for e in down.error if TRY_AGAIN in e.value], texts(down)
    finally:
        postgres.start_again()
    back = main_test().run()
    assert not back.exception and TRY_AGAIN not in texts(back)
