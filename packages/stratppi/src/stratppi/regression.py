"""StratPPI for M-estimators: OLS and logistic regression (Algorithm 1, "any dimensionality").

Fisch et al., NeurIPS 2024, https://arxiv.org/abs/2406.04291, Sec. 4 / Algorithm 1. Minimises the
stratified rectified loss

    L(theta) = sum_k w_k [ mean_lab_k l(X, Y) + lam_k ( mean_unl_k l(X~, f~) - mean_lab_k l(X, f) ) ]

and uses the sandwich covariance  Sigma = H^-1 [ sum_k w_k^2 ( Cov_k(g - lam_k g^f) / n_k
+ lam_k^2 Cov_k(g~^f) / N_k ) ] H^-1,  H = sum_k w_k H_k, with H_k the mean Hessian of the loss
over the labelled and unlabelled examples of stratum k (labelled only when lam_k = 0, as ppi_py).
lam_k minimises tr(Sigma): lam_k = tr(H^-1 (C_k + C_k^T) H^-1) / (2 (1 + n_k/N_k)
tr(H^-1 V_k H^-1)), C_k = Cov_k(g, g^f), V_k = Cov_k(g^f) -- ppi_py's ``_calc_lam_glm`` per
stratum, evaluated at the lam = 1 estimate, then clipped to [0, 1].
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ._checks import check_array, check_bool
from ._glm import check_regression_data, covariance, solve_logistic, solve_ols
from ._validation import check_alpha, check_alternative, check_ddof, resolve_strata
from .mean import zconfint

__all__ = [
    "stratppi_ols_pointestimate",
    "stratppi_ols_ci",
    "stratppi_logistic_pointestimate",
    "stratppi_logistic_ci",
]


class _Reg:
    def __init__(
        self, kind, X, Y, Yhat, X_unlabeled, Yhat_unlabeled, strata, strata_unlabeled, weights
    ):
        self.kind = kind
        self.X, self.Y, self.F, self.XU, self.FU = check_regression_data(
            kind, X, Y, Yhat, X_unlabeled, Yhat_unlabeled
        )
        n, N = self.X.shape[0], self.XU.shape[0]
        self.labels, self.c, self.cu, self.w = resolve_strata(
            strata, strata_unlabeled, n, N, weights
        )
        K = self.K = self.labels.shape[0]
        self.n_k = np.bincount(self.c, minlength=K).astype(np.float64)
        self.N_k = np.bincount(self.cu, minlength=K).astype(np.float64)
        self.active = self.w > 0
        short = self.active & (self.n_k < 2)
        if np.any(short):
            k = int(np.flatnonzero(short)[0])
            raise ValueError(
                f"strata has {int(self.n_k[k])} labelled example(s) in stratum "
                f"{self.labels[k]!r}; at least 2 per weighted stratum are needed"
            )

    # link m(z) and its derivative
    def _m(self, z):
        return z if self.kind == "ols" else expit(z)

    def _dm(self, z):
        if self.kind == "ols":
            return np.ones_like(z)
        m = expit(z)
        return m * (1 - m)

    def _sample_weights(self, lam):
        a = np.where(self.active, self.w / np.maximum(self.n_k, 1), 0.0)[self.c]  # (n,)
        b = np.where(self.active & (self.N_k > 0), self.w * lam / np.maximum(self.N_k, 1), 0.0)
        return a, lam[self.c], b[self.cu]

    def fit(self, lam):
        """Minimise the stratified rectified loss for per-stratum lam (K,)."""
        a, lam_i, b = self._sample_weights(lam)
        c, t = a * (1 - lam_i), a * (self.Y - lam_i * self.F)  # (n,) weights, pseudo-targets
        solve = solve_ols if self.kind == "ols" else solve_logistic
        return solve(self.X, c, t, self.XU, b, self.FU)

    def stats(self, theta):
        """Per-example gradients at theta and H = sum_k w_k H_k."""
        z, zu = self.X @ theta, self.XU @ theta
        m, mu = self._m(z), self._m(zu)
        g = self.X * (m - self.Y)[:, None]  # (n, p)
        gf = self.X * (m - self.F)[:, None]  # (n, p)
        gfu = self.XU * (mu - self.FU)[:, None]  # (N, p)
        return g, gf, gfu, self._dm(z), self._dm(zu)

    def hessian(self, theta, lam):
        z, zu = self.X @ theta, self.XU @ theta
        c, cu = self._dm(z), self._dm(zu)
        p = self.X.shape[1]
        H = np.zeros((p, p))
        for k in np.flatnonzero(self.active):
            Xk, ck = self.X[self.c == k], c[self.c == k]
            S = (Xk * ck[:, None]).T @ Xk
            cnt = Xk.shape[0]
            if lam[k] != 0:
                XUk, cuk = self.XU[self.cu == k], cu[self.cu == k]
                S = S + (XUk * cuk[:, None]).T @ XUk
                cnt += XUk.shape[0]
            H += self.w[k] * S / cnt
        return H

    def tune(self, clip):
        lam1 = np.where(self.N_k >= 2, 1.0, 0.0)
        theta = self.fit(lam1)
        g, gf, gfu, _, _ = self.stats(theta)
        A = np.linalg.pinv(self.hessian(theta, lam1))
        lam = np.zeros(self.K)
        for k in np.flatnonzero(self.active & (self.N_k >= 2)):
            gk, gfk, gfuk = g[self.c == k], gf[self.c == k], gfu[self.cu == k]
            gc, gfc = gk - gk.mean(0), gfk - gfk.mean(0)
            C = gc.T @ gfc / gk.shape[0]
            V = covariance(np.concatenate([gfk, gfuk]))
            den = 2 * (1 + self.n_k[k] / self.N_k[k]) * np.trace(A @ V @ A)
            lam[k] = np.trace(A @ (C + C.T) @ A) / den if den > 0 else 0.0
        return np.clip(lam, 0, 1) if clip else lam

    def resolve_lam(self, lam, clip):
        if lam is None:
            return self.tune(clip)
        arr = check_array(lam, "lam", ndim=(0, 1))
        if arr.ndim == 0:
            arr = np.full(self.K, float(arr))
        if arr.shape != (self.K,):
            raise ValueError(f"lam must be a float or a ({self.K},) array; got shape {arr.shape}")
        bad = self.active & (self.N_k < 2) & (arr != 0)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"lam must be 0 in stratum {self.labels[k]!r}, which has < 2 unlabelled examples"
            )
        return arr

    def covariance(self, theta, lam, ddof):
        g, gf, gfu, _, _ = self.stats(theta)
        A = np.linalg.pinv(self.hessian(theta, lam))
        p = self.X.shape[1]
        M = np.zeros((p, p))
        for k in np.flatnonzero(self.active):
            r = g[self.c == k] - lam[k] * gf[self.c == k]
            M += self.w[k] ** 2 * covariance(r, ddof) / self.n_k[k]
            if lam[k] != 0:
                gu = gfu[self.cu == k]
                M += self.w[k] ** 2 * lam[k] ** 2 * covariance(gu, ddof) / self.N_k[k]
        return A @ M @ A


def _pointestimate(kind, args, weights, lam, clip):
    clip = check_bool(clip, "clip")
    R = _Reg(kind, *args, weights)
    return R.fit(R.resolve_lam(lam, clip))


def _ci(kind, args, weights, lam, alpha, alternative, clip, ddof):
    alpha, alternative, ddof = check_alpha(alpha), check_alternative(alternative), check_ddof(ddof)
    clip = check_bool(clip, "clip")
    R = _Reg(kind, *args, weights)
    lam = R.resolve_lam(lam, clip)
    theta = R.fit(lam)
    se = np.sqrt(np.maximum(np.diag(R.covariance(theta, lam, ddof)), 0))
    return zconfint(theta, se, alpha, alternative)


_DOC_ARGS = """
    Args:
        X: (n, p) covariates of the labelled examples (add a column of ones for an intercept).
        Y: (n,) gold labels{ylab}.
        Yhat: (n,) autorater predictions on the labelled examples.
        X_unlabeled: (N, p) covariates of the unlabelled pool.
        Yhat_unlabeled: (N,) autorater predictions on the pool.
        strata, strata_unlabeled: (n,) and (N,) stratum labels.
        weights: stratum weights (None: N_k / N), as in :func:`stratppi.stratppi_mean_ci`.
        lam: None (tuned per stratum), a float, or a (K,) array in sorted-label order.
"""


def stratppi_ols_pointestimate(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    lam=None,
    clip=True,
):
    """StratPPI OLS coefficients: the minimiser of the stratified rectified squared loss.

    Returns:
        (p,) coefficients.
    """
    args = (X, Y, Yhat, X_unlabeled, Yhat_unlabeled, strata, strata_unlabeled)
    return _pointestimate("ols", args, weights, lam, clip)


def stratppi_ols_ci(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    lam=None,
    alpha=0.1,
    alternative="two-sided",
    clip=True,
    ddof=1,
):
    """StratPPI confidence intervals for OLS coefficients (per coordinate).

    Returns:
        (lower, upper): two (p,) arrays.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.c_[np.ones(200), rng.normal(size=200)]; Y = X @ [1., 2.] + rng.normal(size=200)
    >>> XU = np.c_[np.ones(2000), rng.normal(size=2000)]
    >>> s, su = (X[:, 1] > 0).astype(int), (XU[:, 1] > 0).astype(int)
    >>> lo, hi = stratppi_ols_ci(X, Y, X @ [1., 2.], XU, XU @ [1., 2.], s, su)
    >>> bool(np.all((lo < [1., 2.]) & ([1., 2.] < hi)))
    True
    """
    args = (X, Y, Yhat, X_unlabeled, Yhat_unlabeled, strata, strata_unlabeled)
    return _ci("ols", args, weights, lam, alpha, alternative, clip, ddof)


def stratppi_logistic_pointestimate(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    lam=None,
    clip=True,
):
    """StratPPI logistic-regression coefficients (Newton's method on the rectified log-loss).

    Returns:
        (p,) coefficients.
    """
    args = (X, Y, Yhat, X_unlabeled, Yhat_unlabeled, strata, strata_unlabeled)
    return _pointestimate("logistic", args, weights, lam, clip)


def stratppi_logistic_ci(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    lam=None,
    alpha=0.1,
    alternative="two-sided",
    clip=True,
    ddof=1,
):
    """StratPPI confidence intervals for logistic-regression coefficients (per coordinate).

    Y must be 0/1; Yhat and Yhat_unlabeled are autorater probabilities in [0, 1].

    Returns:
        (lower, upper): two (p,) arrays.
    """
    args = (X, Y, Yhat, X_unlabeled, Yhat_unlabeled, strata, strata_unlabeled)
    return _ci("logistic", args, weights, lam, alpha, alternative, clip, ddof)


for _f, _y in (
    (stratppi_ols_pointestimate, ""),
    (stratppi_ols_ci, ""),
    (stratppi_logistic_pointestimate, " in {0, 1}"),
    (stratppi_logistic_ci, " in {0, 1}"),
):
    _f.__doc__ = _f.__doc__.replace(
        "\n    Returns:", _DOC_ARGS.format(ylab=_y) + "\n    Returns:", 1
    )
