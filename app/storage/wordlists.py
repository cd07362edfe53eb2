"""Uploaded word lists, readable by every process of a class.

The app cleans an upload, writes the words under its uploads folder (`<digest>/<name>.txt`, the
digest being the words' sha256) and keeps them in the database too. A learner's dataset choice
names the file (`upload:<path>`). Another replica, a training worker on another machine or the
regrade command finds the path missing on its own disk: it reads the words from the database by
the digest in the path, checks them against it, and writes its own copy.

    >>> path = save(store, uploads, "rex\\nfido\\n", "pets.csv")   # .../<digest>/pets.txt
    >>> readable(store, other_uploads, str(path))                  # other_uploads/<digest>/pets.txt
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

PREFIX = "upload:"  # a dataset source naming an uploaded word list


def digest_of(words: str) -> str:
    """Return the digest that names a word list (12 hex digits of its sha256)."""
    return hashlib.sha256(words.encode("utf-8")).hexdigest()[:12]


def save(store, uploads_dir: Path, words: str, filename: str) -> Path:
    """Write cleaned words under the uploads folder and keep them in the store; return the path."""
    digest = digest_of(words)
    path = uploads_dir / digest / f"{Path(filename).stem or 'words'}.txt"
    _write(path, words)
    store.keep_words(digest, path.name, words)
    return path


def readable(store, uploads_dir: Path, named: str) -> Path:
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
    kept = store.words(digest) if digest else None
    if kept is None or digest_of(kept[1]) != digest:
        return given
    mine = uploads_dir / digest / Path(kept[0]).name
    _write(mine, kept[1])
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
