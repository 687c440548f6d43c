"""Time and tour quality of LEHD greedy and RRC against nearest neighbour + 2-opt and LKH-3.

One uniform instance per size, CPU, one thread. The LEHD model is trained here on TSP20
(2-opt labels, width 64, 3 decoder layers, about a minute) and evaluated on n = 100-1000 (size
generalisation). Gaps are against LKH-3 (elkai, one run); the ratio columns are baseline / ours
(> 1: ours faster) with 2-opt as the baseline.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import time

import numpy as np
import torch

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def _lkh(coords):
    try:
        import elkai
    except ImportError:  # the peer is in the bench group; without it the reference is 2-opt
        from lehd_routing import tsp

        return tsp.two_opt(coords, tsp.nearest_neighbour(coords)).tolist()

    dist = np.sqrt(((coords[:, None] - coords[None]) ** 2).sum(-1))
    return elkai.DistanceMatrix(np.rint(dist * 1e6).astype(int).tolist()).solve_tsp(runs=1)[:-1]


def _train(quick):
    from lehd_routing import LEHD, fit, tsp

    torch.manual_seed(0)
    n_train, epochs, width, layers = (64, 1, 16, 1) if quick else (1000, 3, 64, 3)
    coords = tsp.random_instances(n_train, 20, rng=0)
    labels = tsp.two_opt(coords, tsp.nearest_neighbour(coords))
    model = LEHD(embed_dim=width, heads=4, ff_dim=2 * width, decoder_layers=layers)
    t0 = time.perf_counter()
    fit(
        model,
        coords,
        labels,
        epochs=epochs,
        batch_size=200,
        lr=1e-3,
        generator=torch.Generator().manual_seed(0),
    )
    return model, time.perf_counter() - t0


def _row(model, n, iters):
    from lehd_routing import greedy, rrc, tsp

    c = tsp.random_instances(1, n, rng=n)
    t_lkh = timeit_ms(lambda: _lkh(c[0]), repeat=1, warmup=0).best_ms
    ref = tsp.tour_length(c[0], np.array(_lkh(c[0])))
    box = {}

    def two_opt():
        box["two"] = tsp.two_opt(c, tsp.nearest_neighbour(c))

    def run_greedy():
        box["greedy"] = greedy(model, c)

    def run_rrc():
        box["rrc"] = rrc(model, c, box["greedy"], iterations=iters, rng=0)[0]

    t_two = timeit_ms(two_opt, repeat=1, warmup=0).best_ms
    t_g = timeit_ms(run_greedy, repeat=1, warmup=0).best_ms
    t_r = timeit_ms(run_rrc, repeat=1, warmup=0).best_ms

    def gap(t):
        return 100 * (float(tsp.tour_length(c, t)[0]) / ref - 1)

    return (
        n,
        t_two,
        gap(box["two"]),
        t_g,
        gap(box["greedy"]),
        t_g + t_r,
        gap(box["rrc"]),
        t_lkh,
        ratio(t_two, t_g),
        ratio(t_two, t_g + t_r),
    )


def run(args):
    torch.set_num_threads(1)
    sizes = (50, 100) if args.quick else (100, 200, 500, 1000)
    iters = 3 if args.quick else 10
    model, train_s = _train(args.quick)
    table = Table(
        [
            "n",
            "NN+2-opt ms",
            "2-opt gap %",
            "greedy ms",
            "greedy gap %",
            f"RRC-{iters} ms",
            f"RRC-{iters} gap %",
            "LKH ms",
            "2-opt / greedy",
            "2-opt / RRC",
        ]
    )
    for n in sizes:
        table.add(*_row(model, n, iters))
    table.notes = (
        f"LEHD trained on TSP20 in {train_s:.0f} s on this machine (a CPU-minute model, far from "
        "the paper's 1M-instance TSP100 model); RRC time includes its greedy start. Ratios: "
        "baseline / ours, > 1 means ours is faster."
    )
    return table


main = bench_cli(run, title="lehd-routing: LEHD greedy / RRC vs 2-opt and LKH-3")
