"""The sequential pricing game (Mahmood, NeurIPS 2024, https://arxiv.org/abs/2411.02661, Sec. 4-5).

Firm A (first to market) sets a per-prompt price ``p_A``; firm B (the latecomer) observes it and its
relative performance ``kappa_t`` on every task and sets ``p_B``; on each task users pick the
cost-effective model (B iff ``p_B <= kappa_t p_A``, ties to the latecomer by default). A firm's
revenue is ``p * sum_{tasks it wins} D_t(p)``.

Latecomer (Sec. 4): sort the distinct values of ``kappa`` descending, ``v_1 > ... > v_k``. Winning
exactly the tasks with ``kappa >= v_j`` means ``p_B in (v_{j+1} p_A, v_j p_A]``; on that piece B
maximises ``p * sum_{kappa_t >= v_j} D_t(p)`` (the clipped unconstrained maximiser when the piece is
quasi-concave, e.g. ``clip(1/b, ...)`` for exponential demand), and takes the best piece.

First mover (Sec. 5): ``max_{p_A} p_A sum_{t: p_B*(p_A) > kappa_t p_A} D_t(p_A)`` with B's best
response inside; piecewise and discontinuous in ``p_A``, solved by a dense grid over ``p_A``
(vectorised: one call evaluates B's best response at every grid price) and zoom refinement.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import check_bool, check_float, check_int
from ._validation import as_kappa, check_tie, positive_array
from .demand import Demand

__all__ = [
    "BestResponse",
    "FirstMover",
    "MarketOutcome",
    "best_response",
    "first_mover_price",
    "simulate_market",
]


class BestResponse(NamedTuple):
    """Latecomer's best response: its price, the tasks it wins (bool mask ``(m,)``, input order)
    and its revenue."""

    p_B: float
    won_by_B: np.ndarray
    revenue_B: float


class FirstMover(NamedTuple):
    """First mover's optimum. ``p_A`` is NaN (and ``p_B``, ``revenue_B`` too) when A earns nothing
    at every price: the first mover is shut out."""

    p_A: float
    revenue_A: float
    p_B: float
    revenue_B: float


class MarketOutcome(NamedTuple):
    """Outcome of the game for each first-mover price: arrays over ``n`` prices."""

    p_A: np.ndarray  # (n,)
    p_B: np.ndarray  # (n,)
    won_by_B: np.ndarray  # (n, m) bool
    revenue_A: np.ndarray  # (n,)
    revenue_B: np.ndarray  # (n,)


def _check_demand(demand, m: int) -> Demand:
    if callable(demand) and not isinstance(demand, Demand):
        from .demand import CallableDemand

        demand = CallableDemand(demand)  # a plain vectorised f(p) -> (n, m)
    if not isinstance(demand, Demand):
        raise TypeError(
            "demand must be a Demand (ExponentialDemand, LinearDemand, CallableDemand), "
            f"got {type(demand).__name__}"
        )
    if demand.n_tasks != m:
        raise ValueError(f"demand has {demand.n_tasks} tasks but kappa has {m}")
    return demand


def _wins(p_B, p_A, kappa, tie):
    """B wins task t: ``p_B <= kappa_t p_A`` (latecomer ties) or ``<``. Shapes broadcast to (..., m)."""
    thr = kappa * p_A[..., None]
    return p_B[..., None] <= thr if tie == "latecomer" else p_B[..., None] < thr


def _pieces(kappa):
    """Distinct kappa levels descending ``v (k,)`` and task sets ``S (k, m)``: tasks with kappa >= v_j."""
    v = np.unique(kappa)[::-1]
    return v, kappa[None, :] >= v[:, None]


def _grid_piece_max(demand, sets, lo, hi, n_grid=129, n_zoom=4):
    """Maximise ``p * sum_S D(p)`` on ``[lo, hi]`` for every (price, piece) by grid + zoom.

    sets (k, m); lo, hi (n, k). Returns prices (n, k).
    """
    n, k = lo.shape
    out = np.empty((n, k))
    u = np.linspace(0.0, 1.0, n_grid)
    chunk = max(1, 2_000_000 // (k * n_grid * sets.shape[1]))
    for s0 in range(0, n, chunk):
        a, b = lo[s0 : s0 + chunk], hi[s0 : s0 + chunk]  # (c, k)
        for _ in range(n_zoom + 1):
            p = a[..., None] + (b - a)[..., None] * u  # (c, k, G)
            rev = p * (demand._evaluate(p) * sets[None, :, None, :]).sum(-1)  # (c, k, G)
            i = np.argmax(rev, axis=-1)  # (c, k)
            best = np.take_along_axis(p, i[..., None], -1)[..., 0]
            step = (b - a) / (n_grid - 1)
            a, b = np.maximum(best - step, a), np.minimum(best + step, b)
        out[s0 : s0 + chunk] = best
    return out


def _solve(p_A, kappa, demand, tie):
    """Vectorised game at prices p_A (n,): B's best response and both revenues."""
    v, sets = _pieces(kappa)  # (k,), (k, m)
    k = v.shape[0]
    hi = v[None, :] * p_A[:, None]  # (n, k)
    lo = np.concatenate([v[1:], [0.0]])[None, :] * p_A[:, None]  # (n, k)
    if tie == "first_mover":
        hi = np.nextafter(hi, 0.0)
    if demand.quasiconcave:
        star = demand.piece_argmax(sets)  # (k,)
        cand = np.clip(star[None, :], lo, hi)  # (n, k)
    else:
        cand = _grid_piece_max(demand, sets, lo, hi)
    cand = np.where(cand > 0, cand, hi)  # price 0 earns nothing: use the piece's top
    won = _wins(cand, p_A[:, None], kappa, tie)  # (n, k, m)
    rev_B = cand * (demand._evaluate(cand) * won).sum(-1)  # (n, k)
    # ties between pieces go to the one winning more tasks (pieces are ordered by size)
    j = k - 1 - np.argmax(rev_B[:, ::-1], axis=1)  # (n,)
    rows = np.arange(p_A.shape[0])
    p_B = cand[rows, j]
    won_B = won[rows, j]  # (n, m)
    rev_A = p_A * (demand._evaluate(p_A) * ~won_B).sum(-1)
    return MarketOutcome(p_A, p_B, won_B, rev_A, rev_B[rows, j])


def simulate_market(kappa, demand: Demand, p_A, *, tie: str = "latecomer") -> MarketOutcome:
    """Play the game at every first-mover price in ``p_A`` (vectorised; for sweeps and plots).

    Args:
        kappa: relative performance of B against A per task, shape ``(m,)`` (> 0).
        demand: a :class:`~genai_pricing_game.Demand` with ``m`` tasks.
        p_A: first-mover prices, scalar or 1-d array ``(n,)`` (> 0).
        tie: ``"latecomer"`` (equal cost -> users pick B) or ``"first_mover"``.

    Returns:
        :class:`MarketOutcome` of arrays over the ``n`` prices: ``p_B``, ``won_by_B (n, m)``,
        ``revenue_A``, ``revenue_B``.

    >>> from genai_pricing_game import ExponentialDemand
    >>> out = simulate_market([2.0, 1.0], ExponentialDemand([3.0, 1.0], 1.0), [0.1, 5.0])
    >>> out.won_by_B.tolist()
    [[True, False], [True, True]]
    """
    check_tie(tie)
    kappa = as_kappa(kappa)
    demand = _check_demand(demand, kappa.shape[0])
    p = np.atleast_1d(positive_array(p_A, "p_A", ndim=(0, 1)))
    return _solve(p, kappa, demand, tie)


def best_response(p_A, kappa, demand: Demand, *, tie: str = "latecomer") -> BestResponse:
    """Latecomer's revenue-maximising price given the first mover's price (Sec. 4).

    Enumerates the pieces "win exactly the tasks with the ``j`` largest ``kappa``" and maximises
    each: exactly (clipped closed form) for quasi-concave demand, by grid + zoom otherwise.

    Args:
        p_A: first mover's per-prompt price (> 0).
        kappa: relative performance per task, shape ``(m,)`` (> 0).
        demand: demand model with ``m`` tasks.
        tie: ``"latecomer"`` or ``"first_mover"`` (who wins a task at equal expected cost).

    Returns:
        ``(p_B, won_by_B, revenue_B)``; ``won_by_B`` is a bool mask over tasks (input order).

    >>> from genai_pricing_game import ExponentialDemand
    >>> br = best_response(1.0, [3.0, 1.0, 0.5], ExponentialDemand([400, 200, 100], 0.5))
    >>> br.p_B, br.won_by_B.tolist()
    (1.0, [True, True, False])
    """
    check_tie(tie)
    p = positive_array(p_A, "p_A")
    if p.ndim != 0:
        raise ValueError(
            f"p_A must be a scalar, got shape {p.shape} (simulate_market takes many prices)"
        )
    kappa = as_kappa(kappa)
    demand = _check_demand(demand, kappa.shape[0])
    out = _solve(p.reshape(1), kappa, demand, tie)
    return BestResponse(float(out.p_B[0]), out.won_by_B[0], float(out.revenue_B[0]))


def first_mover_price(
    kappa,
    demand: Demand,
    *,
    grid: int = 4096,
    refine: bool = True,
    p_max: float | None = None,
    tie: str = "latecomer",
    n_starts: int = 16,
) -> FirstMover:
    """First mover's revenue-maximising price, anticipating the latecomer's best response (Sec. 5).

    A's revenue ``p_A sum_{t: B not cost-effective} D_t(p_A)`` is piecewise continuous and jumps
    where B switches piece; the sup is often approached at such a jump. We evaluate the game on
    ``grid`` prices in ``(0, p_max]`` plus 128 log-spaced prices in ``[1e-12 p_max, p_max/grid)``
    (A's feasible set can be a tiny ``(0, p]``) in one vectorised call, then (``refine``) bisect every grid
    interval where B's choice changes (60 halvings, all intervals at once) and zoom in around the
    ``n_starts`` best local maxima (65-point grids shrinking 32x per round). A piece that B
    prefers only on an interval narrower than the grid step can be missed: raise ``grid``.

    Args:
        kappa: relative performance per task, ``(m,)`` (> 0).
        demand: demand model with ``m`` tasks.
        grid: number of first-mover prices on the initial grid (>= 16).
        refine: zoom refinement around the best grid points.
        p_max: upper end of the price search; defaults to ``demand.default_price_max()``.
        tie: see :func:`best_response`.
        n_starts: number of local maxima of the grid to refine (>= 1).

    Returns:
        ``(p_A, revenue_A, p_B, revenue_B)``; ``p_A = nan`` when A earns nothing at any price.

    >>> from genai_pricing_game import ExponentialDemand
    >>> fm = first_mover_price([1.0, 0.2], ExponentialDemand([1.0, 1.0], 1.0))
    >>> fm.revenue_A > 0
    True
    """
    check_tie(tie)
    kappa = as_kappa(kappa)
    demand = _check_demand(demand, kappa.shape[0])
    grid = check_int(grid, "grid", minimum=16)
    refine = check_bool(refine, "refine")
    n_starts = check_int(n_starts, "n_starts", minimum=1)
    if p_max is None:
        p_max = demand.default_price_max()
        if p_max is None:
            raise ValueError(
                "p_max is required for a demand without a default price range, got p_max=None"
            )
    p_max = check_float(p_max, "p_max", minimum=0.0, min_inclusive=False)
    step = p_max / grid
    # Below the first grid point A's feasible set can be a tiny interval (0, p_sup] (two tasks
    # with r just below s): a log-spaced prefix down to 1e-12 p_max lets the jump bisection find it.
    low = np.geomspace(p_max * 1e-12, step, _N_LOW, endpoint=False)
    prices = np.concatenate([low, np.linspace(step, p_max, grid)])
    out = _solve(prices, kappa, demand, tie)
    cand_p = [prices[np.argmax(out.revenue_A)]]
    if refine and out.revenue_A.max() > 0:
        cand_p += _refine_jumps(prices, out, kappa, demand, tie)
        cand_p += _refine_peaks(prices, out, kappa, demand, tie, n_starts, p_max, step)
    cand_p = np.asarray(cand_p)
    cand = _solve(cand_p, kappa, demand, tie)
    k = int(np.argmax(cand.revenue_A))
    best_p, best_r = cand_p[k], cand.revenue_A[k]
    if not best_r > 0:
        return FirstMover(float("nan"), 0.0, float("nan"), float("nan"))
    return FirstMover(float(best_p), float(best_r), float(cand.p_B[k]), float(cand.revenue_B[k]))


_N_LOW = 128  # log-spaced first-mover prices in [1e-12 p_max, p_max / grid)


def _refine_jumps(prices, out, kappa, demand, tie, n_iter=60):
    """Bisect every grid interval where B's choice of tasks changes (A's revenue jumps there);
    return the prices just left and right of each switch (all intervals at once)."""
    change = np.flatnonzero((out.won_by_B[1:] != out.won_by_B[:-1]).any(axis=1))
    if change.size == 0:
        return []
    lo, hi, w_lo = prices[change], prices[change + 1], out.won_by_B[change]  # (e,), (e,), (e, m)
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        same = (_solve(mid, kappa, demand, tie).won_by_B == w_lo).all(axis=1)
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    return list(lo) + list(hi)


def _refine_peaks(prices, out, kappa, demand, tie, n_starts, p_max, step, n_iter=30):
    """Zoom (65-point grids shrinking 32x per round) around the best ``n_starts`` local maxima
    of A's revenue on the grid, all at once."""
    r = np.concatenate([[-1.0], out.revenue_A, [-1.0]])
    peak = (r[1:-1] > 0) & (r[1:-1] >= r[:-2]) & (r[1:-1] >= r[2:])
    idx = np.flatnonzero(peak)
    idx = idx[np.argsort(out.revenue_A[idx])[::-1][:n_starts]]
    if idx.size == 0:
        return []
    c = prices[idx]  # (K,)
    h = np.minimum(step, c)  # (K,) window half-width: the grid step (smaller in the low prefix)
    u = np.linspace(-1.0, 1.0, 65)
    for _ in range(n_iter):
        ps = np.clip(c[:, None] + h[:, None] * u, p_max * 1e-13, p_max)  # (K, 65)
        rev = _solve(ps.ravel(), kappa, demand, tie).revenue_A.reshape(ps.shape)
        c = ps[np.arange(c.size), np.argmax(rev, axis=1)]
        h = h / 32.0
        if (h < 1e-13 * c).all():
            break
    return list(c)
