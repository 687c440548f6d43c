"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind; ``papershelf_harness.suite`` writes the hypothesis tests.
``call(value)`` feeds ``value`` as the argument ``name`` with every other argument valid. Plain
tests below cover the rules the kinds do not (non-square, non-0/1 entries, out-of-range nodes).
"""

from __future__ import annotations

import numpy as np
import pytest
from dag_sidigraph import (
    PairSampler,
    auf1c,
    balanced_tree,
    best_f1,
    enumerate_posets,
    is_distinguishing,
    is_tc_dag,
    minimal_negatives,
    minimal_sidigraph,
    ncrp,
    num_posets,
    price_dag,
    stats,
    topological_levels,
    transitive_closure,
    transitive_reduction,
)
from hypothesis import strategies as st

from papershelf_harness.suite import (
    Array,
    Int,
    Mismatch,
    Option,
    OutOfRange,
    Rng,
    bad_input_suite,
    keyword,
)
from papershelf_harness.testing import assert_rejects

TREE = balanced_tree(2, 2)  # 7 nodes
POS, NEG = minimal_sidigraph(TREE)
ADJ_FUNCS = {
    "transitive_closure": transitive_closure,
    "transitive_reduction": transitive_reduction,
    "is_tc_dag": is_tc_dag,
    "minimal_sidigraph": minimal_sidigraph,
    "minimal_negatives": minimal_negatives,
    "stats": stats,
    "topological_levels": topological_levels,
    "is_distinguishing": lambda a: is_distinguishing(
        a, np.zeros((2, 0), int), np.zeros((2, 0), int)
    ),
    "PairSampler": lambda a: PairSampler(a),
    "best_f1.adj": lambda a: best_f1(np.zeros(np.shape(a)), a),
}


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


CASES = [
    *(Array(f"{k}.adj", "adj", f, shape=(4, 4), ndims=(2,)) for k, f in ADJ_FUNCS.items()),
    Array("best_f1.scores", "scores", lambda v: best_f1(v, TREE), shape=(7, 7), ndims=(2,)),
    *(
        Array(f"is_distinguishing.{name}", name, call, shape=(2, 3), ndims=(2,), empty_ok=True)
        for name, call in [
            ("pos", lambda v: is_distinguishing(TREE, v, NEG)),
            ("neg", lambda v: is_distinguishing(TREE, POS, v)),
        ]
    ),
    Array(
        "auf1c.examples",
        "examples",
        lambda v: auf1c(v, np.full(np.shape(v)[:1], 0.5)),
        shape=(3,),
        ndims=(1,),
    ),
    Array("auf1c.f1", "f1", lambda v: auf1c(np.arange(3), v), shape=(3,), ndims=(1,)),
    Int("balanced_tree.branching", "branching", lambda v: balanced_tree(v, 2), minimum=1),
    Int("balanced_tree.depth", "depth", lambda v: balanced_tree(2, v), minimum=0),
    Int("ncrp.n", "n", lambda v: ncrp(v, 10.0, rng=0), minimum=1),
    Int("price_dag.n", "n", lambda v: price_dag(v, rng=0), minimum=1),
    Int("price_dag.m", "m", lambda v: price_dag(5, v, rng=0), minimum=1),
    Int("enumerate_posets.n", "n", lambda v: enumerate_posets(v), minimum=0, maximum=6),
    Int("num_posets.n", "n", lambda v: num_posets(v), minimum=0, maximum=6),
    keyword(Int, PairSampler, "k", TREE, minimum=0),
    keyword(Int, PairSampler, "batch_size", TREE, minimum=1),
    OutOfRange("ncrp.alpha", "alpha", lambda v: ncrp(5, v, rng=0), _floats(hi=0.0)),
    OutOfRange("price_dag.c", "c", lambda v: price_dag(5, 1, v, rng=0), _floats(hi=0.0)),
    OutOfRange(
        "price_dag.gamma", "gamma", lambda v: price_dag(5, 1, 0.1, v, rng=0), _floats(hi=-1e-9)
    ),
    keyword(Option, PairSampler, "positives", TREE, valid=frozenset({"reduction", "closure"})),
    keyword(Option, PairSampler, "negatives", TREE, valid=frozenset({"minimal", "all"})),
    keyword(Rng, ncrp, "rng", 5),
    keyword(Rng, price_dag, "rng", 5),
    keyword(Rng, PairSampler, "rng", TREE),
    Mismatch("best_f1.scores", "scores", lambda: best_f1(np.zeros((6, 6)), TREE)),
    Mismatch("auf1c.f1", "f1", lambda: auf1c([0, 1, 2], [0.1, 0.2])),
]


@pytest.mark.parametrize("name", list(ADJ_FUNCS))
def test_adj_must_be_square_and_zero_one(name):
    fn = ADJ_FUNCS[name]
    assert_rejects(ValueError, "adj", fn, np.zeros((3, 4), dtype=bool))
    assert_rejects(ValueError, "adj", fn, np.full((3, 3), 0.5))
    assert_rejects(ValueError, "adj", fn, np.full((3, 3), 2))
    assert_rejects(TypeError, "adj", fn, np.full((3, 3), 1 + 1j))


@pytest.mark.parametrize("name", ["minimal_sidigraph", "minimal_negatives", "stats", "PairSampler"])
def test_adj_must_be_a_tc_dag(name):
    fn = ADJ_FUNCS[name]
    unclosed = transitive_reduction(TREE)
    assert_rejects(ValueError, "adj", fn, unclosed)
    assert_rejects(ValueError, "adj", fn, np.eye(3, dtype=bool))


def test_edge_lists_out_of_range_or_misshapen():
    assert_rejects(ValueError, "pos", is_distinguishing, TREE, np.array([[0], [7]]), NEG)
    assert_rejects(ValueError, "neg", is_distinguishing, TREE, POS, np.array([[-1], [2]]))
    assert_rejects(ValueError, "pos", is_distinguishing, TREE, np.zeros((3, 2), int), NEG)
    assert_rejects(TypeError, "pos", is_distinguishing, TREE, np.full((2, 2), 0.5), NEG)
    assert_rejects(TypeError, "neg", is_distinguishing, TREE, POS, np.ones((2, 2), dtype=bool))


def test_generator_sizes_are_bounded():
    assert_rejects(ValueError, "depth", balanced_tree, 10, 8)  # 111 million nodes, dense


globals().update(bad_input_suite(CASES))
