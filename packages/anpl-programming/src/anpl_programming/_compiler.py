"""The ANPL compiler: fill each hole with LLM-written code (ANPL Sec. 3.1; prompts and merge
rules as in the released ``synthesizer.py``/``anpl.py``), and IO-constrained resynthesis
(Sec. 3.2: 10 candidates at temperature 0.8, the CodeT setting, first one that fits is kept).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import check_float, check_int
from ._llm import check_llm, check_reply
from ._runner import _check_ios, trace
from ._syntax import _HOLE_NAME, ANPLError, Function, IOExample, Program, parse_reply, values_equal

__all__ = ["Attempt", "CompileError", "Compiler", "extract_code"]

SYSTEM_PROMPT = (
    "As a pythonGPT, your task is to complete the unimplemented functions in the given python "
    'code, which are referred to as "holes" and are labeled as _hole0, _hole1, _hole2, and so '
    "on. Your implementation should align with the code and documentation using Python."
)
_NEW_NAME = (
    "The function needs to be given a new name. Markdown format should be used to return it."
)
_SAME_NAME = "Markdown format should be used to return it."

_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", flags=re.S | re.I)


def extract_code(text: str) -> str | None:
    """The reply's fenced code blocks joined by newlines, or None when there is no block or the
    joined code does not compile (as the released ``extract_code``; bare fences count too)."""
    blocks = [b.strip() for b in _FENCE.findall(text)]
    if not blocks:
        return None
    code = "\n".join(blocks)
    try:
        compile(code, "<reply>", "exec")
    except (SyntaxError, ValueError):
        return None
    return code


class CompileError(RuntimeError):
    """Some holes are still unfilled after every attempt; ``holes`` lists them, ``log`` holds
    every :class:`Attempt`."""

    def __init__(self, holes: list[str], log: Sequence[Attempt] = ()):
        super().__init__(f"could not fill holes {holes}")
        self.holes = list(holes)
        self.log = tuple(log)


@dataclass(frozen=True)
class Attempt:
    """One LLM call for ``hole``: attempt index, temperature, whether it filled the hole, the
    name it was filled under, and why not (``reason``)."""

    hole: str
    attempt: int
    temperature: float
    ok: bool
    name: str | None = None
    reason: str = ""


def _rename_refs(node: ast.AST, old: str, new: str) -> ast.AST:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == old:
            sub.id = new
    return node


def rename_function(program: Program, old: str, new: str) -> Program:
    """Rename function ``old`` to ``new`` everywhere (definition and every reference)."""
    funcs: dict[str, Function] = {}
    for name, f in program.functions.items():
        code = f.code
        if code is not None and old in (*f.deps, name):
            code = _rename_refs(copy.deepcopy(code), old, new)
            if name == old:
                code.name = new
        deps = tuple(new if d == old else d for d in f.deps)
        key = new if name == old else name
        funcs[key] = dataclasses.replace(f, name=key, code=code, deps=deps)
    preamble = tuple(_rename_refs(copy.deepcopy(s), old, new) for s in program.preamble)
    entry = new if program.entry == old else program.entry
    return dataclasses.replace(program, functions=funcs, entry=entry, preamble=preamble)


def _reachable(program: Program) -> set[str]:
    seen: set[str] = set()
    stack = [program.entry]
    for s in program.preamble:  # constants may call functions
        stack += [n.id for n in ast.walk(s) if isinstance(n, ast.Name)]
    while stack:
        n = stack.pop()
        if n in seen or n not in program.functions:
            continue
        seen.add(n)
        stack.extend(program.functions[n].deps)
    return seen


def _clean(program: Program) -> Program:
    """Drop generated functions that nothing reachable calls any more."""
    keep = _reachable(program)
    funcs = {
        n: f
        for n, f in program.functions.items()
        if n in keep or f.code_from_user or f.description_from_user
    }
    return dataclasses.replace(program, functions=funcs)


def fill_hole(program: Program, hole: str, code: str) -> tuple[Program | None, str, str | None]:
    """Fill ``hole`` with the functions of generated ``code``: ``(program, reason, name)``,
    program None when the code cannot fill the hole (``reason`` says why)."""
    taken = set(program.functions)
    try:
        funcs, defined, imports = parse_reply(code, taken=taken)
    except ANPLError as exc:
        return None, f"reply does not parse: {exc}", None
    implemented = [n for n in defined if funcs[n].code is not None]
    if not implemented:
        return None, "reply defines no implemented function", None
    inline = bool(_HOLE_NAME.match(hole)) and program.functions[hole].stub is None
    if hole in implemented:
        target = hole
    elif not inline:
        return None, f"reply does not define {hole!r}", None
    else:
        # functions the program already has only merge (a reply may echo the user's code)
        fresh = [n for n in implemented if n not in program.functions]
        if not fresh:
            return None, f"reply's function name {implemented[0]!r} is already used", None
        called = {d for n in fresh for d in funcs[n].deps}
        entries = [n for n in fresh if n not in called]
        if len(entries) != 1:
            return None, f"reply has {len(entries)} new entry functions, cannot tell which", None
        target = entries[0]
    new = program
    if target != hole:
        new = rename_function(new, hole, target)
    old = new.functions[target]
    got = funcs[target]
    filled = dataclasses.replace(
        old,
        code=got.code,
        deps=got.deps,
        is_recursive=got.is_recursive,
        code_from_user=False,
        description=old.description if old.description_from_user else got.description,
    )
    new = new.with_function(filled)
    for name, f in funcs.items():  # helpers the reply brings along: user text always wins
        if name == target:
            continue
        mine = new.functions.get(name)
        if mine is None:
            new = new.with_function(f)
        elif mine.code is None and f.code is not None:
            new = new.with_function(
                dataclasses.replace(
                    mine,
                    code=f.code,
                    deps=f.deps,
                    is_recursive=f.is_recursive,
                    code_from_user=False,
                )
            )
    dumps = {ast.dump(s) for s in new.preamble}
    extra = tuple(s for s in imports if ast.dump(s) not in dumps)
    if extra:
        new = dataclasses.replace(new, preamble=new.preamble + extra)
    known = set(new.functions)
    funcs2 = {
        n: dataclasses.replace(
            f,
            deps=tuple(
                dict.fromkeys(
                    d
                    for d in (
                        [x.id for x in ast.walk(f.code) if isinstance(x, ast.Name)]
                        if f.code is not None
                        else []
                    )
                    if d in known and d != n
                )
            ),
        )
        for n, f in new.functions.items()
    }
    new = dataclasses.replace(new, functions=funcs2)
    return _clean(new), "", target


def _messages(program: Program, hole: str) -> list[dict[str, str]]:
    f = program.functions[hole]
    desc = "\n".join(f"# {line}" for line in (f.description or "").splitlines()) or "#"
    ask = _NEW_NAME if _HOLE_NAME.match(hole) and f.stub is None else _SAME_NAME
    user = f"```python\n{program.render_for_llm(hole)}```\n{ask}\n```python\n{desc}\ndef {f.name}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


class Compiler:
    """Fill the holes of ANPL programs with an LLM (``llm.complete(messages, *, n, temperature)``).

    Args:
        llm: any object with ``complete(messages, *, n=1, temperature=0.0) -> list[str]``.
        temperatures: one attempt per temperature, in order, for every hole (paper: 0 ... 0.4).
    """

    def __init__(self, llm: Any, *, temperatures: Sequence[float] = (0, 0.1, 0.2, 0.3, 0.4)):
        self.llm = check_llm(llm, "llm")
        if isinstance(temperatures, (str, bytes)) or not isinstance(temperatures, Sequence):
            raise TypeError(
                f"temperatures must be a sequence of numbers, got {type(temperatures).__name__}"
            )
        if len(temperatures) == 0:
            raise ValueError("temperatures must hold at least one temperature, got ()")
        self.temperatures = tuple(check_float(t, "temperatures", minimum=0.0) for t in temperatures)

    def messages(self, program: Program, hole: str) -> list[dict[str, str]]:
        """The chat sent for ``hole``: the system prompt, then the program (holes absent) and
        ``# <description>`` / ``def <hole name>`` at the end of the user message."""
        return _messages(program, hole)

    def compile(self, program: Program) -> Program:
        """Fill every hole, one at a time; returns a new :class:`Program` (``program`` is left
        untouched) whose ``log`` lists every :class:`Attempt`.

        Attempt ``k`` for a hole calls ``llm.complete(messages, n=1, temperature=temperatures[k])``;
        a reply fills the hole when its fenced Python compiles and defines the hole (a defined
        hole: same name; an inline ``_holeK``: one new, unused entry name, then used at every call
        site). Helpers in the reply are merged in, never over user-written code.

        Raises:
            CompileError: with ``.holes``, the holes no attempt could fill.
        """
        if not isinstance(program, Program):
            raise TypeError(f"program must be a Program, got {type(program).__name__}")
        log: list[Attempt] = []
        failed: list[str] = []
        current = program
        while True:
            todo = [h for h in current.holes() if h not in failed]
            if not todo:
                break
            hole = todo[0]
            for k, t in enumerate(self.temperatures):
                reply = check_reply(
                    self.llm.complete(self.messages(current, hole), n=1, temperature=t), 1
                )[0]
                code = extract_code(reply)
                if code is None:
                    log.append(Attempt(hole, k, t, False, reason="no compilable code block"))
                    continue
                new, reason, name = fill_hole(current, hole, code)
                if new is None:
                    log.append(Attempt(hole, k, t, False, reason=reason))
                    continue
                log.append(Attempt(hole, k, t, True, name=name))
                current = new
                break
            else:
                failed.append(hole)
        if failed:
            raise CompileError(failed, log)
        return dataclasses.replace(current, log=tuple(log))

    def resynthesize(
        self,
        program: Program,
        fn: str,
        ios: Sequence[IOExample],
        *,
        n: int = 10,
        temperature: float = 0.8,
        timeout: float = 1.0,
    ) -> Program | None:
        """Re-implement ``fn`` under golden IOs: one call for ``n`` candidates at
        ``temperature`` with ``fn`` reset to a hole; the first candidate under which calling
        ``fn`` on each ``io.inputs`` records ``io`` as its last call is returned (``fn`` keeps
        ``ios`` as ``golden_ios``), else None. ``program`` is left untouched."""
        if not isinstance(program, Program):
            raise TypeError(f"program must be a Program, got {type(program).__name__}")
        if not isinstance(fn, str):
            raise TypeError(f"fn must be a function name (str), got {type(fn).__name__}")
        if fn not in program.functions:
            raise ValueError(f"fn must name a function of the program, got {fn!r}")
        ios = _check_ios(ios)
        n = check_int(n, "n", minimum=1)
        temperature = check_float(temperature, "temperature", minimum=0.0)
        timeout = check_float(timeout, "timeout", minimum=0.0, min_inclusive=False)
        reset = program.with_function(program.functions[fn].reset_to_hole())
        replies = check_reply(
            self.llm.complete(self.messages(reset, fn), n=n, temperature=temperature), n
        )
        for reply in replies:
            code = extract_code(reply)
            if code is None:
                continue
            cand, _, name = fill_hole(reset, fn, code)
            if cand is None:
                continue
            if all(_fits(cand, name, io, timeout) for io in ios):
                f = cand.functions[name]
                return cand.with_function(dataclasses.replace(f, golden_ios=tuple(ios)))
        return None


def _fits(program: Program, fn: str, io: IOExample, timeout: float) -> bool:
    try:
        t = trace(program, fn, io.inputs, entry=fn, timeout=timeout)
    except (TimeoutError, ValueError):  # ValueError: the candidate calls a hole of its own
        return False
    if t.crashed_inside or not t.ios:
        return False
    last = t.ios[-1]
    if isinstance(io.inputs, tuple):
        return values_equal(tuple(last.inputs.values()), io.inputs) and values_equal(
            last.output, io.output
        )
    return last == io
