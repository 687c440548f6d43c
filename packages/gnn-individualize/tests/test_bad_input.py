"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (``suite.Number``, ``OutOfRange``, ``Int``, ``Flag``,
``Array``, ``Mismatch``, ``Option``, ``Rng``; see ``papershelf_harness.suite``), and the suite
writes the hypothesis tests. ``call(value)`` feeds ``value`` as the argument ``name`` with every
other argument valid. Plain tests below cover rules the kinds do not (index ranges, graph lists).
"""

import numpy as np
import pytest
from gnn_individualize import (
    binary_code,
    color_refinement,
    count_distinct_inputs,
    covering_number,
    ego_batch,
    ego_nets,
    individualize,
    relational_pooling,
    rni,
    stable_partition,
    tinhofer,
    tinhofer_order,
    tinhofer_w,
    wl_equivalent,
)
from gnn_individualize.data import (
    csl_graph,
    disjoint_union,
    has_cycle,
    permuted_copy,
    random_regular,
    undirected_edges,
)
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

EI = np.array([[0, 1, 2], [1, 2, 0]])  # a triangle
GRAPHS = [(EI, 3), (EI, 3)]

# every function taking (edge_index, num_nodes, ...)
GRAPH_FUNCS = {
    "color_refinement": color_refinement,
    "stable_partition": stable_partition,
    "tinhofer_order": tinhofer_order,
    "tinhofer": tinhofer,
    "tinhofer_w": tinhofer_w,
    "undirected_edges": undirected_edges,
    "permuted_copy": permuted_copy,
    "has_cycle": lambda e, n: has_cycle(e, n, 3),
    "ego_nets": lambda e, n: ego_nets(e, n, 1),
    "ego_batch": ego_batch,
}

CASES = []
for fname, f in GRAPH_FUNCS.items():
    CASES += [
        suite.Array(
            f"{fname}.edge_index",
            "edge_index",
            lambda v, f=f: f(v, 3),
            (2, 3),
            ndims=(2,),
            empty_ok=True,
        ),
        suite.Int(f"{fname}.num_nodes", "num_nodes", lambda v, f=f: f(EI, v), minimum=3),
    ]
for fname, f in [
    ("color_refinement", color_refinement),
    ("tinhofer_order", tinhofer_order),
    ("tinhofer_w", tinhofer_w),
    ("ego_batch", ego_batch),
    ("stable_partition", stable_partition),
]:
    CASES.append(
        suite.Array(
            f"{fname}.labels",
            "labels",
            lambda v, f=f: f(EI, 3, labels=v),
            (3,),
            ndims=(1, 2),
            none_ok=True,
        )
    )
    CASES.append(
        suite.Mismatch(f"{fname}.labels_length", "labels", lambda f=f: f(EI, 3, labels=np.zeros(4)))
    )

CASES += [
    suite.keyword(suite.Int, color_refinement, "max_iter", EI, 3, minimum=0, none_ok=True),
    suite.Array("binary_code.ranks", "ranks", lambda v: binary_code(v, 4), (3,), ndims=(1,)),
    suite.Int("binary_code.bits", "bits", lambda v: binary_code([1, 2], v), minimum=1, maximum=63),
    suite.OutOfRange(
        "binary_code.negative_rank",
        "ranks",
        lambda v: binary_code([v], 4),
        st.integers(-(10**6), -1),
    ),
    suite.keyword(suite.Int, tinhofer, "bits", EI, 3, minimum=1, maximum=63),
    suite.keyword(suite.Int, tinhofer_w, "bits", EI, 3, minimum=1, maximum=63),
    suite.keyword(suite.Int, tinhofer_w, "k_weak", EI, 3, minimum=0),
    suite.Int(
        "relational_pooling.num_nodes", "num_nodes", lambda v: relational_pooling(v), minimum=1
    ),
    suite.keyword(suite.Int, relational_pooling, "bits", 3, minimum=1, maximum=63),
    suite.keyword(suite.Rng, relational_pooling, "rng", 3),
    suite.Int("rni.num_nodes", "num_nodes", lambda v: rni(v), minimum=1),
    suite.keyword(suite.Int, rni, "dim", 3, minimum=1),
    suite.keyword(suite.Rng, rni, "rng", 3),
    suite.Int("csl_graph.n", "n", lambda v: csl_graph(v, 2), minimum=5),
    suite.Int("csl_graph.skip", "skip", lambda v: csl_graph(11, v), minimum=2, maximum=9),
    suite.Int("random_regular.n", "n", lambda v: random_regular(v, 0), minimum=1),
    suite.Int("random_regular.d", "d", lambda v: random_regular(10, v), minimum=0, maximum=9),
    suite.keyword(suite.Rng, random_regular, "rng", 10, 3),
    suite.Mismatch("random_regular.odd", "n * d", lambda: random_regular(5, 3)),
    suite.keyword(suite.Rng, permuted_copy, "rng", EI, 3),
    suite.Int("has_cycle.k", "k", lambda v: has_cycle(EI, 3, v), minimum=3),
    suite.Int("ego_nets.radius", "radius", lambda v: ego_nets(EI, 3, v), minimum=0),
    suite.keyword(suite.Int, ego_batch, "radius", EI, 3, minimum=0),
    suite.keyword(
        suite.Option,
        ego_batch,
        "scheme",
        EI,
        3,
        valid=frozenset({"tinhofer", "tinhofer_w", "relational_pooling", "rni", "none"}),
    ),
    suite.keyword(suite.Int, ego_batch, "bits", EI, 3, minimum=1, maximum=63),
    suite.keyword(suite.Int, ego_batch, "k_weak", EI, 3, minimum=0),
    suite.keyword(suite.Array, ego_batch, "batch", EI, 3, shape=(3,), ndims=(1,), none_ok=True),
    suite.Mismatch("ego_batch.batch_length", "batch", lambda: ego_batch(EI, 3, batch=[0, 0])),
    suite.keyword(suite.Rng, ego_batch, "rng", EI, 3),
    suite.Int(
        "wl_equivalent.num_nodes_a", "num_nodes_a", lambda v: wl_equivalent(EI, v, EI, 3), minimum=3
    ),
    suite.Int(
        "wl_equivalent.num_nodes_b", "num_nodes_b", lambda v: wl_equivalent(EI, 3, EI, v), minimum=3
    ),
    suite.Mismatch(
        "wl_equivalent.labels_one_side",
        "labels_a",
        lambda: wl_equivalent(EI, 3, EI, 3, labels_a=[0, 0, 1]),
    ),
    suite.Mismatch(
        "wl_equivalent.labels_length",
        "labels_b",
        lambda: wl_equivalent(EI, 3, EI, 3, labels_a=[0, 0, 1], labels_b=[0, 1]),
    ),
    suite.keyword(suite.Int, individualize, "k_weak", GRAPHS, "tinhofer_w", minimum=0),
    suite.Mismatch("individualize.empty", "graphs", lambda: individualize([], "rni")),
    suite.Array(
        "covering_number.embeddings",
        "embeddings",
        lambda v: covering_number(v, 0.5),
        (3, 2),
        ndims=(2,),
    ),
    suite.Number("covering_number.eps", "eps", lambda v: covering_number(np.zeros((3, 2)), v)),
    suite.OutOfRange(
        "covering_number.negative_eps",
        "eps",
        lambda v: covering_number(np.zeros((3, 2)), v),
        st.floats(-1e6, -1e-6),
    ),
    suite.keyword(
        suite.Option,
        covering_number,
        "norm",
        np.zeros((3, 2)),
        0.5,
        valid=frozenset({"l2", "l1", "linf"}),
    ),
]

WL_PAIR = {  # wl_equivalent with the bad value on side a or side b
    "a": lambda v: wl_equivalent(v, 3, EI, 3),
    "b": lambda v: wl_equivalent(EI, 3, v, 3),
}
for side, f in WL_PAIR.items():
    CASES.append(
        suite.Array(
            f"wl_equivalent.edge_index_{side}",
            f"edge_index_{side}",
            f,
            (2, 3),
            ndims=(2,),
            empty_ok=True,
        )
    )

SCHEMES = frozenset({"tinhofer", "tinhofer_w", "relational_pooling", "rni", "none"})
for fname, f in [
    ("individualize", individualize),
    ("count_distinct_inputs", count_distinct_inputs),
]:
    CASES += [
        suite.Option(f"{fname}.scheme", "scheme", lambda v, f=f: f(GRAPHS, v), valid=SCHEMES),
        suite.Int(
            f"{fname}.bits",
            "bits",
            lambda v, f=f: f(GRAPHS, "tinhofer", bits=v),
            minimum=1,
            maximum=63,
        ),
        suite.Rng(f"{fname}.rng", "rng", lambda v, f=f: f(GRAPHS, "rni", rng=v)),
    ]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("fname", sorted(GRAPH_FUNCS))
@pytest.mark.parametrize(
    "bad",
    [
        np.array([[0, 1], [1, 3]]),
        np.array([[0, -1], [1, 2]]),
        np.array([[0, 1, 2]]),
        np.array([[0.5, 1], [1, 2]]),
    ],
    ids=["index_too_large", "negative_index", "wrong_first_axis", "non_integral"],
)
def test_edge_index_values(fname, bad):
    exc = TypeError if bad.dtype.kind == "f" else ValueError
    assert_rejects(exc, "edge_index", GRAPH_FUNCS[fname], bad, 3)


@pytest.mark.parametrize(
    "graphs, exc",
    [
        ("abc", TypeError),
        ([(EI,)], TypeError),
        ([(EI, 3), 5], TypeError),
        ([(np.array([[0], [7]]), 3)], ValueError),
    ],
    ids=["string", "not_a_pair", "not_a_tuple", "bad_index"],
)
def test_graph_lists(graphs, exc):
    for f in (
        lambda g: individualize(g, "tinhofer"),
        lambda g: count_distinct_inputs(g, "tinhofer"),
        disjoint_union,
    ):
        assert_rejects(exc, "graphs", f, graphs)


def test_scheme_callable_output_is_checked():
    assert_rejects(ValueError, "scheme output", individualize, GRAPHS, lambda e, n: np.zeros(n))
