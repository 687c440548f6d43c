"""Reproduce the headline claims of the BSR paper at small scale.

Kalinin & Lampert, "Banded Square Root Matrix Factorization for Differentially Private Model
Training", NeurIPS 2024 - https://arxiv.org/abs/2405.13763

Claims: BSR's expected error (MaxSE / MeanSE, noise multiplier 1) is far below plain DP-SGD
noise, on par with the numerically optimised banded Toeplitz factorization of the same bandwidth
and with the dense approximately optimal factorization (AOF), while its computation (closed form)
is negligible next to those optimisations. The paper reports these as plots, not tables: the
"paper" column states the claim, our numbers stand beside it.

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # small dense problems: threads only contend


import numpy as np  # noqa: E402
from bsr_dp import (  # noqa: E402
    aof,
    bsr_coefs,
    dpsgd_coefs,
    matrix_se,
    max_se,
    mean_se,
    optimize_banded_toeplitz,
    toeplitz_matrix,
    workload_momentum,
)

from papershelf_harness import Claim, reproduce_cli, timeit_ms  # noqa: E402


def _timed(fn, *args, repeat=1, **kwargs):
    """(fn(*args, **kwargs), best wall time in seconds over `repeat` calls)."""
    out = []
    t = timeit_ms(lambda: out.append(fn(*args, **kwargs)), repeat=repeat, warmup=0)
    return out[-1], t.best_ms / 1e3


def banded_table(full: bool, tiny: bool = False) -> list[dict]:
    """BSR vs DP-SGD and vs the optimised banded Toeplitz strategy, p = b = n / 10 (10 epochs)."""
    sizes = [200] if tiny else [500, 2000, 10000] + ([50000] if full else [])
    rows = []
    for beta, alpha in [(0.9, 1.0), (0.0, 1.0), (0.9, 0.9999)]:
        for n in sizes:
            b = n // 10
            for p in sorted({min(b, 100), b}):
                a = workload_momentum(n, momentum=beta, weight_decay=alpha)
                bsr, t_bsr = _timed(bsr_coefs, n, p, momentum=beta, weight_decay=alpha, repeat=5)
                opt, t_opt = _timed(
                    optimize_banded_toeplitz, n, p, b, momentum=beta, weight_decay=alpha
                )
                rows.append(
                    {
                        "beta": beta,
                        "alpha": alpha,
                        "n": n,
                        "b": b,
                        "p": p,
                        "dpsgd_mean": mean_se(dpsgd_coefs(), a, b),
                        "dpsgd_max": max_se(dpsgd_coefs(), a, b),
                        "bsr_mean": mean_se(bsr, a, b),
                        "bsr_max": max_se(bsr, a, b),
                        "opt_mean": mean_se(opt, a, b),
                        "opt_max": max_se(opt, a, b),
                        "t_bsr": t_bsr,
                        "t_opt": t_opt,
                    }
                )
    return rows


def aof_table(full: bool, tiny: bool = False) -> list[dict]:
    """BSR (p = b) vs the dense AOF (fixed epoch order, k = 4 epochs)."""
    configs = (
        [(32, 8, 0.9), (32, 8, 0.0)] if tiny else [(64, 16, 0.9), (128, 32, 0.9), (128, 32, 0.0)]
    )
    configs += [(256, 64, 0.9)] if full else []
    rows = []
    for n, b, beta in configs:
        a = workload_momentum(n, momentum=beta)
        C, t_aof = _timed(aof, n, b, momentum=beta, maxiter=20000 if full else 5000)
        aof_max, aof_mean = matrix_se(C, toeplitz_matrix(a), np.sqrt(n // b))
        bsr, t_bsr = _timed(bsr_coefs, n, b, momentum=beta, repeat=5)
        rows.append(
            {
                "n": n,
                "b": b,
                "beta": beta,
                "aof_mean": aof_mean,
                "aof_max": aof_max,
                "bsr_mean": mean_se(bsr, a, b),
                "bsr_max": max_se(bsr, a, b),
                "t_aof": t_aof,
                "t_bsr": t_bsr,
            }
        )
    return rows


def claims(args) -> list[Claim]:
    """One Claim per headline comparison. ``--quick`` is a seconds-long smoke configuration
    (n = 200 and n = 32), not a reproduction."""
    full, tiny = args.full, args.quick
    banded = banded_table(full, tiny)
    dense = aof_table(full, tiny)
    for r in banded:
        print(
            f"beta={r['beta']:<4} alpha={r['alpha']:<6} n={r['n']:<6} b={r['b']:<5} p={r['p']:<5} "
            f"MeanSE dpsgd={r['dpsgd_mean']:9.2f} bsr={r['bsr_mean']:8.2f} opt={r['opt_mean']:8.2f} | "
            f"MaxSE dpsgd={r['dpsgd_max']:9.2f} bsr={r['bsr_max']:8.2f} opt={r['opt_max']:8.2f} | "
            f"time bsr={r['t_bsr'] * 1e3:7.3f} ms opt={r['t_opt'] * 1e3:9.1f} ms"
        )
    for r in dense:
        print(
            f"AOF n={r['n']} b={r['b']} beta={r['beta']}: MeanSE aof={r['aof_mean']:.3f} bsr={r['bsr_mean']:.3f} "
            f"MaxSE aof={r['aof_max']:.3f} bsr={r['bsr_max']:.3f} time aof={r['t_aof']:.2f} s bsr={r['t_bsr'] * 1e3:.3f} ms"
        )
    pb = [r for r in banded if r["p"] == r["b"]]
    mom = [r for r in pb if r["beta"] > 0]
    gains = [r["dpsgd_mean"] / r["bsr_mean"] for r in mom]
    gains_ps = [r["dpsgd_mean"] / r["bsr_mean"] for r in pb if r["beta"] == 0]
    ratio_opt = [r["bsr_mean"] / r["opt_mean"] for r in pb]
    ratio_opt_max = [r["bsr_max"] / r["opt_max"] for r in pb]
    narrow = [r for r in banded if r["p"] < r["b"]]
    ratio_narrow = [r["bsr_mean"] / r["opt_mean"] for r in narrow] or [float("nan")]
    ratio_aof = [r["bsr_mean"] / r["aof_mean"] for r in dense]
    ratio_aof_max = [r["bsr_max"] / r["aof_max"] for r in dense]
    speed_opt = min(r["t_opt"] / r["t_bsr"] for r in banded)
    speed_aof = min(r["t_aof"] / r["t_bsr"] for r in dense)
    n_big = 1000 if tiny else 100_000
    _, t_big = _timed(bsr_coefs, n_big, n_big, momentum=0.9, weight_decay=0.9999, repeat=3)
    sizes = sorted({r["n"] for r in banded})
    rows = [
        {
            "claim": "BSR (p=b) MeanSE vs DP-SGD, SGD with momentum 0.9",
            "paper": "far lower",
            "measured": f"{min(gains):.1f}x-{max(gains):.1f}x lower",
            "holds": min(gains) >= 5.0,
            "note": f"n in {sizes}, b=n/10 (10 epochs), alpha in (1, 0.9999); gain grows with n; "
            f"prefix sums (beta=0): {min(gains_ps):.1f}x-{max(gains_ps):.1f}x; asserted >= 5x",
        },
        {
            "claim": "BSR (p=b) / optimised banded Toeplitz (p=b), MeanSE",
            "paper": "on par (~1x)",
            "measured": f"{min(ratio_opt):.3f}-{max(ratio_opt):.3f}x",
            "holds": max(ratio_opt) <= 1.10,
            "note": "optimiser minimises MeanSE (L-BFGS from BSR); MaxSE ratio of the same strategies "
            f"{min(ratio_opt_max):.3f}-{max(ratio_opt_max):.3f}x; tolerance 1.10",
        },
        {
            "claim": "BSR (p=100 < b) / optimised banded (p=100), MeanSE",
            "paper": "not claimed",
            "measured": f"{min(ratio_narrow):.3f}-{max(ratio_narrow):.3f}x",
            "holds": None,
            "note": "narrow bands p << b: truncating the square root loses up to "
            f"{100 * (max(ratio_narrow) - 1):.0f}% to the optimised band (largest at n=10^4, beta=0)",
        },
        {
            "claim": "BSR / AOF (dense optimum), MeanSE",
            "paper": "on par (~1x)",
            "measured": f"{min(ratio_aof):.3f}-{max(ratio_aof):.3f}x",
            "holds": max(ratio_aof) <= 1.10,
            "note": f"{[(r['n'], r['b'], r['beta']) for r in dense]} (n, b, beta), k=4 epochs, fixed order; "
            "AOF = the optimum over X = C^T C with each example's steps orthogonal and its diagonal "
            "summing to k (certified by a duality gap <= 1e-8); "
            f"MaxSE ratio {min(ratio_aof_max):.3f}-{max(ratio_aof_max):.3f}x; tolerance 1.10",
        },
        {
            "claim": "BSR computation vs banded optimisation (speed-up)",
            "paper": "negligible",
            "measured": f">= {speed_opt:.0f}x faster",
            "holds": speed_opt >= 100,
            "note": f"min over the banded table; largest optimisation {max(r['t_opt'] for r in banded):.2f} s",
        },
        {
            "claim": "BSR computation vs AOF (speed-up)",
            "paper": "negligible",
            "measured": f">= {speed_aof:.0f}x faster",
            "holds": speed_aof >= 1000,
            "note": f"AOF took {max(r['t_aof'] for r in dense):.1f} s at n={max(r['n'] for r in dense)}, O(n^3) per iteration",
        },
        {
            "claim": "closed-form BSR coefficients for n = 1e5",
            "paper": "analytic, negligible",
            "measured": f"{t_big * 1e3:.1f} ms",
            "holds": t_big < 1.0,
            "note": "full square root p = n, beta=0.9, alpha=0.9999 (FFT convolution)",
        },
    ]
    return [Claim(**r) for r in rows]


main = reproduce_cli(claims, full_help="adds n = 50 000 and an n = 256 AOF (about 4 minutes)")
