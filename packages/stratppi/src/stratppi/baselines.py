"""Unstratified baselines the paper compares against: the classical interval and PPI++.

Same names, argument order and defaults as ppi_py 0.2.3 (https://github.com/aangelopoulos/ppi_py),
so code switches by changing the import: ``classical_mean_ci``, ``ppi_mean_pointestimate``,
``ppi_mean_ci``, ``ppi_mean_pval``, ``ppi_ols_pointestimate``, ``ppi_ols_ci``,
``ppi_logistic_pointestimate``, ``ppi_logistic_ci`` and ``ppi_logistic_pval``, each taking ppi_py's
``lam``, ``coord``, ``w``, ``w_unlabeled`` (and ``lam_optim_mode`` / ``optimizer_options`` where
ppi_py has them). These keep ppi_py's positional order -- the one exception to the package's
"options are keyword-only" rule -- and add our own options (``clip``, ``ddof``) keyword-only.
PPI++ is Angelopoulos, Duchi, Zrnic, "PPI++: Efficient Prediction-Powered Inference"
(arXiv:2311.01453); ``lam=1`` is plain PPI (Angelopoulos et al., Science 2023), ``lam=0`` classical.

The estimators are ppi_py's, written independently of :mod:`stratppi.mean` (the tests' "K = 1
equals PPI++" check compares two implementations):

- mean: theta = mean(w_u lam f_u) + mean(w (Y - lam f)); lam tuned at the lam = 1 estimate with
  ppi_py's ``_calc_lam_glm`` (inverse Hessian = identity).
- OLS: ppi_py's PPI form theta = WLS(X_u, lam f_u; w_u) + WLS(X, Y - lam f; w) (not the
  minimiser of the rectified loss that :func:`stratppi.stratppi_ols_ci` uses, see the README);
  sandwich covariance with the Hessian pooled over labelled and unlabelled rows.
- logistic: the minimiser of the rectified log-loss (Newton instead of ppi_py's L-BFGS-B).
- tuning (lam=None), as ppi_py: the point estimate tunes lam once at the lam = 1 fit; the CI and
  p-value tune it again at that tuned fit and report the fit at the re-tuned lam.

Deviations from ppi_py, each documented where it applies: mean functions default to ``ddof=1``
(ppi_py: ``np.std``, ddof 0; pass ``ddof=0`` for its numbers); ``coord`` is honoured by every
function (ppi_py 0.2.3 ignores it in the mean and logistic functions); ``alternative`` is honoured
when lam is tuned (ppi_py's ``ppi_mean_ci`` drops it); ``ppi_mean_pval`` clips the tuned lam like
the CI does (ppi_py does not; ``clip=False`` for its behaviour); 1-d means return floats, not
(1,) arrays.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from ._checks import check_array, check_bool, check_float, check_int, check_same_length
from ._glm import check_regression_data, covariance, optimizer_settings, solve_logistic
from ._validation import (
    as_2d,
    check_alpha,
    check_alternative,
    check_ddof,
    check_optim_mode,
    check_same_cols,
    sample_weights,
)
from .mean import zconfint

__all__ = [
    "classical_mean_ci",
    "ppi_mean_pointestimate",
    "ppi_mean_ci",
    "ppi_mean_pval",
    "ppi_ols_pointestimate",
    "ppi_ols_ci",
    "ppi_logistic_pointestimate",
    "ppi_logistic_ci",
    "ppi_logistic_pval",
]


def _squeeze(x, was_1d: bool):
    x = np.asarray(x, dtype=np.float64)
    return np.float64(x[0]) if was_1d else x


def _pval(z, alternative: str):
    if alternative == "two-sided":
        return 2 * norm.sf(np.abs(z))
    return norm.sf(z) if alternative == "larger" else norm.cdf(z)


def _check_coord(coord, d: int):
    """ppi_py's `coord`: the coordinate (0-based, as ppi_py's code indexes) whose variance the
    tuned lam minimises; None minimises the total variance."""
    return None if coord is None else check_int(coord, "coord", minimum=0, maximum=d - 1)


def _ratio(num, den, clip: bool):
    """lam = num / den (0 where den = 0), clipped to [0, 1] when `clip`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(lam, 0.0, 1.0) if clip else lam


def _calc_lam(g, gh, ghu, A, coord, clip: bool) -> float:
    """PPI++'s power-tuning lam for an M-estimator (ppi_py's ``_calc_lam_glm``, "overall").

    lam = tr(A (C + C^T) A) / (2 (1 + n/N) tr(A V A)), A the (p, p) inverse Hessian,
    C = Cov(g, gh) (1/n), V = Cov of gh over labelled and unlabelled rows (ddof 1); `coord` j
    uses the j-th row of A instead of A. A zero denominator gives 0.
    """
    n, N = g.shape[0], ghu.shape[0]
    gc, ghc = g - g.mean(0), gh - gh.mean(0)
    C = (gc.T @ ghc + ghc.T @ gc) / n
    V = covariance(np.concatenate([gh, ghu]))
    v = A if coord is None else A[coord : coord + 1]
    return float(_ratio(np.trace(v @ C @ v.T), 2 * (1 + n / N) * np.trace(v @ V @ v.T), clip))


def _calc_lam_mean(g, gh, ghu, coord, clip: bool, mode: str):
    """:func:`_calc_lam` for a mean: the inverse Hessian is the identity, so only the diagonals
    of C and V enter; mode "element" gives one lam per coordinate."""
    n, N = g.shape[0], ghu.shape[0]
    c = 2 * ((g - g.mean(0)) * (gh - gh.mean(0))).sum(0) / n
    v = np.var(np.concatenate([gh, ghu]), axis=0, ddof=1)
    if coord is not None:
        c, v = c[coord : coord + 1], v[coord : coord + 1]
    if mode == "overall":
        return float(_ratio(c.sum(), 2 * (1 + n / N) * v.sum(), clip))
    return _ratio(c, 2 * (1 + n / N) * v, clip)


def _lam_arg(lam, d: int):
    """A given lam: a float, or (d,) per coordinate (mean, "element" mode)."""
    arr = check_array(lam, "lam", ndim=(0, 1))
    if arr.ndim == 1 and arr.shape[0] not in (1, d):
        raise ValueError(f"lam must be a float or a ({d},) array, got shape {arr.shape}")
    return float(arr) if arr.ndim == 0 else arr


# --- means --------------------------------------------------------------------------------------


def classical_mean_ci(Y, w=None, alpha=0.1, alternative="two-sided", *, ddof=1):
    """Classical CLT interval from the labelled data only (ppi_py's ``classical_mean_ci``).

    Args:
        Y: (n,) or (n, d) labels.
        w: optional (n,) sample weights (normalised to mean 1, as ppi_py does).
        alpha: error level in (0, 1).
        alternative: "two-sided", "larger" or "smaller".
        ddof: 1 (default) or 0 (ppi_py's np.std).

    Returns:
        (lower, upper), floats for 1-d Y.

    >>> lo, hi = classical_mean_ci([0., 1., 1., 1.], alpha=0.1)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.339, 1.161)
    """
    Y2, was_1d = as_2d(Y, "Y")
    alpha, alternative, ddof = check_alpha(alpha), check_alternative(alternative), check_ddof(ddof)
    n = Y2.shape[0]
    if n < 2:
        raise ValueError(f"Y needs at least 2 rows for a variance, got {n}")
    wY = sample_weights(w, "w", n)[:, None] * Y2
    lo, hi = zconfint(wY.mean(0), wY.std(0, ddof=ddof) / np.sqrt(n), alpha, alternative)
    return _squeeze(lo, was_1d), _squeeze(hi, was_1d)


class _Mean:
    """Validated (n, d) Y, Yhat, (N, d) Yhat_unlabeled and ppi_py's normalised sample weights."""

    def __init__(self, Y, Yhat, Yhat_unlabeled, w, w_unlabeled, coord, mode):
        self.Y, self.was_1d = as_2d(Y, "Y")
        self.F, _ = as_2d(Yhat, "Yhat")
        self.FU, _ = as_2d(Yhat_unlabeled, "Yhat_unlabeled")
        check_same_length(Y=self.Y, Yhat=self.F)
        self.d = check_same_cols(Y=self.Y, Yhat=self.F, Yhat_unlabeled=self.FU)
        self.n, self.N = self.Y.shape[0], self.FU.shape[0]
        if self.n < 2 or self.N < 2:
            raise ValueError(
                f"Y and Yhat_unlabeled need at least 2 rows each, got {self.n} and {self.N}"
            )
        self.w = sample_weights(w, "w", self.n)[:, None]
        self.wu = sample_weights(w_unlabeled, "w_unlabeled", self.N)[:, None]
        self.coord = _check_coord(coord, self.d)
        self.mode = check_optim_mode(mode)

    def estimate(self, lam):
        return (self.wu * lam * self.FU).mean(0) + (self.w * (self.Y - lam * self.F)).mean(0)

    def lam(self, lam, clip):
        if lam is not None:
            return _lam_arg(lam, self.d)
        theta = self.estimate(1.0)  # ppi_py tunes at the lam = 1 estimate
        g, gh, ghu = (
            self.w * (self.Y - theta),
            self.w * (self.F - theta),
            self.wu * (self.FU - theta),
        )
        return _calc_lam_mean(g, gh, ghu, self.coord, clip, self.mode)

    def se(self, lam, ddof):
        rect = (self.w * (self.Y - lam * self.F)).std(0, ddof=ddof) / np.sqrt(self.n)
        imp = (self.wu * lam * self.FU).std(0, ddof=ddof) / np.sqrt(self.N)
        return np.sqrt(rect**2 + imp**2)


def ppi_mean_pointestimate(
    Y,
    Yhat,
    Yhat_unlabeled,
    lam=None,
    coord=None,
    w=None,
    w_unlabeled=None,
    lam_optim_mode="overall",
    *,
    clip=True,
):
    """PPI++ point estimate mean(w_u lam f_u) + mean(w (Y - lam f)) (ppi_py's signature).

    Args:
        Y, Yhat, Yhat_unlabeled: (n,)/(n, d) labels and predictions, (N,)/(N, d) predictions.
        lam: None tunes lam (see :func:`ppi_mean_ci`); a float, or (d,) per coordinate.
        coord: tune lam for this coordinate's variance (0-based) instead of the total.
        w, w_unlabeled: optional (n,) / (N,) sample weights, rescaled to mean 1.
        lam_optim_mode: "overall" (one lam) or "element" (one per coordinate).
        clip: clip the tuned lam to [0, 1].

    >>> round(float(ppi_mean_pointestimate([1., 0.], [.8, .2], [.5, .7, .6], lam=1.0)), 3)
    0.6
    """
    m = _Mean(Y, Yhat, Yhat_unlabeled, w, w_unlabeled, coord, lam_optim_mode)
    return _squeeze(m.estimate(m.lam(lam, check_bool(clip, "clip"))), m.was_1d)


def ppi_mean_ci(
    Y,
    Yhat,
    Yhat_unlabeled,
    alpha=0.1,
    alternative="two-sided",
    lam=None,
    coord=None,
    w=None,
    w_unlabeled=None,
    lam_optim_mode="overall",
    *,
    clip=True,
    ddof=1,
):
    """PPI++ interval for the mean (unstratified; ``lam=1`` is PPI, ``lam=0`` classical).

    Args:
        Y, Yhat, Yhat_unlabeled, lam, coord, w, w_unlabeled, lam_optim_mode, clip: as in
            :func:`ppi_mean_pointestimate`. ``lam=None`` tunes
            lam = Cov(Y, f) / ((1 + n/N) Var(f)) (weighted as ppi_py when `w` is given).
        alpha: error level in (0, 1); alternative: "two-sided", "larger" or "smaller".
        ddof: 1 (default) or 0 (ppi_py's ``np.std``: identical numbers).

    Returns:
        (lower, upper), floats for 1-d inputs, (d,) arrays otherwise.
    """
    alpha, alternative, ddof = check_alpha(alpha), check_alternative(alternative), check_ddof(ddof)
    m = _Mean(Y, Yhat, Yhat_unlabeled, w, w_unlabeled, coord, lam_optim_mode)
    lam = m.lam(lam, check_bool(clip, "clip"))
    lo, hi = zconfint(m.estimate(lam), m.se(lam, ddof), alpha, alternative)
    return _squeeze(lo, m.was_1d), _squeeze(hi, m.was_1d)


def ppi_mean_pval(
    Y,
    Yhat,
    Yhat_unlabeled,
    null=0,
    alternative="two-sided",
    lam=None,
    coord=None,
    w=None,
    w_unlabeled=None,
    lam_optim_mode="overall",
    *,
    clip=True,
    ddof=1,
):
    """PPI++ z-test p-value for H0: mean == null (ppi_py's ``ppi_mean_pval``).

    ``alternative="larger"`` tests H1: mean > null. The tuned lam is clipped to [0, 1] as in
    :func:`ppi_mean_ci`, so the test and the interval agree (ppi_py 0.2.3 does not clip here:
    pass ``clip=False, ddof=0`` for its numbers).

    Returns:
        float for 1-d inputs, (d,) array otherwise.

    >>> p = ppi_mean_pval([0., 1., 1., 0.], [.1, .9, .8, .2], [.5, .6, .4, .5], null=0.5, lam=1.0)
    >>> round(float(p), 3)
    1.0
    """
    alternative, ddof = check_alternative(alternative), check_ddof(ddof)
    null = check_array(null, "null", ndim=(0, 1))
    m = _Mean(Y, Yhat, Yhat_unlabeled, w, w_unlabeled, coord, lam_optim_mode)
    if null.ndim == 1 and null.shape[0] != m.d:
        raise ValueError(f"null has length {null.shape[0]} but the mean has {m.d} coordinates")
    lam = m.lam(lam, check_bool(clip, "clip"))
    z = (m.estimate(lam) - null) / np.maximum(m.se(lam, ddof), 1e-16)
    return _squeeze(_pval(z, alternative), m.was_1d)


# --- OLS and logistic regression ----------------------------------------------------------------


class _GLM:
    """PPI++ for OLS / logistic regression with ppi_py's estimator, statistics and tuning."""

    def __init__(self, kind, X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, w, w_unlabeled):
        self.kind = kind
        self.X, self.Y, self.F, self.XU, self.FU = check_regression_data(
            kind, X, Y, Yhat, X_unlabeled, Yhat_unlabeled
        )
        self.n, self.N, self.p = self.X.shape[0], self.XU.shape[0], self.X.shape[1]
        if self.n < 2 or self.N < 2:
            raise ValueError(
                f"X and X_unlabeled need at least 2 rows each, got {self.n} and {self.N}"
            )
        self.w = sample_weights(w, "w", self.n)
        self.wu = sample_weights(w_unlabeled, "w_unlabeled", self.N)
        self.coord = _check_coord(coord, self.p)
        self.gtol, self.maxiter = 1e-12, 100
        self._ols = None  # the three WLS fits of the OLS point estimate, computed once

    def fit(self, lam: float):
        n, N = self.n, self.N
        if (
            self.kind == "ols"
        ):  # ppi_py's PPI form WLS(X_u, lam f_u) + WLS(X, Y - lam f): linear in lam
            if self._ols is None:
                bY, bF = _wls(self.X, np.c_[self.Y, self.F], self.w).T
                self._ols = (bY, bF, _wls(self.XU, self.FU, self.wu))
            bY, bF, bFU = self._ols
            return lam * bFU + bY - lam * bF
        a = self.w / n
        c, t, b = a * (1 - lam), a * (self.Y - lam * self.F), lam * self.wu / N
        return solve_logistic(
            self.X, c, t, self.XU, b, self.FU, gtol=self.gtol, maxiter=self.maxiter
        )

    def stats(self, theta, use_unlabeled: bool):
        """Per-row gradients (w-weighted) and the inverse Hessian, as ppi_py's ``_*_get_stats``."""
        z, zu = self.X @ theta, self.XU @ theta
        if self.kind == "ols":
            m, mu, h, hu = z, zu, np.ones(self.n), np.ones(self.N)
        else:
            m, mu = expit(z), expit(zu)
            h, hu = m * (1 - m), mu * (1 - mu)
        H = (self.X * (self.w * h)[:, None]).T @ self.X
        if use_unlabeled:
            H = (H + (self.XU * (self.wu * hu)[:, None]).T @ self.XU) / (self.n + self.N)
            ghu = self.XU * (self.wu * (mu - self.FU))[:, None]
        else:
            H = H / self.n
            ghu = np.zeros_like(self.XU)
        g = self.X * (self.w * (m - self.Y))[:, None]
        gh = self.X * (self.w * (m - self.F))[:, None]
        return g, gh, ghu, np.linalg.inv(H)

    def tune(self, theta, clip):
        g, gh, ghu, A = self.stats(theta, use_unlabeled=True)
        return _calc_lam(g, gh, ghu, A, self.coord, clip)

    def pointestimate(self, lam, clip):
        if lam is None:
            lam = self.tune(self.fit(1.0), clip)
        return self.fit(lam), lam

    def inference(self, lam, clip):
        """theta and its standard errors; lam=None re-tunes at the tuned point estimate."""
        if lam is None:
            theta, _ = self.pointestimate(None, clip)
            lam = self.tune(theta, clip)
        theta = self.fit(lam)
        g, gh, ghu, A = self.stats(theta, use_unlabeled=lam != 0)
        V, Vu = covariance(g - lam * gh), covariance(lam * ghu)
        Sigma = A @ (self.n / self.N * Vu + V) @ A
        return theta, np.sqrt(np.maximum(np.diag(Sigma), 0) / self.n)


def _wls(X, y, w):
    """Weighted least squares (X' W X)^-1 X' W y, via lstsq on sqrt(w)-scaled rows; y is (m,) or
    (m, k) (the k right-hand sides share one factorisation)."""
    r = np.sqrt(w)
    return np.linalg.lstsq(X * r[:, None], y * (r[:, None] if y.ndim == 2 else r), rcond=None)[0]


def _glm_lam(lam):
    return None if lam is None else check_float(lam, "lam")


def ppi_ols_pointestimate(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    lam=None,
    coord=None,
    w=None,
    w_unlabeled=None,
    *,
    clip=True,
):
    """PPI++ OLS coefficients, ppi_py's estimator WLS(X_u, lam f_u) + WLS(X, Y - lam f).

    Args:
        X, Y, Yhat: (n, p) covariates, (n,) labels and predictions; X_unlabeled,
            Yhat_unlabeled: (N, p) and (N,). Add a column of ones for an intercept.
        lam: None tunes lam at the lam = 1 fit (ppi_py's ``_calc_lam_glm``); a float fixes it.
        coord: tune lam for this coefficient's variance (0-based) instead of the total.
        w, w_unlabeled: optional (n,) / (N,) sample weights, rescaled to mean 1.
        clip: clip the tuned lam to [0, 1].

    Returns:
        (p,) coefficients.
    """
    G = _GLM("ols", X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, w, w_unlabeled)
    return G.pointestimate(_glm_lam(lam), check_bool(clip, "clip"))[0]


def ppi_ols_ci(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    alpha=0.1,
    alternative="two-sided",
    lam=None,
    coord=None,
    w=None,
    w_unlabeled=None,
    *,
    clip=True,
):
    """PPI++ intervals for the OLS coefficients (ppi_py's ``ppi_ols_ci``; identical numbers).

    Args:
        X, Y, Yhat, X_unlabeled, Yhat_unlabeled, lam, coord, w, w_unlabeled, clip: as in
            :func:`ppi_ols_pointestimate`; with ``lam=None`` lam is re-tuned at the tuned fit.
        alpha: error level in (0, 1); alternative: "two-sided", "larger" or "smaller".

    Returns:
        (lower, upper): two (p,) arrays.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, XU = np.c_[np.ones(200), rng.normal(size=200)], np.c_[np.ones(2000), rng.normal(size=2000)]
    >>> Y = X @ [1., 2.] + rng.normal(size=200)
    >>> lo, hi = ppi_ols_ci(X, Y, X @ [1., 2.], XU, XU @ [1., 2.])
    >>> bool(np.all((lo < [1., 2.]) & ([1., 2.] < hi)))
    True
    """
    alpha, alternative = check_alpha(alpha), check_alternative(alternative)
    G = _GLM("ols", X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, w, w_unlabeled)
    theta, se = G.inference(_glm_lam(lam), check_bool(clip, "clip"))
    return zconfint(theta, se, alpha, alternative)


def _logistic(X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, optimizer_options, w, w_unlabeled):
    settings = optimizer_settings(optimizer_options)
    G = _GLM("logistic", X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, w, w_unlabeled)
    G.gtol, G.maxiter = settings
    return G


def ppi_logistic_pointestimate(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    lam=None,
    coord=None,
    optimizer_options=None,
    w=None,
    w_unlabeled=None,
    *,
    clip=True,
):
    """PPI++ logistic-regression coefficients: the minimiser of the rectified log-loss.

    Args:
        X, Y, Yhat, X_unlabeled, Yhat_unlabeled: as in :func:`ppi_ols_pointestimate`, with
            Y in {0, 1} and predictions in [0, 1].
        lam, coord, w, w_unlabeled, clip: as in :func:`ppi_ols_pointestimate`.
        optimizer_options: {"gtol": ..., "maxiter": ...} for our Newton solver (ppi_py passes
            these to L-BFGS-B; "ftol" is accepted and unused). Other keys raise ValueError.

    Returns:
        (p,) coefficients. Warns :class:`stratppi.SeparationWarning` if the fit diverges.
    """
    G = _logistic(X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, optimizer_options, w, w_unlabeled)
    return G.pointestimate(_glm_lam(lam), check_bool(clip, "clip"))[0]


def ppi_logistic_ci(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    alpha=0.1,
    alternative="two-sided",
    lam=None,
    coord=None,
    optimizer_options=None,
    w=None,
    w_unlabeled=None,
    *,
    clip=True,
):
    """PPI++ intervals for logistic-regression coefficients (ppi_py's ``ppi_logistic_ci``).

    Args: as in :func:`ppi_logistic_pointestimate`, plus alpha and alternative as in
    :func:`ppi_ols_ci`.

    Returns:
        (lower, upper): two (p,) arrays.
    """
    alpha, alternative = check_alpha(alpha), check_alternative(alternative)
    G = _logistic(X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, optimizer_options, w, w_unlabeled)
    theta, se = G.inference(_glm_lam(lam), check_bool(clip, "clip"))
    return zconfint(theta, se, alpha, alternative)


def ppi_logistic_pval(
    X,
    Y,
    Yhat,
    X_unlabeled,
    Yhat_unlabeled,
    lam=None,
    coord=None,
    optimizer_options=None,
    w=None,
    w_unlabeled=None,
    alternative="two-sided",
    *,
    clip=True,
):
    """PPI++ z-test p-values for H0: coefficient j == 0, per coefficient (ppi_py's signature).

    Returns:
        (p,) p-values.
    """
    alternative = check_alternative(alternative)
    G = _logistic(X, Y, Yhat, X_unlabeled, Yhat_unlabeled, coord, optimizer_options, w, w_unlabeled)
    theta, se = G.inference(_glm_lam(lam), check_bool(clip, "clip"))
    return _pval(theta / np.maximum(se, 1e-16), alternative)
