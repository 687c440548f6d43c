"""The shared validation vocabulary (tools/template/src/__import_name__/_checks.py): the rule
"wrong type -> TypeError, wrong value -> ValueError, both naming the argument"."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

PATH = Path(__file__).resolve().parents[1] / "template" / "src" / "__import_name__" / "_checks.py"
spec = importlib.util.spec_from_file_location("_papershelf_checks", PATH)
C = importlib.util.module_from_spec(spec)
spec.loader.exec_module(C)


def _raises(exc, name, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert str(info.value).startswith(name), info.value
    return str(info.value)


def test_check_array_converts_and_keeps():
    out = C.check_array([1, 2, 3], "x", ndim=1)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]
    ints = C.check_array(np.array([1, 2]), "n", dtype="int")
    assert ints.dtype.kind == "i"
    assert C.check_array(np.array([1.0, 2.0]), "n", dtype="int").dtype == np.int64
    assert C.check_array(np.zeros((0, 3)), "x", shape=(None, 3), allow_empty=True).shape == (0, 3)
    assert np.isnan(C.check_array([np.nan], "x", finite=False)[0])


@pytest.mark.parametrize(
    "value, kwargs, exc, fragment",
    [
        (None, {}, TypeError, "array of numbers"),
        ("abc", {}, TypeError, "array of numbers"),
        ([[1, 2], [3]], {}, TypeError, "rectangular"),
        (np.array(["a"]), {}, TypeError, "real numbers"),
        (np.array([1 + 2j]), {}, TypeError, "real numbers"),
        (np.array([object()]), {}, TypeError, "real numbers"),
        ([1.5], {"dtype": "int"}, TypeError, "integers"),
        ([True], {"dtype": "int"}, TypeError, "integers"),
        ([1.0], {"dtype": "bool"}, TypeError, "booleans"),
        ([1.0, 2.0], {"ndim": 2}, ValueError, "2-d"),
        (np.ones((2, 2)), {"ndim": (1, 3)}, ValueError, "1-d or 3-d"),
        (np.ones((2, 2)), {"shape": (None, 3)}, ValueError, "(any, 3)"),
        ([], {}, ValueError, "empty"),
        ([1.0, np.nan], {}, ValueError, "finite"),
        ([1.0, np.inf], {}, ValueError, "finite"),
    ],
)
def test_check_array_refuses(value, kwargs, exc, fragment):
    assert fragment in _raises(exc, "x", C.check_array, value, "x", **kwargs)


def test_check_array_refuses_a_torch_tensor_without_importing_torch_for_numpy_values():
    torch = pytest.importorskip("torch")
    _raises(TypeError, "x", C.check_array, torch.ones(3), "x")


def test_check_tensor():
    torch = pytest.importorskip("torch")
    t = torch.ones(2, 3)
    assert C.check_tensor(t, "q", ndim=2) is t
    _raises(TypeError, "q", C.check_tensor, np.ones(3), "q")
    _raises(TypeError, "q", C.check_tensor, torch.ones(3, dtype=torch.int32), "q")
    _raises(ValueError, "q", C.check_tensor, torch.tensor([1.0, float("inf")]), "q")
    _raises(ValueError, "q", C.check_tensor, t, "q", shape=(2, 4))
    _raises(ValueError, "q", C.check_tensor, torch.ones(0), "q")


@pytest.mark.parametrize("value", [1.0, True, np.bool_(True), "3", None, 2.5])
def test_check_int_type(value):
    _raises(TypeError, "k", C.check_int, value, "k")


def test_check_int_range():
    assert C.check_int(np.int64(3), "k", minimum=1) == 3
    assert type(C.check_int(np.int64(3), "k")) is int
    assert ">= 1" in _raises(ValueError, "k", C.check_int, 0, "k", minimum=1)
    assert "<= 5" in _raises(ValueError, "k", C.check_int, 6, "k", maximum=5)


def test_check_float_and_probability():
    assert C.check_float(np.float32(0.5), "t", minimum=0) == 0.5
    assert C.check_float(np.array(2.0), "t") == 2.0
    for bad in ("1", None, True, [1.0], 1 + 0j):
        _raises(TypeError, "t", C.check_float, bad, "t")
    _raises(ValueError, "t", C.check_float, float("nan"), "t")
    _raises(ValueError, "t", C.check_float, float("inf"), "t")
    assert C.check_float(float("inf"), "t", finite=False) == float("inf")
    assert "> 0" in _raises(
        ValueError, "t", C.check_float, 0.0, "t", minimum=0, min_inclusive=False
    )
    assert C.check_probability(0, "p") == 0.0
    _raises(ValueError, "p", C.check_probability, 1.2, "p")
    _raises(ValueError, "p", C.check_probability, 0.0, "p", allow_zero=False)
    _raises(ValueError, "p", C.check_probability, 1.0, "p", allow_one=False)


def test_check_bool_option_callable():
    assert C.check_bool(np.bool_(False), "flag") is False
    _raises(TypeError, "flag", C.check_bool, 1, "flag")
    assert C.check_option("a", "mode", ["a", "b"]) == "a"
    assert "['a', 'b']" in _raises(ValueError, "mode", C.check_option, "c", "mode", ["a", "b"])
    _raises(TypeError, "mode", C.check_option, 1, "mode", ["a", "b"])
    _raises(ValueError, "mode", C.check_option, [1], "mode", [1, 2])
    _raises(TypeError, "fn", C.check_callable, 3, "fn")


def test_check_rng_spec7():
    g = np.random.default_rng(1)
    assert C.check_rng(g) is g
    a, b = C.check_rng(5), C.check_rng(np.int32(5))
    assert a.random() == b.random()
    assert isinstance(C.check_rng(None), np.random.Generator)
    assert isinstance(C.check_rng(np.random.SeedSequence(3)), np.random.Generator)
    assert isinstance(C.check_rng(np.random.PCG64(3)), np.random.Generator)
    for bad in ("abc", 1.5, True, [1, 2], object()):
        _raises(TypeError, "rng", C.check_rng, bad)
    assert "RandomState" in _raises(
        TypeError, "seed", C.check_rng, np.random.RandomState(0), "seed"
    )
    _raises(ValueError, "rng", C.check_rng, -1)


def test_check_generator():
    torch = pytest.importorskip("torch")
    g = torch.Generator()
    assert C.check_generator(g) is g and C.check_generator(None) is None
    _raises(TypeError, "generator", C.check_generator, 0)


def test_check_same_length():
    assert C.check_same_length(x=np.ones(3), y=[1, 2, 3]) == 3
    msg = _raises(ValueError, "y", C.check_same_length, x=np.ones(3), y=np.ones(4))
    assert "x has 3" in msg
