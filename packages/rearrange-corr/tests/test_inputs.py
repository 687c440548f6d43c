"""Accepted input forms, constant input, and the NaN policies (scipy's convention); bad input is
tested in test_bad_input.py."""

import warnings

import numpy as np
import pytest
from rearrange_corr import ConstantInputWarning, rearrangement_corr, rearrangement_corr_test


def test_bool_and_int_inputs_are_accepted():
    assert rearrangement_corr([True, False, True, False], [1, 0, 1, 1]) == pytest.approx(
        rearrangement_corr([1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0])
    )


def test_constant_input_gives_nan_with_warning():
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(rearrangement_corr([1, 1, 1], [1, 2, 3]))
    X = np.column_stack([np.ones(10), np.arange(10.0), np.arange(10.0) ** 2])
    with pytest.warns(ConstantInputWarning):
        R = rearrangement_corr(X)
    assert np.isnan(R[0]).all() and np.isnan(R[:, 0]).all()
    assert R[1, 2] == 1.0 and R[1, 1] == 1.0


def test_no_warning_on_regular_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rearrangement_corr(np.random.default_rng(0).normal(size=(20, 3)))


class TestNanPolicy:
    x = np.array([1.0, 2.0, np.nan, 4.0, 5.0, 6.0])
    y = np.array([2.0, 1.0, 3.0, np.nan, 7.0, 5.0])

    def test_propagate(self):
        assert np.isnan(rearrangement_corr(self.x, self.y))

    def test_raise(self):
        with pytest.raises(ValueError, match="NaN"):
            rearrangement_corr(self.x, self.y, nan_policy="raise")

    def test_omit_drops_incomplete_pairs(self):
        keep = ~(np.isnan(self.x) | np.isnan(self.y))
        expected = rearrangement_corr(self.x[keep], self.y[keep])
        assert rearrangement_corr(self.x, self.y, nan_policy="omit") == expected

    def test_omit_too_few_left(self):
        assert np.isnan(
            rearrangement_corr([1.0, np.nan, 3.0], [np.nan, 1.0, 2.0], nan_policy="omit")
        )

    def test_matrix_propagate_and_omit_pairwise(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 4))
        X[3, 1] = np.nan
        X[7, 2] = np.nan
        R = rearrangement_corr(X)
        assert np.isnan(R[1]).all() and np.isnan(R[:, 2]).all()
        assert R[0, 3] == pytest.approx(rearrangement_corr(X[:, 0], X[:, 3]), abs=1e-14)
        assert R[0, 0] == 1.0
        Ro = rearrangement_corr(X, nan_policy="omit")
        for i in range(4):
            for j in range(4):
                expected = rearrangement_corr(X[:, i], X[:, j], nan_policy="omit")
                assert Ro[i, j] == pytest.approx(expected, abs=1e-12)
        np.testing.assert_array_equal(Ro, Ro.T)
        with pytest.raises(ValueError, match="NaN"):
            rearrangement_corr(X, nan_policy="raise")

    def test_cross_omit(self):
        rng = np.random.default_rng(1)
        X, Y = rng.normal(size=(30, 3)), rng.normal(size=(30, 2))
        Y[0, 1] = np.nan
        C = rearrangement_corr(X, Y, nan_policy="omit")
        for i in range(3):
            for j in range(2):
                expected = rearrangement_corr(X[:, i], Y[:, j], nan_policy="omit")
                assert C[i, j] == pytest.approx(expected, abs=1e-12)
        assert np.isnan(rearrangement_corr(X, Y)[:, 1]).all()


def test_test_constant_input():
    with pytest.warns(ConstantInputWarning):
        res = rearrangement_corr_test([1, 1, 1, 1], [1, 2, 3, 4])
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_omit_edge_cases():
    X = np.column_stack([[np.nan] * 5, [1.0, 2, 3, 4, 5], [np.nan, 1.0, 1.0, 1.0, 2.0]])
    R = rearrangement_corr(X, nan_policy="omit")
    assert np.isnan(R[0]).all()  # an all-NaN column
    assert R[1, 1] == 1.0 and R[2, 2] == 1.0 and R[1, 2] == R[2, 1]
    with pytest.warns(ConstantInputWarning):
        r = rearrangement_corr([1.0, 1.0, np.nan, 1.0], [1.0, 2.0, 3.0, np.nan], nan_policy="omit")
    assert np.isnan(r)


def test_rng_forms():
    x, y = np.arange(20.0), np.sin(np.arange(20.0))
    ref = rearrangement_corr_test(x, y, n_permutations=99, rng=3).pvalue
    assert (
        rearrangement_corr_test(x, y, n_permutations=99, rng=np.random.default_rng(3)).pvalue == ref
    )
    for rng in (np.random.SeedSequence(1), np.random.PCG64(1), None):
        assert 0 < rearrangement_corr_test(x, y, n_permutations=99, rng=rng).pvalue <= 1
