"""The ANPL language: Python sketches with natural-language holes (ANPL, Huang et al., NeurIPS 2023,
https://arxiv.org/abs/2305.18498, Sec. 3 "The ANPL language"; parser as in the released code).

An ANPL program is Python whose *holes* are described in natural language:

- a function whose body is only a docstring is a *defined hole*;
- a call whose callee is a description, `` `find the background colour`(grid) `` (the original
  backtick spelling) or ``"find the background colour"(grid)`` (the DARC spelling), is an
  *inline hole*; every distinct description becomes one function ``_hole0``, ``_hole1``, ... in
  order of first appearance (the same text again reuses its hole).

Everything else is the *sketch*: user code that the compiler never changes. Exactly one
module-level function must be called by no other function: the *entry*.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "PRELUDE",
    "ANPLError",
    "Function",
    "IOExample",
    "Program",
    "parse",
    "values_equal",
]

#: Prepended to every rendered program (Sec. 4, ARC setting of the released code): numpy, typing
#: and the ten ARC colour names.
PRELUDE = (
    "import numpy as np\n"
    "from typing import *\n"
    "black, blue, red, green, yellow, grey, pink, orange, teal, maroon = range(10)\n"
)
_PRELUDE_DUMPS = frozenset(ast.dump(s) for s in ast.parse(PRELUDE).body)

_BACKTICK = re.compile(r"`([^`\n]+)`(?=\s*\()")
_HOLE_NAME = re.compile(r"_hole(\d+)\Z")


class ANPLError(ValueError):
    """A source text that is not a valid ANPL program (syntax, no single entry, ...)."""


# --- IO examples --------------------------------------------------------------------------------


def values_equal(a: Any, b: Any) -> bool:
    """Structural equality that understands numpy arrays nested in lists, tuples and dicts.

    Arrays compare by shape and values (an array equals the nested list of the same values, as
    ``numpy.testing.assert_equal`` does in the original code); NaN equals NaN.

    >>> values_equal({"g": np.array([[1, 2]])}, {"g": [[1, 2]]})
    True
    >>> values_equal(np.zeros((2, 1)), np.zeros((1, 2)))
    False
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            x, y = np.asarray(a), np.asarray(b)
        except (ValueError, TypeError):
            return False
        if x.shape != y.shape:
            return False
        if x.dtype == object or y.dtype == object:
            return all(values_equal(p, q) for p, q in zip(x.ravel(), y.ravel(), strict=True))
        try:
            return bool(np.array_equal(x, y, equal_nan=True))
        except TypeError:
            return bool(np.array_equal(x, y))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(values_equal(p, q) for p, q in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # an __eq__ that returns something without a truth value
        return False


def check_inputs(inputs: Any, name: str = "inputs") -> dict[str, Any] | tuple:
    """Inputs of a call: a mapping of parameter names (keyword call) or a tuple (positional)."""
    if isinstance(inputs, Mapping):
        bad = [k for k in inputs if not isinstance(k, str) or not k.isidentifier()]
        if bad:
            raise ValueError(f"{name} keys must be parameter names, got {bad[0]!r}")
        return dict(inputs)
    if isinstance(inputs, tuple):
        return inputs
    raise TypeError(
        f"{name} must be a dict of parameter name -> value (or a tuple of positional values), "
        f"got {type(inputs).__name__}"
    )


@dataclass(frozen=True, eq=False)
class IOExample:
    """One input-output pair: ``inputs`` maps parameter names to values (a tuple means
    positional arguments), ``output`` is the expected return value. Equality is numpy-aware
    (:func:`values_equal` on both fields)."""

    inputs: dict[str, Any]
    output: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", check_inputs(self.inputs, "inputs"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IOExample):
            return NotImplemented
        return values_equal(self.inputs, other.inputs) and values_equal(self.output, other.output)

    __hash__ = None  # type: ignore[assignment]  # holds arrays


# --- functions and programs ---------------------------------------------------------------------


@dataclass(frozen=True)
class Function:
    """One module-level function of an ANPL program.

    ``code`` is the implementation (``ast.FunctionDef``) or None for a hole; ``stub`` is the
    docstring-only definition of a *defined* hole (None for inline holes and implemented
    functions). ``deps`` are the program functions it calls (self-calls excluded: they set
    ``is_recursive``). ``code_from_user``/``description_from_user`` record who wrote what: user
    text always wins over generated text when the compiler merges a reply.
    """

    name: str
    description: str | None = None
    code: ast.FunctionDef | None = None
    golden_ios: tuple[IOExample, ...] = ()
    deps: tuple[str, ...] = ()
    code_from_user: bool = False
    description_from_user: bool = True
    is_recursive: bool = False
    stub: ast.FunctionDef | None = None

    @property
    def is_hole(self) -> bool:
        """True while the function has no implementation."""
        return self.code is None

    @property
    def params(self) -> list[str] | None:
        """Parameter names (None for an inline hole, whose signature is unknown)."""
        node = self.code or self.stub
        if node is None:
            return None
        a = node.args
        return [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]

    @property
    def source(self) -> str | None:
        """The implementation as Python text (None for a hole)."""
        return None if self.code is None else ast.unparse(self.code)

    def reset_to_hole(self) -> Function:
        """The same function with its implementation removed (description kept)."""
        stub = self.stub
        if stub is None and self.code is not None and not _HOLE_NAME.match(self.name):
            stub = _make_stub(self.code, self.description)
        return dataclasses.replace(
            self, code=None, deps=(), code_from_user=False, is_recursive=False, stub=stub
        )


def _make_stub(node: ast.FunctionDef, description: str | None) -> ast.FunctionDef:
    stub = copy.deepcopy(node)
    stub.body = [ast.Expr(ast.Constant(description or ""))]
    stub.decorator_list = []
    return ast.fix_missing_locations(stub)


def _inline_stub(name: str, description: str | None) -> ast.FunctionDef:
    text = f"def {name}(*args, **kwargs):\n    {(description or '')!r}\n"
    return ast.parse(text).body[0]  # type: ignore[return-value]


@dataclass(frozen=True)
class Program:
    """A parsed ANPL program: ``functions`` (name -> :class:`Function`, inline holes first, then
    definitions in source order), the ``entry`` function's name, the other module-level
    statements of the user (``preamble``: imports, constants), and the compiler's ``log`` (empty
    for a parsed program). Programs are never modified in place: every operation returns a new
    one."""

    functions: dict[str, Function]
    entry: str
    preamble: tuple[ast.stmt, ...] = ()
    log: tuple[Any, ...] = field(default=(), compare=False)

    def holes(self) -> list[str]:
        """Names of the functions still without implementation, in ``functions`` order."""
        return [n for n, f in self.functions.items() if f.code is None]

    @property
    def program(self) -> Program:
        """The program itself (so a compile result reads like ``CompileResult(program, log)``)."""
        return self

    def to_python(
        self, *, include_generated: bool = True, include_holes: bool = True, prelude: bool = True
    ) -> str:
        """Render as Python: the :data:`PRELUDE` (``prelude``), the preamble, then every function.

        Holes are rendered as docstring-only stubs (inline holes as ``def _holeK(*args,
        **kwargs)``) unless ``include_holes=False``, so ``parse(p.to_python())`` gives ``p`` back.
        ``include_generated=False`` leaves out LLM-written implementations (the user's view).
        """
        from ._checks import check_bool

        check_bool(include_generated, "include_generated")
        check_bool(include_holes, "include_holes")
        check_bool(prelude, "prelude")
        body: list[ast.stmt] = list(ast.parse(PRELUDE).body) if prelude else []
        body += [copy.deepcopy(s) for s in self.preamble]
        for f in self.functions.values():
            if f.code is not None:
                if include_generated or f.code_from_user:
                    body.append(copy.deepcopy(f.code))
            elif include_holes:
                body.append(copy.deepcopy(f.stub or _inline_stub(f.name, f.description)))
        return ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"

    def render_for_llm(self, hole: str) -> str:
        """The prompt's program text for ``hole``: the program with every hole absent."""
        if hole not in self.functions:
            raise ValueError(f"hole must be a function of the program, got {hole!r}")
        return self.to_python(include_holes=False)

    def with_function(self, fn: Function) -> Program:
        funcs = dict(self.functions)
        funcs[fn.name] = fn
        return dataclasses.replace(self, functions=funcs)


# --- parsing ------------------------------------------------------------------------------------


class _InlineHoles(ast.NodeTransformer):
    """Replace ``"description"(args)`` callees by ``_holeK`` names."""

    def __init__(self, taken: set[str], start: int = 0):
        self.taken = taken
        self.next = start
        self.by_text: dict[str, str] = {}
        self.order: list[tuple[str, str]] = []

    def _name_for(self, text: str) -> str:
        if text not in self.by_text:
            while f"_hole{self.next}" in self.taken:
                self.next += 1
            name = f"_hole{self.next}"
            self.taken.add(name)
            self.by_text[text] = name
            self.order.append((name, text))
        return self.by_text[text]

    def name_in_text_order(self, module: ast.Module) -> None:
        """Name every description by its first position in the text (not AST field order,
        which visits ``a if b else c`` as b, a, c)."""
        found = [
            (n.func.lineno, n.func.col_offset, n.func.value.strip())
            for n in ast.walk(module)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Constant)
            and isinstance(n.func.value, str)
        ]
        for _, _, text in sorted(found):
            if not text:
                raise ANPLError("source has an inline hole with an empty description")
            self._name_for(text)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Constant) and isinstance(node.func.value, str):
            name = self._name_for(node.func.value.strip())
            node.func = ast.copy_location(ast.Name(name, ast.Load()), node.func)
        return node


def _is_docstring_only(node: ast.FunctionDef) -> bool:
    return (
        len(node.body) == 1
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    )


def _called_names(node: ast.AST) -> list[str]:
    seen: dict[str, None] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            seen.setdefault(sub.id, None)
    return list(seen)


def _is_main_guard(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.If)
        and isinstance(stmt.test, ast.Compare)
        and isinstance(stmt.test.left, ast.Name)
        and stmt.test.left.id == "__name__"
    )


def _parse_module(
    source: str, *, from_user: bool, taken: set[str]
) -> tuple[dict[str, Function], list[str], tuple[ast.stmt, ...]]:
    """Functions (inline holes first), the defined names in order, and the kept preamble."""
    text = _BACKTICK.sub(lambda m: repr(m.group(1)), source)
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        raise ANPLError(f"source is not valid ANPL/Python: {exc.msg} (line {exc.lineno})") from exc
    defined = [s.name for s in module.body if isinstance(s, ast.FunctionDef)]
    dupes = {n for n in defined if defined.count(n) > 1}
    if dupes:
        raise ANPLError(f"source defines {sorted(dupes)[0]!r} more than once")
    holes = _InlineHoles(taken | set(defined))
    holes.name_in_text_order(module)
    module = ast.fix_missing_locations(holes.visit(module))
    funcs: dict[str, Function] = {
        name: Function(name, text_, description_from_user=from_user) for name, text_ in holes.order
    }
    preamble: list[ast.stmt] = []
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef):
            doc = ast.get_docstring(stmt)
            if _is_docstring_only(stmt):
                funcs[stmt.name] = Function(
                    stmt.name, doc, None, description_from_user=from_user, stub=stmt
                )
            else:
                names = _called_names(stmt)
                funcs[stmt.name] = Function(
                    stmt.name,
                    doc,
                    stmt,
                    deps=tuple(n for n in names if n != stmt.name),
                    code_from_user=from_user,
                    description_from_user=from_user,
                    is_recursive=stmt.name in names,
                )
        elif isinstance(stmt, ast.Expr) or _is_main_guard(stmt):
            continue  # docstrings, demo calls, __main__ blocks: not part of the program
        elif ast.dump(stmt) in _PRELUDE_DUMPS:
            continue  # the prelude is re-added when rendering
        elif from_user or isinstance(stmt, (ast.Import, ast.ImportFrom)):
            preamble.append(stmt)
    known = set(funcs)
    for name, f in funcs.items():
        if f.deps:
            funcs[name] = dataclasses.replace(f, deps=tuple(d for d in f.deps if d in known))
    return funcs, defined, tuple(preamble)


def parse(source: str) -> Program:
    """Parse ANPL source text into a :class:`Program`.

    Args:
        source: Python text with holes: docstring-only functions and/or inline
            `` `description`(args) `` / ``"description"(args)`` calls.

    Returns:
        The program; inline holes are named ``_hole0``, ``_hole1``, ... by first appearance.

    Raises:
        ANPLError: (a ``ValueError``) on a syntax error or unless exactly one module-level
            function is called by no other function.

    >>> p = parse('def main(g):\\n    return `flip the grid`(g)\\n')
    >>> p.holes(), p.entry, p.functions["_hole0"].description
    (['_hole0'], 'main', 'flip the grid')
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a str of ANPL code, got {type(source).__name__}")
    funcs, defined, preamble = _parse_module(source, from_user=True, taken=set())
    called = {d for f in funcs.values() for d in f.deps}
    entries = [n for n in defined if n not in called]
    if len(entries) != 1:
        raise ANPLError(
            f"source must have exactly one entry (a function no other function calls), "
            f"found {len(entries)}: {entries}"
        )
    return Program(funcs, entries[0], preamble)


def parse_reply(
    source: str, *, taken: set[str]
) -> tuple[dict[str, Function], list[str], tuple[ast.stmt, ...]]:
    """Parse generated code (not from the user): functions, defined names, kept imports."""
    return _parse_module(source, from_user=False, taken=taken)
