"""Running, checking and tracing ANPL programs in a child process (ANPL Sec. 3.2 "tracing").

Every execution happens in a separate process (``fork`` where the platform has it, else
``spawn``) that is killed when it runs past ``timeout``: runaway loops are really stopped (the
released prototype ran them in a thread, which cannot be killed). Inputs reach the child as a
copy, so a program never changes the caller's objects.

This is **not a security boundary**: the child runs with the caller's permissions and can read
files, open sockets or fill the disk. Run untrusted generated code inside a container or VM.
"""

from __future__ import annotations

import copy
import functools
import inspect
import multiprocessing as mp
import traceback
from collections.abc import Sequence
from typing import Any, NamedTuple

from ._checks import check_float
from ._syntax import IOExample, Program, check_inputs, parse, values_equal

__all__ = ["ExecutionError", "Trace", "check", "run", "trace"]


class ExecutionError(RuntimeError):
    """The program raised (``exc_type``, ``message``, ``traceback`` from the child process) or
    returned something that cannot be sent back (not picklable)."""

    def __init__(self, exc_type: str, message: str, tb: str = ""):
        super().__init__(f"{exc_type}: {message}")
        self.exc_type = exc_type
        self.message = message
        self.traceback = tb


class _TraceFields(NamedTuple):
    ios: list[IOExample]
    reached: bool
    crashed_inside: bool


class Trace(_TraceFields):
    """What :func:`trace` saw: ``ios`` (one :class:`IOExample` per completed call of the traced
    function, in completion order), ``reached`` (it was called at all), ``crashed_inside`` (an
    exception escaped one of its calls); ``exception`` is the run's final error as
    ``"Type: message"`` or None. Unpacks as ``ios, reached, crashed_inside``."""

    exception: str | None

    def __new__(cls, ios, reached, crashed_inside, exception=None):
        self = super().__new__(cls, ios, reached, crashed_inside)
        self.exception = exception
        return self


def _ctx() -> Any:
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def _call(fn: Any, inputs: dict | tuple) -> Any:
    return fn(*inputs) if isinstance(inputs, tuple) else fn(**inputs)


def _child(conn: Any, source: str, entry: str, inputs: Any, traced: str | None) -> None:
    """Runs in the child: exec the module, optionally wrap ``traced``, call ``entry``."""
    records: list[tuple[dict, Any]] = []
    state = {"reached": False, "crashed": False}
    try:
        namespace: dict[str, Any] = {"__name__": "anpl_program"}
        exec(compile(source, "<anpl program>", "exec"), namespace)
        if traced is not None:
            original = namespace[traced]
            sig = inspect.signature(original)

            @functools.wraps(original)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                state["reached"] = True
                try:
                    bound = dict(sig.bind(*args, **kwargs).arguments)
                except TypeError:
                    bound = {f"arg{i}": a for i, a in enumerate(args)} | kwargs
                frozen = copy.deepcopy(bound)
                try:
                    out = original(*args, **kwargs)
                except BaseException:
                    state["crashed"] = True
                    raise
                records.append((frozen, copy.deepcopy(out)))
                return out

            namespace[traced] = wrapper
        result = _call(namespace[entry], inputs)
        payload: tuple = ("ok", result, records, state)
    except BaseException as exc:  # everything the program raises goes back to the parent
        tb = traceback.format_exc()
        payload = ("error", (type(exc).__name__, str(exc), tb), records, state)
    try:
        conn.send(payload)
    except Exception as exc:  # the result (or a record) does not pickle
        err = (type(exc).__name__, f"cannot send the result back: {exc}", "")
        try:
            conn.send(("error", err, [], state))
        except Exception:
            conn.send(("error", err, [], {"reached": False, "crashed": False}))
    finally:
        conn.close()


def _execute(
    program: Program, inputs: Any, *, entry: str | None, traced: str | None, timeout: float
) -> tuple:
    source = program.to_python(include_holes=False)
    ctx = _ctx()
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_child, args=(child, source, entry or program.entry, inputs, traced), daemon=True
    )
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise TimeoutError(f"the program ran past timeout={timeout} s and was killed")
        try:
            return parent.recv()
        except EOFError:
            raise ExecutionError(
                "ProcessDied", f"the child process exited with code {proc.exitcode}"
            ) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()


def _needed(program: Program, entry: str) -> list[str]:
    """Functions reachable from ``entry`` through calls (``entry`` first)."""
    seen: list[str] = []
    stack = [entry]
    while stack:
        name = stack.pop()
        if name in seen or name not in program.functions:
            continue
        seen.append(name)
        stack.extend(program.functions[name].deps)
    return seen


def _check_program(program: Any, entry: str | None = None) -> Program:
    if isinstance(program, str):
        program = parse(program)
    if not isinstance(program, Program):
        raise TypeError(
            f"program must be a Program (or ANPL source text), got {type(program).__name__}"
        )
    start = program.entry if entry is None or entry not in program.functions else entry
    holes = [n for n in _needed(program, start) if program.functions[n].code is None]
    if holes:
        raise ValueError(f"program must be compiled first: {start!r} still reaches holes {holes}")
    return program


def _check_timeout(timeout: Any) -> float:
    return check_float(timeout, "timeout", minimum=0.0, min_inclusive=False)


def run(program: Program, inputs: dict[str, Any] | tuple, *, timeout: float = 1.0) -> Any:
    """Call the program's entry on ``inputs`` in a child process and return its result.

    Args:
        program: a hole-free :class:`Program` (or ANPL source text without holes).
        inputs: parameter name -> value (keyword call), or a tuple (positional call).
        timeout: seconds before the child is killed (paper: 1 s).

    Raises:
        TimeoutError: the program ran past ``timeout`` (the child is killed).
        ExecutionError: the program raised; ``exc_type``, ``message``, ``traceback`` say what.
    """
    program = _check_program(program)
    inputs = check_inputs(inputs, "inputs")
    timeout = _check_timeout(timeout)
    status, value, _, _ = _execute(program, inputs, entry=None, traced=None, timeout=timeout)
    if status == "error":
        raise ExecutionError(*value)
    return value


def _check_ios(ios: Any, name: str = "ios") -> list[IOExample]:
    if isinstance(ios, IOExample):
        ios = [ios]
    if not isinstance(ios, Sequence) or isinstance(ios, str):
        raise TypeError(f"{name} must be a list of IOExample, got {type(ios).__name__}")
    ios = list(ios)
    if not ios:
        raise ValueError(f"{name} must hold at least one IOExample, got an empty list")
    for io in ios:
        if not isinstance(io, IOExample):
            raise TypeError(f"{name} must hold IOExample objects, got {type(io).__name__}")
    return ios


def check(program: Program, ios: Sequence[IOExample], *, timeout: float = 1.0) -> bool:
    """True iff the entry returns each ``io.output`` (numpy-aware) on ``io.inputs``; a crash or a
    timeout counts as a failure."""
    program = _check_program(program)
    ios = _check_ios(ios)
    timeout = _check_timeout(timeout)
    for io in ios:
        try:
            out = run(program, io.inputs, timeout=timeout)
        except (ExecutionError, TimeoutError):
            return False
        if not values_equal(out, io.output):
            return False
    return True


def trace(
    program: Program,
    fn: str,
    inputs: dict[str, Any] | tuple,
    *,
    timeout: float = 1.0,
    entry: str | None = None,
) -> Trace:
    """Run the entry (or ``entry``) on ``inputs`` and record every call of function ``fn``.

    Returns:
        :class:`Trace`: ``ios`` (inputs bound to parameter names, deep-copied before the call;
        output deep-copied after), ``reached``, ``crashed_inside`` and ``exception``. A crash is
        recorded, not raised.

    Raises:
        TimeoutError: the run went past ``timeout`` (the child is killed).
    """
    program = _check_program(program, entry)
    if not isinstance(fn, str):
        raise TypeError(f"fn must be a function name (str), got {type(fn).__name__}")
    if fn not in program.functions:
        raise ValueError(f"fn must name a function of the program, got {fn!r}")
    inputs = check_inputs(inputs, "inputs")
    timeout = _check_timeout(timeout)
    if entry is not None and entry not in program.functions:
        raise ValueError(f"entry must name a function of the program, got {entry!r}")
    status, value, records, state = _execute(
        program, inputs, entry=entry, traced=fn, timeout=timeout
    )
    ios = [IOExample(i, o) for i, o in records]
    exception = None if status == "ok" else f"{value[0]}: {value[1]}"
    return Trace(ios, bool(state["reached"]), bool(state["crashed"]), exception)
