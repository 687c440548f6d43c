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

__all__ = ["dpsgd_coefs", "optimize_banded_toeplitz"]


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
