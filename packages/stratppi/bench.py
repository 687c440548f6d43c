"""Time per call: stratppi vs ppi_py (ppi-python 0.2.3) on the same data, measured in one run.

Rows: mean CIs (StratPPI with K = 5 strata; our PPI++; ppi_py's PPI++) for growing pool sizes,
and logistic-regression CIs (StratPPI K = 1 vs ppi_py, ppi_py's numba compile excluded by a warm-up).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import stratppi as sp

try:
    import ppi_py
except ImportError:  # pragma: no cover
    ppi_py = None


def _time(fn, repeat, *args):
    fn(*args)  # warm-up (numba compile for ppi_py)
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", type=Path, default=Path(__file__).with_name("bench.json"))
    a = ap.parse_args(argv)
    sizes = (
        [(200, 2_000)] if a.quick else [(1_000, 10_000), (10_000, 100_000), (100_000, 1_000_000)]
    )
    repeat = 2 if a.quick else 5
    cols = ["config", "stratppi_ms", "ours_ppi++_ms", "ppi_py_ms", "ratio_vs_ppi_py"]
    rows = []
    rng = np.random.default_rng(0)
    for n, N in sizes:
        f = rng.random(n + N)
        y = (rng.random(n + N) < f).astype(float)
        s, _ = sp.make_strata(f, K=5)
        Y, F, FU, st, su = y[:n], f[:n], f[n:], s[:n], s[n:]
        t_s = _time(sp.stratppi_mean_ci, repeat, Y, F, FU, st, su)
        t_o = _time(sp.ppi_mean_ci, repeat, Y, F, FU)
        t_p = _time(ppi_py.ppi_mean_ci, repeat, Y, F, FU) if ppi_py else float("nan")
        rows.append(
            [f"mean n={n},N={N}", round(t_s, 3), round(t_o, 3), round(t_p, 3), f"{t_p / t_s:.2f}x"]
        )
    n, N = (200, 2000) if a.quick else (2_000, 50_000)
    X, XU = np.c_[np.ones(n), rng.normal(size=n)], np.c_[np.ones(N), rng.normal(size=N)]
    p, pu = 1 / (1 + np.exp(-X @ [0.3, 1])), 1 / (1 + np.exp(-XU @ [0.3, 1]))
    Yb = (rng.random(n) < p).astype(float)
    z, zu = np.zeros(n, int), np.zeros(N, int)
    t_s = _time(lambda: sp.stratppi_logistic_ci(X, Yb, p, XU, pu, z, zu), repeat)
    t_p = float("nan")
    if ppi_py is not None and not a.quick:  # its numba compile takes ~30 s: skipped by --quick
        t_p = _time(lambda: ppi_py.ppi_logistic_ci(X, Yb, p, XU, pu), repeat)
    rows.append(
        [
            f"logistic K=1 n={n},N={N}",
            round(t_s, 3),
            float("nan"),
            round(t_p, 3),
            f"{t_p / t_s:.2f}x",
        ]
    )
    print(f"{cols[0]:28s}" + "".join(f"{c:>16s}" for c in cols[1:]))
    for r in rows:
        print(f"{r[0]:28s}" + "".join(f"{v:>16}" for v in r[1:]))
    print("ratio = ppi_py time / stratppi time (>1: stratppi faster); best of", repeat)
    out = {
        "package": "stratppi",
        "title": "time per call, ms",
        "machine": f"{platform.machine()} {platform.processor() or ''} (shared 2-core CPU)".strip(),
        "columns": cols,
        "rows": rows,
        "notes": "ratio = ppi_py / stratppi (StratPPI column; K=5 strata for means). Paper reports no timings.",
    }
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
