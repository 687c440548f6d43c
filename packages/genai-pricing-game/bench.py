"""Time per task: genai-pricing-game's vectorised solvers vs pure-Python loops, measured in one run.

Rows: the two-task region sweep (one cell: B's best response at every first-mover price; the
brief's pure-Python loop over p_A took 5 minutes for 1600 cells x 3000 prices), the first mover's
problem (grid 4096 + zoom vs a Python loop over p_A with a brute-force latecomer), and one
latecomer best response (piece enumeration vs a 10^5-point grid over p_B). No library implements
this model (nashpy / pygambit solve finite normal-form games), so the baselines are loops.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import genai_pricing_game as gp
import numpy as np
from genai_pricing_game._reference import brute_best_response, brute_first_mover

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

NOTES = (
    "ratio = loop time / ours (>1: ours is faster). Loops are pure-Python baselines (no peer "
    "library implements this game)."
)


def _loop_cell(s, r, prices):
    d = gp.ExponentialDemand([s, 1 - s], 1.0)
    rev = np.empty(prices.size)
    for i, pa in enumerate(prices):  # the brief's experiment: one best response per price
        br = gp.best_response(float(pa), [1.0, r], d)
        rev[i] = pa * (d(pa) * ~br.won_by_B).sum()
    return rev


def run(args) -> Table:
    n_prices = 300 if args.quick else 3000
    table = Table(["config", "ours_ms", "python_loop_ms", "ratio"], notes=NOTES)

    s, r = 0.7, 0.4
    prices = np.linspace(2 / r / n_prices, 2 / r, n_prices)
    d2 = gp.ExponentialDemand([s, 1 - s], 1.0)
    ours = timeit_ms(lambda: gp.simulate_market([1.0, r], d2, prices), repeat=3).best_ms
    loop = timeit_ms(lambda: _loop_cell(s, r, prices), repeat=1, warmup=0).best_ms
    assert np.allclose(gp.simulate_market([1.0, r], d2, prices).revenue_A, _loop_cell(s, r, prices))
    table.add(f"region cell, {n_prices} prices", round(ours, 3), round(loop, 3), ratio(loop, ours))
    table.add(
        "region sweep 40x40 (est. from one cell)",
        round(ours * 1600, 3),
        round(loop * 1600, 3),
        ratio(loop, ours),
    )

    kappa = np.array([2.0, 1.0, 0.3])
    d3 = gp.ExponentialDemand([100, 200, 400], 0.5)
    n_a = 100 if args.quick else 400
    ours = timeit_ms(lambda: gp.first_mover_price(kappa, d3), repeat=3).best_ms
    loop = timeit_ms(
        lambda: brute_first_mover(kappa, d3, p_max=d3.default_price_max(), n_a=n_a, n_b=20_000),
        repeat=1,
        warmup=0,
    ).best_ms
    table.add(
        f"first mover, m=3 (loop: {n_a} p_A x 2e4 p_B)",
        round(ours, 3),
        round(loop, 3),
        ratio(loop, ours),
    )

    rng = np.random.default_rng(0)
    m = 6
    kap6, d6 = rng.uniform(0.2, 3, m), gp.ExponentialDemand(rng.uniform(1, 100, m), 0.7)
    ours = timeit_ms(lambda: gp.best_response(1.3, kap6, d6), repeat=20).best_ms
    loop = timeit_ms(
        lambda: brute_best_response(1.3, kap6, d6, n_grid=100_000), repeat=3, warmup=0
    ).best_ms
    table.add(
        "best response, m=6 (grid: 1e5 p_B)", round(ours, 3), round(loop, 3), ratio(loop, ours)
    )
    return table


main = bench_cli(run, title="time per call, ms")
