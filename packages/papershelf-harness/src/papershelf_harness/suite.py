"""The generic bad-input tests, generated from a package's tables of arguments.

A package's ``tests/test_bad_input.py`` lists its public arguments by kind and lets the suite
write the tests (needs pytest and hypothesis, as every test group has)::

    from papershelf_harness.suite import Array, Flag, Int, Number, Option, Rng, bad_input_suite

    ARGS = [
        Number("clip_norm.level", "level", lambda v: clip_norm(np.ones(3), v), inf_ok=True),
        Int("clip_level.horizon", "horizon", lambda v: clip_level(1.0, v), minimum=1),
        Array("clip_norm.v", "v", lambda v: clip_norm(v, 1.0), shape=(3,), ndims=(1, 2)),
        Rng("heavy_tailed_noise.rng", "rng", lambda v: heavy_tailed_noise(3, rng=v)),
    ]
    globals().update(bad_input_suite(ARGS))

Each case names the argument (``name``) that the error message must name, and ``call(value)``
feeds ``value`` as that argument with every other argument valid (``Mismatch.call()`` takes
nothing). The rule checked: a wrong type is a ``TypeError``, a wrong value a ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .strategies import (
    negative_or_zero_ints,
    non_finite_arrays,
    non_integers,
    non_numeric,
    not_rngs,
    wrong_ndim_arrays,
)
from .testing import assert_rejects

__all__ = [
    "Array",
    "Flag",
    "Int",
    "Mismatch",
    "Number",
    "Option",
    "OutOfRange",
    "Rng",
    "Values",
    "bad_input_suite",
    "image_batch",
    "keyword",
    "token_ids",
]


@dataclass(frozen=True)
class Number:
    """A real-number argument: non-numbers and bools are TypeErrors, NaN/+-inf ValueErrors."""

    id: str
    name: str
    call: Callable[[Any], Any]
    none_ok: bool = False
    inf_ok: bool = False


@dataclass(frozen=True)
class OutOfRange:
    """A number outside its range (``values``: a hypothesis strategy of bad values)."""

    id: str
    name: str
    call: Callable[[Any], Any]
    values: Any


@dataclass(frozen=True)
class Int:
    """An integer argument: non-integers (floats, bools, str) are TypeErrors, values below
    ``minimum`` or above ``maximum`` ValueErrors."""

    id: str
    name: str
    call: Callable[[Any], Any]
    minimum: int | None = None
    maximum: int | None = None
    none_ok: bool = False


@dataclass(frozen=True)
class Flag:
    """A bool argument: 0, 1, strings, None, 1.0 are TypeErrors."""

    id: str
    name: str
    call: Callable[[Any], Any]


@dataclass(frozen=True)
class Array:
    """An array argument of a valid ``shape``: NaN/inf, a wrong number of dimensions (not in
    ``ndims``) and emptiness (unless ``empty_ok``) are ValueErrors; non-numeric values (None too,
    unless ``none_ok``) and string arrays TypeErrors, complex arrays too with
    ``complex_type_error`` (scikit-learn's own checks call complex data a ValueError)."""

    id: str
    name: str
    call: Callable[[Any], Any]
    shape: tuple[int, ...]
    ndims: tuple[int, ...]
    none_ok: bool = False
    empty_ok: bool = False
    complex_type_error: bool = False


@dataclass(frozen=True)
class Mismatch:
    """A call whose inputs do not fit together (lengths, shapes): ``call()`` is a ValueError."""

    id: str
    name: str
    call: Callable[[], Any]


@dataclass(frozen=True)
class Option:
    """A string option: an unknown string is a ValueError, a non-string a TypeError."""

    id: str
    name: str
    call: Callable[[Any], Any]
    valid: frozenset[str] = field(default_factory=frozenset)
    strings_only: bool = True


@dataclass(frozen=True)
class Rng:
    """A SPEC 7 randomness argument: str, float, bool, object are TypeErrors, a negative seed a
    ValueError."""

    id: str
    name: str
    call: Callable[[Any], Any]


@dataclass(frozen=True)
class Values:
    """Listed bad values: ``bad`` is a sequence of ``(value, TypeError or ValueError)`` pairs, for
    arguments the other kinds do not describe (token ids, records, nested lists)."""

    id: str
    name: str
    call: Callable[[Any], Any]
    bad: tuple = ()

    def __post_init__(self) -> None:
        pairs = tuple(self.bad)
        for pair in pairs:
            if not (
                isinstance(pair, tuple) and len(pair) == 2 and pair[1] in (TypeError, ValueError)
            ):
                raise TypeError(
                    f"Values.bad items must be (value, TypeError | ValueError), got {pair!r}"
                )
        if not pairs:
            raise ValueError(
                f"Values.bad must list at least one (value, exception) pair ({self.id})"
            )
        object.__setattr__(self, "bad", pairs)


def token_ids(id: str, name: str, call: Callable[[Any], Any], *, vocab_size: int) -> Values:
    """A ``Values`` case for a 1-d sequence of token ids below ``vocab_size`` (a batch of one row
    may be accepted as 2-d): empty, a batch of two rows, 0-d and 3-d arrays, negative ids and ids
    >= ``vocab_size`` are ValueErrors; floats, strings, None and ragged lists TypeErrors."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 2:
        raise ValueError(f"vocab_size must be an int >= 2, got {vocab_size!r}")
    return Values(
        id,
        name,
        call,
        bad=(
            ([], ValueError),
            ([[0, 1], [1, 0]], ValueError),
            (np.array(0), ValueError),
            (np.zeros((1, 1, 2), dtype=np.int64), ValueError),
            ([0, -1], ValueError),
            ([0, vocab_size], ValueError),
            ([0.5, 1.0], TypeError),
            ("hello", TypeError),
            (None, TypeError),
            ([[0], [1, 0]], TypeError),
        ),
    )


def image_batch(
    id: str, name: str, call: Callable[[Any], Any], *, shape: tuple[int, ...], integer_ok=False
) -> Values:
    """A ``Values`` case for a float torch tensor of ``shape`` (an image batch [B, C, H, W], a
    feature map, ...): a numpy array, a str, None, a complex tensor (and an integer one unless
    ``integer_ok``) are TypeErrors; NaN, inf, an empty batch, a 0-d tensor and a tensor with one
    dimension fewer are ValueErrors. Needs torch (imported here)."""
    shape = tuple(shape)
    if len(shape) < 2 or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in shape):
        raise ValueError(f"shape must hold >= 2 positive ints, got {shape!r}")
    import torch

    bad = [
        (np.zeros(shape, dtype=np.float32), TypeError),
        ("img", TypeError),
        (None, TypeError),
        (torch.full(shape, float("nan")), ValueError),
        (torch.full(shape, float("inf")), ValueError),
        (torch.zeros((0, *shape[1:])), ValueError),
        (torch.zeros(()), ValueError),
        (torch.zeros(shape[1:]), ValueError),
        (torch.zeros(shape, dtype=torch.complex64), TypeError),
    ]
    if not integer_ok:
        bad.append((torch.zeros(shape, dtype=torch.long), TypeError))
    return Values(id, name, call, bad=tuple(bad))


def keyword(kind: type, fn: Callable, name: str, *args: Any, kwargs=None, id=None, **options: Any):
    """A case of ``kind`` for the keyword argument ``name`` of ``fn(*args, **kwargs, name=value)``,
    its id ``"<fn>.<name>"`` unless ``id`` is given; ``options`` are the case's own fields (``minimum=``, ``none_ok=``,
    ``values=`` ...). One line per case in a long table::

        keyword(Int, median_of_means, "n_blocks", X, minimum=1, none_ok=True)
    """
    fixed = dict(kwargs or {})
    label = getattr(fn, "__qualname__", getattr(fn, "__name__", "call")).rsplit("<locals>.")[-1]

    def call(value):
        return fn(*args, **fixed, **{name: value})

    return kind(id or f"{label}.{name}", name, call, **options)


def _param(cases: list) -> Any:
    return pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])


def bad_input_suite(cases: Iterable, *, max_examples: int = 5) -> dict[str, Callable]:
    """Test functions for ``cases`` (put them in the module: ``globals().update(...)``)."""
    cases = list(cases)
    few = settings(max_examples=max_examples, deadline=None)
    by_kind: dict[type, list] = {}
    for c in cases:
        by_kind.setdefault(type(c), []).append(c)
    tests: dict[str, Callable] = {}
    numbers = by_kind.get(Number, [])
    if numbers:

        @_param(numbers)
        @few
        @given(value=non_numeric().filter(lambda v: not isinstance(v, str)))
        def test_number_non_numeric_is_a_type_error(case, value):
            if value is None and case.none_ok:
                return
            assert_rejects(TypeError, case.name, case.call, value)

        @_param(numbers)
        @pytest.mark.parametrize("value", [True, False], ids=["True", "False"])
        def test_number_bool_is_a_type_error(case, value):
            assert_rejects(TypeError, case.name, case.call, value)

        @_param(numbers)
        @pytest.mark.parametrize(
            "value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"]
        )
        def test_number_non_finite_is_a_value_error(case, value):
            if case.inf_ok and value == math.inf:
                case.call(value)
                return
            assert_rejects(ValueError, case.name, case.call, value)

        tests.update(
            test_number_non_numeric_is_a_type_error=test_number_non_numeric_is_a_type_error,
            test_number_bool_is_a_type_error=test_number_bool_is_a_type_error,
            test_number_non_finite_is_a_value_error=test_number_non_finite_is_a_value_error,
        )
    ranges = by_kind.get(OutOfRange, [])
    if ranges:

        @_param(ranges)
        @few
        @given(data=st.data())
        def test_out_of_range_is_a_value_error(case, data):
            assert_rejects(ValueError, case.name, case.call, data.draw(case.values))

        tests["test_out_of_range_is_a_value_error"] = test_out_of_range_is_a_value_error
    ints = by_kind.get(Int, [])
    if ints:

        @_param(ints)
        @few
        @given(value=non_integers())
        def test_int_non_integer_is_a_type_error(case, value):
            if value is None and case.none_ok:
                return
            assert_rejects(TypeError, case.name, case.call, value)

        @_param(ints)
        @few
        @given(data=st.data())
        def test_int_out_of_range_is_a_value_error(case, data):
            if case.minimum is None and case.maximum is None:
                return
            if case.minimum is not None:
                bad = data.draw(negative_or_zero_ints(maximum=case.minimum - 1))
            else:
                bad = data.draw(
                    st.integers(min_value=case.maximum + 1, max_value=case.maximum + 10**6)
                )
            assert_rejects(ValueError, case.name, case.call, bad)

        tests.update(
            test_int_non_integer_is_a_type_error=test_int_non_integer_is_a_type_error,
            test_int_out_of_range_is_a_value_error=test_int_out_of_range_is_a_value_error,
        )
    flags = by_kind.get(Flag, [])
    if flags:

        @_param(flags)
        @pytest.mark.parametrize("value", [0, 1, "yes", "False", None, 1.0], ids=repr)
        def test_flag_non_bool_is_a_type_error(case, value):
            assert_rejects(TypeError, case.name, case.call, value)

        tests["test_flag_non_bool_is_a_type_error"] = test_flag_non_bool_is_a_type_error
    arrays = by_kind.get(Array, [])
    if arrays:

        @_param(arrays)
        @few
        @given(data=st.data())
        def test_array_non_finite_is_a_value_error(case, data):
            assert_rejects(
                ValueError, case.name, case.call, data.draw(non_finite_arrays(shape=case.shape))
            )

        @_param(arrays)
        @few
        @given(data=st.data())
        def test_array_wrong_ndim_is_a_value_error(case, data):
            assert_rejects(
                ValueError, case.name, case.call, data.draw(wrong_ndim_arrays(case.ndims))
            )

        @_param(arrays)
        def test_array_empty_is_a_value_error(case):
            if case.empty_ok:
                return
            for axis in range(len(case.shape)):
                empty = np.zeros(tuple(0 if i == axis else s for i, s in enumerate(case.shape)))
                assert_rejects(ValueError, case.name, case.call, empty)

        @_param(arrays)
        @few
        @given(value=non_numeric())
        def test_array_non_numeric_is_a_type_error(case, value):
            if value is None and case.none_ok:
                return
            assert_rejects(TypeError, case.name, case.call, value)

        @_param(arrays)
        def test_array_of_strings_is_a_type_error(case):
            assert_rejects(TypeError, case.name, case.call, np.full(case.shape, "a"))
            if case.complex_type_error:
                assert_rejects(TypeError, case.name, case.call, np.full(case.shape, 0.5 + 1j))

        tests.update(
            test_array_non_finite_is_a_value_error=test_array_non_finite_is_a_value_error,
            test_array_wrong_ndim_is_a_value_error=test_array_wrong_ndim_is_a_value_error,
            test_array_empty_is_a_value_error=test_array_empty_is_a_value_error,
            test_array_non_numeric_is_a_type_error=test_array_non_numeric_is_a_type_error,
            test_array_of_strings_is_a_type_error=test_array_of_strings_is_a_type_error,
        )
    mismatches = by_kind.get(Mismatch, [])
    if mismatches:

        @_param(mismatches)
        def test_mismatch_is_a_value_error(case):
            assert_rejects(ValueError, case.name, case.call)

        tests["test_mismatch_is_a_value_error"] = test_mismatch_is_a_value_error
    options = by_kind.get(Option, [])
    if options:

        @_param(options)
        @few
        @given(value=st.text(max_size=6))
        def test_option_unknown_is_a_value_error(case, value):
            if value in case.valid:
                return
            assert_rejects(ValueError, case.name, case.call, value)

        @_param(options)
        @pytest.mark.parametrize("value", [5, 2.5, ["x"]], ids=repr)
        def test_option_non_string_is_a_type_error(case, value):
            if not case.strings_only:
                return
            assert_rejects(TypeError, case.name, case.call, value)

        tests.update(
            test_option_unknown_is_a_value_error=test_option_unknown_is_a_value_error,
            test_option_non_string_is_a_type_error=test_option_non_string_is_a_type_error,
        )
    rngs = by_kind.get(Rng, [])
    if rngs:

        @_param(rngs)
        @few
        @given(value=not_rngs())
        def test_rng_bad_is_rejected(case, value):
            exc = (
                ValueError if isinstance(value, int) and not isinstance(value, bool) else TypeError
            )
            assert_rejects(exc, case.name, case.call, value)

        @_param(rngs)
        def test_rng_abc_and_minus_one(case):
            assert_rejects(TypeError, case.name, case.call, "abc")
            assert_rejects(ValueError, case.name, case.call, -1)

        tests.update(
            test_rng_bad_is_rejected=test_rng_bad_is_rejected,
            test_rng_abc_and_minus_one=test_rng_abc_and_minus_one,
        )
    values = by_kind.get(Values, [])
    listed = [(c, value, exc) for c in values for value, exc in c.bad]
    if listed:

        @pytest.mark.parametrize(
            "case,value,exc",
            listed,
            ids=[f"{c.id}-{i}" for c in values for i in range(len(c.bad))],  # index within case
        )
        def test_listed_value_is_rejected(case, value, exc):
            assert_rejects(exc, case.name, case.call, value)

        tests["test_listed_value_is_rejected"] = test_listed_value_is_rejected
    unknown = [
        c
        for c in cases
        if type(c) not in {Number, OutOfRange, Int, Flag, Array, Mismatch, Option, Rng, Values}
    ]
    if unknown:
        raise TypeError(f"cases must be suite case objects, got {type(unknown[0]).__name__}")
    return tests
