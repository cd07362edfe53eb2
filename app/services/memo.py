"""A process-wide memo for the shared services, keyed by plain arguments.

`st.cache_resource` hashes its arguments and reads the function's signature at every call
(about 1 ms of a script run each, profiled; a run made nine to thirteen such look-ups). The
services' arguments are short texts, numbers and flags (a URL, the exercises folder and the
signature of its files, a dataset's fingerprint), so a dict keyed by them finds the same
object for a fraction of that. What changes the object is in its key: an edited exercise file
changes the signature, so the next run builds a new one.

    >>> @memo.shared(max_entries=2)
    ... def _declared(root: str, signature: str) -> Catalog: ...
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def shared(max_entries: int | None = None) -> Callable[[F], F]:
    """Return a decorator that builds fn's value once per set of its arguments and keeps it for
    the process (the `max_entries` most recently used, if given). A keyword argument whose name
    starts with an underscore is not part of the key, as with cache_resource (a dataset passed
    beside its fingerprint). One caller builds a missing value; the others wait for it."""

    def decorate(fn: F) -> F:
        kept: OrderedDict[tuple, Any] = OrderedDict()
        guard = threading.Lock()
        building: dict[tuple, threading.Lock] = {}

        @functools.wraps(fn)
        def cached(*args: Any, **kwargs: Any) -> Any:
            key = args + tuple(sorted(i for i in kwargs.items() if not i[0].startswith("_")))
            with guard:
                if key in kept:
                    kept.move_to_end(key)
                    return kept[key]
                lock = building.setdefault(key, threading.Lock())
            with lock:  # one caller builds; the others wait and find its value
                with guard:
                    if key in kept:
                        return kept[key]
                try:
                    value = fn(*args, **kwargs)
                except BaseException:  # a failure keeps nothing, not even its lock: the next
                    with guard:  # call tries again (keys that fail leave no entry behind)
                        building.pop(key, None)
                    raise
                with guard:
                    kept[key] = value
                    building.pop(key, None)
                    while max_entries is not None and len(kept) > max_entries:
                        kept.popitem(last=False)
                return value

        def clear() -> None:
            """Forget every value (a test that wants a value built again)."""
            with guard:
                kept.clear()

        def pending() -> int:
            """Return how many builds are under way (none once every caller has returned)."""
            with guard:
                return len(building)

        cached.max_entries = max_entries  # type: ignore[attr-defined]
        cached.clear = clear  # type: ignore[attr-defined]
        cached.pending = pending  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    return decorate
