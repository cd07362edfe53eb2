"""Zygote-wide isolation, applied once at start-up while the zygote is still single-threaded.

It runs before torch is imported (unshare(CLONE_NEWNS) needs a single thread) and before this
package is imported, so it uses the standard library only. As root, the zygote and every worker
forked from it get:
- a network namespace with no interfaces (and a private IPC namespace and hostname);
- a mount namespace in which every mount is read-only except a private tmpfs /tmp, in which
  each run gets its own small tmpfs work dir (bounded in bytes and files, removed in one unmount);
  the project's parent directory, /root and /home are covered by empty tmpfs ("veiled") with only
  the Python installation and this package bound back, so solutions, data, .git and other
  projects are not there to read;
- a /proc that shows each unprivileged worker only its own processes.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import sys

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS = 0x20000, 0x40000000, 0x8000000, 0x4000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH, AT_FDCWD, AT_RECURSIVE = 2, -100, 0x8000
SYS_MOUNT_SETATTR, MOUNT_ATTR_RDONLY = 442, 1
# Where kept paths wait while a veil goes up: an empty directory outside every veiled one,
# covered by a throwaway tmpfs in the zygote's own mount namespace only.
STAGES = ("/media", "/mnt", "/srv", "/opt")
TMP_OPTIONS, VEIL_OPTIONS = "mode=0711,size=256m", "mode=0755,size=1m"
# Each run's work dir is its own tmpfs: bounded in bytes and files, and gone in one unmount
# however many files or how deep a tree the learner's code left in it.
WORKDIR_OPTIONS = "mode=0700,size=64m,nr_inodes=1024"
MOUNT_OPTIONS = {"ro": MS_RDONLY, "nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}

_LIBC = ctypes.CDLL(None, use_errno=True)
_spots = itertools.count()


def isolate(root: str) -> dict[str, str]:
    """Apply each zygote-wide layer the machine allows; return layer -> "on" / "unavailable: …"."""
    if os.geteuid() != 0:
        why = "unavailable: not running as root"
        return {"network": why, "filesystem": why, "procfs": why}
    layers = {"network": _attempt(_unshare, CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)}
    layers["filesystem"] = _attempt(_filesystem, root)
    if layers["filesystem"] == "on":
        layers["procfs"] = _attempt(_procfs)
    else:
        layers["procfs"] = "unavailable: no private mount namespace"
    return layers


def _attempt(step, *args) -> str:
    """Run one isolation step; return "on" or why it failed."""
    try:
        step(*args)
    except OSError as e:
        return f"unavailable: {e}"
    return "on"


def _filesystem(root: str) -> None:
    """Give the zygote a private, read-only mount tree with a private /tmp and veiled dirs.

    /tmp is veiled like the others, so a checkout or a venv under /tmp is bound back into it.
    """
    keeps = kept_paths(root)
    _unshare(CLONE_NEWNS)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    stage = next(d for d in STAGES if os.path.isdir(d) and not os.path.islink(d))
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,size=1m")
    targets = [t for t in veil_targets(root, keeps) if not _under(t, "/tmp")]
    for target in ["/tmp", *targets]:
        _veil(target, keeps, stage, TMP_OPTIONS if target == "/tmp" else VEIL_OPTIONS)
    _check(_LIBC.umount2(stage.encode(), MNT_DETACH), f"umount {stage}")
    _read_only("/")
    _mount(None, "/tmp", None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV)


def kept_paths(root: str) -> list[str]:
    """Return the real paths a worker needs to see: Python, its libraries and this package."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path}
    paths.add(os.path.join(root, "grader", "sandbox"))
    real = {os.path.realpath(p) for p in paths if p and os.path.exists(p)}
    project = os.path.realpath(root)
    return sorted(p for p in real if not _under(project, p))


def veil_targets(root: str, keeps: list[str]) -> list[str]:
    """Return the directories to cover: the project's parent (or itself), /root and /home."""
    project = os.path.realpath(root)
    parent = os.path.dirname(project)
    wanted = [project if parent == "/" else parent, "/root", "/home"]
    found = [t for t in dict.fromkeys(wanted) if os.path.isdir(t) and not os.path.islink(t)]
    found = [t for t in found if not any(_under(t, k) for k in keeps)]
    return [t for t in found if not any(t != o and _under(t, o) for o in found)]


def _under(path: str, top: str) -> bool:
    """Return whether path is top or inside it."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def _veil(target: str, keeps: list[str], stage: str, options: str) -> None:
    """Cover target with an empty tmpfs, binding back only the kept paths inside it."""
    inside = [k for k in keeps if _under(k, target)]
    inside = [k for k in inside if not any(k != o and _under(k, o) for o in inside)]
    staged = []
    for keep in inside:
        spot = _make_like(f"{stage}/{next(_spots)}", keep)
        _mount(keep, spot, None, MS_BIND | MS_REC)
        staged.append((keep, spot))
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options)
    try:
        for keep, spot in staged:
            os.makedirs(os.path.dirname(keep), mode=0o755, exist_ok=True)
            _mount(spot, _make_like(keep, spot), None, MS_BIND | MS_REC)
    except OSError:
        _LIBC.umount2(target.encode(), MNT_DETACH)  # undo, so Python stays importable
        raise
    for _, spot in staged:
        _check(_LIBC.umount2(spot.encode(), MNT_DETACH), f"umount {spot}")
        (os.rmdir if os.path.isdir(spot) else os.unlink)(spot)


def _make_like(path: str, model: str) -> str:
    """Create an empty directory (or file) at path, shaped like model; return path."""
    if os.path.isdir(model):
        os.mkdir(path, 0o755)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
    return path


def _read_only(top: str) -> None:
    """Make every mount at or below top read-only."""
    try:
        _set_attr(top, AT_RECURSIVE, set_=MOUNT_ATTR_RDONLY, clear=0)
    except OSError:
        for point, flags in _mounts(top):
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def _mounts(top: str) -> list[tuple[str, int]]:
    """Return the mount points at or below top with their per-mount flags."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")
            flags = sum(MOUNT_OPTIONS.get(o, 0) for o in fields[5].split(","))
            if _under(point, top):
                found.append((point, flags))
    return found


def mount_workdir(path: str, uid: int | None) -> None:
    """Mount a fresh small tmpfs on path, owned by the worker's uid (no devices, no exec)."""
    owner = "" if uid is None else f",uid={uid},gid={uid}"
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount("tmpfs", path, "tmpfs", flags, WORKDIR_OPTIONS + owner)


def unmount(path: str) -> None:
    """Detach the mount at path and everything in it."""
    _check(_LIBC.umount2(path.encode(), MNT_DETACH), f"umount {path}")


def _procfs() -> None:
    """Mount a /proc in which unprivileged workers see only their own processes."""
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    try:
        _mount("proc", "/proc", "proc", flags, "hidepid=invisible")
    except OSError:
        _mount("proc", "/proc", "proc", flags, "hidepid=2")


class _MountAttr(ctypes.Structure):
    """struct mount_attr for mount_setattr(2)."""

    _fields_ = [(n, ctypes.c_uint64) for n in ("set", "clr", "propagation", "userns_fd")]


def _set_attr(path: str, flags: int, set_: int, clear: int) -> None:
    """Call mount_setattr(2) on path."""
    attr = _MountAttr(set_, clear, 0, 0)
    args = (ctypes.c_int(AT_FDCWD), path.encode(), ctypes.c_uint(flags), ctypes.byref(attr))
    _check(_LIBC.syscall(SYS_MOUNT_SETATTR, *args, ctypes.c_size_t(32)), f"mount_setattr {path}")


def _unshare(flags: int) -> None:
    """Call unshare(2)."""
    _check(_LIBC.unshare(ctypes.c_int(flags)), "unshare")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data=None) -> None:
    """Call mount(2)."""
    args = [s.encode() if s else None for s in (source, target, fstype)]
    data = data.encode() if data else None
    _check(_LIBC.mount(*args, ctypes.c_ulong(flags), data), f"mount {target}")


def _check(result: int, what: str) -> None:
    """Raise OSError naming what failed when a libc call returned -1."""
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
