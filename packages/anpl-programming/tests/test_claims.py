"""Brief checks 5-6 in miniature on synthetic ARC-like grids (not ARC data): decomposition
makes a primitives-only LLM succeed, and trace + one golden IO + resynthesis fixes a wrong
primitive. References are written independently with numpy."""

import numpy as np
import pytest
from anpl_programming import CompileError, Compiler, IOExample, LibraryLLM, check, parse, trace

RIGHT = "def replace_colour(g, a, b):\n    g = np.array(g)\n    g[g == a] = b\n    return g"
SWAPPED = "def replace_colour(g, a, b):\n    g = np.array(g)\n    g[g == b] = a\n    return g"
LIBRARY = {
    "flip the grid upside down": "def flip_ud(g):\n    return np.asarray(g)[::-1]",
    "flip the grid left to right": "def flip_lr(g):\n    return np.asarray(g)[:, ::-1]",
    "replace colour a with colour b": RIGHT,
}
RNG = np.random.default_rng(0)
GRIDS = [RNG.integers(0, 10, size=(3, 4)) for _ in range(4)]
GRIDS[0][0, :2] = (7, 5)  # orange and grey both present: the swapped primitive shows
ORANGE, GREY = 7, 5  # ARC colour numbers (the prelude's names)


def ios(reference):
    return [IOExample({"grid": g}, reference(g)) for g in GRIDS]


def test_decomposed_program_passes_where_the_one_hole_program_cannot_compile():
    rot = ios(lambda g: np.rot90(g, 2))
    with pytest.raises(CompileError) as info:
        Compiler(LibraryLLM(LIBRARY)).compile(
            parse('def solve(grid):\n    """rotate the grid by 180 degrees"""\n')
        )
    assert info.value.holes == ["solve"]
    sketch = "def solve(grid):\n    return `flip the grid upside down`(`flip the grid left to right`(grid))\n"
    prog = Compiler(LibraryLLM(LIBRARY)).compile(parse(sketch))
    assert check(prog, rot)
    assert not check(prog, ios(lambda g: g[::-1]))  # and it is not a program that fits anything


def test_trace_then_golden_io_then_resynthesis_fixes_the_task():
    task = ios(lambda g: np.where(g == ORANGE, GREY, g))
    llm = LibraryLLM({**LIBRARY, "replace colour a with colour b": [SWAPPED, SWAPPED, RIGHT]})
    compiler = Compiler(llm)
    prog = compiler.compile(
        parse("def solve(grid):\n    return `replace colour a with colour b`(grid, orange, grey)\n")
    )
    assert not check(prog, task)
    t = trace(prog, "replace_colour", {"grid": GRIDS[0]})
    (seen,) = t.ios
    assert (seen.inputs["a"], seen.inputs["b"]) == (7, 5)
    assert not np.array_equal(seen.output, task[0].output)
    fixed = compiler.resynthesize(prog, "replace_colour", [IOExample(seen.inputs, task[0].output)])
    assert fixed is not None and check(fixed, task)
    assert llm.calls[-1]["n"] == 10 and llm.calls[-1]["temperature"] == 0.8
