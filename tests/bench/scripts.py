"""Import one of bench/'s scripts in a test (bench/ is a folder of scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from ..e2e.e2e_helpers import ROOT


def import_script(name: str, monkeypatch) -> ModuleType:
    """Import bench/<name>.py for one test: bench/ on the path for the modules it imports by
    name, and the module in sys.modules (its dataclasses look it up by name); both undone after."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module
