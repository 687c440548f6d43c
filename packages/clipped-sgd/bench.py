"""Time the streaming estimators against batch baselines and scikit-learn peers (same run).

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD (Das et al., NeurIPS
2024) - https://arxiv.org/abs/2410.20135.  The paper has no timing claims; Clipped-SGD's selling
point is O(d) memory in one pass.  This script reports the price of that in wall time: our
per-sample Python loop versus numpy batch estimators and scikit-learn's compiled SGDRegressor /
HuberRegressor, plus the throughput of many independent chains vectorised in one ClippedSGD.

    python bench.py [--quick] [--json PATH]

ratio = peer_ms / ours_ms (> 1 means ours is faster).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
from clipped_sgd import (
    ClippedSGD,
    StreamingLinearRegression,
    StreamingMean,
    geometric_median_of_means,
    heavy_tailed_noise,
    median_of_means,
    sample_mean,
)
from sklearn.linear_model import HuberRegressor, SGDRegressor

PACKAGE = "clipped-sgd"


def _time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--quick", action="store_true", help="tiny sizes (seconds)")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    n, d, repeat = (2000, 10, 1) if a.quick else (20000, 10, 3)
    rng = np.random.default_rng(0)
    X = 3.0 + heavy_tailed_noise((n, d), random_state=rng)
    w = rng.standard_normal(d)
    A = heavy_tailed_noise((n, d), kind="student_t", tail=4.5, random_state=rng)
    y = A @ w + heavy_tailed_noise(n, random_state=rng)

    rows = []
    ours = _time(lambda: StreamingMean().fit(X), repeat)
    for name, fn in (
        ("numpy sample mean", lambda: sample_mean(X)),
        ("median-of-means", lambda: median_of_means(X)),
        ("geometric MoM", lambda: geometric_median_of_means(X)),
    ):
        peer = _time(fn, repeat)
        rows.append(
            [f"mean n={n},d={d}", round(ours, 2), name, round(peer, 2), f"{peer / ours:.3f}x"]
        )

    ours = _time(lambda: StreamingLinearRegression().fit(A, y), repeat)
    for name, fn in (
        (
            "sklearn SGDRegressor 1 epoch",
            lambda: SGDRegressor(max_iter=1, tol=None, shuffle=False).fit(A, y),
        ),
        ("sklearn HuberRegressor", lambda: HuberRegressor(max_iter=200).fit(A, y)),
    ):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            peer = _time(fn, repeat)
        rows.append(
            [f"linreg n={n},d={d}", round(ours, 2), name, round(peer, 2), f"{peer / ours:.3f}x"]
        )

    # Many independent chains in one ClippedSGD: per-sample cost amortised over chains.
    chains, T = (200, 200) if a.quick else (2000, 1000)
    G = heavy_tailed_noise((T, chains, d), random_state=rng)

    def run_chains():
        opt = ClippedSGD(d, clip=30.0, x0=np.zeros((chains, d)))
        for t in range(T):
            opt.step(opt.x_ - G[t])

    def run_single():
        for c in range(min(chains, 20)):
            opt = ClippedSGD(d, clip=30.0)
            for t in range(T):
                opt.step(opt.x_ - G[t, c])

    ours = _time(run_chains, repeat) / chains
    peer = _time(run_single, repeat) / min(chains, 20)
    rows.append(
        [
            f"{chains} chains x T={T}, per chain",
            round(ours, 3),
            "one chain at a time",
            round(peer, 3),
            f"{peer / ours:.1f}x",
        ]
    )

    cols = ["config", "ours_ms", "peer", "peer_ms", "ratio"]
    print(f"{cols[0]:30s} {cols[1]:>9s}  {cols[2]:30s} {cols[3]:>9s} {cols[4]:>8s}")
    for r in rows:
        print(f"{r[0]:30s} {r[1]:9.3f}  {r[2]:30s} {r[3]:9.3f} {r[4]:>8s}")
    print("ratio = peer_ms / ours_ms (> 1 means ours is faster)")
    if a.json is not None:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(
            json.dumps(
                {
                    "package": PACKAGE,
                    "title": "wall time per fit, ms (best of repeats)",
                    "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                    "columns": cols,
                    "rows": rows,
                    "notes": "ratio = peer / ours; >1 means faster. Ours is a per-sample Python loop (O(d) memory, "
                    "one pass); the peers are vectorised batch numpy or compiled scikit-learn.",
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
