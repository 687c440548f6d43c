"""The dense AOF baseline solves the fixed-epoch problem, checked against independent references.

Fixed epoch order, k = n / b epochs: example i takes part in steps i, i + b, ... With X = C^T C the
sensitivity is sqrt(max_i sum_{j = i mod b} X_jj) as soon as one example's steps are orthogonal,
so the feasible set is {X > 0, X_jl = 0 for j != l, j = l mod b, each example's diagonal sums to k}
(jax-privacy's dense optimiser). bsr-dp 0.1 forced X_jj = 1, a strict subset: issue 10.
"""

import numpy as np
import pytest
import scipy.linalg
from bsr_dp import aof, bsr_coefs, matrix_se, mean_se, toeplitz_matrix, workload_momentum
from scipy import optimize

CONFIGS = [(16, 4, 0.9), (24, 6, 0.0), (24, 8, 0.9)]


def _problem(n, b, beta):
    A = toeplitz_matrix(workload_momentum(n, momentum=beta))
    i, j = np.indices((n, n))
    orth = (i != j) & ((i - j) % b == 0)
    return A, orth, np.arange(n) % b


def _objective(A, X):
    return float(np.trace(A.T @ A @ np.linalg.inv(X)))


def _psd_sqrt_trace(S):
    return float(np.trace(scipy.linalg.sqrtm((S + S.T) / 2).real))


def _lagrange_bound(A, X, b):
    """Weak-duality lower bound, computed here with scipy's sqrtm (not the solver's code).

    For a multiplier L >= 0 supported on the diagonal (constant per example) and the orthogonal
    pairs, inf_{X > 0} tr(G X^{-1}) + tr(L X) = 2 tr((G^1/2 L G^1/2)^1/2); minus the constraint
    value tr(L) and maximised over the scale of L this is tr(...)^2 / tr(L) <= optimum.
    """
    n = A.shape[0]
    G = A.T @ A
    Xi = np.linalg.inv(X)
    M = Xi @ G @ Xi  # the KKT multiplier at an optimum
    _, orth, cls = _problem(n, b, 0.0)
    L = np.where(orth, M, 0.0)
    L[np.diag_indices(n)] = [np.diag(M)[cls == c].mean() for c in cls]
    assert np.linalg.eigvalsh(L).min() >= 0
    Gh = scipy.linalg.sqrtm(G).real
    s = _psd_sqrt_trace(Gh @ L @ Gh)
    return s * s / np.trace(L)


@pytest.mark.parametrize(("n", "b", "beta"), CONFIGS)
def test_aof_is_feasible_and_certified_optimal(n, b, beta):
    A, orth, cls = _problem(n, b, beta)
    C = aof(n, b, momentum=beta, tol=1e-12)
    X = C.T @ C
    k = n // b
    assert np.allclose(np.tril(C), C)  # lower-triangular
    assert np.abs(X[orth]).max() <= 1e-12 * np.abs(X).max()  # one example's steps orthogonal
    np.testing.assert_allclose(np.bincount(cls, np.diag(X)), k, rtol=1e-12)  # sens(C) = sqrt(k)
    f = _objective(A, X)
    bound = _lagrange_bound(A, X, b)
    assert bound <= f * (1 + 1e-9)  # weak duality
    assert f <= bound * (1 + 1e-6)  # duality gap closed: X is optimal
    # KKT: the gradient X^{-1} G X^{-1} vanishes on the free entries and is constant on the
    # diagonal of each example (one multiplier per example's diagonal-sum constraint)
    Xi = np.linalg.inv(X)
    M = Xi @ A.T @ A @ Xi
    free = ~orth & ~np.eye(n, dtype=bool)
    assert np.abs(M[free]).max() <= 1e-3 * np.abs(np.diag(M)).max()
    for c in range(b):
        d = np.diag(M)[cls == c]
        assert np.ptp(d) <= 1e-3 * d.mean()


def test_matches_an_independent_constrained_solver():
    # scipy SLSQP on the explicit constrained problem over all entries of X (n = 8, b = 4, k = 2)
    n, b, beta = 8, 4, 0.9
    A, orth, cls = _problem(n, b, beta)
    G = A.T @ A
    rows, cols = np.nonzero(np.tril(~orth, -1) & ~np.eye(n, dtype=bool))

    def to_x(z):
        X = np.diag(z[rows.size :])
        X[rows, cols] = X[cols, rows] = z[: rows.size]
        return X

    def fun(z):
        X = to_x(z)
        if np.linalg.eigvalsh(X).min() <= 1e-9:
            return 1e12
        return float(np.trace(G @ np.linalg.inv(X)))

    cons = [
        {"type": "eq", "fun": lambda z, c=c: z[rows.size :][cls == c].sum() - n // b}
        for c in range(b)
    ]
    z0 = np.concatenate([np.zeros(rows.size), np.ones(n)])
    res = optimize.minimize(
        fun, z0, method="SLSQP", constraints=cons, options={"maxiter": 2000, "ftol": 1e-14}
    )
    assert res.success
    ours = _objective(A, aof(n, b, momentum=beta).T @ aof(n, b, momentum=beta))
    assert ours == pytest.approx(res.fun, rel=1e-6)


@pytest.mark.parametrize(("n", "b", "beta"), CONFIGS)
def test_unit_diagonal_solution_is_feasible_but_worse(n, b, beta):
    # the 0.1 problem (X_jj = 1) is a restriction: its optimum is feasible here and strictly worse
    A, orth, cls = _problem(n, b, beta)
    Xu = (lambda C: C.T @ C)(aof(n, b, momentum=beta, constraint="unit"))
    Xs = (lambda C: C.T @ C)(aof(n, b, momentum=beta))
    np.testing.assert_allclose(np.diag(Xu), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.bincount(cls, np.diag(Xu)), n // b, rtol=1e-12)
    assert np.abs(Xu[orth]).max() <= 1e-12
    assert _objective(A, Xs) < _objective(A, Xu) * (1 - 1e-3)
    # and it violates the KKT conditions of the fixed-epoch problem: the diagonal of the gradient
    # X^{-1} G X^{-1} is far from constant within an example (it is within 1e-3 at the optimum)
    Xi = np.linalg.inv(Xu)
    d = np.diag(Xi @ A.T @ A @ Xi)
    assert max(np.ptp(d[cls == c]) / d[cls == c].mean() for c in range(b)) > 0.5


def test_bsr_to_aof_ratio_issue_10():
    # n = 64, b = 16, momentum 0.9, 4 epochs: the true optimum puts BSR at 1.086 (0.1: 1.013)
    n, b = 64, 16
    a = workload_momentum(n, momentum=0.9)
    C = aof(n, b, momentum=0.9)
    aof_mean = matrix_se(C, toeplitz_matrix(a), np.sqrt(n // b)).mean_se
    ratio = mean_se(bsr_coefs(n, b, momentum=0.9), a, b) / aof_mean
    assert ratio == pytest.approx(1.0857, abs=5e-4)


def test_matrix_se_accepts_lists_and_matches_arrays():
    # issue 10: matrix_se validated nothing (lists raised AttributeError)
    C = [[1.0, 0.0], [0.5, 1.0]]
    A = [[1.0, 0.0], [1.0, 1.0]]
    got = matrix_se(C, A, 2)
    want = matrix_se(np.array(C), np.array(A), 2.0)
    assert got == want and got.max_se >= got.mean_se > 0
