"""Uploaded word lists, readable by every process of a class.

The app cleans an upload, writes the words under its uploads folder (`<digest>/<name>.txt`, the
digest being the words' sha256) and keeps them in the database too. A learner's dataset choice
names the file (`upload:<path>`). Another replica, a training worker on another machine or the
regrade command finds the path missing on its own disk: it reads the words from the database by
the digest in the path, checks them against it, and writes its own copy. `load_dataset` is the
dataset a source names, as every process loads it (the pages, the worker, the regrade command).

    >>> path = save(store.word_lists, uploads, "rex\\nfido\\n", "pets.csv")  # <digest>/pets.txt
    >>> readable(store.word_lists, other_uploads, str(path))       # other_uploads/<digest>/pets.txt
    >>> store.word_lists.words(digest_of("rex\\nfido\\n"))         # ('pets.txt', 'rex\\nfido\\n')
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.storage.engine import Part

if TYPE_CHECKING:
    from data import Dataset

PREFIX = "upload:"  # a dataset source naming an uploaded word list


def digest_of(words: str) -> str:
    """Return the digest that names a word list (12 hex digits of its sha256)."""
    return hashlib.sha256(words.encode("utf-8")).hexdigest()[:12]


def save(kept: WordLists, uploads_dir: Path, words: str, filename: str) -> Path:
    """Write cleaned words under the uploads folder and keep them in the store; return the path."""
    digest = digest_of(words)
    path = uploads_dir / digest / f"{Path(filename).stem or 'words'}.txt"
    _write(path, words)
    kept.keep_words(digest, path.name, words)
    return path


def readable(kept: WordLists, uploads_dir: Path, named: str) -> Path:
    """Return a path on this machine holding the word list a source names: the named file if
    it is here, else this process's copy, written from the store when missing. A list the store
    does not have (or whose words do not match their digest) returns the named path, whose
    loading then says that the file is gone."""
    given = Path(named)
    if given.is_file():
        return given
    digest = given.parent.name
    mine = uploads_dir / digest / given.name
    if mine.is_file():
        return mine
    found = kept.words(digest) if digest else None
    if found is None or digest_of(found[1]) != digest:
        return given
    mine = uploads_dir / digest / Path(found[0]).name
    _write(mine, found[1])
    return mine


def _write(path: Path, words: str) -> None:
    """Write a word list whole or not at all (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".words-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(words)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_dataset(
    source: str, cache_dir: Path, uploads_dir: Path | None = None, kept: WordLists | None = None
) -> Dataset:
    """Return the dataset a source names: "default", "names" or "upload:<path>" (read from the
    store's word lists when this machine lacks the file, given them and this process's uploads
    folder)."""
    import data

    if source.startswith(PREFIX):
        named = source.removeprefix(PREFIX)
        found = readable(kept, uploads_dir, named) if kept and uploads_dir else named
        return data.load_dataset(str(found))
    return data.load_dataset(source, cache_dir=cache_dir)


class WordLists(Part):
    """The store's word lists, kept once under the digest of their words."""

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
