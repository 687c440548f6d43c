"""Individualization schemes: codes, Tinhofer's procedure, equivariance where it holds."""

import numpy as np
import pytest
from _reference import naive_tinhofer, neighbours, permute, random_graph, random_tree
from gnn_individualize import (
    binary_code,
    color_refinement,
    count_distinct_inputs,
    individualize,
    relational_pooling,
    rni,
    tinhofer,
    tinhofer_order,
    tinhofer_w,
)
from gnn_individualize.data import permuted_copy, random_regular
from hypothesis import given, settings
from hypothesis import strategies as st

FEW = settings(max_examples=25, deadline=None)


@FEW
@given(ranks=st.lists(st.integers(0, 10**9), min_size=1, max_size=20), bits=st.integers(1, 40))
def test_binary_code_is_rank_mod_2_to_the_bits_msb_first(ranks, bits):
    code = binary_code(np.array(ranks), bits)
    assert code.shape == (len(ranks), bits) and code.dtype == np.float64
    for r, row in zip(ranks, code):
        want = format(r % 2**bits, f"0{bits}b")
        assert "".join(str(int(b)) for b in row) == want


def test_binary_code_examples():
    assert binary_code([5], 3).tolist() == [[1.0, 0.0, 1.0]]
    assert binary_code([8], 3).tolist() == [[0.0, 0.0, 0.0]]  # 8 mod 8
    assert binary_code([1], 1).tolist() == [[1.0]]


@FEW
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30), p=st.floats(0.0, 0.4))
def test_tinhofer_order_is_a_permutation_and_follows_the_procedure(seed, n, p):
    rng = np.random.default_rng(seed)
    ei = random_graph(rng, n, p)
    order = tinhofer_order(ei, n)
    assert sorted(order.tolist()) == list(range(n))
    assert order.tolist() == naive_tinhofer(ei, n)


def _is_isomorphism_by_rank(ei, n, a, perm, b):
    """Map node v of G to the node of the copy with the same rank; is it an isomorphism?"""
    by_rank = np.empty(n, dtype=np.int64)
    by_rank[b] = np.arange(n)
    sigma = by_rank[a]
    e1 = {frozenset((int(sigma[u]), int(sigma[v]))) for u, v in ei.T}
    e2 = {frozenset((int(perm[u]), int(perm[v]))) for u, v in ei.T}
    return e1 == e2


@pytest.mark.parametrize("kind", ["tree", "cycle", "asymmetric"])
def test_tinhofer_is_equivariant_on_amenable_graphs(kind):
    rng = np.random.default_rng(7)
    for trial in range(15):
        n = int(rng.integers(5, 30))
        if kind == "tree":
            ei = random_tree(rng, n)
        elif kind == "cycle":
            ei = np.stack([np.arange(n), (np.arange(n) + 1) % n])
        else:
            n += 10
            for _ in range(1000):  # a graph whose stable colouring is discrete
                ei = random_graph(rng, n, 0.3)
                if len(set(color_refinement(ei, n).tolist())) == n:
                    break
            else:
                raise AssertionError("no asymmetric graph drawn")
        perm = rng.permutation(n)
        a, b = tinhofer_order(ei, n), tinhofer_order(permute(ei, perm), n)
        assert _is_isomorphism_by_rank(ei, n, a, perm, b), (kind, trial)
        if kind == "asymmetric":  # no automorphisms: the very same ranks
            assert b[perm].tolist() == a.tolist()
            wa, wb = tinhofer_w(ei, n, k_weak=1), tinhofer_w(permute(ei, perm), n, k_weak=1)
            assert np.array_equal(wb[perm], wa)


def test_tinhofer_is_not_equivariant_on_random_regular_graphs():
    # the choice of the individualized node matters there: measure how many inputs it makes
    graphs = [(random_regular(16, 3, rng=s), 16) for s in range(5)]
    copies = [
        (permuted_copy(ei, n, rng=100 * s + c)[0], n)
        for s, (ei, n) in enumerate(graphs)
        for c in range(20)
    ]
    distinct = count_distinct_inputs(copies, "tinhofer")
    assert 5 < distinct < count_distinct_inputs(copies, "relational_pooling", rng=0) == 100


def test_tinhofer_codes_and_tinhofer_w():
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 70, 0.05)
    order = tinhofer_order(ei, 70)
    assert np.array_equal(tinhofer(ei, 70, bits=6), binary_code(order, 6))
    assert np.array_equal(tinhofer(ei, 70, bits=4), binary_code(order % 16, 4))
    # k_weak = 0 without labels: one class, so Tinhofer_W is Tinhofer
    assert np.array_equal(tinhofer_w(ei, 70, k_weak=0), tinhofer(ei, 70))
    # with labels / k_weak rounds: the rank of the node within its class, in Tinhofer order
    labels = rng.integers(0, 3, 70)
    for k_weak, classes in [(0, labels), (2, color_refinement(ei, 70, labels=labels, max_iter=2))]:
        full = tinhofer_order(ei, 70, labels=labels)
        want = np.empty(70, dtype=np.int64)
        for c in np.unique(classes):
            nodes = np.flatnonzero(classes == c)
            want[nodes] = np.argsort(np.argsort(full[nodes]))
        got = tinhofer_w(ei, 70, labels=labels, bits=7, k_weak=k_weak)
        assert np.array_equal(got, binary_code(want, 7))


def test_batched_individualization_equals_graph_by_graph():
    rng = np.random.default_rng(5)
    graphs = [(random_graph(rng, int(m), 0.2), int(m)) for m in rng.integers(3, 25, 12)]
    graphs += [(random_regular(12, 3, rng=1), 12), (random_tree(rng, 9), 9)]
    for scheme, one in [
        ("tinhofer", lambda e, n: tinhofer(e, n)),
        ("tinhofer_w", lambda e, n: tinhofer_w(e, n, k_weak=1)),
    ]:
        batch = individualize(graphs, scheme, k_weak=1)
        for (e, n), ids in zip(graphs, batch):
            assert np.array_equal(ids, one(e, n)), scheme


def test_relational_pooling_and_rni():
    code = relational_pooling(40, bits=6, rng=0)
    ranks = code @ (2 ** np.arange(5, -1, -1))
    assert sorted(ranks.tolist()) == list(range(40))  # a permutation (40 <= 64)
    assert np.array_equal(code, relational_pooling(40, bits=6, rng=0))
    assert not np.array_equal(code, relational_pooling(40, bits=6, rng=1))
    wrapped = relational_pooling(100, bits=4, rng=np.random.default_rng(0))
    assert np.all(np.bincount((wrapped @ (2 ** np.arange(3, -1, -1))).astype(int)) >= 6)
    x = rni(50, dim=3, rng=0)
    assert x.shape == (50, 3) and x.min() >= 0 and x.max() < 1
    assert np.array_equal(x, rni(50, dim=3, rng=0))
    assert abs(rni(20000, dim=1, rng=1).mean() - 0.5) < 0.01  # U(0,1): sd of the mean 0.002


def test_neighbours_reference_sanity():
    assert neighbours(np.array([[0], [1]]), 2) == [{1}, {0}]
