"""Bad input gets a clear error naming the argument; NaN policies follow scipy's convention."""

import warnings

import numpy as np
import pytest
from rearrange_corr import ConstantInputWarning, rearrangement_corr, rearrangement_corr_test


@pytest.mark.parametrize(
    ("x", "y", "exc", "match"),
    [
        ([1, 2, 3], None, ValueError, "y is required"),
        ([1, 2, 3], [1, 2], ValueError, "same number of observations"),
        ([1.0], [2.0], ValueError, "at least 2"),
        ([], [], ValueError, "empty"),
        (np.ones((2, 2, 2)), None, ValueError, "ndim=3"),
        (3.0, 4.0, ValueError, "ndim=0"),
        (np.ones((5, 2)), np.ones(5), ValueError, "both be 1-d or both be 2-d"),
        (np.ones((5, 2)), np.ones((4, 2)), ValueError, "same number of observations"),
        (["a", "b"], [1, 2], TypeError, "x must hold real numbers"),
        ([1, 2], [1j, 2j], TypeError, "y must hold real numbers"),
        ([1.0, np.inf, 2.0], [1, 2, 3], ValueError, "x contains infinite"),
        (None, [1, 2], TypeError, "x must be"),
    ],
)
def test_bad_input_raises(x, y, exc, match):
    with pytest.raises(exc, match=match):
        rearrangement_corr(x, y)


def test_bad_nan_policy():
    with pytest.raises(ValueError, match="nan_policy"):
        rearrangement_corr([1, 2, 3], [3, 1, 2], nan_policy="ignore")


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


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_permutations": 0}, ValueError, "n_permutations"),
        ({"n_permutations": 9.5}, TypeError, "n_permutations"),
        ({"n_permutations": True}, TypeError, "n_permutations"),
        ({"alternative": "both"}, ValueError, "alternative"),
        ({"rng": "seed"}, TypeError, "rng"),
    ],
)
def test_test_bad_parameters(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        rearrangement_corr_test(np.arange(10.0), np.arange(10.0) ** 2, **kwargs)


def test_test_bad_arrays():
    with pytest.raises(ValueError, match="1-d"):
        rearrangement_corr_test(np.ones((4, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="same length"):
        rearrangement_corr_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        rearrangement_corr_test([1, 2, np.nan], [1, 2, 3])
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
    for rng in (np.random.SeedSequence(1), np.random.PCG64(1), np.random.RandomState(1), None):
        assert 0 < rearrangement_corr_test(x, y, n_permutations=99, rng=rng).pvalue <= 1
    for bad in (1.5, True, "x"):
        with pytest.raises(TypeError, match="rng"):
            rearrangement_corr_test(x, y, rng=bad)
