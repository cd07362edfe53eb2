"""The exercise language, declared: its syntax, its names and its attribute names.

Learner code is a small language, not Python with parts taken away: what is not declared here is
refused before the code runs (checker.py). The attribute names, with an example each, are in
vocabulary.toml; the forward operations they dispatch, in operations.txt (derive.py).

    >>> "sum" in ATTRIBUTES and "backward" not in ATTRIBUTES
    True
"""

from __future__ import annotations

import ast
import builtins
import tomllib
from pathlib import Path

HERE = Path(__file__).parent
VOCABULARY = tomllib.loads((HERE / "vocabulary.toml").read_text(encoding="utf-8"))
EXTRA_FAMILY = "extra"  # the names a course may add in its course.toml, not the base language
SYNTAX_FAMILY = "syntax"  # what the syntax and builtins dispatch: examples, not attribute names
FAMILIES = {k: v for k, v in VOCABULARY.items() if k not in (EXTRA_FAMILY, SYNTAX_FAMILY)}
TITLES = {
    "creation": "making tensors", "shape": "shapes and views", "dtype": "dtypes and values",
    "indexing": "indexing and scatters", "reductions": "reductions",
    "elementwise": "element-wise maths (and in place)", "comparison": "comparisons",
    "products": "products", "functional": "F (torch.nn.functional)", "constants": "constants",
    "python": "lists and dicts", EXTRA_FAMILY: "added by a course", SYNTAX_FAMILY: "syntax",
}  # fmt: skip
ATTRIBUTES = frozenset(name for family in FAMILIES.values() for name in family)
EXTRA = frozenset(VOCABULARY[EXTRA_FAMILY])

# Every node of Python's grammar a learner's code may contain. Not declared, hence refused:
# class, try, raise, global, nonlocal, yield, await, async, match, and decorators; imports and
# `with` only in the forms of IMPORTS and NO_GRAD below.
NODES = frozenset(
    getattr(ast, name)
    for name in (
        "Module",
        "Expr",
        "Assign",
        "AugAssign",
        "AnnAssign",
        "Delete",
        "For",
        "While",
        "If",
        "Assert",
        "Pass",
        "Break",
        "Continue",
        "FunctionDef",
        "Lambda",
        "Return",
        "arguments",
        "arg",
        "keyword",
        "BoolOp",
        "BinOp",
        "UnaryOp",
        "Compare",
        "IfExp",
        "NamedExpr",
        "Call",
        "Attribute",
        "Subscript",
        "Slice",
        "Starred",
        "Name",
        "Constant",
        "Tuple",
        "List",
        "Dict",
        "Set",
        "ListComp",
        "SetComp",
        "DictComp",
        "GeneratorExp",
        "comprehension",
        "JoinedStr",
        "FormattedValue",
        "Load",
        "Store",
        "Del",
        "And",
        "Or",
        "Add",
        "Sub",
        "Mult",
        "MatMult",
        "Div",
        "FloorDiv",
        "Mod",
        "Pow",
        "LShift",
        "RShift",
        "BitOr",
        "BitXor",
        "BitAnd",
        "Invert",
        "Not",
        "UAdd",
        "USub",
        "Eq",
        "NotEq",
        "Lt",
        "LtE",
        "Gt",
        "GtE",
        "Is",
        "IsNot",
        "In",
        "NotIn",
    )  # fmt: skip
)
# The names code may read besides its own variables and the exercise's tensors and sizes.
GIVEN = ("torch", "F", "math", "cmp")  # cmp: the lecture's comparison line, a no-op here
BUILTINS = (
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "len", "list",
    "max", "min", "pow", "print", "range", "reversed", "round", "set", "slice", "sorted", "str",
    "sum", "tuple", "zip",
)  # fmt: skip
NAMES = frozenset(GIVEN + BUILTINS)
PYTHON_NAMES = frozenset(dir(builtins))  # a builtin not in NAMES is refused, even as a target
# The lecture's import lines, accepted as no-ops: (module, bound name) of each form.
IMPORTS = frozenset(
    {("torch", None), ("torch", "torch"), ("math", None), ("math", "math")}
    | {("torch.nn.functional", "F"), ("torch.nn.functional", None)}
)
FROM_IMPORTS = frozenset({("torch.nn", "functional", "F")})
NO_GRAD = "torch.no_grad"  # `with torch.no_grad():` is accepted as a no-op (grad mode is off)
F_SPELLED_OUT = "torch.nn.functional"  # read as F wherever it is written out

# Refused words that get a sentence of their own: autograd, and what reaches names by a string.
AUTOGRAD_WORDS = frozenset((
    "backward", "grad", "requires_grad", "requires_grad_", "retain_grad", "grad_fn", "autograd",
    "register_hook", "register_post_accumulate_grad_hook", "enable_grad", "set_grad_enabled",
    "inference_mode", "func", "forward_ad", "functional_call", "Parameter", "vmap", "jacrev",
    "jacfwd", "vjp", "jvp", "gradient",
))  # fmt: skip
DYNAMIC_WORDS = frozenset((
    "getattr", "setattr", "delattr", "hasattr", "eval", "exec", "compile", "format", "format_map",
    "type", "open", "globals", "locals", "vars", "dir", "__import__", "breakpoint", "input",
    "object", "super", "memoryview",
))  # fmt: skip


def family_of(attribute: str) -> str:
    """Return the family (a table of vocabulary.toml) an attribute name belongs to."""
    return next((f for f, names in VOCABULARY.items() if attribute in names), "")


def example(attribute: str) -> str:
    """Return the example of an attribute name, as vocabulary.toml gives it."""
    return VOCABULARY[family_of(attribute)][attribute]
