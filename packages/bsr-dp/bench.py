"""Time to build the BSR strategy: closed form vs the alternatives, measured in the same run.

    python bench.py [--quick] [--json PATH]

Columns (milliseconds, best of a few runs): the closed form `bsr_coefs` (Theorem 1, O(p^2) or
FFT), the generic square-root recursion `sqrt_toeplitz_coefs` (O(n^2), what the original code
does), the dense principal square root `scipy.linalg.sqrtm` (O(n^3), small n only) and the
numerical baseline `optimize_banded_toeplitz` of the same bandwidth. Ratios = baseline / ours.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402
from bsr_dp import (  # noqa: E402
    bsr_coefs,
    optimize_banded_toeplitz,
    sqrt_toeplitz_coefs,
    toeplitz_matrix,
    workload_momentum,
)


def _ms(fn, *args, repeat=3, **kwargs):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _fmt(x):
    return "-" if x is None else f"{x:.0f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("bench.json"))
    args = parser.parse_args(argv)
    sizes = [200, 1000] if args.quick else [500, 2000, 10000, 100000]
    beta, alpha = 0.9, 0.9999
    rows = []
    for n in sizes:
        b = max(n // 10, 1)
        t_ours = _ms(bsr_coefs, n, b, beta, alpha, repeat=5)
        t_full = _ms(bsr_coefs, n, n, beta, alpha, repeat=5)
        a = workload_momentum(n, beta, alpha)
        t_rec = _ms(sqrt_toeplitz_coefs, a, repeat=1) if n <= 10000 else None
        t_sqrtm = _ms(scipy.linalg.sqrtm, toeplitz_matrix(a), repeat=1) if n <= 1000 else None
        t_opt = (
            _ms(optimize_banded_toeplitz, n, b, b, momentum=beta, weight_decay=alpha, repeat=1)
            if n <= 10000
            else None
        )
        rows.append(
            [
                f"n={n}, p=b={b}",
                round(t_ours, 4),
                round(t_full, 4),
                None if t_rec is None else round(t_rec, 2),
                None if t_sqrtm is None else round(t_sqrtm, 2),
                None if t_opt is None else round(t_opt, 2),
                _fmt(None if t_rec is None else t_rec / t_full),
                _fmt(None if t_sqrtm is None else t_sqrtm / t_full),
                _fmt(None if t_opt is None else t_opt / t_ours),
            ]
        )
    columns = [
        "config",
        "bsr_closed_form_ms",
        "full_root_closed_form_ms",
        "recursion_ms",
        "scipy_sqrtm_ms",
        "banded_opt_ms",
        "recursion/closed",
        "sqrtm/closed",
        "banded_opt/bsr",
    ]
    print(" | ".join(columns))
    for r in rows:
        print(" | ".join("-" if v is None else str(v) for v in r))
    result = {
        "package": "bsr-dp",
        "title": "time to build the strategy, ms (beta=0.9, alpha=0.9999)",
        "machine": f"{os.cpu_count()}-core {platform.machine()} CPU",
        "columns": columns,
        "rows": rows,
        "notes": "ratio = baseline / ours, >1 means BSR's closed form is faster; recursion and sqrtm "
        "compute the full root (compared with the full-root closed form), the optimiser a p=b band",
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
