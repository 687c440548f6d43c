"""Parser: hole naming, entries, recursion, round trips (brief check 1, exact)."""

import ast

import numpy as np
import pytest
from anpl_programming import ANPLError, IOExample, parse, values_equal

# (source, expected holes in order, expected description of each hole), written by hand
NAMING = [
    ("def main(x):\n    return `a`(`b`(x))\n", ["_hole0", "_hole1"], ["a", "b"]),
    ('def main(x):\n    return "a"("b"(x))\n', ["_hole0", "_hole1"], ["a", "b"]),
    ('def main(x):\n    y = `b`(x)\n    return "a"(y)\n', ["_hole0", "_hole1"], ["b", "a"]),
    (
        "def main(x):\n    y = `a`(x)\n    z = `b`(y)\n    return `a`(z)\n",
        ["_hole0", "_hole1"],
        ["a", "b"],
    ),
    ('def main(x):\n    return `same text`(x) + "same text"(x)\n', ["_hole0"], ["same text"]),
    (
        'def main(x):\n    return helper(`first`(x))\n\ndef helper(y):\n    """second"""\n',
        ["_hole0", "helper"],
        ["first", "second"],
    ),
    (
        "def main(x):\n    return `a`(x) if `b`(x) else `c`(x)\n",
        ["_hole0", "_hole1", "_hole2"],
        ["a", "b", "c"],
    ),
    ("def main(x):\n    return {`k`(x): `v`(x)}\n", ["_hole0", "_hole1"], ["k", "v"]),
    ("def main(x):\n    return [`a`(v) for v in `b`(x)]\n", ["_hole0", "_hole1"], ["a", "b"]),
    ("def main(x):\n    return `  padded `(x) + `padded`(x)\n", ["_hole0"], ["padded"]),
    (
        "def main(x):\n    return f(x)\n\ndef f(y):\n    return `in f`(y) + `in f 2`(y)\n",
        ["_hole0", "_hole1"],
        ["in f", "in f 2"],
    ),
]


@pytest.mark.parametrize("source,holes,descs", NAMING)
def test_hole_naming_table(source, holes, descs):
    p = parse(source)
    assert p.holes() == holes
    assert [p.functions[h].description for h in holes] == descs
    assert p.entry == "main"


def test_inline_hole_replaces_every_call_site():
    p = parse("def main(x):\n    return `a`(x) + `a`(x * 2)\n")
    calls = [
        n.func.id
        for n in ast.walk(p.functions["main"].code)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    ]
    assert calls == ["_hole0", "_hole0"]


def test_existing_hole_names_are_not_reused():
    p = parse('def main(x):\n    return _hole0(`new`(x))\n\ndef _hole0(y):\n    """old"""\n')
    assert p.holes() == ["_hole1", "_hole0"]
    assert p.functions["_hole1"].description == "new"


def test_docstring_only_function_is_a_hole_and_code_with_docstring_is_not():
    src = 'def main(g):\n    """entry doc"""\n    return flip(g)\n\ndef flip(g):\n    """flip the grid"""\n'
    p = parse(src)
    assert p.holes() == ["flip"]
    assert p.functions["main"].description == "entry doc"
    assert p.functions["main"].code_from_user
    assert p.functions["flip"].params == ["g"]
    assert p.functions["main"].deps == ("flip",)


@pytest.mark.parametrize(
    "source",
    [
        "def a(x):\n    return x\n\ndef b(x):\n    return x\n",  # two entries
        "def a(x):\n    return b(x)\n\ndef b(x):\n    return a(x)\n",  # no entry (a cycle)
        "x = 1\n",  # no function
        "def main(x):\n    return (\n",  # syntax error
        "def main(x):\n    return x\n\ndef main(y):\n    return y\n",  # defined twice
        'def main(x):\n    return ""(x)\n',  # empty description
    ],
)
def test_invalid_programs_raise_anpl_error(source):
    with pytest.raises(ANPLError):
        parse(source)
    assert issubclass(ANPLError, ValueError)


def test_self_call_sets_is_recursive_and_is_not_a_dependency():
    p = parse("def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n")
    f = p.functions["fact"]
    assert f.is_recursive and f.deps == () and p.entry == "fact"
    q = parse("def main(n):\n    return helper(n)\n\ndef helper(n):\n    return n\n")
    assert not q.functions["helper"].is_recursive


ROUND_TRIP = [
    'def main(x):\n    return `a`(x) + helper(x)\n\ndef helper(y):\n    """b"""\n',
    "import math\nK = 3\n\ndef main(x):\n    return math.sqrt(K * x)\n",
    'def main(grid):\n    g = "tile it"(grid)\n    return np.where(g == red, blue, g)\n',
]


@pytest.mark.parametrize("source", ROUND_TRIP)
def test_to_python_round_trips(source):
    p = parse(source)
    text = p.to_python()
    ast.parse(text)  # valid Python
    q = parse(text)
    assert q.entry == p.entry and q.holes() == p.holes()
    assert {n: f.description for n, f in q.functions.items()} == {
        n: f.description for n, f in p.functions.items()
    }
    assert q.to_python() == text  # idempotent: the prelude is not duplicated
    assert text.startswith("import numpy as np\nfrom typing import *\n")


def test_to_python_without_holes_omits_them():
    p = parse("def main(x):\n    return `a`(x)\n")
    assert "_hole0" not in p.to_python(include_holes=False).split("def main")[0]
    assert "def _hole0" in p.to_python()
    assert "import numpy" not in p.to_python(prelude=False)


def test_demo_calls_and_main_guard_are_dropped():
    p = parse(
        "def main(x):\n    return x\n\nprint(main(1))\nif __name__ == '__main__':\n    main(2)\n"
    )
    assert "print" not in p.to_python() and "__main__" not in p.to_python()


VALUES = [
    (np.array([[1, 2]]), [[1, 2]], True),
    (np.array([[1, 2]]), np.array([1, 2]), False),
    ({"a": np.zeros(2)}, {"a": [0.0, 0.0]}, True),
    ({"a": 1}, {"b": 1}, False),
    ([np.array([1]), 2], (np.array([1]), 2), True),
    (float("nan"), float("nan"), True),
    (np.array([np.nan]), np.array([np.nan]), True),
    (np.array(["a"]), np.array(["a"]), True),
    (1, 2, False),
    ([1, 2], [1, 2, 3], False),
]


@pytest.mark.parametrize("a,b,expected", VALUES)
def test_values_equal_table(a, b, expected):
    assert values_equal(a, b) is expected
    assert values_equal(b, a) is expected


def test_io_example_equality_is_numpy_aware():
    assert IOExample({"g": np.eye(2)}, np.ones(2)) == IOExample({"g": [[1, 0], [0, 1]]}, [1, 1])
    assert IOExample({"g": np.eye(2)}, 1) != IOExample({"g": np.eye(2)}, 2)
    assert IOExample({"g": 1}, 1) != IOExample({"h": 1}, 1)
