"""Brute-force references used by the tests, reproduce.py and bench.py.

Deliberately naive: no pieces, no closed forms, a plain grid over the latecomer's price and a
Python loop over the first mover's price. Slow and approximate (grid resolution), obviously right.
"""

from __future__ import annotations

import numpy as np


def brute_best_response(p_A, kappa, demand, *, n_grid=100_000, p_hi=None, tie="latecomer"):
    """Grid search over ``p_B in (0, p_hi]`` of ``p_B * sum_{t: B cost-effective} D_t(p_B)``.

    Returns (p_B, won_by_B (m,), revenue_B).
    """
    kappa = np.asarray(kappa, dtype=float)
    if p_hi is None:
        p_hi = 1.5 * kappa.max() * p_A
    p = np.linspace(p_hi / n_grid, p_hi, n_grid)  # (G,)
    won = p[:, None] <= kappa * p_A if tie == "latecomer" else p[:, None] < kappa * p_A
    rev = p * (demand(p) * won).sum(axis=1)  # (G,)
    i = int(np.argmax(rev))
    return float(p[i]), won[i], float(rev[i])


def brute_first_mover(kappa, demand, *, p_max, n_a=400, n_b=20_000, tie="latecomer"):
    """Python loop over ``n_a`` first-mover prices, brute-force latecomer at each.

    Returns (prices (n_a,), revenue_A (n_a,)).
    """
    kappa = np.asarray(kappa, dtype=float)
    prices = np.linspace(p_max / n_a, p_max, n_a)
    rev_a = np.empty(n_a)
    for i, pa in enumerate(prices):
        _, won, _ = brute_best_response(pa, kappa, demand, n_grid=n_b, tie=tie)
        rev_a[i] = pa * (demand(np.array([pa]))[0] * ~won).sum()
    return prices, rev_a
