"""Take native calls away from a confined worker: ctypes, cffi, anything that calls C by address.

With a foreign-function module the learner's code could call any C function, the C++ grad-mode
switch included, or write any memory. The worker's last native call is the syscall filter
(confine.py); after it, `remove()`:
- installs an audit hook that refuses every ctypes event (loading a library, looking a symbol up,
  calling a foreign function, reading memory at an address) and any change to the hook's own code;
  CPython offers no way to remove an audit hook;
- drops the native-call modules from sys.modules and every module-level reference to them or to
  their objects (libraries, function pointers, ctypes types and structures);
- proves that no module in sys.modules still leads to one, and refuses to start otherwise.
The zygote, before it forks any worker, also unlinks ctypes's built-in types from the subclass
lists of `object`, `type` and `dict` (`hide_builtin_types`), so that `object.__subclasses__()`
does not lead back to them. The modules stay loaded in memory; what the learner's code can reach
from Python is what is closed.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import types

ROOTS = ("ctypes", "_ctypes", "cffi", "_cffi_backend", "pyseccomp")
_CDATA = ctypes.Structure.__mro__[-2]  # _ctypes._CData, the base of every ctypes type
# Offsets in CPython's PyTypeObject, checked against known fields before use (64-bit builds).
TP_BASES, TP_MRO, TP_SUBCLASSES = 336, 344, 360


class NativeCallsLeft(RuntimeError):
    """Some module still leads to a native-call module after the removal."""


def native_modules() -> dict[str, types.ModuleType]:
    """Return the loaded native-call modules by name."""
    return {name: m for name, m in list(sys.modules.items()) if _owned(name)}


def is_native(value: object) -> bool:
    """Return whether value is a native-call module or an object that belongs to one.

    Only type() is asked, never the value itself (some objects warn or compute on isinstance).
    """
    kind = type(value)
    if issubclass(kind, types.ModuleType):
        return _owned(value.__dict__.get("__name__"))
    if issubclass(kind, type):
        return issubclass(value, _CDATA) or _owned(type.__dict__["__module__"].__get__(value))
    if issubclass(kind, _CDATA):
        return True
    if kind in (types.FunctionType, types.BuiltinFunctionType):
        return _owned(value.__module__)
    return _owned(kind.__module__)


def _owned(module_name: object) -> bool:
    """Return whether a module name (or a `__module__` value) names a native-call module."""
    return isinstance(module_name, str) and module_name.split(".")[0] in ROOTS


_survey: tuple[frozenset[str], tuple[str, ...], tuple] | None = None  # from the zygote's walk:
# (every module name then, the native-call modules' names, the paths found)


def survey() -> str:
    """In the zygote: hide ctypes's built-in types and record every path to native calls.

    Walking every module takes seconds, and in a fresh fork even iterating sys.modules costs
    milliseconds (each reference counted is a page copied); each worker then removes the recorded
    paths and walks only the modules loaded since, if any. Return the layer's state.
    """
    global _survey
    why = hide_builtin_types()
    if why:
        return f"unavailable: {why}"
    _survey = (frozenset(sys.modules), tuple(native_modules()), tuple(paths()))
    return "on"


def paths(only: frozenset[str] | None = None) -> list[tuple[object, str]]:
    """Return (owner, name) for every module or class attribute holding a native-call object.

    The owner is a module's dict or a class; `only` skips the modules it does not name.
    """
    found = []
    for module_name, module in list(sys.modules.items()):
        if only is not None and module_name in only:
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if is_native(value):
                found.append((namespace, key))
            elif issubclass(type(value), type):
                found += [(value, k) for k, v in list(vars(value).items()) if is_native(v)]
    return found


def removed() -> bool:
    """Return whether `remove` has run in this process (its audit hook is installed)."""
    return _removed[0]


_removed = [False]


def remove() -> None:
    """Drop every path to the native-call modules, prove none is left, then refuse native calls."""
    walked, names, found = _survey if _survey is not None else (frozenset(), (), ())
    if len(sys.modules) != len(walked):  # modules loaded since the zygote's walk: walk them
        names = (*names, *native_modules())
        found = (*found, *paths(only=walked))
    for name in names:
        sys.modules.pop(name, None)
    for owner, key in found:
        _drop(owner, key)
    sys.addaudithook(_audit)
    _removed[0] = True
    left = [key for owner, key in found if _holds(owner, key)]
    left += [name for name in names if name in sys.modules]
    if left:
        raise NativeCallsLeft(f"still reachable: {', '.join(map(str, left[:10]))}")


def _drop(owner, key: str) -> None:
    """Remove one attribute from a module's dict or a class."""
    if isinstance(owner, dict):
        owner.pop(key, None)
    else:
        with contextlib.suppress(AttributeError, TypeError):
            delattr(owner, key)


def _holds(owner, key: str) -> bool:
    """Return whether the attribute still holds a native-call object."""
    namespace = owner if isinstance(owner, dict) else vars(owner)
    return key in namespace and is_native(namespace[key])


def _audit(event, args):
    """The worker's audit hook: no ctypes event, no tracing, no change to a function's code.

    It reads no global name (the learner's code could rebind any): only its arguments.
    """
    if event.startswith(("ctypes.", "cffi.")) or event in ("sys.settrace", "sys.setprofile"):
        raise PermissionError("native calls are not available here: " + event)
    if event == "object.__setattr__" and args[1] in ("__code__", "__defaults__", "__kwdefaults__"):
        raise PermissionError("changing a function's code is not available here")


def hide_builtin_types() -> str | None:
    """Unlink ctypes's built-in types from the subclass lists of object, type and dict.

    Return why it could not be done, or None. Only where the PyTypeObject layout checks out.
    """
    if sys.maxsize != 2**63 - 1 or sys.implementation.name != "cpython":
        return "not a 64-bit CPython"
    for base in (object, type, dict):
        if not _layout_ok(base):
            return f"the layout of {base.__name__} is not the one expected"
        subclasses = ctypes.py_object.from_address(id(base) + TP_SUBCLASSES).value
        if not isinstance(subclasses, dict):
            return f"{base.__name__} has no subclass dict"
        for key, ref in list(subclasses.items()):
            cls = ref()
            if cls is not None and _owned(cls.__module__):
                del subclasses[key]
    return None


def _layout_ok(base: type) -> bool:
    """Return whether tp_bases and tp_mro are where this module expects them."""
    pointer = ctypes.c_void_p
    bases = pointer.from_address(id(base) + TP_BASES).value
    mro = pointer.from_address(id(base) + TP_MRO).value
    return bases == id(base.__bases__) and mro == id(base.__mro__)
