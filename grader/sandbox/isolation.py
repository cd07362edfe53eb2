"""Zygote-wide isolation, applied once at start-up while the zygote is still single-threaded.

It runs before torch is imported (unshare needs a single thread) and before this package is
imported, so it uses the standard library only. Without root it first enters a user namespace
(as bubblewrap does), so root and non-root get the same layers wherever the kernel allows it:
- a network namespace with no interfaces (and a private IPC namespace and hostname);
- a new root: a read-only tmpfs holding only read-only binds of the system's libraries (/usr/lib),
  the Python installation, the venv, /dev/null-like devices and this package (unmounted by
  `seal` once the zygote has imported it), entered with pivot_root: the project, its
  solutions, /home, /root, /tmp and every other copy of the project are simply not there;
- a PID namespace of its own (held by a tiny init), so workers never see the zygote or the
  grader; each run then gets, in `enter_run`, its own mount and IPC namespaces, a fresh /proc
  of that PID namespace and a small tmpfs work dir, all gone when the worker ends.
"""

from __future__ import annotations

import ctypes
import os
import platform
import pwd
import shutil
import signal
import subprocess
import sys

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS = 0x20000, 0x40000000, 0x8000000, 0x4000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH, AT_FDCWD, AT_RECURSIVE = 2, -100, 0x8000
SYS_MOUNT_SETATTR, MOUNT_ATTR_RDONLY = 442, 1
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
# Empty directories where the new root is assembled (in the zygote's own mount namespace).
STAGES = ("/mnt", "/media", "/srv", "/opt", "/tmp")
# The shared libraries (and a distribution's Python), their cache, and torch's cpuinfo: not all
# of /usr, where /usr/local may hold a copy of the project or a progress database.
SYSTEM = ("/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/etc/ld.so.cache")
SYSTEM += ("/sys/devices/system/cpu",)
# Too broad to keep whole when Python's prefix is one of them: its sys.path entries are kept.
BROAD = ("/", "/usr", "/usr/local", "/opt", "/srv", "/var", "/home", "/root", "/tmp")
LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # merged-/usr symlinks
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
WORKDIR = "/tmp/run"  # each run's own tmpfs, mounted in its own mount namespace
ROOT_OPTIONS = "mode=0755,size=1m"
# Each run's work dir is its own tmpfs: bounded in bytes and files, and gone with the run's
# mount namespace however many files or how deep a tree the learner's code left in it. Its
# pages are memory that RLIMIT_AS does not see: confine.py takes its size off the run's budget.
WORKDIR_BYTES = 64 * 1024**2
WORKDIR_OPTIONS = f"mode=0700,size={WORKDIR_BYTES},nr_inodes=1024"
MOUNT_OPTIONS = {"ro": MS_RDONLY, "nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}
LAYERS = ("network", "filesystem", "procfs", "ipc")
# Without root, workers get this uid inside the user namespace when newuidmap can map it to one
# of the server user's subordinate uids (/etc/subuid): then they are not the zygote's uid.
USERNS_WORKER_ID = 2_000_000_000

_LIBC = ctypes.CDLL(None, use_errno=True)


def isolate(root: str) -> dict[str, str]:
    """Apply each zygote-wide layer the machine allows; return layer -> "on" / "unavailable: …".

    Without root, "userns-uid" says whether workers get a uid of their own (USERNS_WORKER_ID).
    """
    layers, no_userns = {}, None
    if os.geteuid() != 0:
        try:
            layers["userns-uid"] = enter_userns()
        except OSError as e:
            no_userns = f"unavailable: no user namespace ({e.strerror or e})"
    # In every path, once the uid maps are written (newuidmap needs us dumpable), before any
    # fork: nothing of ours can be read or traced.
    _prctl(PR_SET_DUMPABLE, 0)
    if no_userns:
        return dict.fromkeys(LAYERS, no_userns)
    layers["network"] = _attempt(_unshare, CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    layers["filesystem"] = _attempt(_filesystem, root)
    if layers["filesystem"] != "on":
        why = "unavailable: no private mount namespace"
        return layers | {"procfs": why, "ipc": why}
    layers["procfs"] = _attempt(_pid_namespace)
    layers["ipc"] = _attempt(_probe_run) if layers["procfs"] == "on" else layers["procfs"]
    return layers


def _attempt(step, *args) -> str:
    """Run one isolation step; return "on" or why it failed."""
    try:
        step(*args)
    except OSError as e:
        return f"unavailable: {e.strerror or e}"
    return "on"


def enter_userns() -> str:
    """Enter a new user namespace mapping our own uid and gid (no root needed).

    Where newuidmap and a subordinate range allow it, USERNS_WORKER_ID is mapped too; return
    "on" then, else why workers will share our uid.
    """
    uid, gid = os.getuid(), os.getgid()
    ranges = _subordinate_ids()
    helper = _mapper(ranges) if isinstance(ranges, tuple) else None
    _unshare(CLONE_NEWUSER)
    if helper is not None:
        os.close(helper[1])  # end of file: the helper maps us now
        if os.waitstatus_to_exitcode(os.waitpid(helper[0], 0)[1]) == 0:
            return "on"
        ranges = "newuidmap could not map a subordinate uid"
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    return f"unavailable: {ranges}"


def _subordinate_ids() -> tuple[int, int] | str:
    """Return the first subordinate uid and gid of this user, or why there are none."""
    if not (shutil.which("newuidmap") and shutil.which("newgidmap")):
        return "newuidmap is not installed (Debian: uidmap)"
    name = pwd.getpwuid(os.getuid()).pw_name
    found = [_first_id(path, name, str(os.getuid())) for path in ("/etc/subuid", "/etc/subgid")]
    if None in found:
        return f"{name} has no range in /etc/subuid and /etc/subgid"
    return found[0], found[1]


def _first_id(path: str, name: str, uid: str) -> int | None:
    """Return the start of the user's first range in /etc/subuid or /etc/subgid."""
    try:
        with open(path) as f:
            rows = [line.strip().split(":") for line in f]
    except OSError:
        return None
    return next((int(r[1]) for r in rows if len(r) == 3 and r[0] in (name, uid)), None)


def _mapper(ranges: tuple[int, int]) -> tuple[int, int]:
    """Fork a helper that, once we have unshared, maps our ids and one subordinate id."""
    ready, go = os.pipe()
    pid = os.fork()
    if pid != 0:
        os.close(ready)
        return pid, go
    code = 1
    try:
        os.close(go)
        os.read(ready, 1)
        target, uid, gid = str(os.getppid()), os.getuid(), os.getgid()
        worker = str(USERNS_WORKER_ID)
        maps = [("newuidmap", uid, ranges[0]), ("newgidmap", gid, ranges[1])]
        for tool, own, sub in maps:
            argv = [tool, target, str(own), str(own), "1", worker, str(sub), "1"]
            subprocess.run(argv, check=True, capture_output=True)
        code = 0
    finally:
        os._exit(code)


def _write(path: str, text: str) -> None:
    """Write text to a /proc file."""
    with open(path, "w") as f:
        f.write(text)


def _filesystem(root: str) -> None:
    """Build a new read-only root holding only what a worker needs, and pivot into it."""
    keeps = kept_paths(root)
    _unshare(CLONE_NEWNS)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    stage = _stage(keeps)
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, ROOT_OPTIONS)
    for keep in keeps:
        _bind(keep, stage + keep, read_only=True)
    for device in DEVICES:
        _bind(device, stage + device, read_only=False)
    _links(stage)
    for link, target in path_symlinks(root):
        if not os.path.lexists(stage + link):
            os.makedirs(os.path.dirname(stage + link), mode=0o755, exist_ok=True)
            os.symlink(target, stage + link)
    _bind("/proc", stage + "/proc", read_only=False)
    os.makedirs(stage + WORKDIR, mode=0o755)
    _pivot(stage)
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def kept_paths(root: str) -> list[str]:
    """Return the real paths a worker needs to see: libraries, Python, venv, this package.

    Nothing kept holds the project, and no broad directory (/usr, /usr/local, ...) is kept.
    """
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path}
    project = os.path.realpath(root)
    real = {os.path.realpath(p) for p in {*paths, *SYSTEM} if p and os.path.exists(p)}
    real = {p for p in real if not _under(project, p) and p not in BROAD}
    real.add(os.path.join(project, "grader", "sandbox"))
    return sorted(p for p in real if not any(p != o and _under(p, o) for o in real))


def path_symlinks(root: str) -> list[tuple[str, str]]:
    """Return the symlinks on the way to Python's own paths, as (link, its target).

    Python knows its paths by the names it was started with (a venv reached through a
    symlink, say); the real directories are kept, and these links make the names lead there.
    """
    paths = {sys.prefix, sys.exec_prefix, *sys.path}
    found: dict[str, str] = {}
    for path in sorted(p for p in paths if p and os.path.isabs(p) and os.path.exists(p)):
        prefix = "/"
        for part in path.strip("/").split("/"):
            prefix = os.path.join(prefix, part)
            if os.path.islink(prefix) and prefix not in LINKS:
                found.setdefault(prefix, os.readlink(prefix))
    return sorted(found.items())


def _stage(keeps: list[str]) -> str:
    """Return an existing plain directory to build the new root on, with nothing kept in it."""
    for stage in STAGES:
        plain = os.path.isdir(stage) and not os.path.islink(stage)
        if plain and not any(_under(k, stage) for k in keeps):
            return stage
    raise OSError(f"no directory to build a new root on among {', '.join(STAGES)}")


def _under(path: str, top: str) -> bool:
    """Return whether path is top or inside it."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def _bind(source: str, target: str, read_only: bool) -> None:
    """Bind source (a directory or a file) onto a new empty spot at target."""
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    if os.path.isdir(source):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    _mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        _read_only(target)


def _links(stage: str) -> None:
    """Recreate the top-level symlinks of a merged-/usr system (/lib -> usr/lib, …)."""
    for link in LINKS:
        if os.path.islink(link):
            os.symlink(os.readlink(link), stage + link)


def _pivot(new_root: str) -> None:
    """Make new_root the root directory and drop the old root (as bubblewrap does)."""
    if SYS_PIVOT_ROOT is None:
        raise OSError(f"no pivot_root number for {platform.machine()}")
    os.chdir(new_root)
    _check(_LIBC.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    _check(_LIBC.umount2(b".", MNT_DETACH), "umount the old root")
    os.chdir("/")


def _pid_namespace() -> None:
    """Put every later child in a new PID namespace, held open by a tiny init process."""
    _unshare(CLONE_NEWPID)
    if os.fork() == 0:
        _init()


def _init() -> None:
    """Be the PID namespace's init: hold no descriptors, reap nothing, die with the zygote."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.closerange(0, 1 << 16)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        while True:
            signal.pause()
    finally:
        os._exit(0)


def _probe_run() -> None:
    """Fork a child that enters a run's namespaces, as each worker will; raise why it cannot."""
    pid = os.fork()
    if pid == 0:
        try:
            enter_run(None)
        except OSError as e:
            os._exit(e.errno or 1)
        os._exit(0)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0:
        raise OSError(code, f"a run's own namespaces: {os.strerror(code)}")


def enter_run(uid: int | None) -> None:
    """In a new worker: own mount and IPC namespaces, a fresh /proc, an empty tmpfs work dir."""
    _unshare(CLONE_NEWNS | CLONE_NEWIPC)
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    try:
        _mount("proc", "/proc", "proc", flags, "hidepid=invisible")
    except OSError:
        _mount("proc", "/proc", "proc", flags, "hidepid=2")
    mount_workdir(WORKDIR, uid)


def seal(package: str) -> None:
    """Unmount this package's sources once the zygote has imported them: workers never see it."""
    if os.path.ismount(package):
        _check(_LIBC.umount2(package.encode(), MNT_DETACH), f"umount {package}")


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


def _prctl(option: int, arg: int) -> None:
    """Call prctl(2) with one argument."""
    _check(_LIBC.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


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
