"""1-WL colour refinement against a naive reference, canonical ids, input forms."""

import numpy as np
import pytest
from _reference import naive_refinement, permute, random_graph
from gnn_individualize import color_refinement, stable_partition, wl_equivalent
from gnn_individualize.data import csl_graph, random_regular
from hypothesis import given, settings
from hypothesis import strategies as st

FEW = settings(max_examples=25, deadline=None)


@FEW
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30), p=st.floats(0.0, 0.5))
def test_matches_naive_refinement_exactly(seed, n, p):
    rng = np.random.default_rng(seed)
    ei = random_graph(rng, n, p)
    assert color_refinement(ei, n).tolist() == naive_refinement(ei, n)


@FEW
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), rounds=st.integers(0, 4))
def test_max_iter_and_labels_match_naive(seed, n, rounds):
    rng = np.random.default_rng(seed)
    ei = random_graph(rng, n, 0.2)
    labels = rng.integers(0, 3, n)
    ours = color_refinement(ei, n, labels=labels, max_iter=rounds)
    assert ours.tolist() == naive_refinement(ei, n, labels.tolist(), rounds)


@FEW
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30))
def test_colour_ids_do_not_depend_on_node_numbering(seed, n):
    rng = np.random.default_rng(seed)
    ei = random_graph(rng, n, 0.15)
    labels = rng.integers(0, 2, n)
    perm = rng.permutation(n)
    plabels = np.empty_like(labels)
    plabels[perm] = labels
    a = color_refinement(ei, n, labels=labels)
    b = color_refinement(permute(ei, perm), n, labels=plabels)
    assert b[perm].tolist() == a.tolist()  # the same ids, not just the same partition


def test_stable_colouring_is_a_fixed_point_and_refines_labels():
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 40, 0.08)
    labels = rng.integers(0, 4, 40)
    c = color_refinement(ei, 40, labels=labels)
    assert color_refinement(ei, 40, labels=c).tolist() == c.tolist()
    # the order refines the label order: a smaller label never gets a larger colour
    order = np.argsort(c)
    assert np.all(np.diff(np.unique(labels, return_inverse=True)[1][order]) >= 0)


def test_known_colourings():
    path = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    assert color_refinement(path, 5).tolist() == [0, 1, 2, 1, 0]
    assert color_refinement(path, 5, max_iter=1).tolist() == [0, 1, 1, 1, 0]
    assert color_refinement(path, 5, max_iter=0).tolist() == [0] * 5
    assert color_refinement(np.zeros((2, 0), dtype=int), 3).tolist() == [0, 0, 0]
    star = np.array([[0, 0, 0], [1, 2, 3]])
    assert color_refinement(star, 4).tolist() == [1, 0, 0, 0]
    assert [c.tolist() for c in stable_partition(path, 5)] == [[0, 4], [1, 3], [2]]


def test_one_or_both_directions_and_duplicates_are_the_same_graph():
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 20, 0.2)
    both = np.concatenate([ei, ei[::-1], ei], axis=1)
    assert color_refinement(both, 20).tolist() == color_refinement(ei, 20).tolist()


def test_scipy_sparse_adjacency_and_float_indices():
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 15, 0.2)
    adj = sparse.coo_matrix((np.ones(ei.shape[1]), (ei[0], ei[1])), shape=(15, 15)).tocsr()
    want = color_refinement(ei, 15).tolist()
    assert color_refinement(adj, None).tolist() == want
    assert color_refinement(adj, 15).tolist() == want
    assert color_refinement(ei.astype(float), 15).tolist() == want
    with pytest.raises(ValueError, match="num_nodes"):
        color_refinement(adj, 14)


def test_wl_equivalence_of_hard_pairs():
    hexagon = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
    triangles = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]])
    assert wl_equivalent(hexagon, 6, triangles, 6)
    assert wl_equivalent(csl_graph(41, 2), 41, csl_graph(41, 9), 41)
    assert wl_equivalent(random_regular(16, 3, rng=0), 16, random_regular(16, 3, rng=1), 16)
    path = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])
    assert not wl_equivalent(hexagon, 6, path, 6)
    assert not wl_equivalent(hexagon, 6, hexagon, 7)
    alternating = np.array([0, 1, 0, 1, 0, 1])
    assert wl_equivalent(hexagon, 6, hexagon, 6, labels_a=alternating, labels_b=1 - alternating)
    # one marked node: the hexagon's far side differs from the other triangle
    mark = np.array([0, 0, 0, 0, 0, 1])
    assert not wl_equivalent(hexagon, 6, triangles, 6, labels_a=mark, labels_b=mark)


def test_feature_rows_as_labels():
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    rows = np.array([[0.5, 1.0], [0.5, 1.0], [0.5, 1.0], [0.5, 2.0]])
    assert color_refinement(ei, 4, labels=rows).tolist() == naive_refinement(ei, 4, [0, 0, 0, 1])


@pytest.mark.parametrize("seed", range(4))
def test_long_rows_with_many_colours_match_naive(seed):
    # many initial colours and hubs: rows too long for the exact 62-bit encoding take the
    # prefix-multiplying path
    rng = np.random.default_rng(seed)
    n = 300
    hubs = rng.integers(0, n, 8)
    ei = np.concatenate(
        [random_graph(rng, n, 0.01), np.stack([np.repeat(hubs, 60), rng.integers(0, n, 480)])], 1
    )
    ei = ei[:, ei[0] != ei[1]]
    labels = rng.integers(0, 200, n)
    for rounds in (1, 2, None):
        want = naive_refinement(ei, n, labels.tolist(), rounds)
        assert color_refinement(ei, n, labels=labels, max_iter=rounds).tolist() == want
