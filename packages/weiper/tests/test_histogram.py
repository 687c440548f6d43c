"""histogram_rows, uniform_smooth, symmetric_kl against per-row numpy references."""

import numpy as np
import pytest
import weiper
from _reference import hist, smooth, sym_kl
from hypothesis import given, settings
from hypothesis import strategies as st

FEW = settings(max_examples=30, deadline=None)


@FEW
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 12), st.integers(1, 60)),
    n_bins=st.integers(1, 40),
    dtype=st.sampled_from([np.float64, np.float32, np.int64]),
    bounds=st.tuples(st.floats(-3, 3), st.floats(0, 4)),
)
def test_histogram_rows_equals_numpy_histogram_per_row(seed, shape, n_bins, dtype, bounds):
    rng = np.random.default_rng(seed)
    V = (rng.normal(size=shape) * 2).astype(dtype)
    lo, width = bounds
    try:
        expected = np.array([hist(v, lo, lo + width, n_bins) for v in V])
    except ValueError:  # numpy: "Too many bins for data range" (float32, tiny width)
        with pytest.raises(ValueError, match="n_bins"):
            weiper.histogram_rows(V, lo, lo + width, n_bins)
        return
    np.testing.assert_array_equal(weiper.histogram_rows(V, lo, lo + width, n_bins), expected)


def test_values_on_the_edges_fall_as_in_numpy():
    V = np.tile(np.linspace(-1.0, 1.0, 201), (3, 1))
    for n_bins in (1, 3, 7, 10, 100, 200):
        H = weiper.histogram_rows(V, -1.0, 1.0, n_bins)
        np.testing.assert_array_equal(H[1], hist(V[0], -1.0, 1.0, n_bins))
    # training min/max as numpy scalars of a float32 array, as WeiPerKLD.fit takes them
    V32 = np.random.default_rng(1).normal(size=(50, 70)).astype(np.float32)
    H = weiper.histogram_rows(V32, V32.min(), V32.max(), 13)
    np.testing.assert_array_equal(H, [hist(v, V32.min(), V32.max(), 13) for v in V32])


def test_rows_sum_to_one_inside_and_less_when_values_fall_outside():
    V = np.random.default_rng(0).uniform(0, 1, size=(20, 30))
    np.testing.assert_allclose(weiper.histogram_rows(V, 0.0, 1.0, 9).sum(axis=1), 1.0)
    inner = weiper.histogram_rows(V, 0.25, 0.75, 9).sum(axis=1)
    np.testing.assert_allclose(inner, ((V >= 0.25) & (V <= 0.75)).mean(axis=1))
    assert weiper.histogram_rows(np.array([5.0, 6.0]), 0.0, 1.0, 4).sum() == 0.0


def test_one_row_and_degenerate_range():
    v = np.array([2.0, 2.0, 2.5])
    np.testing.assert_array_equal(weiper.histogram_rows(v, 2.0, 2.0, 5), hist(v, 2.0, 2.0, 5))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 15, 40])
def test_uniform_smooth_equals_edge_padded_convolution(width):
    P = np.random.default_rng(width).random((5, 30))
    np.testing.assert_allclose(
        weiper.uniform_smooth(P, width), [smooth(p, width) for p in P], rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(weiper.uniform_smooth(P[0], width), smooth(P[0], width), atol=1e-15)


def test_uniform_smooth_matches_the_issue_formula():
    P = np.random.default_rng(3).random(12)
    for s in (2, 5, 6):
        expected = [
            np.mean([P[min(max(i - (s - 1) // 2 + j, 0), 11)] for j in range(s)]) for i in range(12)
        ]
        np.testing.assert_allclose(weiper.uniform_smooth(P, s), expected, rtol=1e-12)


def test_symmetric_kl_against_a_loop_and_its_properties():
    rng = np.random.default_rng(0)
    p = rng.random(25)
    Q = rng.random((6, 25))
    got = weiper.symmetric_kl(p, Q, eps=0.01)
    np.testing.assert_allclose(got, [sym_kl(p, q, 0.01) for q in Q], rtol=1e-12)
    assert weiper.symmetric_kl(p, p) == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(weiper.symmetric_kl(Q, p, eps=0.01), got, rtol=1e-12)  # symmetric
    assert np.all(got > 0)
    # a bin empty in one distribution only: infinite without eps, finite with it
    assert weiper.symmetric_kl([1.0, 0.0], [0.5, 0.5]) == np.inf
    assert np.isfinite(weiper.symmetric_kl([1.0, 0.0], [0.5, 0.5], eps=1e-3))
    assert weiper.symmetric_kl([1.0, 0.0], [2.0, 0.0]) == 0.0  # both empty: 0 log 0 = 0
