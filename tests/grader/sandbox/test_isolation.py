"""Which paths the zygote keeps visible and which directories it veils."""

from __future__ import annotations

import os
import sys

from grader.sandbox.client import ROOT
from grader.sandbox.isolation import kept_paths, veil_targets


def test_python_and_the_sandbox_are_kept_but_not_the_project():
    keeps = kept_paths(str(ROOT))
    assert os.path.realpath(sys.base_prefix) in keeps
    assert os.path.realpath(ROOT / "grader" / "sandbox") in keeps
    assert str(ROOT.resolve()) not in keeps
    assert not any(k.startswith(str(ROOT.resolve() / "solutions")) for k in keeps)


def test_the_projects_parent_is_veiled():
    root = str(ROOT.resolve())
    targets = veil_targets(root, kept_paths(root))
    parent = os.path.dirname(root)
    assert (parent if parent != "/" else root) in targets
    assert not any(t != o and t.startswith(o + "/") for t in targets for o in targets)
