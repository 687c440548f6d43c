"""Baselines BSR is compared with: DP-SGD noise and the optimized banded Toeplitz factorization.

Kalinin & Lampert, NeurIPS 2024 - https://arxiv.org/abs/2405.13763 (Sec. 5 baselines).
The optimized banded Toeplitz strategy follows Choquette-Choo et al., "(Amplified) Banded Matrix
Factorization", NeurIPS 2023 and McKenna, "Scaling up the Banded Matrix Factorization Mechanism",
2024: minimise ``sens(C)^2 * err(A C^{-1})`` over the p free coefficients of a banded Toeplitz C.
Here it is a scipy L-BFGS-B run with an analytic gradient (no JAX).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy import optimize, signal

from ._checks import check_float, check_option
from ._validation import check_coefs, check_optional_int, check_positive_int, check_square
from .functional import _participations, _shifted_sum, bsr_coefs, workload_momentum

__all__ = ["DenseErrors", "aof", "dpsgd_coefs", "matrix_se", "optimize_banded_toeplitz"]


def _workload(n, momentum, weight_decay, workload_coefs, *, first_positive=False) -> np.ndarray:
    """(n,) the workload's first column: explicit ``workload_coefs`` or the momentum workload."""
    if workload_coefs is None:
        return workload_momentum(n, momentum=momentum, weight_decay=weight_decay)
    a = check_coefs(workload_coefs, "workload_coefs", first_positive=first_positive)
    if a.size != n:
        raise ValueError(f"workload_coefs must have length n={n}, got {a.size}")
    return a


def dpsgd_coefs() -> np.ndarray:
    """Strategy of plain DP-SGD: C = I (coefficients ``[1.0]``), so B = A and sens = sqrt(k)."""
    return np.ones(1)


def _loss_and_grad(c, a, w, n, min_sep, k):
    """log(sens^2) + log(sum_j w_j b_j^2) and its gradient in c (all p coefficients)."""
    p = c.size
    s = _shifted_sum(c, n, min_sep, k)  # (n,) the worst-case summed column (Theorem 2)
    sens2 = s @ s
    g_sens = np.zeros(p)
    for i in range(k):  # d sens^2 / d c_m = 2 sum_i s[m + i b]
        start = i * min_sep
        m = min(p, n - start)
        g_sens[:m] += 2.0 * s[start : start + m]
    b = signal.lfilter([1.0], c, a)  # (n,) first column of B = A C^{-1}
    err = np.sum(w * b * b)
    # d err / d c_m = -2 <C^{-T} (w b), S^m b>; C^{-T} is the reversed lower-triangular solve
    g = signal.lfilter([1.0], c, (w * b)[::-1])[::-1]  # (n,)
    corr = signal.fftconvolve(g, b[::-1])[n - 1 : n - 1 + p]  # corr[m] = sum_j g_j b_{j-m}
    g_err = -2.0 * corr
    return np.log(sens2) + np.log(err), g_sens / sens2 + g_err / err


def optimize_banded_toeplitz(
    n,
    bands,
    min_sep,
    *,
    objective="mean",
    max_participations=None,
    momentum=0.0,
    weight_decay=1.0,
    workload_coefs=None,
    init=None,
    maxiter=1000,
    tol=1e-12,
) -> np.ndarray:
    """Banded lower-triangular Toeplitz strategy minimising MeanSE or MaxSE (numerical baseline).

    Minimises ``sens(C)^2 * err(B)`` with ``B = A C^{-1}``, ``err = mean_i ||B_i||^2`` ("mean") or
    ``max_i ||B_i||^2 = ||B_{n-1}||^2`` ("max"), over C's first ``bands`` coefficients with
    ``c_0 = 1`` (the objective is scale invariant). When ``bands <= min_sep`` the coefficients are
    free (the sensitivity formula is exact for any signs); when ``bands > min_sep`` they are
    parametrised as non-negative and non-increasing (``c_m = prod_{l<=m} q_l``, ``q in [0, 1]``),
    where Theorem 2's sensitivity formula is exact.

    Args:
        n: number of steps.
        bands: p, bandwidth of C (clipped to n).
        min_sep: b, minimum separation between participations.
        objective: "mean" (MeanSE) or "max" (MaxSE).
        max_participations: k, or None for ``ceil(n / b)``.
        momentum, weight_decay: workload of `workload_momentum` (ignored with `workload_coefs`).
        workload_coefs: (n,) explicit workload first column instead.
        init: (p,) starting coefficients; default the BSR coefficients of the workload.
        maxiter, tol: L-BFGS-B settings.

    Returns:
        (p,) float64 coefficients with ``c[0] == 1``.
    """
    n = check_positive_int(n, "n")
    p = min(check_positive_int(bands, "bands"), n)
    min_sep = check_positive_int(min_sep, "min_sep")
    max_participations = check_optional_int(max_participations, "max_participations")
    check_option(objective, "objective", ("mean", "max"))
    maxiter = check_positive_int(maxiter, "maxiter")
    tol = check_float(tol, "tol", minimum=0.0)
    a = _workload(n, momentum, weight_decay, workload_coefs)
    if init is None:
        if workload_coefs is None:
            c0 = bsr_coefs(n, p, momentum=momentum, weight_decay=weight_decay)
        else:
            from .functional import sqrt_toeplitz_coefs

            c0 = sqrt_toeplitz_coefs(a)[:p]
    else:
        c0 = check_coefs(init, "init")
        if c0.size != p:
            raise ValueError(f"init must have length bands={p}, got {c0.size}")
    c0 = c0 / c0[0]
    if p == 1:
        return np.ones(1)
    k = _participations(n, min_sep, max_participations)
    w = (n - np.arange(n)) / n if objective == "mean" else np.ones(n)

    if p <= min_sep:  # free coefficients c_1..c_{p-1}

        def fun(x):
            c = np.concatenate([[1.0], x])
            f, g = _loss_and_grad(c, a, w, n, min_sep, k)
            return f, g[1:]

        res = optimize.minimize(
            fun,
            c0[1:],
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": maxiter, "ftol": tol, "gtol": 1e-10},
        )
        return np.concatenate([[1.0], res.x])

    # monotone parametrisation: c_m = prod_{1<=l<=m} q_l, q_l in [0, 1]
    c0 = np.maximum.accumulate(np.clip(c0, 0.0, None)[::-1])[::-1]  # project init to the cone
    q0 = np.ones(p - 1)
    nz = c0[:-1] > 0
    q0[nz] = c0[1:][nz] / c0[:-1][nz]
    q0 = np.clip(q0, 0.0, 1.0)

    def fun_q(q):
        c = np.concatenate([[1.0], np.cumprod(q)])
        f, g = _loss_and_grad(c, a, w, n, min_sep, k)
        # d c_m / d q_i = prod_{l<=m, l!=i} q_l (m >= i); h_i = g_i + q_{i+1} h_{i+1}
        h = np.empty(p)
        h[-1] = g[-1]
        for i in range(p - 2, 0, -1):
            h[i] = g[i] + q[i] * h[i + 1]  # q[i] is q_{i+1}
        return f, c[:-1] * h[1:]

    res = optimize.minimize(
        fun_q,
        q0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * (p - 1),
        options={"maxiter": maxiter, "ftol": tol, "gtol": 1e-10},
    )
    return np.concatenate([[1.0], np.cumprod(res.x)])


# ------------------------------------------------------------------------------ dense AOF
_CONSTRAINTS = ("sum", "unit")


def aof(
    n,
    min_sep,
    *,
    momentum=0.0,
    weight_decay=1.0,
    workload_coefs=None,
    constraint="sum",
    maxiter=5000,
    tol=1e-8,
):
    """Approximately optimal dense factorization (AOF) for k = n / b epochs in a fixed order.

    The expensive baseline BSR replaces (Choquette-Choo et al., "Multi-Epoch Matrix Factorization
    Mechanisms for Private Machine Learning", ICML 2023; used as AOF in the BSR paper, Sec. 5).
    Example i takes part in steps ``i, i + b, ..., i + (k-1) b``. Over the Gram matrix
    ``X = C^T C`` it minimises ``||A C^{-1}||_F^2 = tr(A^T A X^{-1})`` subject to

    * ``X_jl = 0`` for ``j != l`` with ``j = l (mod b)`` (one example's steps are orthogonal), and
    * ``constraint="sum"`` (default): each example's diagonal entries sum to k,
      ``sum_{j = i (mod b)} X_jj = k``. This is the whole feasible set of the fixed-epoch
      sensitivity ``sens(C)^2 = max_i sum_{j = i (mod b)} X_jj = k`` (so ``sens(C) = sqrt(k)``),
      the problem jax-privacy's ``dense.optimize(n, epochs=k)`` solves.
    * ``constraint="unit"``: ``X_jj = 1`` for every j, a strict subset of the above (the
      bsr-dp 0.1 baseline, kept for comparison): feasible, but its optimum is worse.

    The problem is convex in X. It is solved by L-BFGS on the free entries of X (the gradient is
    projected so that the per-example diagonal sums stay k) with a positive-definiteness-keeping
    backtracking line search, and stopped by a Lagrange-duality certificate: with
    ``Lambda`` the multiplier matrix (``X^{-1} A^T A X^{-1}`` restricted to the constrained
    entries), every ``Lambda >= 0`` gives the lower bound
    ``tr((A Lambda A^T)^{1/2})^2 / tr(Lambda)`` on the optimum; iteration stops when the objective
    is within a factor ``1 + tol`` of it. O(n^3) per iteration, so n <= 1024.

    Args:
        n: number of steps, a multiple of min_sep.
        min_sep: b, steps per epoch.
        momentum, weight_decay, workload_coefs: the workload, as in `optimize_banded_toeplitz`.
        constraint: ``"sum"`` (the fixed-epoch sensitivity, default) or ``"unit"`` (``X_jj = 1``).
        maxiter: most L-BFGS iterations.
        tol: relative duality gap at which to stop.

    Returns:
        (n, n) lower-triangular C with ``C^T C = X`` (sensitivity ``sqrt(n // min_sep)`` under the
        fixed epoch order).
    """
    n = check_positive_int(n, "n")
    min_sep = check_positive_int(min_sep, "min_sep")
    check_option(constraint, "constraint", _CONSTRAINTS)
    maxiter = check_positive_int(maxiter, "maxiter")
    tol = check_float(tol, "tol", minimum=0.0)
    if n > 1024:
        raise ValueError(f"n must be <= 1024 for the dense AOF baseline, got {n}")
    if n % min_sep:
        raise ValueError(f"n={n} must be a multiple of min_sep={min_sep} (fixed epoch order)")
    a = _workload(n, momentum, weight_decay, workload_coefs, first_positive=True)
    i, j = np.indices((n, n))
    A = np.where(i >= j, a[np.clip(i - j, 0, n - 1)], 0.0)
    X = _aof_solve(A, min_sep, constraint, maxiter, tol).X
    return _lower_factor(X)


class _AOFSolution(NamedTuple):
    X: np.ndarray  # (n, n) Gram matrix C^T C
    objective: float  # tr(A^T A X^{-1})
    lower_bound: float  # Lagrange dual bound on the optimal objective
    iterations: int


def _structure(n: int, b: int):
    """Index sets of the fixed-epoch problem: free lower entries, orthogonal pairs, classes."""
    i, j = np.indices((n, n))
    same = (i - j) % b == 0
    free = (i > j) & ~same  # entries of X the optimiser may change
    orth = (i != j) & same  # entries held at 0 (two steps of one example)
    return np.nonzero(free), orth, np.arange(n) % b


def _class_mean(v: np.ndarray, cls: np.ndarray, b: int) -> np.ndarray:
    return (np.bincount(cls, v, minlength=b) / np.bincount(cls, minlength=b))[cls]


def _dual_bound(A: np.ndarray, M: np.ndarray, b: int, constraint: str) -> float:
    """Lagrange lower bound on min tr(A^T A X^{-1}) from the multiplier guess M = X^{-1} G X^{-1}.

    The Lagrangian's infimum over X > 0 is ``2 tr((A L A^T)^{1/2}) - tr(L)`` for a multiplier
    matrix L >= 0 that is zero on the free entries and, for ``"sum"``, constant on the diagonal
    of each example; maximising over the scale of L gives ``tr((A L A^T)^{1/2})^2 / tr(L)``.
    Returns 0.0 (a trivial bound) when L is not positive semi-definite.
    """
    n = A.shape[0]
    (rows, cols), orth, cls = _structure(n, b)
    L = np.where(orth, M, 0.0)
    diag = np.diag(M)
    L[np.diag_indices(n)] = _class_mean(diag, cls, b) if constraint == "sum" else diag
    if np.linalg.eigvalsh(L)[0] < 0:
        return 0.0
    root = np.sum(np.sqrt(np.clip(np.linalg.eigvalsh(A @ L @ A.T), 0.0, None)))
    return float(root * root / np.trace(L))


def _aof_solve(A: np.ndarray, b: int, constraint: str, maxiter: int, tol: float) -> _AOFSolution:
    """L-BFGS on the free entries of X (see `aof`); starts at X = I, which is feasible for both."""
    n = A.shape[0]
    (rows, cols), _, cls = _structure(n, b)
    nv = rows.size

    def to_x(z):
        X = np.diag(z[nv:])
        X[rows, cols] = z[:nv]
        X[cols, rows] = z[:nv]
        return X

    def f_and_grad(z):
        X = to_x(z)
        try:
            factor = scipy.linalg.cho_factor(X, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return np.inf, None, None
        W = scipy.linalg.cho_solve(factor, A.T, check_finite=False).T  # A X^{-1}
        M = W.T @ W  # X^{-1} A^T A X^{-1} = -d tr(A^T A X^{-1}) / dX
        gd = -np.diag(M)
        # keep each example's diagonal sum fixed (sum) or every diagonal entry fixed (unit)
        gd = gd - _class_mean(gd, cls, b) if constraint == "sum" else np.zeros(n)
        return float(np.sum(W * A)), np.concatenate([-2.0 * M[rows, cols], gd]), M

    z = np.concatenate([np.zeros(nv), np.ones(n)])
    f, g, M = f_and_grad(z)
    bound = 0.0
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    it = 0
    for it in range(1, maxiter + 1):
        # L-BFGS two-loop recursion
        q = g.copy()
        alphas = []
        for s, y in zip(reversed(s_hist), reversed(y_hist), strict=True):
            rho = 1.0 / (y @ s)
            al = rho * (s @ q)
            q -= al * y
            alphas.append((rho, al))
        if y_hist:
            q *= (s_hist[-1] @ y_hist[-1]) / (y_hist[-1] @ y_hist[-1])
        else:
            q /= max(np.linalg.norm(g), 1e-300)
        for (s, y), (rho, al) in zip(
            zip(s_hist, y_hist, strict=True), reversed(alphas), strict=True
        ):
            q += s * (al - rho * (y @ q))
        d = -q
        if g @ d >= 0:  # not a descent direction: restart from the gradient
            s_hist.clear()
            y_hist.clear()
            d = -g / max(np.linalg.norm(g), 1e-300)
        step = 1.0
        while True:
            f_new, g_new, M_new = f_and_grad(z + step * d)
            if f_new <= f + 1e-4 * step * (g @ d):
                break
            step *= 0.5
            if step < 1e-14:  # no further progress at machine precision
                return _AOFSolution(to_x(z), f, _dual_bound(A, M, b, constraint), it)
        s, y = step * d, g_new - g
        if s @ y > 1e-12 * (y @ y):
            s_hist.append(s)
            y_hist.append(y)
            if len(s_hist) > 30:
                s_hist.pop(0)
                y_hist.pop(0)
        z, f, g, M = z + s, f_new, g_new, M_new
        if it % 10 == 0:
            bound = _dual_bound(A, M, b, constraint)
            if bound > 0 and f <= bound * (1.0 + tol):
                break
    return _AOFSolution(to_x(z), f, bound, it)


def _lower_factor(X):
    """Lower-triangular C with C^T C = X (Cholesky of the reversed matrix, reversed back)."""
    L = np.linalg.cholesky(X[::-1, ::-1])
    return np.ascontiguousarray(L.T[::-1, ::-1])


class DenseErrors(NamedTuple):
    """MaxSE and MeanSE of a dense factorization (per unit noise multiplier)."""

    max_se: float
    mean_se: float


def matrix_se(C, A, sensitivity) -> DenseErrors:
    """(MaxSE, MeanSE) of a dense factorization ``A = B C`` with the given sensitivity of C.

    Args:
        C: (n, n) invertible strategy matrix. A: (n, n) workload matrix.
        sensitivity: sens(C) > 0 for the participation pattern at hand (e.g. ``sqrt(k)`` for `aof`).

    Returns:
        ``DenseErrors(max_se, mean_se)`` with ``B = A C^{-1}``:
        ``max_se = sens * max_i ||B_i||``, ``mean_se = sens * ||B||_F / sqrt(n)``.

    >>> matrix_se(np.eye(2), np.tri(2), 1.0)
    DenseErrors(max_se=1.4142135623730951, mean_se=1.224744871391589)
    """
    C = check_square(C, "C")
    A = check_square(A, "A")
    if A.shape != C.shape:
        raise ValueError(f"A must have the shape of C {C.shape}, got shape {A.shape}")
    sensitivity = check_float(sensitivity, "sensitivity", minimum=0.0, min_inclusive=False)
    try:
        B = np.linalg.solve(C.T, A.T).T  # A C^{-1}
    except np.linalg.LinAlgError:
        raise ValueError("C must be invertible, got a singular matrix") from None
    rows = np.sum(B * B, axis=1)
    return DenseErrors(
        float(sensitivity * np.sqrt(rows.max())), float(sensitivity * np.sqrt(rows.mean()))
    )
