"""Stratified prediction-powered inference for a (d-dimensional) mean.

Fisch, Maynez, Hofer, Dhingra, Globerson, Cohen. "Stratified Prediction-Powered Inference for
Effective Hybrid Evaluation of Language Models", NeurIPS 2024. https://arxiv.org/abs/2406.04291

Implements the StratPPI mean estimator (Sec. 4, Algorithm 1 specialised to the squared loss),
its asymptotic variance and the per-stratum power tuning of lambda (Sec. 4.2):

    theta = sum_k w_k [ lam_k * mean_k(f unlabelled) + mean_k(Y - lam_k f labelled) ]
    V     = sum_k w_k^2 [ s_k^2(Y - lam_k f) / n_k + lam_k^2 s_k^2(f unlabelled) / N_k ]
    lam_k = Cov_k(Y, f) / ((1 + n_k / N_k) Var_k(f)),   clipped to [0, 1]

lam_k is computed with exactly the formula of ppi_py's `_calc_lam_glm` applied inside each stratum
(covariance with 1/n_k, variance of f over labelled and unlabelled predictions with ddof=1), so
K = 1 reproduces ppi_py's PPI++ (pass ``ddof=0`` for ppi_py's standard deviations).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from ._checks import check_array, check_bool, check_same_length
from ._validation import (
    as_2d,
    check_alpha,
    check_alternative,
    check_ddof,
    check_optim_mode,
    check_same_cols,
    group_means,
    group_sums,
    resolve_strata,
)

__all__ = [
    "stratppi_mean_pointestimate",
    "stratppi_mean_ci",
    "stratppi_mean_pval",
    "stratppi_mean_lam",
    "stratum_sigma",
    "zconfint",
]


def zconfint(estimate, se, alpha: float, alternative: str):
    """Normal (Wald) interval with statsmodels' / ppi_py's conventions for `alternative`.

    "two-sided": estimate -/+ z_{1-alpha/2} se; "larger": (estimate + z_alpha se, inf) (a lower
    confidence bound); "smaller": (-inf, estimate + z_{1-alpha} se).
    """
    estimate = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    if alternative == "two-sided":
        z = norm.ppf(1 - alpha / 2)
        return estimate - z * se, estimate + z * se
    if alternative == "larger":
        return estimate + norm.ppf(alpha) * se, np.full_like(estimate, np.inf)
    if alternative == "smaller":
        return np.full_like(estimate, -np.inf), estimate + norm.ppf(1 - alpha) * se
    raise ValueError(f"alternative must be 'two-sided', 'larger' or 'smaller', got {alternative!r}")


def _out(x, was_1d: bool):
    x = np.asarray(x, dtype=np.float64)
    return np.float64(x[0]) if was_1d else x


class _Prepared:
    """Validated inputs: (n, d) Y and Yhat, (N, d) Yhat_unlabeled, stratum codes and weights."""

    def __init__(self, Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights):
        self.Y, self.was_1d = as_2d(Y, "Y")
        self.F, _ = as_2d(Yhat, "Yhat")
        self.FU, _ = as_2d(Yhat_unlabeled, "Yhat_unlabeled")
        check_same_length(Y=self.Y, Yhat=self.F)
        check_same_cols(Y=self.Y, Yhat=self.F, Yhat_unlabeled=self.FU)
        n, N = self.Y.shape[0], self.FU.shape[0]
        self.labels, self.codes, self.codes_u, self.w = resolve_strata(
            strata, strata_unlabeled, n, N, weights
        )
        K = self.K = self.labels.shape[0]
        self.n_k = np.bincount(self.codes, minlength=K).astype(np.float64)  # (K,)
        self.N_k = np.bincount(self.codes_u, minlength=K).astype(np.float64)  # (K,)
        self.active = self.w > 0
        short = self.active & (self.n_k < 2)
        if np.any(short):
            k = int(np.flatnonzero(short)[0])
            raise ValueError(
                f"strata has {int(self.n_k[k])} labelled example(s) in stratum "
                f"{self.labels[k]!r} (weight {self.w[k]:.3g}); at least 2 per weighted stratum "
                "are needed for a variance"
            )
        self.mF = group_means(self.codes, K, self.F, self.n_k)  # (K, d)
        self.mFU = group_means(self.codes_u, K, self.FU, self.N_k)  # (K, d)

    def tuned_lam(self, clip: bool, mode: str):
        """Per-stratum PPI++ lambda, (K, 1) for mode='overall' or (K, d) for 'element'."""
        K, c, cu = self.K, self.codes, self.codes_u
        n_k, N_k = self.n_k, self.N_k
        mY = group_means(c, K, self.Y, n_k)
        cov0 = (
            group_sums(c, K, (self.Y - mY[c]) * (self.F - self.mF[c])) / np.maximum(n_k, 1)[:, None]
        )
        tot = n_k + N_k
        pm = (n_k[:, None] * self.mF + N_k[:, None] * self.mFU) / np.maximum(tot, 1)[:, None]
        ss = group_sums(c, K, (self.F - pm[c]) ** 2) + group_sums(cu, K, (self.FU - pm[cu]) ** 2)
        var1 = ss / np.maximum(tot - 1, 1)[:, None]  # (K, d) variance of f over lab. + unlab.
        if mode == "overall":
            cov0, var1 = cov0.sum(1, keepdims=True), var1.sum(1, keepdims=True)
        ok = (N_k >= 2)[:, None] & (var1 > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(ok, cov0 / ((1 + n_k / np.maximum(N_k, 1))[:, None] * var1), 0.0)
        return np.clip(lam, 0.0, 1.0) if clip else lam

    def resolve_lam(self, lam, clip: bool, mode: str):
        if lam is None:
            return self.tuned_lam(clip, mode)
        d = self.Y.shape[1]
        arr = check_array(lam, "lam", ndim=(0, 1, 2))
        if arr.ndim == 0:
            arr = np.full((self.K, 1), float(arr))
        elif arr.ndim == 1 and arr.shape[0] == self.K:
            arr = arr[:, None]
        elif not (arr.ndim == 2 and arr.shape[0] == self.K and arr.shape[1] in (1, d)):
            raise ValueError(
                f"lam must be a scalar, shape ({self.K},) or ({self.K}, {d}) for {self.K} strata; "
                f"got shape {arr.shape}"
            )
        bad = self.active & (self.N_k < 2) & np.any(arr != 0, axis=1)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"lam must be 0 in stratum {self.labels[k]!r}, which has {int(self.N_k[k])} "
                "unlabelled prediction(s) (at least 2 are needed to use them)"
            )
        return arr

    def estimate(self, lam):
        """lam (K, 1|d) -> theta (d,), per-stratum rectified means (K, d)."""
        c = self.codes
        R = self.Y - lam[c] * self.F  # (n, d)
        mR = group_means(c, self.K, R, self.n_k)
        per = np.where(self.active[:, None], lam * self.mFU + mR, 0.0)  # (K, d)
        return (self.w[:, None] * per).sum(0), R, mR

    def variance(self, lam, R, mR, ddof: int):
        c, cu, K = self.codes, self.codes_u, self.K
        n_k, N_k = self.n_k, self.N_k
        with np.errstate(divide="ignore", invalid="ignore"):
            vR = group_sums(c, K, (R - mR[c]) ** 2) / (n_k - ddof)[:, None]
            vU = group_sums(cu, K, (self.FU - self.mFU[cu]) ** 2) / (N_k - ddof)[:, None]
            term = vR / n_k[:, None] + np.where(lam != 0, lam**2 * vU / N_k[:, None], 0.0)
        term = np.where(self.active[:, None], term, 0.0)
        return (self.w[:, None] ** 2 * term).sum(0)  # (d,)


def stratppi_mean_lam(
    Y,
    Yhat,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    clip=True,
    lam_optim_mode="overall",
):
    """Per-stratum power-tuning parameters lam_k (Sec. 4.2), in sorted-label order.

    Returns:
        (K,) array for `lam_optim_mode="overall"` (one lam per stratum, minimising the summed
        variance over coordinates), (K, d) for "element" with 2-d inputs.

    >>> import numpy as np
    >>> Y = np.array([0., 1., 1., 0., 1., 1.]); f = np.array([.1, .9, .8, .2, .7, .9])
    >>> lam = stratppi_mean_lam(Y, f, np.r_[f, f], [0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1] * 2)
    >>> lam.shape, bool(np.all((lam >= 0) & (lam <= 1)))
    ((2,), True)
    """
    P = _Prepared(Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights)
    lam = P.tuned_lam(check_bool(clip, "clip"), check_optim_mode(lam_optim_mode))
    return lam[:, 0] if lam.shape[1] == 1 else lam


def stratppi_mean_pointestimate(
    Y,
    Yhat,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    weights=None,
    lam=None,
    clip=True,
    lam_optim_mode="overall",
):
    """StratPPI point estimate of the mean (Sec. 4, Eq. for the stratified rectified mean).

    Args:
        Y: (n,) or (n, d) gold-standard labels.
        Yhat: (n,) or (n, d) autorater predictions on the labelled examples.
        Yhat_unlabeled: (N,) or (N, d) autorater predictions on the unlabelled pool.
        strata: (n,) stratum label of each labelled example (ints or strings).
        strata_unlabeled: (N,) stratum label of each unlabelled example.
        weights: stratum weights w_k = P(X in stratum k). None: N_k / N from `strata_unlabeled`.
            An array is aligned with the sorted unique labels of `strata` and
            `strata_unlabeled`; a dict maps label -> weight. Normalised to sum to 1.
        lam: None tunes lam_k per stratum; a float applies one lam to all strata (0 gives the
            classical stratified mean, 1 stratified PPI); a (K,) array gives lam_k per stratum.
        clip: clip tuned lam_k to [0, 1] (as ppi_py does).
        lam_optim_mode: "overall" (one lam per stratum for all coordinates) or "element".

    Returns:
        float for 1-d inputs, (d,) array otherwise.

    >>> import numpy as np
    >>> Y = np.array([0., 1., 1., 0., 1., 1.]); f = np.array([.1, .9, .8, .2, .7, .9])
    >>> s = np.array([0, 0, 0, 1, 1, 1])
    >>> round(float(stratppi_mean_pointestimate(Y, f, f, s, s, lam=0.0)), 4)  # classical
    0.6667
    """
    P = _Prepared(Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights)
    lam = P.resolve_lam(lam, check_bool(clip, "clip"), check_optim_mode(lam_optim_mode))
    theta, _, _ = P.estimate(lam)
    return _out(theta, P.was_1d)


def _mean_estimate_se(
    Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights, lam, clip, ddof, mode
):
    ddof, mode = check_ddof(ddof), check_optim_mode(mode)
    P = _Prepared(Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights)
    lam = P.resolve_lam(lam, check_bool(clip, "clip"), mode)
    theta, R, mR = P.estimate(lam)
    var = P.variance(lam, R, mR, ddof)
    return theta, np.sqrt(var), P.was_1d


def stratppi_mean_ci(
    Y,
    Yhat,
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
    lam_optim_mode="overall",
):
    """StratPPI confidence interval for the mean (Algorithm 1 for the squared loss).

    Asymptotically valid at level 1 - alpha: theta_hat -/+ z sqrt(V_hat) with
    V_hat = sum_k w_k^2 [s_k^2(Y - lam_k f)/n_k + lam_k^2 s_k^2(f_unlabelled)/N_k].

    Args:
        Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights, lam, clip, lam_optim_mode:
            as in :func:`stratppi_mean_pointestimate`.
        alpha: error level; the interval targets coverage 1 - alpha.
        alternative: "two-sided", "larger" (returns (lower, inf)) or "smaller" ((-inf, upper)),
            the conventions of ppi_py / statsmodels.
        ddof: degrees of freedom of the per-stratum variances (1: unbiased; 0: ppi_py's mean).

    Returns:
        (lower, upper): floats for 1-d inputs, (d,) arrays otherwise.

    >>> import numpy as np
    >>> from stratppi import simulate
    >>> d = simulate(n=400, N=4000, rng=0)
    >>> lo, hi = stratppi_mean_ci(d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    >>> bool(lo < hi)
    True
    """
    alpha = check_alpha(alpha)
    alternative = check_alternative(alternative)
    theta, se, was_1d = _mean_estimate_se(
        Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights, lam, clip, ddof, lam_optim_mode
    )
    lo, hi = zconfint(theta, se, alpha, alternative)
    return _out(lo, was_1d), _out(hi, was_1d)


def stratppi_mean_pval(
    Y,
    Yhat,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    null=0.0,
    weights=None,
    lam=None,
    alternative="two-sided",
    clip=True,
    ddof=1,
    lam_optim_mode="overall",
):
    """StratPPI z-test p-value for H0: mean == null ("larger": H1 mean > null).

    Args:
        Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights, lam, clip, ddof,
            lam_optim_mode: as in :func:`stratppi_mean_ci`.
        null: the mean under H0 (a float, or a (d,) array for (n, d) inputs).
        alternative: "two-sided", "larger" (H1: mean > null) or "smaller".

    Returns:
        float for 1-d inputs, (d,) array otherwise.
    """
    alternative = check_alternative(alternative)
    null = check_array(null, "null", ndim=(0, 1))
    theta, se, was_1d = _mean_estimate_se(
        Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, weights, lam, clip, ddof, lam_optim_mode
    )
    if null.ndim == 1 and null.shape[0] != theta.shape[0]:
        raise ValueError(
            f"null has length {null.shape[0]} but the mean has {theta.shape[0]} coordinates"
        )
    z = (theta - null) / np.maximum(se, 1e-16)
    if alternative == "two-sided":
        p = 2 * norm.sf(np.abs(z))
    elif alternative == "larger":
        p = norm.sf(z)
    else:
        p = norm.cdf(z)
    return _out(p, was_1d)


def stratum_sigma(
    Y,
    Yhat,
    Yhat_unlabeled,
    strata,
    strata_unlabeled,
    *,
    lam=None,
    clip=True,
    ddof=1,
):
    """Per-stratum sd of Y - lam_k f, e.g. from a small pilot sample, for ``allocate(..., sigma=...)``.

    The "pilot" strategy: label a few examples per stratum, estimate sigma_k here (lam_k tuned
    unless given), then allocate the remaining budget with ``method="optimal"``.

    Returns:
        (K,) array in sorted-label order (1-d Y) or (K, d).
    """
    ddof = check_ddof(ddof)
    P = _Prepared(Y, Yhat, Yhat_unlabeled, strata, strata_unlabeled, None)
    lam = P.resolve_lam(lam, check_bool(clip, "clip"), "overall")
    _, R, mR = P.estimate(lam)
    c = P.codes
    with np.errstate(divide="ignore", invalid="ignore"):
        v = group_sums(c, P.K, (R - mR[c]) ** 2) / (P.n_k - ddof)[:, None]
    sd = np.sqrt(np.where(P.n_k[:, None] > 1, v, np.nan))
    return sd[:, 0] if P.was_1d else sd
