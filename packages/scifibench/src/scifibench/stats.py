"""Bootstrap over questions (the paper's robustness check of the 500-question gold splits)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_rng

__all__ = ["bootstrap"]


def bootstrap(correct, *, n_boot=100_000, rng=None):
    """Bootstrap the accuracy of a set of graded questions.

    Resamples the ``n`` questions ``n`` times with replacement, ``n_boot`` times, as the paper
    does (100k resamples of 500). For 0/1 scores the number of correct questions in a resample is
    exactly ``Binomial(n, mean)``, so the resampled accuracies are drawn from that distribution
    directly (the same distribution as resampling indices, in O(n_boot) time and memory).

    Parameters
    ----------
    correct
        1-d array of booleans or 0/1 values, one per question.
    n_boot
        Number of bootstrap resamples (>= 2).
    rng
        ``None``, an int seed or a ``numpy.random.Generator``.

    Returns
    -------
    (mean, se, (lo, hi))
        ``mean`` is the observed accuracy, ``se`` the standard deviation of the resampled
        accuracies (the bootstrap standard error; about ``sqrt(mean * (1 - mean) / n)``), and
        ``(lo, hi)`` the 2.5% and 97.5% percentiles of the resampled accuracies (95% percentile
        interval). All are fractions in [0, 1], not percentages.

    Notes
    -----
    The paper reports "(56.00, 0.05)" for 280/500-like results and calls 0.05 a variance; the
    bootstrap standard error at 56% of 500 is 0.0222 (2.2 points), a variance of 4.9e-4 (or 4.9
    points squared), so the paper's figure matches neither usual definition.
    """
    arr = check_array(correct, "correct", ndim=1, dtype="any")
    if arr.dtype.kind != "b" and not np.all((arr == 0) | (arr == 1)):
        raise ValueError("correct must hold booleans or 0/1 values, got other values")
    n_boot = check_int(n_boot, "n_boot", minimum=2)
    gen = check_rng(rng)
    x = arr.astype(np.float64)
    n = x.size
    mean = float(x.mean())
    counts = gen.binomial(n, mean, size=n_boot)
    accs = counts / n
    se = float(accs.std(ddof=1))
    lo, hi = np.quantile(accs, [0.025, 0.975])
    return mean, se, (float(lo), float(hi))
