"""The declared vocabulary: every name is real, public, reaches no module, and its example is
itself in the language; the names that lead out of it are not there."""

from __future__ import annotations

import ast
import math
import types

import pytest
import torch
import torch.nn.functional as F

from grader.language import ATTRIBUTES, EXTRA, LANGUAGE, widen
from grader.language.declared import AUTOGRAD_WORDS, DYNAMIC_WORDS, VOCABULARY


def roots() -> list:
    """Return the objects an answer can hold: the given modules, tensors and what they return."""
    x = torch.randn(3, 4)
    found = [torch, F, math, x, x > 0, x.max(1), x.shape, x.dtype, x.device]
    return found + [torch.finfo(x.dtype), [x], {"a": x}]


@pytest.mark.parametrize("name", sorted(ATTRIBUTES | EXTRA))
def test_every_name_is_found_somewhere_and_none_is_a_module(name):
    found = [getattr(root, name) for root in roots() if hasattr(root, name)]
    assert found, f"`{name}` is an attribute of nothing an answer holds"
    assert not [f for f in found if isinstance(f, types.ModuleType)], name


def test_no_declared_name_is_private_autograd_or_dynamic():
    names = ATTRIBUTES | EXTRA
    assert not [n for n in names if n.startswith("_")]
    assert not names & (AUTOGRAD_WORDS | DYNAMIC_WORDS)
    assert not ATTRIBUTES & EXTRA


# Names that lead out of the language: to the library's differentiation, to modules, to raw
# memory, to frames and to other names by a string.
NEVER = (
    "ops", "jit", "autograd", "func", "library", "fx", "compile", "load", "save", "nn", "utils",
    "overrides", "Tensor", "vmap", "gradient", "grad", "backward", "grad_fn", "register_hook",
    "decompositions", "numpy", "from_numpy", "frombuffer", "data_ptr", "storage",
    "untyped_storage", "set_", "as_strided", "apply_", "map_", "gi_frame", "f_globals", "f_back",
    "tb_frame", "cr_frame", "format", "random", "linalg", "special", "fft", "testing", "backends",
    "distributed", "multiprocessing", "hub", "export", "serialization", "Generator",
)  # fmt: skip


@pytest.mark.parametrize("name", NEVER)
def test_no_name_that_leads_out_is_declared(name):
    assert name not in ATTRIBUTES | EXTRA


def test_every_example_is_in_the_language():
    everything = widen(tuple(EXTRA))
    for table in VOCABULARY.values():
        for name, example in table.items():
            assert everything.refusal(ast.parse(example)) is None, (name, example)


def test_the_base_language_has_no_course_addition():
    assert LANGUAGE.added == () and not EXTRA & LANGUAGE.attributes
