"""The covariance inequality series behind r# and the coefficients each bound defines.

Ai, NeurIPS 2024, https://arxiv.org/abs/2205.04571 (Sec. 3, Fig. 1 and Eq. for the series):

    |s_xy| <= |s_{x↑,y↕}| <= s_x s_y <= (s_x² + s_y²)/2 <= (s_x² + s_y² + (x̄ - ȳ)²)/2

Scaling s_xy by each bound gives a coefficient; tighter bounds widen the capture range:
r= (:func:`concordance_corr`, = 1 only for y = x), r+ (:func:`additive_corr`, = 1 for y = x + c),
Pearson's r (= 1 for increasing linear y) and r# (= 1 for any increasing y). Covariances use the
1/(n-1) normalisation as the paper's code does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._core import _rsharp_1d
from ._validation import as_pair, scale_exponent

__all__ = ["CovarianceBounds", "additive_corr", "bounds", "concordance_corr"]


@dataclass(frozen=True)
class CovarianceBounds:
    """The covariance inequality series of (x, y) and the four coefficients it defines.

    ``|s_xy| <= |s_rearranged| <= s_x_s_y <= arithmetic <= concordance`` and
    ``|r_concordance| <= |r_additive| <= |r_pearson| <= |r_sharp| <= 1``.

    Attributes:
        s_xy: the sample covariance (1/(n-1)).
        s_rearranged: s_{x↑,y↕}, the rearrangement bound, signed like s_xy.
        s_x_s_y: the Cauchy-Schwarz bound s_x s_y.
        arithmetic: (s_x² + s_y²)/2.
        concordance: (s_x² + s_y² + (x̄-ȳ)²)/2.
        r_concordance: r= = s_xy / concordance (Lin-type; 1 only for y = x).
        r_additive: r+ = s_xy / arithmetic (1 for y = x + c).
        r_pearson: Pearson's r = s_xy / s_x_s_y.
        r_sharp: r# = s_xy / |s_rearranged| (1 for any increasing relation).
    """

    s_xy: float
    s_rearranged: float
    s_x_s_y: float
    arithmetic: float
    concordance: float
    r_concordance: float
    r_additive: float
    r_pearson: float
    r_sharp: float


def _ratio(num: float, den: float) -> float:
    return float("nan") if den == 0 else num / den


def bounds(x, y) -> CovarianceBounds:
    """The covariance inequality series for (x, y) and the four coefficients it defines.

    Args:
        x: (n,) real sample, n >= 2, no NaN or infinities.
        y: (n,) real sample paired with x.

    Returns:
        :class:`CovarianceBounds` with the bounds ``s_xy``, ``s_rearranged`` (s_{x↑,y↕}, signed
        like s_xy), ``s_x_s_y``, ``arithmetic`` ((s_x²+s_y²)/2), ``concordance``
        ((s_x²+s_y²+(x̄-ȳ)²)/2), and the coefficients ``r_concordance``, ``r_additive``,
        ``r_pearson``, ``r_sharp`` (|r_concordance| <= |r_additive| <= |r_pearson| <=
        |r_sharp| <= 1). Data of extreme magnitude are rescaled by powers of two internally, so
        the coefficients never overflow; a bound itself is ``inf`` only if its value does not fit
        in a float64.

    >>> b = bounds([1.0, 2.0, 3.0], [1.0, 4.0, 9.0])
    >>> b.r_sharp, round(b.r_pearson, 4)
    (1.0, 0.9897)
    """
    x, y = as_pair(x, y)
    n = x.shape[0]
    # Powers of two (exact): x 2**-kx and y 2**-ky for the scale-invariant quantities, both by
    # 2**-k for r+ and r=, which are invariant only to a common rescaling. kx = ky = k = 0 for
    # ordinary magnitudes (the arithmetic below is then exactly the unscaled one).
    kx, ky = scale_exponent(x), scale_exponent(y)
    k = max(kx, ky)
    xa, ya = np.ldexp(x, -kx), np.ldexp(y, -ky)
    xc, yc = xa - xa.mean(), ya - ya.mean()
    s_xy = float(xc @ yc) / (n - 1)  # times 2**(kx+ky)
    xs, ys = np.sort(xc), np.sort(yc)
    s_up, s_down = float(xs @ ys) / (n - 1), float(xs @ ys[::-1]) / (n - 1)
    s_rearranged = s_up if s_xy >= 0 else s_down
    var_x, var_y = float(xc @ xc) / (n - 1), float(yc @ yc) / (n - 1)  # times 4**kx, 4**ky
    s_x_s_y = float(np.sqrt(var_x * var_y))
    # common scale 2**-k: variances times 4**-(k - kx) etc.
    vx, vy = np.ldexp(var_x, 2 * (kx - k)), np.ldexp(var_y, 2 * (ky - k))
    xj, yj = np.ldexp(x, -k), np.ldexp(y, -k)
    s_xy_j = float(np.ldexp(s_xy, kx + ky - 2 * k))
    arithmetic = float((vx + vy) / 2)
    concordance = float((vx + vy + (xj.mean() - yj.mean()) ** 2) / 2)

    def back(v: float, e: int) -> float:
        with np.errstate(over="ignore"):  # a bound too large for a float64 is inf
            return float(np.ldexp(v, e))

    return CovarianceBounds(
        s_xy=back(s_xy, kx + ky),
        s_rearranged=back(s_rearranged, kx + ky),
        s_x_s_y=back(s_x_s_y, kx + ky),
        arithmetic=back(arithmetic, 2 * k),
        concordance=back(concordance, 2 * k),
        r_concordance=_ratio(s_xy_j, concordance),
        r_additive=_ratio(s_xy_j, arithmetic),
        r_pearson=_ratio(s_xy, s_x_s_y),
        r_sharp=_rsharp_1d(x, y),
    )


def concordance_corr(x, y) -> float:
    """r= = 2 s_xy / (s_x² + s_y² + (x̄-ȳ)²) (Lin's concordance, 1/(n-1) variances); 1 iff y = x.

    >>> concordance_corr([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    """
    return bounds(x, y).r_concordance


def additive_corr(x, y) -> float:
    """r+ = 2 s_xy / (s_x² + s_y²); 1 iff y = x + c (an additive shift).

    >>> additive_corr([1.0, 2.0, 3.0], [11.0, 12.0, 13.0])
    1.0
    """
    return bounds(x, y).r_additive
