"""r# against independent references: brute force over permutations, the formula, peers, R values."""

import itertools

import numpy as np
import pytest
from rearrange_corr import rearrangement_corr
from scipy import stats


def brute_force_rsharp(x, y):
    """r# with the rearrangement bound found by trying every pairing (no sorting at all)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    xc, yc = x - x.mean(), y - y.mean()
    s = xc @ yc
    pairings = [xc @ yc[list(p)] for p in itertools.permutations(range(len(x)))]
    bound = max(pairings) if s >= 0 else -min(pairings)
    return 0.0 if s == 0 else s / bound


def formula_rsharp(x, y):
    """The paper's formula with Python's sorted(), one pair at a time."""
    x, y = list(map(float, x)), list(map(float, y))
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    s = sum((a - mx) * (b - my) for a, b in zip(x, y)) / (n - 1)
    ys = sorted(y) if s >= 0 else sorted(y, reverse=True)
    d = sum((a - mx) * (b - my) for a, b in zip(sorted(x), ys)) / (n - 1)
    return s / abs(d)


@pytest.mark.parametrize("seed", range(20))
def test_matches_brute_force_over_all_pairings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    x = rng.normal(size=n)
    y = rng.integers(0, 3, size=n).astype(float) if seed % 3 == 0 else rng.exponential(size=n)
    if np.ptp(y) == 0:
        y[0] += 1.0
    assert rearrangement_corr(x, y) == pytest.approx(brute_force_rsharp(x, y), abs=1e-12)


def test_matches_formula_with_ties_and_large_offsets():
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(3, 60))
        x = rng.integers(0, 5, size=n) + 1e6  # ties and a large offset
        y = rng.normal(size=n) * 1e-3 - 7.0
        assert rearrangement_corr(x, y) == pytest.approx(formula_rsharp(x, y), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("y4", "expected"),
    [(3.25, 0.9259259), (3.50, 0.8461538), (3.75, 0.76), (4.50, 0.3846154)],
)
def test_recor_readme_resolution_example(y4, expected):
    # recor (the author's R package) README: x = 4:1, y = (5, 4, 3, y4); Spearman is 0.8 for the
    # first three, r# tells them apart ("higher resolution").
    x, y = [4, 3, 2, 1], [5, 4, 3, y4]
    assert rearrangement_corr(x, y) == pytest.approx(expected, abs=5e-8)
    # hand check of the first one: s_xy = 3.125/3, s_{x↑,y↑} = 3.375/3
    assert rearrangement_corr(x, [5, 4, 3, 3.25]) == pytest.approx(3.125 / 3.375, abs=1e-15)


def test_spearman_on_untied_ranks():
    rng = np.random.default_rng(2)
    for n in (3, 10, 101, 1000):
        a = rng.permutation(n) + 1.0
        b = rng.permutation(n) + 1.0
        assert rearrangement_corr(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    # and on ranks of continuous data
    x, y = rng.normal(size=300), rng.standard_cauchy(size=300)
    rho = stats.spearmanr(x, y).statistic
    assert rearrangement_corr(stats.rankdata(x), stats.rankdata(y)) == pytest.approx(rho, abs=1e-12)


def test_reverts_to_pearson_for_bivariate_normal():
    # paper: "reverts to Pearson's r in linear scenarios"; identical margins -> same population value
    rng = np.random.default_rng(3)
    n, rho = 10_000, 0.6
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    r = np.corrcoef(z.T)[0, 1]
    assert abs(rearrangement_corr(z[:, 0], z[:, 1]) - r) < 0.01


@pytest.mark.parametrize(
    "g", [np.exp, np.log1p, lambda t: t**3, np.arctan, lambda t: 1 / (1 + np.exp(-20 * t))]
)
def test_exactly_one_for_increasing_minus_one_for_decreasing(g):
    rng = np.random.default_rng(4)
    x = rng.uniform(0.01, 3, size=5000)
    assert rearrangement_corr(x, g(x)) == 1.0
    assert rearrangement_corr(x, -g(x)) == -1.0
    assert rearrangement_corr(g(x), x) == 1.0
    # also with ties in x (a non-strictly increasing relation is still "similarly ordered")
    xt = np.round(x, 1)
    assert rearrangement_corr(xt, g(xt)) == 1.0
    assert rearrangement_corr(xt, -g(xt)) == -1.0


def test_pearson_is_a_lower_bound_and_equality_for_linear():
    rng = np.random.default_rng(5)
    x = rng.normal(size=200)
    y = 2.5 * x - 1.0
    assert rearrangement_corr(x, y) == 1.0
    y = x**3 + rng.normal(size=200)
    assert abs(rearrangement_corr(x, y)) >= abs(np.corrcoef(x, y)[0, 1])


def test_zero_covariance_gives_zero():
    x = np.array([-1.0, 0.0, 1.0])
    y = np.array([1.0, -2.0, 1.0])  # s_xy = 0
    assert rearrangement_corr(x, y) == 0.0


def test_matrix_and_cross_match_pairwise_calls():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 7))
    X[:, 1] = np.exp(X[:, 0])
    X[:, 2] = -(X[:, 0] ** 3)
    X[:, 3] = np.round(X[:, 3])  # ties
    X[:, 4] = X[:, 3] + 0.5 * rng.normal(size=300)
    Y = rng.standard_t(3, size=(300, 4))
    Y[:, 0] = np.sinh(X[:, 5])
    R = rearrangement_corr(X)
    assert R.shape == (7, 7)
    ref = np.array([[formula_rsharp(X[:, i], X[:, j]) for j in range(7)] for i in range(7)])
    np.testing.assert_allclose(R, ref, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(R, R.T)
    np.testing.assert_array_equal(np.diag(R), 1.0)
    assert R[0, 1] == 1.0 and R[0, 2] == -1.0 and R[1, 2] == -1.0  # exact, as in the 1-d form
    C = rearrangement_corr(X, Y)
    assert C.shape == (7, 4)
    ref = np.array([[formula_rsharp(X[:, i], Y[:, j]) for j in range(4)] for i in range(7)])
    np.testing.assert_allclose(C, ref, rtol=0, atol=1e-12)
    assert C[5, 0] == 1.0
    # a column of ranks gives Spearman's matrix
    ranks = np.apply_along_axis(stats.rankdata, 0, rng.normal(size=(50, 5)))
    np.testing.assert_allclose(
        rearrangement_corr(ranks), stats.spearmanr(ranks).statistic, atol=1e-12
    )


def test_return_types():
    r = rearrangement_corr([1, 2, 3], [1, 3, 2])
    assert type(r) is float
    R = rearrangement_corr(np.arange(12).reshape(4, 3) ** 2)
    assert isinstance(R, np.ndarray) and R.dtype == np.float64 and R.shape == (3, 3)


def test_matrix_exact_signs_with_ties_and_many_monotone_columns():
    rng = np.random.default_rng(7)
    x = rng.normal(size=400)
    maps = [np.exp, np.arctan, lambda t: -(t**3), lambda t: np.round(t, 1), lambda t: -np.floor(t)]
    X = np.column_stack([maps[k % 5](x * (1 + k / 40)) for k in range(25)])
    X = np.column_stack([X, rng.normal(size=400)])  # one unrelated column
    sign = np.array([-1.0 if k % 5 in (2, 4) else 1.0 for k in range(25)])
    R = rearrangement_corr(X)
    np.testing.assert_array_equal(R[:25, :25], np.outer(sign, sign))
    assert np.all(np.abs(R[25, :25]) < 0.5)
    # cross form, both orientations (tied column as x or as y)
    np.testing.assert_array_equal(rearrangement_corr(X[:, :25], X[:, :7]), np.outer(sign, sign[:7]))
    np.testing.assert_array_equal(rearrangement_corr(X[:, :7], X[:, :25]), np.outer(sign[:7], sign))
    # near-monotone but not monotone: not rounded to 1, matches the 1-d value
    y = x.copy()
    o = np.argsort(x)
    k = int(np.argmin(np.diff(x[o])))  # swap the two closest neighbours: r# = 1 - O(1e-12)
    y[o[k]], y[o[k + 1]] = y[o[k + 1]], y[o[k]]
    Z = np.column_stack([x, y])
    r = rearrangement_corr(Z)[0, 1]
    assert 1.0 - 1e-7 < r < 1.0 and r == pytest.approx(formula_rsharp(x, y), abs=1e-12)
    assert rearrangement_corr(x, y) < 1.0
