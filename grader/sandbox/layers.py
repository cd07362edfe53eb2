"""The sandbox's layers seen from the grader: which are missing, and refusing to run without them.

Each zygote reports every layer as "on" or "unavailable: why" (isolation.py, warmup.py):
network, filesystem, procfs, ipc (per-run namespaces), process, environment, workdir, rlimits,
uid, seccomp and threads. An operator who wants no degraded mode sets `require_all_layers`.

    >>> missing({"network": "on", "uid": "unavailable: not running as root"})
    {'uid': 'not running as root'}
"""

from __future__ import annotations

import ctypes

PR_SET_DUMPABLE = 4


class MissingLayers(RuntimeError):
    """The sandbox was asked for every layer and this machine cannot provide some."""

    def __init__(self, missing: dict[str, str]):
        self.missing = dict(missing)
        super().__init__(describe(self.missing))


def missing(layers: dict[str, str]) -> dict[str, str]:
    """Return each layer that is not on -> why (an empty dict when all are on)."""
    return {
        name: state.removeprefix("unavailable: ") for name, state in layers.items() if state != "on"
    }


def describe(missing_layers: dict[str, str]) -> str:
    """Return one sentence per missing layer, for a log, a banner or a refusal."""
    lines = [f"The sandbox lacks {len(missing_layers)} layer(s):"]
    return "\n".join(lines + [f"- {name}: {why}" for name, why in missing_layers.items()])


def shield() -> None:
    """Make this (the grader's) process non-dumpable: no core files, and its memory and
    /proc files cannot be read or written by other processes of the same uid."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(ctypes.c_int(PR_SET_DUMPABLE), ctypes.c_ulong(0), 0, 0, 0)
