"""The solvers shared by StratPPI's and PPI++'s regressions: a design check, weighted rectified
least squares and logistic regression (Newton with a backtracking line search).

Both minimise a rectified loss of the form

    sum_i [ c_i l(x_i'theta) - t_i x_i'theta ] + sum_j b_j [ l(xu_j'theta) - f_j xu_j'theta ]

with l(z) = z^2 / 2 (OLS) or log(1 + e^z) (logistic): c_i = a_i (1 - lam_i) and
t_i = a_i (Y_i - lam_i Yhat_i) on the labelled rows, b_j = lam w / N on the unlabelled ones.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from ._checks import check_array, check_float, check_int, check_same_length

__all__ = [
    "SeparationWarning",
    "check_design",
    "check_regression_data",
    "covariance",
    "solve_logistic",
    "solve_ols",
]

#: |x'theta| beyond which a fitted probability is 0 or 1 to within 1e-13: the fit diverges.
SEPARATION_Z = 30.0


class SeparationWarning(UserWarning):
    """The logistic fit diverges (fitted probabilities of 0 or 1): the data look separable."""


def check_design(X, name: str) -> None:
    """Raise ``ValueError`` naming `name` if the (n, p) design has rank < p.

    Names an all-zero column or two identical columns when that is the cause.
    """
    p = X.shape[1]
    rank = int(np.linalg.matrix_rank(X)) if X.shape[0] else 0
    if rank == p:
        return
    zero = np.flatnonzero(~X.any(axis=0))
    if zero.size:
        raise ValueError(
            f"{name} column {int(zero[0])} is all zeros: the design has rank {rank} < {p} "
            "columns, so the coefficients are not identified"
        )
    if p <= 64:
        for i in range(p):
            for j in range(i + 1, p):
                if np.array_equal(X[:, i], X[:, j]):
                    raise ValueError(
                        f"{name} columns {i} and {j} are identical: the design has rank {rank} "
                        f"< {p} columns, so the coefficients are not identified"
                    )
    raise ValueError(
        f"{name} has rank {rank} < {p} columns (collinear columns, or fewer rows than columns), "
        "so the coefficients are not identified"
    )


def check_regression_data(kind, X, Y, Yhat, X_unlabeled, Yhat_unlabeled):
    """Validate (X, Y, Yhat, X_unlabeled, Yhat_unlabeled) of an OLS / logistic regression.

    Both designs must have full column rank (an all-zero or duplicated column raises); for the
    logistic, Y must be 0/1 and the predictions in [0, 1].
    """
    X = check_array(X, "X", ndim=2)
    Y = check_array(Y, "Y", ndim=1)
    F = check_array(Yhat, "Yhat", ndim=1)
    XU = check_array(X_unlabeled, "X_unlabeled", ndim=2)
    FU = check_array(Yhat_unlabeled, "Yhat_unlabeled", ndim=1)
    check_same_length(X=X, Y=Y, Yhat=F)
    check_same_length(X_unlabeled=XU, Yhat_unlabeled=FU)
    if XU.shape[1] != X.shape[1]:
        raise ValueError(f"X_unlabeled has {XU.shape[1]} columns but X has {X.shape[1]}")
    check_design(X, "X")
    check_design(XU, "X_unlabeled")
    if kind == "logistic":
        if np.any((Y != 0) & (Y != 1)):
            raise ValueError("Y must be binary (0/1) for logistic regression")
        for name, a in (("Yhat", F), ("Yhat_unlabeled", FU)):
            if np.any((a < 0) | (a > 1)):
                raise ValueError(
                    f"{name} must lie in [0, 1] for logistic regression, got values in "
                    f"[{a.min():.3g}, {a.max():.3g}]"
                )
    return X, Y, F, XU, FU


def covariance(A, ddof: int = 1):
    """(p, p) covariance of the rows of an (m, p) array (np.cov(A.T), without its slow path)."""
    Ac = A - A.mean(axis=0)
    return Ac.T @ Ac / (A.shape[0] - ddof)


def solve_ols(X, c, t, XU, b, FU):
    """argmin of sum_i [c_i z_i^2 / 2 - t_i z_i] + sum_j b_j [zu_j^2 / 2 - f_j zu_j]."""
    H = (X * c[:, None]).T @ X + (XU * b[:, None]).T @ XU
    return _solve(H, X.T @ t + XU.T @ (b * FU))


def _solve(H, rhs):
    try:
        return np.linalg.solve(H, rhs)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(H, rhs, rcond=None)[0]


def optimizer_settings(options) -> tuple[float, int]:
    """ppi_py's `optimizer_options` for our Newton solver: {"gtol", "maxiter"} (and "ftol",
    accepted for compatibility and unused: Newton stops on the gradient)."""
    if options is None:
        return 1e-12, 100
    if not isinstance(options, dict):
        raise TypeError(f"optimizer_options must be a dict or None, got {type(options).__name__}")
    unknown = set(options) - {"gtol", "maxiter", "ftol"}
    if unknown:
        raise ValueError(
            f"optimizer_options has unknown keys {sorted(unknown)}; "
            "the Newton solver takes 'gtol' and 'maxiter' ('ftol' is accepted and unused)"
        )
    if "ftol" in options:
        check_float(options["ftol"], "optimizer_options['ftol']", minimum=0.0)
    gtol = check_float(options.get("gtol", 1e-12), "optimizer_options['gtol']", minimum=0.0)
    maxiter = check_int(options.get("maxiter", 100), "optimizer_options['maxiter']", minimum=1)
    return gtol, maxiter


def solve_logistic(X, c, t, XU, b, FU, *, gtol: float = 1e-12, maxiter: int = 100):
    """argmin of the rectified logistic loss (module docstring) by damped Newton.

    Warns :class:`SeparationWarning` when the minimiser runs off to infinity (a fitted
    probability within 1e-13 of 0 or 1, or no convergence): separable data.
    """
    theta = np.zeros(X.shape[1])

    def loss(th):
        z, zu = X @ th, XU @ th
        return np.sum(c * np.logaddexp(0, z) - t * z) + np.sum(b * (np.logaddexp(0, zu) - FU * zu))

    cur, converged = loss(theta), False
    for _ in range(maxiter):
        z, zu = X @ theta, XU @ theta
        g = X.T @ (c * expit(z) - t) + XU.T @ (b * (expit(zu) - FU))
        if np.max(np.abs(g)) <= gtol:
            converged = True
            break
        m, mu = expit(z), expit(zu)
        H = (X * (c * m * (1 - m))[:, None]).T @ X + (XU * (b * mu * (1 - mu))[:, None]).T @ XU
        step = _solve(H, g)
        if g @ step <= 1e-15 * (1 + abs(cur)):
            # the predicted decrease (g'H^-1 g / 2) is below the loss's rounding: a line search
            # can no longer see progress, and the full Newton step is the quadratic-rate answer
            theta, converged = theta - step, True
            break
        s = 1.0
        while s > 1e-10:
            new = theta - s * step
            val = loss(new)
            if val <= cur - 1e-4 * s * (g @ step) or val <= cur:
                break
            s /= 2
        theta, prev, cur = new, cur, val
        if np.max(np.abs(s * step)) < 1e-12 * (1 + np.max(np.abs(theta))) and prev - cur < 1e-15:
            converged = True
            break
    zmax = max(np.max(np.abs(X @ theta)), np.max(np.abs(XU @ theta), initial=0.0))
    if zmax > SEPARATION_Z or not converged:
        reason = f"|x'theta| reaches {zmax:.3g}" if zmax > SEPARATION_Z else "no convergence"
        warnings.warn(
            f"the logistic fit diverges ({reason}: fitted probabilities of 0 or 1); the data "
            "look (quasi-)separable, so the coefficients and intervals are not reliable",
            SeparationWarning,
            stacklevel=3,
        )
    return theta
