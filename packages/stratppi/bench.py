"""Time per call: stratppi vs ppi_py (ppi-python 0.2.3) on the same data, measured in one run.

Rows: mean CIs (StratPPI with K = 5 strata, integer and string stratum labels; our PPI++;
ppi_py's PPI++) for growing pool sizes, then OLS and logistic-regression CIs (StratPPI K = 1 and
our PPI++ baseline vs ppi_py; ppi_py's numba compile excluded by a warm-up, and skipped by
--quick because it takes ~30 s).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import numpy as np
import stratppi as sp

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

try:
    import ppi_py
except ImportError:  # pragma: no cover
    ppi_py = None

NAMES = np.array(["bin_low", "bin_lower_mid", "bin_mid", "bin_upper_mid", "bin_high"])


def _ms(repeat, fn, *args):
    """Best wall time of fn(*args) in ms (one warm-up call: ppi_py's numba compile)."""
    return timeit_ms(lambda: fn(*args), repeat=repeat, warmup=1).best_ms


def run(args) -> Table:
    sizes = (
        [(200, 2_000)] if args.quick else [(1_000, 10_000), (10_000, 100_000), (100_000, 1_000_000)]
    )
    repeat = 2 if args.quick else 5
    table = Table(["config", "stratppi_ms", "ours_ppi++_ms", "ppi_py_ms", "ratio_vs_ppi_py"])
    rng = np.random.default_rng(0)
    for n, N in sizes:
        f = rng.random(n + N)
        y = (rng.random(n + N) < f).astype(float)
        s, _ = sp.make_strata(f, K=5)
        Y, F, FU, st, su = y[:n], f[:n], f[n:], s[:n], s[n:]
        t_p = _ms(repeat, ppi_py.ppi_mean_ci, Y, F, FU) if ppi_py else float("nan")
        t_o = _ms(repeat, sp.ppi_mean_ci, Y, F, FU)
        for labels, (a, b) in (("int", (st, su)), ("str", (NAMES[st], NAMES[su]))):
            t_s = _ms(repeat, sp.stratppi_mean_ci, Y, F, FU, a, b)
            table.add(
                f"mean n={n},N={N},{labels} strata",
                round(t_s, 3),
                round(t_o, 3),
                round(t_p, 3),
                ratio(t_p, t_s),
            )
    n, N = (200, 2000) if args.quick else (2_000, 50_000)
    X, XU = np.c_[np.ones(n), rng.normal(size=n)], np.c_[np.ones(N), rng.normal(size=N)]
    z, zu = np.zeros(n, int), np.zeros(N, int)
    Yo = X @ [0.3, 1.0] + rng.normal(size=n)
    Fo, FUo = X @ [0.3, 1.2] + 0.5 * rng.normal(size=n), XU @ [0.3, 1.2] + 0.5 * rng.normal(size=N)
    p, pu = 1 / (1 + np.exp(-X @ [0.3, 1])), 1 / (1 + np.exp(-XU @ [0.3, 1]))
    Yb = (rng.random(n) < p).astype(float)
    for kind, data, strat, ours, peer in (
        ("ols", (X, Yo, Fo, XU, FUo), sp.stratppi_ols_ci, sp.ppi_ols_ci, "ppi_ols_ci"),
        (
            "logistic",
            (X, Yb, p, XU, pu),
            sp.stratppi_logistic_ci,
            sp.ppi_logistic_ci,
            "ppi_logistic_ci",
        ),
    ):
        t_s = _ms(repeat, strat, *data, z, zu)
        t_o = _ms(repeat, ours, *data)
        t_p = float("nan")
        if ppi_py is not None and not args.quick:  # numba compile (~30 s) skipped by --quick
            t_p = _ms(repeat, getattr(ppi_py, peer), *data)
        table.add(
            f"{kind} K=1 n={n},N={N}", round(t_s, 3), round(t_o, 3), round(t_p, 3), ratio(t_p, t_s)
        )
    table.notes = (
        f"ratio = ppi_py time / stratppi time (>1: stratppi faster); best of {repeat}. "
        "StratPPI column: K=5 strata for means, K=1 for regressions. Paper reports no timings."
    )
    return table


main = bench_cli(run, title="time per call, ms")
