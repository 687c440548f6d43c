"""Regressions: finite inputs near the ends of the float range give the right coefficients.

r# and Pearson's r are scale invariant; r+ and r= are invariant to a common rescaling of x and
y. Before the fix, centring overflowed (mean of values near 1.8e308 is inf) and r# was NaN, and
bounds() squared raw deviations, so its coefficients came out 0 (overflow) or NaN (underflow).
"""

import warnings

import numpy as np
import pytest
from rearrange_corr import (
    additive_corr,
    bounds,
    concordance_corr,
    rearrangement_corr,
    rearrangement_corr_test,
)

X = np.array([1.0, 1.5, 1.7, 1.2, 1.9])
Y = np.array([1.0, 3.0, 2.0, 2.5, 4.0])


@pytest.mark.parametrize("scale", [1e308 / 2, 1e-300])
def test_rearrangement_corr_survives_extreme_scales(scale):
    ref = rearrangement_corr(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / invalid-value warnings either
        assert rearrangement_corr(X * scale, Y) == pytest.approx(ref, rel=1e-12)
        R = rearrangement_corr(np.column_stack([X * scale, Y]))
        assert R[0, 1] == pytest.approx(ref, rel=1e-12)
        C = rearrangement_corr(np.column_stack([X * scale]), np.column_stack([Y]))
        assert C[0, 0] == pytest.approx(ref, rel=1e-12)
        res = rearrangement_corr_test(X * scale, Y, rng=0)
    assert res.statistic == pytest.approx(ref, rel=1e-12)
    assert res.pvalue == rearrangement_corr_test(X, Y, rng=0).pvalue


@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e-170])
def test_bounds_coefficients_survive_extreme_scales(scale):
    ref = bounds(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = bounds(X * scale, Y * scale)  # a common scale: every coefficient is unchanged
        mixed = bounds(X * scale, Y)  # separate scales: Pearson and r# are unchanged
    for name in ("r_concordance", "r_additive", "r_pearson", "r_sharp"):
        assert getattr(b, name) == pytest.approx(getattr(ref, name), rel=1e-12), name
    assert mixed.r_pearson == pytest.approx(ref.r_pearson, rel=1e-12)
    assert mixed.r_sharp == pytest.approx(ref.r_sharp, rel=1e-12)
    assert b.s_xy == pytest.approx(ref.s_xy * scale * scale, rel=1e-12)
    assert mixed.s_x_s_y == pytest.approx(ref.s_x_s_y * scale, rel=1e-12)
    assert additive_corr(X * scale, Y * scale) == pytest.approx(ref.r_additive, rel=1e-12)
    assert concordance_corr(X * scale, Y * scale) == pytest.approx(ref.r_concordance, rel=1e-12)


def test_ragged_input_is_a_type_error_naming_x():
    # was numpy's unnamed "setting an array element with a sequence" ValueError
    with pytest.raises(TypeError, match=r"\bx\b"):
        rearrangement_corr([[1.0, 2.0], [3.0]], [1.0, 2.0])
