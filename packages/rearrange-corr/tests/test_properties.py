"""Exact properties of r# (paper Sec. 3) on random data, hypothesis-driven."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from rearrange_corr import additive_corr, bounds, concordance_corr, rearrangement_corr

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
pairs = st.integers(3, 40).flatmap(
    lambda n: st.tuples(
        arrays(np.float64, n, elements=finite), arrays(np.float64, n, elements=finite)
    )
)
SETTINGS = settings(derandomize=True, deadline=None, max_examples=150)


def _nonconstant(x, y):
    return np.ptp(x) > 1e-6 * (1 + np.abs(x).max()) and np.ptp(y) > 1e-6 * (1 + np.abs(y).max())


# r# and the bounds are undefined (NaN) for a constant sample: the properties hold for the rest
nonconstant_pairs = pairs.filter(lambda xy: _nonconstant(*xy))


@SETTINGS
@given(nonconstant_pairs)
def test_bounds_sign_symmetry(xy):
    x, y = xy
    r_sharp = rearrangement_corr(x, y)
    r = np.corrcoef(x, y)[0, 1]
    assert -1.0 <= r_sharp <= 1.0
    assert abs(r_sharp) >= abs(r) - 1e-9
    if abs(r) > 1e-9:
        assert np.sign(r_sharp) == np.sign(r)
    assert rearrangement_corr(y, x) == r_sharp or abs(rearrangement_corr(y, x) - r_sharp) < 1e-12


@SETTINGS
@given(
    nonconstant_pairs,
    st.floats(0.01, 100),
    st.floats(-50, 50),
    st.floats(0.01, 100),
    st.floats(-50, 50),
)
def test_affine_invariance(xy, a, b, c, d):
    x, y = xy
    r = rearrangement_corr(x, y)
    assert abs(rearrangement_corr(a * x + b, c * y + d) - r) < 1e-8
    assert abs(rearrangement_corr(-a * x + b, c * y + d) + r) < 1e-8


@SETTINGS
@given(st.integers(2, 60).flatmap(lambda n: arrays(np.float64, n, elements=finite)))
def test_monotone_maps_give_exactly_plus_minus_one(x):
    assume(np.ptp(x) > 0)
    for g in (lambda t: t**3, lambda t: np.arctan(t / 100), lambda t: np.exp(t / 1e3), np.floor):
        gx = g(x)
        if np.ptp(gx) == 0:
            continue
        assert rearrangement_corr(x, gx) == 1.0
        assert rearrangement_corr(x, -gx) == -1.0


@SETTINGS
@given(nonconstant_pairs)
def test_covariance_inequality_series(xy):
    x, y = xy
    b = bounds(x, y)
    tol = 1e-9 * (1 + b.concordance)
    assert abs(b.s_xy) <= abs(b.s_rearranged) + tol
    assert abs(b.s_rearranged) <= b.s_x_s_y + tol
    assert b.s_x_s_y <= b.arithmetic + tol
    assert b.arithmetic <= b.concordance + tol
    eps = 1e-9
    assert abs(b.r_concordance) <= abs(b.r_additive) + eps
    assert abs(b.r_additive) <= abs(b.r_pearson) + eps
    assert abs(b.r_pearson) <= abs(b.r_sharp) + eps <= 1 + 2 * eps


def test_capture_ranges_of_the_four_coefficients():
    x = np.linspace(0.1, 2.0, 50)
    assert concordance_corr(x, x) == 1.0
    assert concordance_corr(x, x + 1) < 1.0
    assert additive_corr(x, x + 1) == 1.0
    assert additive_corr(x, 2 * x) < 1.0
    assert bounds(x, 2 * x).r_pearson == 1.0 or abs(bounds(x, 2 * x).r_pearson - 1) < 1e-15
    assert bounds(x, np.exp(x)).r_pearson < 0.99
    assert bounds(x, np.exp(x)).r_sharp == 1.0
