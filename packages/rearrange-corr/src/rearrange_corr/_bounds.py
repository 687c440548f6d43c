"""The covariance inequality series behind r# and the coefficients each bound defines.

Ai, NeurIPS 2024, https://arxiv.org/abs/2205.04571 (Sec. 3, Fig. 1 and Eq. for the series):

    |s_xy| <= |s_{x↑,y↕}| <= s_x s_y <= (s_x² + s_y²)/2 <= (s_x² + s_y² + (x̄ - ȳ)²)/2

Scaling s_xy by each bound gives a coefficient; tighter bounds widen the capture range:
r= (:func:`concordance_corr`, = 1 only for y = x), r+ (:func:`additive_corr`, = 1 for y = x + c),
Pearson's r (= 1 for increasing linear y) and r# (= 1 for any increasing y). Covariances use the
1/(n-1) normalisation as the paper's code does.
"""

from __future__ import annotations

import numpy as np

from ._core import _rsharp_1d
from ._validation import as_float_array

__all__ = ["additive_corr", "bounds", "concordance_corr"]


def _pair(x, y):
    x = as_float_array(x, "x")
    y = as_float_array(y, "y")
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"x and y must be 1-d, got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("x and y must not contain NaN")
    return x, y


def bounds(x, y) -> dict[str, float]:
    """The covariance inequality series for (x, y) and the four coefficients it defines.

    Args:
        x: (n,) real sample, n >= 2.
        y: (n,) real sample.

    Returns:
        dict with the bounds ``s_xy``, ``s_rearranged`` (s_{x↑,y↕}, signed like s_xy),
        ``s_x_s_y``, ``arithmetic`` ((s_x²+s_y²)/2), ``concordance`` ((s_x²+s_y²+(x̄-ȳ)²)/2),
        and the coefficients ``r_concordance``, ``r_additive``, ``r_pearson``, ``r_sharp``
        (|r_concordance| <= |r_additive| <= |r_pearson| <= |r_sharp| <= 1).

    >>> b = bounds([1.0, 2.0, 3.0], [1.0, 4.0, 9.0])
    >>> b["r_sharp"], round(b["r_pearson"], 4)
    (1.0, 0.9897)
    """
    x, y = _pair(x, y)
    n = x.shape[0]
    xc, yc = x - x.mean(), y - y.mean()
    s_xy = float(xc @ yc) / (n - 1)
    xs, ys = np.sort(xc), np.sort(yc)
    s_up, s_down = float(xs @ ys) / (n - 1), float(xs @ ys[::-1]) / (n - 1)
    s_rearranged = s_up if s_xy >= 0 else s_down
    var_x, var_y = float(xc @ xc) / (n - 1), float(yc @ yc) / (n - 1)
    s_x_s_y = float(np.sqrt(var_x * var_y))
    arithmetic = (var_x + var_y) / 2
    concordance = (var_x + var_y + (x.mean() - y.mean()) ** 2) / 2

    def _ratio(num, den):
        return float("nan") if den == 0 else num / den

    return {
        "s_xy": s_xy,
        "s_rearranged": s_rearranged,
        "s_x_s_y": s_x_s_y,
        "arithmetic": arithmetic,
        "concordance": float(concordance),
        "r_concordance": _ratio(s_xy, float(concordance)),
        "r_additive": _ratio(s_xy, arithmetic),
        "r_pearson": _ratio(s_xy, s_x_s_y),
        "r_sharp": _rsharp_1d(x, y),
    }


def concordance_corr(x, y) -> float:
    """r= = 2 s_xy / (s_x² + s_y² + (x̄-ȳ)²) (Lin's concordance, 1/(n-1) variances); 1 iff y = x.

    >>> concordance_corr([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    """
    return bounds(x, y)["r_concordance"]


def additive_corr(x, y) -> float:
    """r+ = 2 s_xy / (s_x² + s_y²); 1 iff y = x + c (an additive shift).

    >>> additive_corr([1.0, 2.0, 3.0], [11.0, 12.0, 13.0])
    1.0
    """
    return bounds(x, y)["r_additive"]
