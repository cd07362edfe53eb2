"""Uploaded word lists, kept by their digest so that any process of a class can read them.

>>> store.keep_words("3f2a9c0d1b7e", "pets.txt", "rex\\nfido\\n")
>>> store.words("3f2a9c0d1b7e")
('pets.txt', 'rex\\nfido\\n')
"""

from __future__ import annotations

import time


class WordLists:
    """The Store's word lists (a mixin: `self._db()` yields one transaction)."""

    def keep_words(self, digest: str, name: str, words: str) -> None:
        """Keep a cleaned word list under its digest (kept once: the digest names the words)."""
        with self._db() as db:
            db.execute(
                "INSERT INTO word_lists (digest, name, words, created_at)"
                " VALUES (:d, :n, :w, :t) ON CONFLICT (digest) DO NOTHING",
                {"d": digest, "n": name, "w": words, "t": time.time()},
            )

    def words(self, digest: str) -> tuple[str, str] | None:
        """Return the file name and the words kept under a digest, or None."""
        with self._db() as db:
            row = db.execute(
                "SELECT name, words FROM word_lists WHERE digest = :d", {"d": digest}
            ).fetchone()
        return (row[0], row[1]) if row else None
