"""Benchmark: 1-WL colour refinement vs networkx's Weisfeiler-Lehman hash, and Tinhofer's cost.

    python bench.py [--quick] [--json PATH]

Same graphs, same number of refinement rounds (h = 3, networkx's default), one initial label per
node. Ours computes the colour ids of every node; networkx's `weisfeiler_lehman_graph_hash`
computes one graph hash (and `weisfeiler_lehman_subgraph_hashes` the per-node hashes, the like
for like output). Also: stable refinement (until no class splits) and Tinhofer's full order.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def _row(table, label, g, n, repeat):
    import gnn_individualize as gi
    import networkx as nx

    ei = np.array(list(g.edges()), dtype=np.int64).T
    ours = timeit_ms(lambda: gi.color_refinement(ei, n, max_iter=3), repeat=repeat)
    nxh = timeit_ms(
        lambda: nx.weisfeiler_lehman_graph_hash(g, node_attr="label", iterations=3), repeat=repeat
    )
    nxs = timeit_ms(
        lambda: nx.weisfeiler_lehman_subgraph_hashes(g, node_attr="label", iterations=3),
        repeat=repeat,
    )
    stable = timeit_ms(lambda: gi.color_refinement(ei, n), repeat=repeat)
    tin = "-"
    if n <= 5_000:
        tin = round(timeit_ms(lambda: gi.tinhofer_order(ei, n), repeat=1, warmup=0).best_ms, 1)
    table.add(
        label,
        round(ours.best_ms, 2),
        round(nxh.best_ms, 2),
        round(nxs.best_ms, 2),
        ratio(nxh.best_ms, ours.best_ms),
        ratio(nxs.best_ms, ours.best_ms),
        round(stable.best_ms, 2),
        tin,
    )


def run(args):
    import networkx as nx

    sizes = [500, 2_000] if args.quick else [1_000, 10_000, 50_000]
    repeat = 3 if args.quick else 5
    table = Table(
        [
            "graph",
            "ours_h3_ms",
            "nx_graph_hash_ms",
            "nx_subgraph_hashes_ms",
            "vs_graph_hash",
            "vs_subgraph_hashes",
            "ours_stable_ms",
            "tinhofer_ms",
        ]
    )
    for n in sizes:
        for kind in ("G(n, 3/n)", "3-regular", "BA(m=2)"):
            if kind.startswith("G"):
                g = nx.gnm_random_graph(n, 3 * n // 2, seed=n)
            elif kind == "3-regular":
                g = nx.random_regular_graph(3, n, seed=n)
            else:
                g = nx.barabasi_albert_graph(n, 2, seed=n)
            nx.set_node_attributes(g, "a", "label")
            _row(table, f"{kind} n={n}", g, n, repeat)
    table.notes = (
        "vs_* = networkx time / ours (>1: ours faster), h = 3 rounds each, best of "
        f"{repeat} wall-clock runs. tinhofer_ms: the full Tinhofer order (refinement + "
        "individualization until discrete), one run, n <= 5000 only."
    )
    return table


main = bench_cli(run, title="gnn-individualize: 1-WL refinement vs networkx WL hashing")
