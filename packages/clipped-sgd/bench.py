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

import warnings

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

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

NOTES = (
    f"{RATIO_NOTE}. Ours is a per-sample Python loop (O(d) memory, one pass); the peers are "
    "vectorised batch numpy or compiled scikit-learn."
)


def run(a) -> Table:
    n, d, repeat = (2000, 10, 1) if a.quick else (20000, 10, 3)

    def _time(fn, repeat):  # best of `repeat` calls, after one untimed call (none in --quick)
        return timeit_ms(fn, repeat=repeat, warmup=0 if a.quick else 1).best_ms

    rng = np.random.default_rng(0)
    X = 3.0 + heavy_tailed_noise((n, d), rng=rng)
    w = rng.standard_normal(d)
    A = heavy_tailed_noise((n, d), kind="student_t", tail=4.5, rng=rng)
    y = A @ w + heavy_tailed_noise(n, rng=rng)

    table = Table(["config", "ours_ms", "peer", "peer_ms", "ratio"], notes=NOTES)
    ours = _time(lambda: StreamingMean().fit(X), repeat)
    for name, fn in (
        ("numpy sample mean", lambda: sample_mean(X)),
        ("median-of-means", lambda: median_of_means(X)),
        ("geometric MoM", lambda: geometric_median_of_means(X)),
    ):
        peer = _time(fn, repeat)
        table.add(
            f"mean n={n},d={d}", round(ours, 2), name, round(peer, 2), ratio(peer, ours, digits=3)
        )

    ours = _time(lambda: StreamingLinearRegression().fit(A, y), repeat)
    for name, fn in (
        (
            "sklearn SGDRegressor 1 epoch",
            lambda: SGDRegressor(max_iter=1, tol=None, shuffle=False).fit(A, y),
        ),
        ("sklearn HuberRegressor", lambda: HuberRegressor(max_iter=200).fit(A, y)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            peer = _time(fn, repeat)
        table.add(
            f"linreg n={n},d={d}", round(ours, 2), name, round(peer, 2), ratio(peer, ours, digits=3)
        )

    # Many independent chains in one ClippedSGD: per-sample cost amortised over chains.
    chains, T = (200, 200) if a.quick else (2000, 1000)
    G = heavy_tailed_noise((T, chains, d), rng=rng)

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
    table.add(
        f"{chains} chains x T={T}, per chain",
        round(ours, 3),
        "one chain at a time",
        round(peer, 3),
        ratio(peer, ours, digits=1),
    )
    return table


main = bench_cli(run, title="wall time per fit, ms (best of repeats)")
