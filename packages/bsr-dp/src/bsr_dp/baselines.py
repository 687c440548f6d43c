"""Baselines BSR is compared with: DP-SGD noise and the optimized banded Toeplitz factorization.

Kalinin & Lampert, NeurIPS 2024 - https://arxiv.org/abs/2405.13763 (Sec. 5 baselines).
The optimized banded Toeplitz strategy follows Choquette-Choo et al., "(Amplified) Banded Matrix
Factorization", NeurIPS 2023 and McKenna, "Scaling up the Banded Matrix Factorization Mechanism",
2024: minimise ``sens(C)^2 * err(A C^{-1})`` over the p free coefficients of a banded Toeplitz C.
Here it is a scipy L-BFGS-B run with an analytic gradient (no JAX).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, signal

from ._validate import check_coefs, check_int, check_optional_int
from .functional import _participations, _shifted_sum, bsr_coefs, workload_momentum

__all__ = ["aof", "dpsgd_coefs", "matrix_se", "optimize_banded_toeplitz"]


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
    objective="mean",
    *,
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
    n = check_int(n, "n")
    p = min(check_int(bands, "bands"), n)
    min_sep = check_int(min_sep, "min_sep")
    max_participations = check_optional_int(max_participations, "max_participations")
    maxiter = check_int(maxiter, "maxiter")
    if objective not in ("mean", "max"):
        raise ValueError(f"objective must be 'mean' or 'max', got {objective!r}")
    if workload_coefs is None:
        a = workload_momentum(n, momentum, weight_decay)
    else:
        a = check_coefs(workload_coefs, "workload_coefs", first_positive=False)
        if a.size != n:
            raise ValueError(f"workload_coefs must have length n={n}, got {a.size}")
    if init is None:
        if workload_coefs is None:
            c0 = bsr_coefs(n, p, momentum, weight_decay)
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


def aof(n, min_sep, *, momentum=0.0, weight_decay=1.0, workload_coefs=None, maxiter=2000, tol=1e-9):
    """Approximately optimal dense factorization (AOF) for k = n / b epochs in a fixed order.

    The expensive baseline BSR replaces (Choquette-Choo et al., "Multi-Epoch Matrix Factorization
    Mechanisms for Private Machine Learning", ICML 2023; used as AOF in the BSR paper, Sec. 5):
    minimise ``||A C^{-1}||_F^2 = tr(A^T A X^{-1})`` over ``X = C^T C`` with ``X_jj = 1`` and
    ``X_jl = 0`` whenever ``j != l`` and ``j = l (mod b)`` (two steps of the same example), which
    makes ``sens(C) = sqrt(k)`` for the participation pattern {i, i + b, i + 2b, ...}. Solved by
    L-BFGS on the free entries of X with a positive-definiteness-preserving backtracking line
    search; O(n^3) per iteration, so it is limited to n <= 1024.

    Args:
        n: number of steps, a multiple of min_sep.
        min_sep: b, steps per epoch.
        momentum, weight_decay, workload_coefs: the workload, as in `optimize_banded_toeplitz`.
        maxiter: L-BFGS iterations; tol: stop when the relative decrease falls below it.

    Returns:
        (n, n) lower-triangular C with ``C^T C = X`` (sensitivity ``sqrt(n // min_sep)``).
    """
    n = check_int(n, "n")
    min_sep = check_int(min_sep, "min_sep")
    maxiter = check_int(maxiter, "maxiter")
    if n > 1024:
        raise ValueError(f"n={n} is too large for the dense AOF baseline (n <= 1024)")
    if n % min_sep:
        raise ValueError(f"n={n} must be a multiple of min_sep={min_sep} (fixed epoch order)")
    if workload_coefs is None:
        a = workload_momentum(n, momentum, weight_decay)
    else:
        a = check_coefs(workload_coefs, "workload_coefs", first_positive=False)
        if a.size != n:
            raise ValueError(f"workload_coefs must have length n={n}, got {a.size}")
    i, j = np.indices((n, n))
    A = np.where(i >= j, a[np.clip(i - j, 0, n - 1)], 0.0)
    G = A.T @ A  # (n, n)
    free = (i > j) & ((i - j) % min_sep != 0)  # lower-triangular entries X may change
    rows, cols = np.nonzero(free)

    def to_x(v):
        X = np.eye(n)
        X[rows, cols] = v
        X[cols, rows] = v
        return X

    def f_and_grad(v):
        X = to_x(v)
        try:
            L = np.linalg.cholesky(X)
        except np.linalg.LinAlgError:
            return np.inf, None
        Linv = np.linalg.inv(L)  # X^{-1} = Linv^T Linv
        Xinv = Linv.T @ Linv
        M = Xinv @ G @ Xinv  # -d/dX tr(G X^{-1})
        return float(np.sum(G * Xinv)), -2.0 * M[rows, cols]  # symmetric pair -> factor 2

    v = np.zeros(rows.size)
    f, g = f_and_grad(v)
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    for _ in range(maxiter):
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
            f_new, g_new = f_and_grad(v + step * d)
            if f_new <= f + 1e-4 * step * (g @ d):
                break
            step *= 0.5
            if step < 1e-12:
                return _lower_factor(to_x(v))
        v_new = v + step * d
        s, y = v_new - v, g_new - g
        if s @ y > 1e-12 * (y @ y):
            s_hist.append(s)
            y_hist.append(y)
            if len(s_hist) > 20:
                s_hist.pop(0)
                y_hist.pop(0)
        converged = f - f_new <= tol * abs(f)
        v, f, g = v_new, f_new, g_new
        if converged:
            break
    return _lower_factor(to_x(v))


def _lower_factor(X):
    """Lower-triangular C with C^T C = X (Cholesky of the reversed matrix, reversed back)."""
    L = np.linalg.cholesky(X[::-1, ::-1])
    return np.ascontiguousarray(L.T[::-1, ::-1])


def matrix_se(C, A, sensitivity):
    """(MaxSE, MeanSE) of a dense factorization ``A = B C`` with the given sensitivity of C."""
    B = np.linalg.solve(C.T, A.T).T  # A C^{-1}
    rows = np.sum(B * B, axis=1)
    return float(sensitivity * np.sqrt(rows.max())), float(sensitivity * np.sqrt(rows.mean()))
