"""Time per task: genai-pricing-game's vectorised solvers vs pure-Python loops, measured in one run.

Rows: the two-task region sweep (one cell: B's best response at every first-mover price; the
brief's pure-Python loop over p_A took 5 minutes for 1600 cells x 3000 prices), the first mover's
problem (grid 4096 + zoom vs a Python loop over p_A with a brute-force latecomer), and one
latecomer best response (piece enumeration vs a 10^5-point grid over p_B). No library implements
this model (nashpy / pygambit solve finite normal-form games), so the baselines are loops.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import genai_pricing_game as gp
import numpy as np
from genai_pricing_game._reference import brute_best_response, brute_first_mover


def _time(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _loop_cell(s, r, prices):
    d = gp.ExponentialDemand([s, 1 - s], 1.0)
    rev = np.empty(prices.size)
    for i, pa in enumerate(prices):  # the brief's experiment: one best response per price
        br = gp.best_response(float(pa), [1.0, r], d)
        rev[i] = pa * (d(pa) * ~br.tasks_won).sum()
    return rev


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    n_prices = 300 if args.quick else 3000
    rows = []

    s, r = 0.7, 0.4
    prices = np.linspace(2 / r / n_prices, 2 / r, n_prices)
    d2 = gp.ExponentialDemand([s, 1 - s], 1.0)
    ours = _time(lambda: gp.simulate_market([1.0, r], d2, prices))
    loop = _time(lambda: _loop_cell(s, r, prices), repeat=1)
    assert np.allclose(gp.simulate_market([1.0, r], d2, prices).revenue_A, _loop_cell(s, r, prices))
    rows.append([f"region cell, {n_prices} prices", ours, loop, f"{loop / ours:.0f}x"])
    rows.append(
        [
            "region sweep 40x40 (est. from one cell)",
            ours * 1600,
            loop * 1600,
            f"{loop / ours:.0f}x",
        ]
    )

    kappa = np.array([2.0, 1.0, 0.3])
    d3 = gp.ExponentialDemand([100, 200, 400], 0.5)
    n_a = 100 if args.quick else 400
    ours = _time(lambda: gp.first_mover_price(kappa, d3))
    loop = _time(
        lambda: brute_first_mover(kappa, d3, p_max=d3.default_price_max(), n_a=n_a, n_b=20_000),
        repeat=1,
    )
    rows.append(
        [f"first mover, m=3 (loop: {n_a} p_A x 2e4 p_B)", ours, loop, f"{loop / ours:.1f}x"]
    )

    rng = np.random.default_rng(0)
    m = 6
    kap6, d6 = rng.uniform(0.2, 3, m), gp.ExponentialDemand(rng.uniform(1, 100, m), 0.7)
    ours = _time(lambda: gp.best_response(1.3, kap6, d6), repeat=20)
    loop = _time(lambda: brute_best_response(1.3, kap6, d6, n_grid=100_000), repeat=3)
    rows.append(["best response, m=6 (grid: 1e5 p_B)", ours, loop, f"{loop / ours:.1f}x"])

    print(f"{'config':50s} {'ours_ms':>10s} {'loop_ms':>12s} ratio")
    for row in rows:
        print(f"{row[0]:50s} {row[1]:10.2f} {row[2]:12.1f} {row[3]}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "package": "genai-pricing-game",
                    "title": "time per call, ms",
                    "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                    "columns": ["config", "ours_ms", "python_loop_ms", "ratio"],
                    "rows": [[c, round(a, 3), round(b, 3), q] for c, a, b, q in rows],
                    "notes": "ratio = loop / ours; >1 means ours is faster. Loops are pure-Python "
                    "baselines (no peer library implements this game).",
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
