"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every array argument of the public API is fed non-numbers, NaN/inf, empty arrays, wrong shapes and
non-positive values (hypothesis); every option gets wrong types and out-of-range values; then a
table of specific cases, including the regressions of earlier defects.
"""

import genai_pricing_game as gp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
D2 = gp.ExponentialDemand([1.0, 2.0], 1.0)
K2 = np.array([2.0, 0.5])


def _region_map(shares, ratios):
    return gp.two_task_region_map(shares, ratios, n_prices=8)


# name, call(value), shape of a good value (() = scalar), allowed ndims (None = any), positive
ARRAYS = {
    "expected_prompts.q": ("q", lambda v: gp.expected_prompts(v), (2,), None, True),
    "relative_performance.qA": ("qA", lambda v: gp.relative_performance(v, 0.5), (2,), None, True),
    "relative_performance.qB": ("qB", lambda v: gp.relative_performance(0.5, v), (2,), None, True),
    "is_cost_effective.pA": ("pA", lambda v: gp.is_cost_effective(v, 1.0, 1.0), (2,), None, True),
    "is_cost_effective.pB": ("pB", lambda v: gp.is_cost_effective(1.0, v, 1.0), (2,), None, True),
    "is_cost_effective.kappa": (
        "kappa",
        lambda v: gp.is_cost_effective(1.0, 1.0, v),
        (2,),
        None,
        True,
    ),
    "ExponentialDemand.a": ("a", lambda v: gp.ExponentialDemand(v, 1.0), (2,), (0, 1), True),
    "ExponentialDemand.b": ("b", lambda v: gp.ExponentialDemand([1.0, 2.0], v), (2,), (0, 1), True),
    "LinearDemand.a": ("a", lambda v: gp.LinearDemand(v, 1.0), (2,), (0, 1), True),
    "LinearDemand.b": ("b", lambda v: gp.LinearDemand([1.0, 2.0], v), (2,), (0, 1), True),
    "Demand.__call__.p": ("p", lambda v: D2(v), (3,), None, False),
    "Demand.revenue.p": ("p", lambda v: D2.revenue(v), (3,), None, False),
    "Demand.scaled.weights": ("weights", lambda v: D2.scaled(v), (2,), (0, 1), True),
    "best_response.p_A": ("p_A", lambda v: gp.best_response(v, K2, D2), (), (0,), True),
    "best_response.kappa": ("kappa", lambda v: gp.best_response(1.0, v, D2), (2,), (0, 1), True),
    "simulate_market.kappa": (
        "kappa",
        lambda v: gp.simulate_market(v, D2, [1.0]),
        (2,),
        (0, 1),
        True,
    ),
    "simulate_market.p_A": ("p_A", lambda v: gp.simulate_market(K2, D2, v), (3,), (0, 1), True),
    "first_mover_price.kappa": (
        "kappa",
        lambda v: gp.first_mover_price(v, D2, grid=16, refine=False),
        (2,),
        (0, 1),
        True,
    ),
    "two_task_regions.a1": ("a1", lambda v: gp.two_task_regions(v, 1, 1, 0.5, 1), (2,), None, True),
    "two_task_regions.a2": ("a2", lambda v: gp.two_task_regions(1, v, 1, 0.5, 1), (2,), None, True),
    "two_task_regions.kappa1": (
        "kappa1",
        lambda v: gp.two_task_regions(1, 1, v, 0.5, 1),
        (2,),
        None,
        True,
    ),
    "two_task_regions.kappa2": (
        "kappa2",
        lambda v: gp.two_task_regions(1, 1, 1, v, 1),
        (2,),
        None,
        True,
    ),
    "two_task_regions.b": ("b", lambda v: gp.two_task_regions(1, 1, 1, 0.5, v), (2,), None, True),
    "two_task_region_map.shares": ("shares", lambda v: _region_map(v, [0.5]), (2,), (1,), True),
    "two_task_region_map.ratios": ("ratios", lambda v: _region_map([0.5], v), (2,), (1,), True),
}
NDIM_LIMITED = [k for k, spec in ARRAYS.items() if spec[3] is not None]
POSITIVE = [k for k, spec in ARRAYS.items() if spec[4]]


@pytest.mark.parametrize("slot", list(ARRAYS))
@FAST
@given(value=invalid.non_numeric())
def test_non_numeric_arrays_are_type_errors(slot, value):
    name, call, *_ = ARRAYS[slot]
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("slot", list(ARRAYS))
@FAST
@given(data=st.data())
def test_nan_or_inf_is_a_value_error(slot, data):
    name, call, shape, *_ = ARRAYS[slot]
    value = data.draw(
        invalid.non_finite_floats() if shape == () else invalid.non_finite_arrays(shape, base=0.5)
    )
    assert_rejects(ValueError, name, call, value)


@pytest.mark.parametrize("slot", list(ARRAYS))
def test_empty_is_a_value_error(slot):
    name, call, *_ = ARRAYS[slot]
    assert_rejects(ValueError, name, call, np.array([]))


@pytest.mark.parametrize("slot", list(ARRAYS))
def test_bool_arrays_are_type_errors(slot):
    name, call, shape, *_ = ARRAYS[slot]
    assert_rejects(TypeError, name, call, np.ones(shape, dtype=bool))


@pytest.mark.parametrize("slot", NDIM_LIMITED)
@FAST
@given(data=st.data())
def test_wrong_ndim_is_a_value_error(slot, data):
    name, call, _, ndims, _ = ARRAYS[slot]
    value = 0.5 * data.draw(invalid.wrong_ndim_arrays(ndims))
    assert_rejects(ValueError, name, call, value)


@pytest.mark.parametrize("slot", POSITIVE)
@FAST
@given(bad=st.floats(max_value=0.0, allow_nan=False, allow_infinity=False))
def test_non_positive_is_a_value_error(slot, bad):
    name, call, shape, *_ = ARRAYS[slot]
    value = np.full(shape, 0.5)
    value.reshape(-1)[-1] = bad
    assert_rejects(ValueError, name, call, value)


@pytest.mark.parametrize("slot", ["Demand.__call__.p", "Demand.revenue.p"])
@FAST
@given(bad=st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
def test_negative_prices_are_value_errors(slot, bad):
    name, call, *_ = ARRAYS[slot]
    assert_rejects(ValueError, name, call, [1.0, bad])


@pytest.mark.parametrize(
    "name,call",
    [
        ("q", lambda v: gp.expected_prompts(v, cap=3)),
        ("qA", lambda v: gp.relative_performance(v, 0.5)),
        ("qB", lambda v: gp.relative_performance(0.5, v)),
    ],
)
@FAST
@given(bad=st.floats(min_value=1.0, exclude_min=True, allow_nan=False, allow_infinity=False))
def test_probabilities_above_one_are_value_errors(name, call, bad):
    assert_rejects(ValueError, name, call, [0.5, bad])


# --- options -------------------------------------------------------------------------------

TIE_CALLS = {
    "is_cost_effective": lambda t: gp.is_cost_effective(1.0, 1.0, 1.0, tie=t),
    "best_response": lambda t: gp.best_response(1.0, K2, D2, tie=t),
    "simulate_market": lambda t: gp.simulate_market(K2, D2, [1.0], tie=t),
    "first_mover_price": lambda t: gp.first_mover_price(K2, D2, tie=t),
    "two_task_region_map": lambda t: gp.two_task_region_map([0.5], [0.5], tie=t),
}


@pytest.mark.parametrize("fn", list(TIE_CALLS))
@FAST
@given(tie=st.text(max_size=8).filter(lambda t: t not in ("latecomer", "first_mover")))
def test_unknown_tie_is_a_value_error(fn, tie):
    assert_rejects(ValueError, "tie", TIE_CALLS[fn], tie)


@pytest.mark.parametrize("fn", list(TIE_CALLS))
@FAST
@given(tie=st.one_of(st.none(), st.integers(), st.floats(), st.booleans()))
def test_non_string_tie_is_a_type_error(fn, tie):
    assert_rejects(TypeError, "tie", TIE_CALLS[fn], tie)


# name, call(value), smallest allowed value
INT_OPTIONS = {
    "expected_prompts.cap": ("cap", lambda v: gp.expected_prompts(0.5, cap=v), 1),
    "first_mover_price.grid": ("grid", lambda v: gp.first_mover_price(K2, D2, grid=v), 16),
    "first_mover_price.n_starts": (
        "n_starts",
        lambda v: gp.first_mover_price(K2, D2, grid=16, n_starts=v),
        1,
    ),
    "two_task_region_map.n_prices": (
        "n_prices",
        lambda v: gp.two_task_region_map([0.5], [0.5], n_prices=v),
        2,
    ),
    "plot_two_task_regions.resolution": (
        "resolution",
        lambda v: gp.plot_two_task_regions(resolution=v),
        2,
    ),
    "CallableDemand.n_tasks": ("n_tasks", lambda v: gp.CallableDemand(D2, n_tasks=v), 1),
}


@pytest.mark.parametrize("slot", list(INT_OPTIONS))
@FAST
@given(value=invalid.non_integers().filter(lambda v: v is not None))
def test_non_integer_options_are_type_errors(slot, value):
    name, call, _ = INT_OPTIONS[slot]
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("slot", list(INT_OPTIONS))
@FAST
@given(data=st.data())
def test_too_small_integer_options_are_value_errors(slot, data):
    name, call, minimum = INT_OPTIONS[slot]
    assert_rejects(ValueError, name, call, data.draw(invalid.negative_or_zero_ints(minimum - 1)))


FLOAT_OPTIONS = {
    "first_mover_price.p_max": ("p_max", lambda v: gp.first_mover_price(K2, D2, p_max=v)),
    "CallableDemand.p_max": ("p_max", lambda v: gp.CallableDemand(D2, p_max=v)),
    "two_task_region_map.b": ("b", lambda v: gp.two_task_region_map([0.5], [0.5], b=v)),
}


@pytest.mark.parametrize("slot", list(FLOAT_OPTIONS))
@FAST
@given(
    value=st.one_of(
        invalid.non_finite_floats(), st.floats(max_value=0.0, allow_nan=False, allow_infinity=False)
    )
)
def test_bad_float_options_are_value_errors(slot, value):
    name, call = FLOAT_OPTIONS[slot]
    assert_rejects(ValueError, name, call, value)


@pytest.mark.parametrize("slot", list(FLOAT_OPTIONS))
@FAST
@given(value=invalid.non_numeric().filter(lambda v: v is not None))
def test_non_numeric_float_options_are_type_errors(slot, value):
    name, call = FLOAT_OPTIONS[slot]
    assert_rejects(TypeError, name, call, value)


@FAST
@given(value=st.one_of(st.integers(), st.text(max_size=3), st.none(), st.floats()))
def test_refine_must_be_a_bool(value):
    assert_rejects(TypeError, "refine", gp.first_mover_price, K2, D2, refine=value)


# --- specific cases and regressions ----------------------------------------------------------


@pytest.mark.parametrize(
    "exc,name,call",
    [
        # length mismatches
        (ValueError, "kappa", lambda: gp.best_response(1.0, [1.0, 2.0, 3.0], D2)),
        (ValueError, "kappa", lambda: gp.first_mover_price([1.0, 2.0, 3.0], D2)),
        (ValueError, "b", lambda: gp.ExponentialDemand([1, 1], [1.0, 2.0, 3.0])),
        (ValueError, "b", lambda: gp.LinearDemand([1, 1], [1.0, 2.0, 3.0])),
        (ValueError, "qA", lambda: gp.relative_performance([0.5, 0.2], [0.1, 0.2, 0.3])),
        # regression (0.1.0): subclasses' scaled() checked the shape only through broadcasting
        (ValueError, "weights", lambda: gp.ExponentialDemand([1, 2, 3], 1.0).scaled([1, 2])),
        (ValueError, "weights", lambda: gp.LinearDemand([1, 2], 1.0).scaled([1, 2, 3])),
        # regression: is_cost_effective / two_task_regions raised numpy's unnamed broadcast error
        (ValueError, "pB", lambda: gp.is_cost_effective(1.0, [1.0, 2.0], [1.0, 2.0, 3.0])),
        (ValueError, "a1", lambda: gp.two_task_regions([1.0, 2.0], [1.0, 2.0, 3.0], 1, 0.5, 1)),
        # regression: a non-bool task mask was cast with np.asarray(tasks, dtype=bool)
        (TypeError, "tasks", lambda: D2.revenue(1.0, [0.5, 0.0])),
        (TypeError, "tasks", lambda: D2.revenue(1.0, [1, 0])),
        (ValueError, "tasks", lambda: D2.revenue(1.0, [True, False, True])),
        (ValueError, "tasks", lambda: D2.piece_argmax(np.ones((2, 3), bool))),
        # regression: NaN prices gave NaN demand; a string gave numpy's unnamed conversion error
        (ValueError, "p", lambda: D2([1.0, np.nan])),
        (TypeError, "p", lambda: D2("1.0")),
        # regression: n_starts <= 0 silently skipped (or truncated) the refinement
        (ValueError, "n_starts", lambda: gp.first_mover_price(K2, D2, n_starts=0)),
        (ValueError, "n_starts", lambda: gp.first_mover_price(K2, D2, n_starts=-1)),
        # regression: integer options given a float or bool were ValueErrors (wrong type)
        (TypeError, "grid", lambda: gp.first_mover_price(K2, D2, grid=4096.0)),
        (TypeError, "cap", lambda: gp.expected_prompts(0.5, cap=2.0)),
        (TypeError, "cap", lambda: gp.expected_prompts(0.5, cap=True)),
        # regression: a non-callable piece_argmax failed later, "'int' object is not callable"
        (TypeError, "piece_argmax", lambda: gp.CallableDemand(D2, piece_argmax=3)),
        # regression: negative / NaN demand from a user's f reached the solvers
        (ValueError, "f", lambda: gp.CallableDemand(lambda p: -D2(p), p_max=5.0)(np.ones(2))),
        (
            ValueError,
            "f",
            lambda: gp.CallableDemand(lambda p: D2(p) * np.nan, p_max=5.0)(np.ones(2)),
        ),
        # the other CallableDemand checks
        (TypeError, "f", lambda: gp.CallableDemand(3.0)),
        (ValueError, "f", lambda: gp.CallableDemand(lambda p: p)),
        (
            ValueError,
            "n_tasks",
            lambda: gp.CallableDemand(lambda p: np.ones((p.size, 2)), n_tasks=3),
        ),
        (ValueError, "p_max", lambda: gp.first_mover_price(K2, gp.CallableDemand(D2))),
        (TypeError, "demand", lambda: gp.best_response(1.0, K2, "exp")),
        # p_A of best_response is one price
        (ValueError, "p_A", lambda: gp.best_response([1.0, 2.0], K2, D2)),
        # curves and caps
        (ValueError, "cap", lambda: gp.expected_prompts(lambda r: r * 0.1)),
        (ValueError, "q", lambda: gp.expected_prompts(lambda r: r * 0.5, cap=4)),
        (ValueError, "q", lambda: gp.expected_prompts(lambda r: np.ones(2), cap=4)),
        (ValueError, "q", lambda: gp.expected_prompts(0.0)),
        # plot arguments are checked before matplotlib is imported
        (TypeError, "region_map", lambda: gp.plot_two_task_regions({"shares": [0.5]})),
        (TypeError, "path", lambda: gp.plot_two_task_regions(path=3)),
    ],
)
def test_specific_bad_input(exc, name, call):
    assert_rejects(exc, name, call)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        gp.best_response(1.0, K2, D2, "latecomer")
    with pytest.raises(TypeError):
        gp.first_mover_price(K2, D2, 4096)
    with pytest.raises(TypeError):
        gp.expected_prompts(0.5, 3)
