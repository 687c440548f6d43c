"""Runner and trace (brief check 3) on a synthetic ARC-like grid task (007bbfb7-style fractal
tiling, grids written by hand): outputs, call logs computed by hand, crashes, runaways killed."""

import time

import numpy as np
import pytest
from anpl_programming import ExecutionError, IOExample, check, parse, run, trace

FRACTAL = parse(
    """
def tile(grid):
    return np.tile(grid, (3, 3))

def upscale(mask):
    return np.kron(mask, np.ones((3, 3), dtype=int))

def solve(grid):
    grid = np.asarray(grid)
    return np.where(upscale(grid != black) == 1, tile(grid), black)
"""
)
GRID = np.array([[0, 7], [7, 7]])


def _fractal(g):  # independent reference: out[3i+a, 3j+b] = g[a, b] if g[i, j] else 0
    n, m = g.shape
    out = np.zeros((n * n, m * m), dtype=int)
    for i in range(n):
        for j in range(m):
            if g[i, j]:
                out[n * i : n * i + n, m * j : m * j + m] = g
    return out


def test_run_matches_reference_on_3x3_task():
    g = np.array([[6, 6, 0], [6, 0, 0], [0, 6, 6]])  # the first pair of ARC 007bbfb7
    np.testing.assert_array_equal(run(FRACTAL, {"grid": g}), _fractal(g))
    assert check(FRACTAL, [IOExample({"grid": g}, _fractal(g))])
    assert not check(FRACTAL, [IOExample({"grid": g}, _fractal(g) + 1)])


def test_run_accepts_positional_tuple_and_source_text():
    assert run("def main(a, b):\n    return a - b\n", (5, 3)) == 2


def test_trace_records_one_io_per_call_as_computed_by_hand():
    p = parse(
        "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n\n"
        "def main(k):\n    return fact(k) + fact(2)\n"
    )
    t = trace(p, "fact", {"k": 3})
    # calls complete innermost first: fact(1)=1, fact(2)=2, fact(3)=6, then fact(1), fact(2)
    expected = [({"n": 1}, 1), ({"n": 2}, 2), ({"n": 3}, 6), ({"n": 1}, 1), ({"n": 2}, 2)]
    assert t.ios == [IOExample(i, o) for i, o in expected]
    assert t.reached and not t.crashed_inside and t.exception is None
    ios, reached, crashed = t  # unpacks as a triple
    assert reached and not crashed


def test_trace_of_the_tiling_helper():
    t = trace(FRACTAL, "tile", {"grid": GRID})
    assert len(t.ios) == 1
    np.testing.assert_array_equal(t.ios[0].inputs["grid"], GRID)
    np.testing.assert_array_equal(t.ios[0].output, np.tile(GRID, (3, 3)))


def test_crash_before_reaching_vs_inside():
    before = parse(
        "def tile(g):\n    return g * 3\n\ndef main(g):\n    x = 1 / 0\n    return tile(g)\n"
    )
    t = trace(before, "tile", {"g": 1})
    assert not t.reached and not t.crashed_inside and t.ios == []
    assert t.exception.startswith("ZeroDivisionError")
    inside = parse("def tile(g):\n    return g[5]\n\ndef main(g):\n    return tile(g)\n")
    t = trace(inside, "tile", {"g": [1]})
    assert t.reached and t.crashed_inside and t.ios == [] and "IndexError" in t.exception
    after = parse("def tile(g):\n    return g\n\ndef main(g):\n    tile(g)\n    return g[9]\n")
    t = trace(after, "tile", {"g": [1]})
    assert t.reached and not t.crashed_inside and len(t.ios) == 1


def test_exceptions_become_execution_errors():
    p = parse("def main(x):\n    raise KeyError('boom')\n")
    with pytest.raises(ExecutionError) as info:
        run(p, {"x": 1})
    assert info.value.exc_type == "KeyError" and "boom" in info.value.message
    assert isinstance(info.value, RuntimeError) and "Traceback" in info.value.traceback
    unpicklable = parse("def main(x):\n    return lambda: x\n")
    with pytest.raises(ExecutionError):
        run(unpicklable, {"x": 1})
    with pytest.raises(ExecutionError):
        run(parse("def main(x):\n    raise SystemExit(3)\n"), {"x": 1})


@pytest.mark.parametrize(
    "body",
    ["    while True:\n        pass\n", "    import time\n    time.sleep(60)\n"],
    ids=["busy", "sleep"],
)
def test_runaway_is_killed(body):
    p = parse(f"def main(x):\n{body}")
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        run(p, {"x": 1}, timeout=0.3)
    assert time.monotonic() - start < 2.0
    with pytest.raises(TimeoutError):
        trace(p, "main", {"x": 1}, timeout=0.3)
    assert not check(p, [IOExample({"x": 1}, None)], timeout=0.3)


def test_program_cannot_change_the_callers_inputs():
    p = parse("def main(g):\n    g[0] = 99\n    return g\n")
    g = np.zeros(3)
    out = run(p, {"g": g})
    assert out[0] == 99 and g[0] == 0


def test_programs_with_holes_do_not_run():
    with pytest.raises(ValueError, match="holes"):
        run(parse("def main(x):\n    return `a`(x)\n"), {"x": 1})
