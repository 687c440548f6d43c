"""Time the graph algorithms against networkx on hierarchies of about 2000 nodes.

    python bench.py [--quick] [--json PATH]

Ours take and return dense bool matrices; networkx gets its DiGraph built beforehand (the
conversion is not timed), so the ratios favour networkx.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

from dag_sidigraph import balanced_tree, minimal_sidigraph, ncrp, price_dag, transitive_closure, transitive_reduction


def _graphs(quick: bool):
    if quick:
        return [("binary tree d=6 (127)", balanced_tree(2, 6)), ("price n=150 m=3", price_dag(150, 3, rng=0))]
    return [
        ("binary tree d=10 (2047)", balanced_tree(2, 10)),
        ("nCRP n=2000 alpha=10", ncrp(2000, 10.0, rng=0)),
        ("price n=2000 m=5 c=0.1", price_dag(2000, 5, 0.1, rng=0)),
        ("random order n=2000 p=0.005", _random_order(2000, 0.005)),
    ]


def _random_order(n: int, p: float) -> np.ndarray:
    """The closure of a random DAG (random upper-triangular edges): a dense partial order."""
    rng = np.random.default_rng(0)
    return transitive_closure(np.triu(rng.random((n, n)) < p, 1))


def run(args) -> Table:
    repeat = 2 if args.quick else 3
    table = Table(["graph", "op", "|E^tc|", "ours_ms", "networkx_ms", "speedup"])
    for name, closed in _graphs(args.quick):
        reduced = transitive_reduction(closed)
        g_red = nx.from_numpy_array(reduced, create_using=nx.DiGraph)
        g_closed = nx.from_numpy_array(closed, create_using=nx.DiGraph)
        edges = int(closed.sum())
        ours = timeit_ms(lambda: transitive_closure(reduced), repeat=repeat).best_ms
        base = timeit_ms(lambda: nx.transitive_closure_dag(g_red), repeat=repeat).best_ms
        table.add(name, "closure of E^tr", edges, round(ours, 2), round(base, 2), ratio(base, ours))
        ours = timeit_ms(lambda: transitive_reduction(closed), repeat=repeat).best_ms
        base = timeit_ms(lambda: nx.transitive_reduction(g_closed), repeat=1 if not args.quick else repeat).best_ms
        table.add(name, "reduction of E^tc", edges, round(ours, 2), round(base, 2), ratio(base, ours))
        ours = timeit_ms(lambda: minimal_sidigraph(closed), repeat=repeat).best_ms
        table.add(name, "minimal_sidigraph", edges, round(ours, 2), "-", "-")
    table.notes = (
        RATIO_NOTE + " networkx: transitive_closure_dag / transitive_reduction on a prebuilt DiGraph (building it"
        " from the dense matrix, not timed, costs more than ours); minimal_sidigraph has no"
        " networkx counterpart."
    )
    return table


main = bench_cli(run, title="dag-sidigraph: closure and reduction vs networkx")

if __name__ == "__main__":
    raise SystemExit(main())
