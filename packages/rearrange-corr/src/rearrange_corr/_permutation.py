"""Permutation test of independence based on r# (ours: the NeurIPS paper defines no test).

Under H0 (x independent of y, or exchangeable pairs) every pairing of x with a permutation of y is
equally likely. The denominator of r# only depends on the sorted samples, which a permutation does
not change, so each permuted statistic costs one dot product: the whole null distribution is a
(B, n) @ (n,) product, computed in memory-bounded batches.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ._checks import check_int, check_rng
from ._core import _rsharp_1d, _warn_constant
from ._validation import as_pair, check_alternative, rescaled

__all__ = ["RearrangementCorrTestResult", "rearrangement_corr_test"]

_BATCH_ELEMENTS = 2**22  # permuted values held at once (32 MiB of float64)


@dataclass(frozen=True)
class RearrangementCorrTestResult:
    """Result of :func:`rearrangement_corr_test` (unpacks as ``statistic, pvalue``).

    Attributes:
        statistic: r#(x, y) on the data.
        pvalue: permutation p-value for the chosen alternative.
        null_distribution: (B,) r# of the permuted pairings (all n! of them for an exact test).
        exact: True when all n! permutations were enumerated.
        alternative: the alternative hypothesis tested.
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray = field(repr=False)
    exact: bool = False
    alternative: str = "two-sided"

    def __iter__(self):
        return iter((self.statistic, self.pvalue))


def _null_statistics(xs, y_perm, d_up, d_down):
    """r# for each row of y_perm (B, n) (centred y permuted), paired with x↑ (n,)."""
    num = y_perm @ xs  # (B,) numerators
    den = np.where(num >= 0, d_up, -d_down)
    out = np.zeros_like(num)
    nz = num != 0
    out[nz] = num[nz] / den[nz]
    return np.clip(out, -1.0, 1.0)


def rearrangement_corr_test(x, y, *, n_permutations=9999, alternative="two-sided", rng=None):
    """Permutation test of H0 "x and y are independent" with the statistic r#(x, y).

    The p-value follows scipy.stats.permutation_test: with B random permutations,
    ``p = (1 + #{r#_b at least as extreme as r#}) / (B + 1)`` (never 0, valid at any B);
    if n! <= n_permutations every permutation is enumerated and the test is exact.
    "two-sided" is ``min(1, 2 min(p_greater, p_less))``, "greater" tests positive and
    "less" negative monotone dependence.

    Args:
        x: (n,) real sample, n >= 2, finite, no NaN.
        y: (n,) real sample paired with x.
        n_permutations: number of random permutations B (positive int).
        alternative: "two-sided", "greater" or "less".
        rng: None (fresh entropy), a non-negative int seed, a numpy.random.Generator, a
            SeedSequence or a BitGenerator (``check_rng``; the legacy RandomState is refused).

    Returns:
        RearrangementCorrTestResult with ``.statistic`` and ``.pvalue`` (and the null draws).
        Both are NaN when x or y is constant.

    >>> res = rearrangement_corr_test([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], rng=0)
    >>> round(res.statistic, 4), res.exact, round(res.pvalue, 4)
    (0.8, True, 0.1333)
    """
    x, y = as_pair(x, y)
    n_permutations = check_int(n_permutations, "n_permutations", minimum=1)
    check_alternative(alternative)
    rng = check_rng(rng)

    stat = _rsharp_1d(x, y)
    if np.isnan(stat):
        _warn_constant()
        return RearrangementCorrTestResult(np.nan, np.nan, np.empty(0), False, alternative)

    n = x.shape[0]
    x, y = rescaled(x), rescaled(y)  # exact powers of two; only for magnitudes beyond 2**+-500
    xs = np.sort(x - x.mean())  # (n,) x↑ centred
    yc = y - y.mean()  # (n,)
    y_up = np.sort(yc)
    d_up, d_down = float(xs @ y_up), float(xs @ y_up[::-1])  # invariant under permutations

    exact = n <= 12 and math.factorial(n) <= n_permutations
    if exact:  # pair x↑ with every ordering of y
        perms = np.array(list(itertools.permutations(range(n))), dtype=np.intp)  # (n!, n)
        null = _null_statistics(xs, yc[perms], d_up, d_down)
    else:
        batch = max(1, _BATCH_ELEMENTS // n)
        chunks = []
        for start in range(0, n_permutations, batch):
            b = min(batch, n_permutations - start)
            y_perm = rng.permuted(np.broadcast_to(yc, (b, n)), axis=1)  # (b, n)
            chunks.append(_null_statistics(xs, y_perm, d_up, d_down))
        null = np.concatenate(chunks)

    # relative tolerance so that a permutation reproducing the data counts as "as extreme"
    gamma = abs(stat) * 100 * np.finfo(np.float64).eps
    adj = 0 if exact else 1
    denom = null.size + adj
    p_greater = (np.count_nonzero(null >= stat - gamma) + adj) / denom
    p_less = (np.count_nonzero(null <= stat + gamma) + adj) / denom
    if alternative == "greater":
        p = p_greater
    elif alternative == "less":
        p = p_less
    else:
        p = min(1.0, 2.0 * min(p_greater, p_less))
    return RearrangementCorrTestResult(float(stat), float(p), null, exact, alternative)
