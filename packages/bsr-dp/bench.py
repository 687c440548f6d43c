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


import scipy.linalg  # noqa: E402
from bsr_dp import (  # noqa: E402
    bsr_coefs,
    optimize_banded_toeplitz,
    sqrt_toeplitz_coefs,
    toeplitz_matrix,
    workload_momentum,
)

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms  # noqa: E402


def _ms(fn, repeat):
    return timeit_ms(fn, repeat=repeat, warmup=0).best_ms


def _round(x, digits):
    return None if x is None else round(x, digits)


def run(args) -> Table:
    sizes = [200, 1000] if args.quick else [500, 2000, 10000, 100000]
    beta, alpha = 0.9, 0.9999
    table = Table(
        [
            "config",
            "bsr_closed_form_ms",
            "full_root_closed_form_ms",
            "recursion_ms",
            "scipy_sqrtm_ms",
            "banded_opt_ms",
            "recursion/closed",
            "sqrtm/closed",
            "banded_opt/bsr",
        ],
        notes=f"{RATIO_NOTE}; recursion and sqrtm compute the full root (compared with the "
        "full-root closed form), the optimiser a p=b band",
    )
    for n in sizes:
        b = max(n // 10, 1)
        t_ours = _ms(lambda n=n, b=b: bsr_coefs(n, b, momentum=beta, weight_decay=alpha), 5)
        t_full = _ms(lambda n=n: bsr_coefs(n, n, momentum=beta, weight_decay=alpha), 5)
        a = workload_momentum(n, momentum=beta, weight_decay=alpha)
        t_rec = _ms(lambda a=a: sqrt_toeplitz_coefs(a), 1) if n <= 10000 else None
        A = toeplitz_matrix(a) if n <= 1000 else None
        t_sqrtm = _ms(lambda A=A: scipy.linalg.sqrtm(A), 1) if A is not None else None
        t_opt = (
            _ms(
                lambda n=n, b=b: optimize_banded_toeplitz(
                    n, b, b, momentum=beta, weight_decay=alpha
                ),
                1,
            )
            if n <= 10000
            else None
        )
        table.add(
            f"n={n}, p=b={b}",
            round(t_ours, 4),
            round(t_full, 4),
            _round(t_rec, 2),
            _round(t_sqrtm, 2),
            _round(t_opt, 2),
            "-" if t_rec is None else ratio(t_rec, t_full, digits=0),
            "-" if t_sqrtm is None else ratio(t_sqrtm, t_full, digits=0),
            "-" if t_opt is None else ratio(t_opt, t_ours, digits=0),
        )
    return table


main = bench_cli(run, title="time to build the strategy, ms (beta=0.9, alpha=0.9999)")
