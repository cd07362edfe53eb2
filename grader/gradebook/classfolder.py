"""Read a class folder without ever following a link: every odd entry is named, never opened.

Each entry is looked at with `lstat` relative to its open folder, and everything is opened
relative to an open folder with O_NOFOLLOW (a folder swapped for a link after it was listed is
refused too), so no file outside the class folder becomes a learner's answer. Files are opened
non-blocking, so a FIFO cannot stall the grading.

    >>> [(e.name, e.kind) for e in listing(Path("class"))]
    [('ada.py', 'file'), ('grace', 'folder'), ('mallory.py', 'odd')]
    >>> read(Path("class"), ("grace", "dh.py"), 4 << 20)
    b'dh = dlogits @ W2.T\\n'
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

FILE, FOLDER, ODD = "file", "folder", "odd"
LINK = "a symbolic link, which is never followed"
ODD_KINDS = {
    stat.S_IFLNK: LINK,
    stat.S_IFIFO: "a FIFO (named pipe), not a file",
    stat.S_IFCHR: "a device, not a file",
    stat.S_IFBLK: "a device, not a file",
    stat.S_IFSOCK: "a socket, not a file",
}
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class Refused(Exception):
    """An entry that cannot be read as a submission; the message says why, e.g. `a FIFO`."""


@dataclass(frozen=True)
class Entry:
    """One name in a folder: a regular file, a folder, or something odd and why it is."""

    name: str
    kind: str  # FILE, FOLDER or ODD
    why: str = ""
    mtime: float = 0.0  # its own modification time (of the link, never of its target)


def listing(root: Path, parts: tuple[str, ...] = ()) -> list[Entry]:
    """Return the entries of the folder root/parts, sorted by name; Refused if it cannot be
    read (root itself may be a link: the instructor named it; nothing under it may)."""
    with _folder(root, parts) as fd:
        try:
            names = sorted(os.listdir(fd))
        except OSError as err:
            raise Refused(_reason(err)) from None
        return [_entry(fd, name) for name in names]


def decodable(name: str) -> bool:
    """Return whether a file name was valid UTF-8 (an undecodable byte became a surrogate)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _entry(fd: int, name: str) -> Entry:
    """Describe one name of an open folder by its own status, never its link's target's."""
    if not decodable(name):
        return Entry(name, ODD, "its name is not UTF-8")
    try:
        own = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError as err:
        return Entry(name, ODD, _reason(err))
    mode = own.st_mode
    if stat.S_ISREG(mode):
        return Entry(name, FILE, mtime=own.st_mtime)
    if stat.S_ISDIR(mode):
        return Entry(name, FOLDER)
    return Entry(name, ODD, ODD_KINDS.get(stat.S_IFMT(mode), "not a regular file"))


def read(root: Path, parts: tuple[str, ...], limit: int) -> bytes:
    """Return up to `limit` bytes of the regular file root/parts, reached without a link;
    Refused if any part of the way is a link, or the file is odd or cannot be read."""
    *folders, name = parts
    with _folder(root, tuple(folders)) as fd:
        try:
            file = os.open(name, FILE_FLAGS, dir_fd=fd)
        except OSError as err:
            raise Refused(_reason(err)) from None
    with os.fdopen(file, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise Refused(ODD_KINDS.get(stat.S_IFMT(mode), "not a regular file"))
        try:
            return f.read(limit)
        except OSError as err:
            raise Refused(_reason(err)) from None


@contextmanager
def _folder(root: Path, parts: tuple[str, ...]):
    """Yield a descriptor of root/parts, each part opened with O_NOFOLLOW; Refused if not."""
    try:
        fd = os.open(root, FOLDER_FLAGS)
    except OSError as err:
        raise Refused(_reason(err)) from None
    try:
        for part in parts:
            try:
                inner = os.open(part, FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as err:
                raise Refused(_reason(err)) from None
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _reason(err: OSError) -> str:
    """Return why an open failed, as a phrase (a link met with O_NOFOLLOW says so)."""
    if err.errno == errno.ELOOP:
        return LINK
    if err.errno == errno.ENOTDIR:
        return "a part of its path is not a folder"
    if err.errno == errno.ENOENT:
        return "it is not there"
    return f"it cannot be read ({err.strerror or err})"
