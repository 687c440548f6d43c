"""Cost of a tau grid: one batched pass of model calls serves every tau.

The issue's target: parallax diagrams on a 10-level tau grid cost at most 2x one tau. Baseline:
10 separate one-tau calls (the model is queried again each time). Models: the analytic annulus
indicator (nearly free; its confidences are 0 or 1, so every tau in (0, 1] admits the same edges and
shares one persistence computation) and a random 3-layer numpy MLP of width 64 (a stand-in
for a deep model, where the model calls dominate).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def _mlp(width=64, seed=0):
    g = np.random.default_rng(seed)
    W1, b1 = g.normal(size=(2, width)), g.normal(size=width)
    W2, b2 = g.normal(size=(width, width)) / np.sqrt(width), g.normal(size=width)
    w3 = g.normal(size=width) / np.sqrt(width)

    def f(z):
        h = np.tanh(z @ W1 + b1)
        h = np.tanh(h @ W2 + b2)
        return 1.0 / (1.0 + np.exp(-(h @ w3) * 4.0))

    return f


def run(args):
    import topo_parallax as tp
    from topo_parallax import toys

    n = 60 if args.quick else 150
    repeat = 1 if args.quick else 3
    X = toys.sample_annulus(n, rng=0)
    grid = list(np.linspace(0.05, 0.95, 10))
    table = Table(
        ["model", "n", "one_tau_ms", "grid10_ms", "grid10/one", "separate10_ms", "separate/grid"],
        notes="grid10/one: cost of the 10-level grid over one level (target <= 2); "
        "separate/grid: 10 one-tau calls / one 10-tau call (>1 = the grid is faster)",
    )
    for name, f in [("annulus indicator", toys.annulus_model()), ("numpy MLP 64x64", _mlp())]:
        one = timeit_ms(lambda f=f: tp.parallax_diagrams(X, f, [0.5]), repeat=repeat).best_ms
        many = timeit_ms(lambda f=f: tp.parallax_diagrams(X, f, grid), repeat=repeat).best_ms
        sep = timeit_ms(
            lambda f=f: [tp.parallax_diagrams(X, f, [t]) for t in grid], repeat=repeat
        ).best_ms
        table.add(
            name,
            n,
            round(one, 1),
            round(many, 1),
            f"{many / one:.2f}",
            round(sep, 1),
            ratio(sep, many),
        )
    return table


main = bench_cli(run, title="topo-parallax: a tau grid versus one tau")
