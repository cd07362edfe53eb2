"""Which real paths the zygote binds into its new root, and which it leaves out."""

from __future__ import annotations

import os
import sys

from grader.sandbox.client import ROOT
from grader.sandbox.isolation import kept_paths


def test_python_the_venv_and_the_sandbox_are_kept():
    keeps = kept_paths(str(ROOT))
    assert any(os.path.realpath(sys.base_prefix).startswith(k) for k in keeps)
    assert any(os.path.realpath(sys.prefix).startswith(k) for k in keeps)
    assert os.path.realpath(ROOT / "grader" / "sandbox") in keeps


def test_nothing_that_holds_the_project_or_its_secrets_is_kept():
    root = str(ROOT.resolve())
    for keep in kept_paths(root):
        assert not root.startswith(keep + "/") and keep != root
        assert not keep.startswith(root + "/solutions") and not keep.startswith(root + "/var")
    assert not any(k in ("/", "/home", "/root", "/tmp", "/etc") for k in kept_paths(root))


def test_no_kept_path_is_inside_another():
    keeps = kept_paths(str(ROOT))
    assert not any(k != o and k.startswith(o + "/") for k in keeps for o in keeps)
