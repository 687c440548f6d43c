"""Two tasks, exponential demand: closed-form regions of the first mover's fate.

Mahmood, NeurIPS 2024, https://arxiv.org/abs/2411.02661, Sec. 5 (the three-region diagram of
Figure 3). Two tasks with ``D_t(p) = a_t exp(-b p)``; B is relatively stronger on task 1
(``kappa_1 > kappa_2``), ``s = a_1 / (a_1 + a_2)`` is the demand share of that task and
``r = kappa_2 / kappa_1`` measures how similar the tasks are (``r -> 1``: identical).

B always wins task 1. With ``x = b kappa_2 p_A``, B gives task 2 up to A iff
``x e^{1-x} < s`` (when ``kappa_1 p_A >= 1/b``) or ``x (1/r - 1) < ln(s / r)`` (when
``kappa_1 p_A < 1/b``). Hence (our derivation, checked against the numerical solver):

* **blue** ``r >= s``: A earns nothing at any price (the tasks are too similar);
* **green** ``r e^{1-r} < s``: A can price up to ``x* / (b kappa_2)`` with ``x* e^{1-x*} = s``;
* **orange** otherwise: A can price only up to ``ln(s/r) / ((1/r - 1) b kappa_2)``.

A's revenue ``a_2 p e^{-b p}`` increases up to ``1/b``, so it prices at the sup of its feasible
prices, capped at ``1/b`` (a supremum: at the boundary itself B is indifferent and, with ties to
the latecomer, takes both tasks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import lambertw

from ._checks import check_float, check_int
from ._validation import broadcast_shape, check_tie, in_range, positive_array, real_array

__all__ = ["RegionMap", "TwoTaskRegion", "two_task_region_map", "two_task_regions"]


class TwoTaskRegion(NamedTuple):
    """Closed-form answer; arrays when the inputs are arrays (``region`` then holds strings).

    ``p_A_max`` is the sup of prices at which A keeps task 2 (NaN in blue); ``p_A`` the optimal
    (sup) price ``min(p_A_max, 1/b)``; ``revenue_A`` its revenue ``a_A p_A e^{-b p_A}`` (0 in blue),
    where ``a_A`` is the demand of A's stronger task.
    """

    region: str | np.ndarray
    p_A_max: float | np.ndarray
    p_A: float | np.ndarray
    revenue_A: float | np.ndarray


def two_task_regions(a1, a2, kappa1, kappa2, b) -> TwoTaskRegion:
    """Classify a two-task market with exponential demand into blue / orange / green.

    Args:
        a1, a2: market sizes of the two tasks (> 0), broadcastable.
        kappa1, kappa2: B's relative performance on each (> 0). The task with the larger kappa is
            B's stronger task (the roles are swapped internally if ``kappa2 > kappa1``).
        b: common price sensitivity (> 0).

    Returns:
        :class:`TwoTaskRegion` ``(region, p_A_max, p_A, revenue_A)``.

    >>> two_task_regions(900, 100, 1.0, 0.5, 1.0).region
    'green'
    >>> two_task_regions(300, 100, 1.0, 0.5, 1.0).region
    'orange'
    >>> two_task_regions(100, 300, 1.0, 0.5, 1.0).region
    'blue'
    """
    a1 = positive_array(a1, "a1")
    a2 = positive_array(a2, "a2")
    k1 = positive_array(kappa1, "kappa1")
    k2 = positive_array(kappa2, "kappa2")
    b = positive_array(b, "b")
    broadcast_shape(a1=a1, a2=a2, kappa1=k1, kappa2=k2, b=b)
    a1, a2, k1, k2, b = np.broadcast_arrays(a1, a2, k1, k2, b)
    swap = k2 > k1
    aB, aA = np.where(swap, a2, a1), np.where(swap, a1, a2)  # B's stronger task, A's
    kB, kA = np.maximum(k1, k2), np.minimum(k1, k2)
    s = aB / (aB + aA)
    r = kA / kB
    blue = r >= s
    green = ~blue & (r * np.exp(1 - r) < s)
    # x* e^{1-x*} = s on (0, 1): x* = -W_0(-s/e)
    x_green = -np.real(lambertw(-s / np.e, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        x_orange = np.log(s / r) / (1 / r - 1)
    x = np.where(green, x_green, x_orange)
    p_max = np.where(blue, np.nan, x / (b * kA))
    p_opt = np.where(blue, np.nan, np.minimum(p_max, 1 / b))
    rev = np.where(blue, 0.0, aA * np.nan_to_num(p_opt) * np.exp(-b * np.nan_to_num(p_opt)))
    region = np.where(blue, "blue", np.where(green, "green", "orange"))
    if region.ndim == 0:
        return TwoTaskRegion(str(region), float(p_max), float(p_opt), float(rev))
    return TwoTaskRegion(region, p_max, p_opt, rev)


@dataclass(frozen=True)
class RegionMap:
    """The numerical region diagram of :func:`two_task_region_map` next to the closed form.

    Grids are ``(len(ratios), len(shares))`` arrays: row ``i`` is ``ratios[i]``, column ``j`` is
    ``shares[j]``.
    """

    shares: np.ndarray  #: (n_s,) ``s = a_1/(a_1+a_2)``
    ratios: np.ndarray  #: (n_r,) ``r = kappa_2/kappa_1``
    revenue_A: np.ndarray  #: A's best revenue over the price grid
    p_A: np.ndarray  #: its argmax (NaN where A earns nothing)
    p_A_sup: np.ndarray  #: the largest grid price at which A earns (NaN where none)
    price_step: np.ndarray  #: (n_r,) grid spacing per row
    numeric_positive: np.ndarray  #: ``revenue_A > 0``
    region: np.ndarray  #: the closed form's "blue" / "orange" / "green"
    closed_p_A_max: np.ndarray  #: the closed form's sup of earning prices
    closed_revenue_A: np.ndarray  #: the closed form's optimal revenue


def two_task_region_map(
    shares, ratios, *, n_prices: int = 3000, b: float = 1.0, tie: str = "latecomer"
) -> RegionMap:
    """Numerical region diagram: solve the game on a grid of (share, similarity) cells.

    For every cell ``(s, r)`` (``a = (s, 1-s)``, ``kappa = (1, r)``) B's best response is computed at
    ``n_prices`` first-mover prices in ``(0, 2/(b r)]`` at once (vectorised over prices), which
    covers every price at which A could earn (B takes both tasks once ``b kappa_2 p_A >= 1``).

    Args:
        shares: 1-d array of ``s = a_1/(a_1+a_2)`` in (0, 1).
        ratios: 1-d array of ``r = kappa_2/kappa_1`` in (0, 1].
        n_prices: first-mover prices per cell (>= 2).
        b: price sensitivity (> 0).
        tie: see :func:`~genai_pricing_game.best_response`.

    Returns:
        :class:`RegionMap` of ``(len(ratios), len(shares))`` arrays: ``revenue_A`` (best over the
        grid), ``p_A`` (its argmax), ``p_A_sup`` (largest grid price at which A earns),
        ``numeric_positive`` (``revenue_A > 0``), and the closed form's ``region``,
        ``closed_p_A_max`` and ``closed_revenue_A``; ``price_step`` ``(len(ratios),)`` is the
        grid spacing per row; ``shares`` and ``ratios`` echo the inputs.
    """
    from .demand import ExponentialDemand
    from .game import simulate_market

    s = real_array(shares, "shares", ndim=1)
    if ((s <= 0) | (s >= 1)).any():
        raise ValueError(
            f"shares must lie in (0, 1), got values in [{float(s.min())!r}, {float(s.max())!r}]"
        )
    r = in_range(real_array(ratios, "ratios", ndim=1), "ratios", 0.0, 1.0, lo_open=True)
    n_prices = check_int(n_prices, "n_prices", minimum=2)
    b = check_float(b, "b", minimum=0.0, min_inclusive=False)
    tie = check_tie(tie)
    rev = np.zeros((r.size, s.size))
    parg = np.full((r.size, s.size), np.nan)
    psup = np.full((r.size, s.size), np.nan)
    for i, ri in enumerate(r):
        prices = np.linspace(2.0 / (b * ri) / n_prices, 2.0 / (b * ri), n_prices)
        for j, sj in enumerate(s):
            out = simulate_market([1.0, ri], ExponentialDemand([sj, 1 - sj], b), prices, tie=tie)
            k = int(np.argmax(out.revenue_A))
            rev[i, j] = out.revenue_A[k]
            if rev[i, j] > 0:
                parg[i, j] = prices[k]
                psup[i, j] = prices[np.flatnonzero(out.revenue_A > 0)[-1]]
    S, R = np.meshgrid(s, r)
    closed = two_task_regions(S, 1 - S, 1.0, R, b)
    return RegionMap(
        shares=s,
        ratios=r,
        revenue_A=rev,
        p_A=parg,
        p_A_sup=psup,
        price_step=2.0 / (b * r) / n_prices,
        numeric_positive=rev > 0,
        region=closed.region,
        closed_p_A_max=closed.p_A_max,
        closed_revenue_A=closed.revenue_A,
    )
