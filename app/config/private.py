"""Keep the app's data to the user it runs as: its folder made 0700, its database files 0600.

Only what the app creates or owns is changed: an existing folder (`/tmp`, a shared mount named
by a database URL) keeps its mode; an existing database file of ours is narrowed to 0600.

    >>> folder(Path("var"))      # created 0700 if missing
    >>> database(Path("var/progress.sqlite3"))   # created (empty) or narrowed to 0600
"""

from __future__ import annotations

import os
from pathlib import Path

FOLDER_MODE, FILE_MODE = 0o700, 0o600
SIDECARS = ("", "-wal", "-shm", "-journal")  # SQLite's own files beside a database


def folder(path: Path) -> Path:
    """Create path (its missing parents as usual) readable by its owner only; return it."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    return path


def database(path: Path) -> None:
    """Create an SQLite database file 0600 if missing, and narrow ours to 0600 with its
    sidecar files (SQLite gives a new -wal or -shm the database's own mode)."""
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    os.close(fd)
    for suffix in SIDECARS:
        sidecar = path.with_name(path.name + suffix)
        try:
            info = sidecar.lstat()
        except FileNotFoundError:
            continue
        if info.st_uid == os.geteuid() and not sidecar.is_symlink():
            sidecar.chmod(FILE_MODE)
