"""Unstratified baselines the paper compares against: the classical interval and PPI++.

Same names and argument order as ppi_py (https://github.com/aangelopoulos/ppi_py), so code can
switch by changing the import: ``classical_mean_ci(Y, w=None, alpha=0.1, alternative=...)`` and
``ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.1, alternative=..., lam=None)``. PPI++ is
Angelopoulos, Duchi, Zrnic, "PPI++: Efficient Prediction-Powered Inference" (arXiv:2311.01453);
``lam=1`` is plain PPI (Angelopoulos et al., Science 2023) and ``lam=0`` the classical interval.

Written independently of :mod:`stratppi.mean` (no shared estimator code) so the tests' "K = 1
equals PPI++" check compares two implementations. The default ``ddof=1`` differs from ppi_py's
mean functions, which use ``np.std`` (ddof=0); pass ``ddof=0`` for identical numbers.
"""

from __future__ import annotations

import numpy as np

from ._validation import (
    as_2d,
    check_alpha,
    check_alternative,
    check_ddof,
    check_optim_mode,
    check_same_cols,
    check_same_rows,
)
from .mean import zconfint

__all__ = ["classical_mean_ci", "ppi_mean_pointestimate", "ppi_mean_ci"]


def _sample_weights(name: str, w, n: int):
    if w is None:
        return np.ones((n, 1))
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"{name} must be ({n},) finite non-negative weights, not all zero")
    return (w / w.sum() * n)[:, None]


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
    Y2, was_1d = as_2d("Y", Y)
    alpha, alternative, ddof = check_alpha(alpha), check_alternative(alternative), check_ddof(ddof)
    n = Y2.shape[0]
    if n < 2:
        raise ValueError("Y needs at least 2 rows for a variance")
    wY = _sample_weights("w", w, n) * Y2
    lo, hi = zconfint(wY.mean(0), wY.std(0, ddof=ddof) / np.sqrt(n), alpha, alternative)
    return (lo[0], hi[0]) if was_1d else (lo, hi)


def _ppi_inputs(Y, Yhat, Yhat_unlabeled):
    Y2, was_1d = as_2d("Y", Y)
    F, _ = as_2d("Yhat", Yhat)
    FU, _ = as_2d("Yhat_unlabeled", Yhat_unlabeled)
    check_same_rows(Y=Y2, Yhat=F)
    check_same_cols(Y=Y2, Yhat=F, Yhat_unlabeled=FU)
    if Y2.shape[0] < 2 or FU.shape[0] < 2:
        raise ValueError("Y and Yhat_unlabeled need at least 2 rows each")
    return Y2, F, FU, was_1d


def _ppi_lam(Y, F, FU, clip, mode):
    """PPI++ lam = Cov(Y, f) / ((1 + n/N) Var(f)), the 1-d case of ppi_py's ``_calc_lam_glm``."""
    n, N = Y.shape[0], FU.shape[0]
    cov = ((Y - Y.mean(0)) * (F - F.mean(0))).mean(0)  # (d,), 1/n as ppi_py
    var = np.var(np.concatenate([F, FU]), axis=0, ddof=1)  # (d,), np.cov of the pooled f
    if mode == "overall":
        cov, var = cov.sum(keepdims=True), var.sum(keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var > 0, cov / ((1 + n / N) * var), 0.0)
    return np.clip(lam, 0, 1) if clip else lam


def _ppi_lam_arg(lam, Y, F, FU, clip, mode):
    if lam is None:
        return _ppi_lam(Y, F, FU, clip, mode)
    lam = np.asarray(lam, dtype=np.float64)
    if lam.ndim > 1 or (lam.ndim == 1 and lam.shape[0] not in (1, Y.shape[1])):
        raise ValueError(f"lam must be a float or a ({Y.shape[1]},) array, got shape {lam.shape}")
    if not np.all(np.isfinite(lam)):
        raise ValueError("lam contains NaN or infinite values")
    return lam


def ppi_mean_pointestimate(
    Y, Yhat, Yhat_unlabeled, lam=None, *, clip=True, lam_optim_mode="overall"
):
    """PPI++ point estimate lam * mean(f_unlabelled) + mean(Y - lam * f).

    >>> round(float(ppi_mean_pointestimate([1., 0.], [.8, .2], [.5, .7, .6], lam=1.0)), 3)
    0.6
    """
    Y2, F, FU, was_1d = _ppi_inputs(Y, Yhat, Yhat_unlabeled)
    lam = _ppi_lam_arg(lam, Y2, F, FU, clip, check_optim_mode(lam_optim_mode))
    est = lam * FU.mean(0) + (Y2 - lam * F).mean(0)
    return np.float64(est[0]) if was_1d else est


def ppi_mean_ci(
    Y,
    Yhat,
    Yhat_unlabeled,
    alpha=0.1,
    alternative="two-sided",
    lam=None,
    *,
    clip=True,
    ddof=1,
    lam_optim_mode="overall",
):
    """PPI++ interval for the mean (unstratified; ``lam=1`` is PPI, ``lam=0`` classical).

    Args:
        Y: (n,) or (n, d) labels; Yhat: (n,)/(n, d) predictions on them;
        Yhat_unlabeled: (N,)/(N, d) predictions on the unlabelled data.
        alpha, alternative: as in ppi_py.
        lam: None tunes lam = Cov(Y, f)/((1 + n/N) Var(f)), clipped to [0, 1] when `clip`.
        ddof: 1 (default) or 0 (identical to ppi_py's ``ppi_mean_ci``).

    Returns:
        (lower, upper), floats for 1-d inputs.
    """
    Y2, F, FU, was_1d = _ppi_inputs(Y, Yhat, Yhat_unlabeled)
    alpha, alternative, ddof = check_alpha(alpha), check_alternative(alternative), check_ddof(ddof)
    lam = _ppi_lam_arg(lam, Y2, F, FU, clip, check_optim_mode(lam_optim_mode))
    n, N = Y2.shape[0], FU.shape[0]
    est = lam * FU.mean(0) + (Y2 - lam * F).mean(0)
    se = np.sqrt((Y2 - lam * F).var(0, ddof=ddof) / n + (lam * FU).var(0, ddof=ddof) / N)
    lo, hi = zconfint(est, se, alpha, alternative)
    return (lo[0], hi[0]) if was_1d else (lo, hi)
