"""The generated bad-input suite: it passes on a validating function and fails on a sloppy one."""

import math

import numpy as np
import pytest
from hypothesis import strategies as st

from papershelf_harness import suite


def _err(exc, name, what):
    raise exc(f"{name} {what}")


def good(x=None, *, level=1.0, k=1, flag=False, mode="a", rng=None):
    """A function that validates by the rule."""
    if x is not None:
        if not isinstance(x, np.ndarray) or x.dtype.kind not in "biuf":
            _err(TypeError, "x", "must be numeric")
        if x.ndim != 1:
            _err(ValueError, "x", "must be 1-d")
        if x.size == 0:
            _err(ValueError, "x", "must not be empty")
        if not np.all(np.isfinite(x)):
            _err(ValueError, "x", "must be finite")
        if x.shape[0] != 3:
            _err(ValueError, "x", "must have length 3")
    if isinstance(level, bool) or not isinstance(level, int | float):
        _err(TypeError, "level", "must be a number")
    if not math.isfinite(level) or level <= 0:
        _err(ValueError, "level", "must be > 0")
    if isinstance(k, bool) or not isinstance(k, int):
        _err(TypeError, "k", "must be an int")
    if k < 1:
        _err(ValueError, "k", "must be >= 1")
    if not isinstance(flag, bool):
        _err(TypeError, "flag", "must be a bool")
    if not isinstance(mode, str):
        _err(TypeError, "mode", "must be a str")
    if mode not in ("a", "b"):
        _err(ValueError, "mode", "unknown")
    if rng is not None:
        if isinstance(rng, bool) or not isinstance(rng, int):
            _err(TypeError, "rng", "must be an int seed")
        if rng < 0:
            _err(ValueError, "rng", "must be >= 0")


CASES = [
    suite.Number("good.level", "level", lambda v: good(level=v)),
    suite.OutOfRange("good.level<=0", "level", lambda v: good(level=v), st.floats(-5, 0)),
    suite.Int("good.k", "k", lambda v: good(k=v), minimum=1),
    suite.Flag("good.flag", "flag", lambda v: good(flag=v)),
    suite.Array(
        "good.x",
        "x",
        lambda v: good(np.asarray(v) if isinstance(v, list) else v),
        (3,),
        (1,),
        none_ok=True,
    ),
    suite.Mismatch("good.x.len", "x", lambda: good(np.ones(4))),
    suite.Option("good.mode", "mode", lambda v: good(mode=v), valid=frozenset({"a", "b"})),
    suite.Rng("good.rng", "rng", lambda v: good(rng=v)),
    suite.Values(
        "good.k.listed", "k", lambda v: good(k=v), bad=[(0, ValueError), ("2", TypeError)]
    ),
]
globals().update(suite.bad_input_suite(CASES))


def test_the_suite_catches_a_sloppy_function():
    def sloppy(level=1.0):
        return float(level) * 2  # True -> 2.0, nan -> nan: no error

    tests = suite.bad_input_suite([suite.Number("sloppy.level", "level", lambda v: sloppy(v))])
    with pytest.raises(AssertionError, match="nothing was raised"):
        tests["test_number_bool_is_a_type_error"](
            case=suite.Number("s", "level", sloppy), value=True
        )
    with pytest.raises(AssertionError):
        tests["test_number_non_finite_is_a_value_error"](
            case=suite.Number("s", "level", sloppy), value=math.nan
        )


def test_unknown_case_objects_are_refused():
    with pytest.raises(TypeError, match="case objects"):
        suite.bad_input_suite([("id", "x", print)])


def test_keyword_builds_a_case_for_one_keyword_argument():
    calls = []

    def f(x, *, n=1, m=2):
        calls.append((x, n, m))

    case = suite.keyword(suite.Int, f, "n", 5, kwargs={"m": 3}, minimum=1)
    assert (case.id, case.name, case.minimum) == ("f.n", "n", 1)
    case.call(7)
    assert calls == [(5, 7, 3)]


def test_values_checks_the_listed_exception_and_its_pairs():
    tests = suite.bad_input_suite(
        [suite.Values("g.k", "k", lambda v: good(k=v), bad=[(0, ValueError)])]
    )
    wrong = suite.Values("g.k", "k", lambda v: good(k=v), bad=[(0, TypeError)])
    with pytest.raises(AssertionError):  # good(k=0) raises ValueError, not the TypeError listed
        tests["test_listed_value_is_rejected"](case=wrong, value=0, exc=TypeError)
    with pytest.raises(TypeError, match="Values.bad"):
        suite.Values("g.k", "k", print, bad=[(0, KeyError)])
    with pytest.raises(ValueError, match="at least one"):
        suite.Values("g.k", "k", print, bad=[])


def _ids(input_ids):
    """A validating token-id argument (vocabulary of 5; a batch of one row is accepted)."""
    if input_ids is None or isinstance(input_ids, str):
        _err(TypeError, "input_ids", "must be a sequence of ints")
    try:
        x = np.asarray(input_ids)
    except ValueError:
        _err(TypeError, "input_ids", "must not be ragged")
    if x.dtype == object or (x.size and x.dtype.kind not in "iu"):
        _err(TypeError, "input_ids", "must hold ints")
    if x.ndim == 2 and x.shape[0] == 1:
        x = x[0]
    if x.ndim != 1 or x.size == 0 or x.min() < 0 or x.max() >= 5:
        _err(ValueError, "input_ids", "must be a non-empty 1-d sequence of ids in [0, 5)")


globals().update(
    {
        f"{k}_token_ids": v
        for k, v in suite.bad_input_suite(
            [suite.token_ids("ids", "input_ids", _ids, vocab_size=5)]
        ).items()
    }
)


def test_token_ids_catches_an_unchecked_vocabulary():
    case = suite.token_ids(
        "ids", "input_ids", lambda v: _ids(v) if v != [0, 6] else None, vocab_size=6
    )
    test = suite.bad_input_suite([case])["test_listed_value_is_rejected"]
    with pytest.raises(AssertionError):  # [0, 6] is not rejected by this sloppy variant
        test(case=case, value=[0, 6], exc=ValueError)


def test_image_batch_rejects_bad_options_before_importing_torch():
    with pytest.raises(ValueError, match="shape"):
        suite.image_batch("x", "x", lambda v: v, shape=(3,))


def test_image_batch_lists_the_bad_tensors():
    torch = pytest.importorskip("torch")
    strict = suite.image_batch("x", "x", lambda v: v, shape=(3, 1, 8, 8))
    loose = suite.image_batch("x", "x", lambda v: v, shape=(3, 1, 8, 8), integer_ok=True)
    assert len(strict.bad) == len(loose.bad) + 1
    kinds = [(type(v).__name__, getattr(v, "shape", None), e) for v, e in strict.bad]
    assert ("Tensor", torch.Size([0, 1, 8, 8]), ValueError) in kinds
    assert ("Tensor", torch.Size([1, 8, 8]), ValueError) in kinds
    assert ("ndarray", (3, 1, 8, 8), TypeError) in kinds
    nan = [
        v for v, _ in strict.bad if isinstance(v, torch.Tensor) and v.numel() and v.isnan().all()
    ]
    assert len(nan) == 1


def _image(x):
    import torch

    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        _err(TypeError, "x", "must be a float tensor")
    if x.ndim != 4 or x.shape[0] == 0 or not bool(torch.isfinite(x).all()):
        _err(ValueError, "x", "must be a finite [B, C, H, W] batch")


def test_image_batch_catches_a_missing_finiteness_check():
    pytest.importorskip("torch")
    case = suite.image_batch("x", "x", _image, shape=(2, 1, 4, 4))
    test = suite.bad_input_suite([case])["test_listed_value_is_rejected"]
    for value, exc in case.bad:
        test(case=case, value=value, exc=exc)  # the careful check passes every listed value
    sloppy = suite.image_batch("x", "x", lambda v: None, shape=(2, 1, 4, 4))
    with pytest.raises(AssertionError):
        test(case=sloppy, value=sloppy.bad[3][0], exc=ValueError)


def test_listed_value_ids_count_within_each_case():
    a = suite.Values("a", "x", lambda v: v, bad=[(1, TypeError), (2, TypeError)])
    b = suite.Values("b", "x", lambda v: v, bad=[(3, ValueError)])
    test = suite.bad_input_suite([a, b])["test_listed_value_is_rejected"]
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    assert mark.kwargs["ids"] == ["a-0", "a-1", "b-0"]
