"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every data argument of the public API is fed non-numbers, infinities (and NaN where no
``nan_policy`` applies), empty and too-short samples, wrong shapes and length mismatches
(hypothesis); every option gets wrong types and unknown or out-of-range values.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rearrange_corr import (
    additive_corr,
    bounds,
    concordance_corr,
    rearrangement_corr,
    rearrangement_corr_test,
)

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=20, deadline=None)
N = 6
GOOD = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 6.0])


def _test(x, y):
    return rearrangement_corr_test(x, y, n_permutations=9)


PAIR_FUNCTIONS = {
    "rearrangement_corr": rearrangement_corr,
    "rearrangement_corr_test": _test,
    "bounds": bounds,
    "concordance_corr": concordance_corr,
    "additive_corr": additive_corr,
}
# (function, argument): call with the bad value in that place, the other argument good
SLOTS = [(f, a) for f in PAIR_FUNCTIONS for a in ("x", "y")]
NO_NAN = [(f, a) for f, a in SLOTS if f != "rearrangement_corr"]  # NaN is nan_policy's business
ONE_D_ONLY = [(f, a) for f, a in SLOTS if f != "rearrangement_corr"]


def _call(fn: str, arg: str, value):
    f = PAIR_FUNCTIONS[fn]
    return (lambda: f(value, GOOD)) if arg == "x" else (lambda: f(GOOD, value))


@pytest.mark.parametrize("fn,arg", SLOTS)
@FAST
@given(value=invalid.non_numeric())
def test_non_numeric_data_is_a_type_error(fn, arg, value):
    if value is None and fn == "rearrangement_corr" and arg == "y":
        return  # y=None is the matrix form (then x must be 2-d): checked below
    assert_rejects(TypeError, arg, _call(fn, arg, value))


@pytest.mark.parametrize("fn,arg", SLOTS)
def test_ragged_data_is_a_type_error(fn, arg):
    assert_rejects(TypeError, arg, _call(fn, arg, [[1.0, 2.0], [3.0]]))


@pytest.mark.parametrize("fn,arg", SLOTS)
@FAST
@given(sign=st.sampled_from([1.0, -1.0]), at=st.integers(0, N - 1))
def test_infinite_data_is_a_value_error(fn, arg, sign, at):
    value = GOOD.copy()
    value[at] = sign * np.inf
    assert_rejects(ValueError, arg, _call(fn, arg, value))


@pytest.mark.parametrize("fn,arg", NO_NAN)
@FAST
@given(value=invalid.non_finite_arrays((N,), base=1.0))
def test_nan_or_inf_data_is_a_value_error(fn, arg, value):
    assert_rejects(ValueError, arg, _call(fn, arg, value))


@pytest.mark.parametrize("fn,arg", SLOTS)
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_observations_is_a_value_error(fn, arg, n):
    f = PAIR_FUNCTIONS[fn]
    assert_rejects(ValueError, "x", f, GOOD[:n], GOOD[:n])  # x is checked first


@pytest.mark.parametrize("fn,arg", SLOTS)
@FAST
@given(n=st.integers(2, 12).filter(lambda n: n != N))
def test_length_mismatch_is_a_value_error(fn, arg, n):
    value = np.arange(float(n)) ** 2
    assert_rejects(ValueError, arg, _call(fn, arg, value))


@pytest.mark.parametrize("fn,arg", ONE_D_ONLY)
@FAST
@given(value=invalid.wrong_ndim_arrays((1,), max_side=N))
def test_wrong_ndim_is_a_value_error(fn, arg, value):
    assert_rejects(ValueError, arg, _call(fn, arg, value))


@FAST
@given(value=invalid.wrong_ndim_arrays((1, 2), max_side=4))
def test_rearrangement_corr_needs_1d_or_2d(value):
    assert_rejects(ValueError, "x", rearrangement_corr, value, None)
    assert_rejects(ValueError, "x", rearrangement_corr, value, GOOD)


def test_rearrangement_corr_forms_do_not_mix():
    assert_rejects(ValueError, "y", rearrangement_corr, GOOD, None)  # 1-d x needs a y
    assert_rejects(ValueError, "x", rearrangement_corr, np.ones((N, 2)), GOOD)
    assert_rejects(ValueError, "y", rearrangement_corr, np.ones((N, 2)), np.ones((N + 1, 2)))


# --- options -------------------------------------------------------------------------------

OPTION_STRINGS = {
    "nan_policy": (
        ("propagate", "raise", "omit"),
        lambda v: rearrangement_corr(GOOD, GOOD[::-1], nan_policy=v),
    ),
    "alternative": (
        ("two-sided", "greater", "less"),
        lambda v: rearrangement_corr_test(GOOD, GOOD[::-1], alternative=v),
    ),
}


@pytest.mark.parametrize("name", list(OPTION_STRINGS))
@FAST
@given(value=st.text(max_size=10))
def test_unknown_option_is_a_value_error(name, value):
    options, call = OPTION_STRINGS[name]
    if value in options:
        return
    assert_rejects(ValueError, name, call, value)


@pytest.mark.parametrize("name", list(OPTION_STRINGS))
@FAST
@given(value=st.one_of(st.none(), st.integers(), st.floats(), st.booleans(), st.lists(st.text())))
def test_non_string_option_is_a_type_error(name, value):
    _, call = OPTION_STRINGS[name]
    assert_rejects(TypeError, name, call, value)


@FAST
@given(value=invalid.non_integers())
def test_non_integer_n_permutations_is_a_type_error(value):
    assert_rejects(
        TypeError, "n_permutations", rearrangement_corr_test, GOOD, GOOD, n_permutations=value
    )


@FAST
@given(value=invalid.negative_or_zero_ints())
def test_non_positive_n_permutations_is_a_value_error(value):
    assert_rejects(
        ValueError, "n_permutations", rearrangement_corr_test, GOOD, GOOD, n_permutations=value
    )


@FAST
@given(rng=invalid.not_rngs())
def test_bad_rng_is_rejected(rng):
    # a negative int seed is a wrong value, everything else a wrong type
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", rearrangement_corr_test, GOOD, GOOD[::-1], rng=rng)


def test_legacy_random_state_is_a_type_error():
    assert_rejects(
        TypeError, "rng", rearrangement_corr_test, GOOD, GOOD, rng=np.random.RandomState(0)
    )


def test_nan_policy_raise_names_the_argument():
    y = GOOD.copy()
    y[2] = np.nan
    assert_rejects(ValueError, "y", rearrangement_corr, GOOD, y, nan_policy="raise")
    assert_rejects(ValueError, "x", rearrangement_corr, y, GOOD, nan_policy="raise")
