"""Time the graph algorithms against networkx on hierarchies of about 2000 nodes.

    python bench.py [--quick] [--json PATH]

Ours take and return dense bool matrices; networkx gets its DiGraph built beforehand (the
conversion is not timed), so the ratios favour networkx.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from dag_sidigraph import (
    balanced_tree,
    minimal_sidigraph,
    ncrp,
    price_dag,
    transitive_closure,
    transitive_reduction,
)

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def _graphs(quick: bool):
    if quick:
        return [
            ("binary tree d=6 (127)", balanced_tree(2, 6)),
            ("price n=150 m=3", price_dag(150, 3, rng=0)),
        ]
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


def _nx_dense(fn, a: np.ndarray) -> np.ndarray:
    """networkx from a dense matrix to a dense matrix (what a user holding ``adj`` would run)."""
    g = nx.from_numpy_array(a, create_using=nx.DiGraph)
    return nx.to_numpy_array(fn(g), nodelist=range(len(a)), dtype=bool)


def _rows(table: Table, name: str, closed: np.ndarray, repeat: int) -> None:
    reduced = transitive_reduction(closed)
    g_red = nx.from_numpy_array(reduced, create_using=nx.DiGraph)
    g_closed = nx.from_numpy_array(closed, create_using=nx.DiGraph)
    edges = int(closed.sum())
    ops = [
        ("closure of E^tr", transitive_closure, reduced, nx.transitive_closure_dag, g_red),
        ("reduction of E^tc", transitive_reduction, closed, nx.transitive_reduction, g_closed),
    ]
    for op, ours_fn, arg, nx_fn, graph in ops:
        ours = timeit_ms(lambda f=ours_fn, x=arg: f(x), repeat=repeat).best_ms
        base = timeit_ms(lambda f=nx_fn, g=graph: f(g), repeat=repeat).best_ms
        dense = timeit_ms(lambda f=nx_fn, x=arg: _nx_dense(f, x), repeat=repeat).best_ms
        table.add(
            name,
            op,
            edges,
            round(ours, 2),
            round(base, 2),
            ratio(base, ours),
            round(dense, 2),
            ratio(dense, ours),
        )
    ours = timeit_ms(lambda: minimal_sidigraph(closed), repeat=repeat).best_ms
    table.add(name, "minimal_sidigraph", edges, round(ours, 2), "-", "-", "-", "-")


def run(args) -> Table:
    repeat = 2 if args.quick else 5
    table = Table(
        [
            "graph",
            "op",
            "|E^tc|",
            "ours_ms",
            "nx_graph_ms",
            "speedup_graph",
            "nx_dense_ms",
            "speedup_dense",
        ]
    )
    for name, closed in _graphs(args.quick):
        _rows(table, name, closed, repeat)
    table.notes = (
        RATIO_NOTE + " Ours: dense bool matrix in, dense bool matrix out. nx_graph: networkx's"
        " transitive_closure_dag / transitive_reduction alone, on a prebuilt DiGraph;"
        " nx_dense: the same from the dense matrix to a dense matrix (from_numpy_array +"
        " algorithm + to_numpy_array), the like-for-like comparison. minimal_sidigraph has no"
        " networkx counterpart. Best of 5 runs on a shared machine."
    )
    return table


main = bench_cli(run, title="dag-sidigraph: closure and reduction vs networkx")
