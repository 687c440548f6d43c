"""DraftTree layout, best-first construction (brief check 4) and its properties."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from specexec import DraftTree, MarkovLM, build_tree
from specexec.tree import ROOT


def markov_draft_fn(lm, prefix):
    """draft_logprobs_fn for a callable LM: one call per requested node, on prefix + path."""
    prefix = list(prefix)

    def fn(tree, node_ids):
        return np.stack(
            [
                lm(np.array(prefix + ([] if i == ROOT else tree.path_tokens(i).tolist())))
                for i in node_ids
            ]
        )

    return fn


def brute_force_best(lm, prefix, k, max_depth):
    """max over ancestor-closed node sets of size k of sum exp(l(v)), by enumeration."""
    v = lm.vocab_size
    nodes = []  # (path tuple, logprob)
    for d in range(1, max_depth + 1):
        for path in itertools.product(range(v), repeat=d):
            lp, ctx = 0.0, list(prefix)
            for t in path:
                lp += lm(np.array(ctx))[t]
                ctx.append(t)
            nodes.append((path, lp))
    index = {p: i for i, (p, _) in enumerate(nodes)}
    best = -1.0

    # depth-first over ancestor-closed sets: add nodes in canonical (index) order
    def rec(chosen, frontier_start, total):
        nonlocal best
        if len(chosen) == k:
            best = max(best, total)
            return
        for i in range(frontier_start, len(nodes)):
            path, lp = nodes[i]
            if len(path) > 1 and index[path[:-1]] not in chosen:
                continue
            chosen.add(i)
            rec(chosen, i + 1, total + math.exp(lp))
            chosen.remove(i)

    rec(set(), 0, 0.0)
    return best


@pytest.mark.parametrize("k", [3, 5, 6])
def test_best_first_tree_is_optimal_vs_brute_force(k):
    lm = MarkovLM.random(4, order=2, rng=k)
    prefix = [1, 2]
    tree = build_tree(
        markov_draft_fn(lm, prefix), prefix, k, max_depth=3, max_expand=k, branch_width=4
    )
    assert len(tree) == k and tree.is_ancestor_closed()
    got = float(np.exp(tree.logprobs).sum())
    # the recorded cumulative log-probs are the true path log-probs
    for i in range(len(tree)):
        ctx, lp = list(prefix), 0.0
        for t in tree.path_tokens(i):
            lp += lm(np.array(ctx))[t]
            ctx.append(int(t))
        assert tree.logprobs[i] == pytest.approx(lp, abs=1e-12)
    assert got == pytest.approx(brute_force_best(lm, prefix, k, 3), rel=1e-12)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(
    v=st.integers(2, 6),
    k=st.integers(1, 40),
    seed=st.integers(0, 10_000),
    conc=st.sampled_from([0.1, 0.5, 2.0]),
)
def test_tree_is_top_k_of_all_nodes(v, k, seed, conc):
    """With w = V and B >= K the tree is exactly the K most probable nodes (depth <= D)."""
    lm = MarkovLM.random(v, order=1, rng=seed, concentration=conc)
    depth = 4
    tree = build_tree(
        markov_draft_fn(lm, [0]), [0], k, max_depth=depth, max_expand=k, branch_width=v
    )
    # all nodes up to depth D with their log-probs
    allp = []
    for d in range(1, depth + 1):
        for path in itertools.product(range(v), repeat=d):
            lp, prev = 0.0, 0
            for t in path:
                lp += lm(np.array([prev]))[t]
                prev = t
            allp.append(lp)
    allp = np.sort(np.array(allp))[::-1]
    allp = allp[np.isfinite(allp)]
    assert len(tree) == min(k, allp.size)
    assert tree.is_ancestor_closed()
    np.testing.assert_allclose(np.sort(tree.logprobs)[::-1], allp[: len(tree)], atol=1e-9)
    # children of one node carry distinct tokens; parents precede children
    pairs = set(zip(tree.parents.tolist(), tree.tokens.tolist()))
    assert len(pairs) == len(tree)
    assert (tree.parents < np.arange(len(tree))).all()
    # cumulative log-probs never increase along a path
    par = tree.parents
    assert all(
        tree.logprobs[i] <= tree.logprobs[par[i]] + 1e-12 for i in range(len(tree)) if par[i] >= 0
    )


def test_build_tree_limits_and_decay():
    lm = MarkovLM.random(8, order=1, rng=3, concentration=0.3)
    fn = markov_draft_fn(lm, [0])
    t = build_tree(fn, [0], 50, max_depth=2, branch_width=3)
    assert t.depth <= 2 and len(t) <= 50
    assert all(len(t.children(i)) <= 3 for i in range(-1, len(t)))
    t2 = build_tree(fn, [0], 20, branch_width=8, decay=0.5)
    for i in range(len(t2)):
        pure = sum(
            lm(np.array([0, *t2.path_tokens(i)[:j]]))[t2.path_tokens(i)[j]]
            for j in range(t2.depths[i])
        )
        assert t2.logprobs[i] == pytest.approx(pure + t2.depths[i] * math.log(0.5))
    t3 = build_tree(fn, [0], 200, branch_width=8, min_logprob=-3.0)
    assert (t3.logprobs >= -3.0).all() and len(t3) < 200


def test_draft_calls_batched_up_to_max_expand():
    lm = MarkovLM.random(6, rng=0)
    sizes = []

    def fn(tree, ids):
        sizes.append(len(ids))
        return markov_draft_fn(lm, [0])(tree, ids)

    build_tree(fn, [0], 64, max_expand=5, branch_width=6, max_depth=10)
    assert sizes[0] == 1 and max(sizes) <= 5 and len(sizes) <= 10


def test_attention_mask_and_positions_by_hand():
    # root -> a(0) -> c(2);  root -> b(1)
    t = DraftTree.from_parents(tokens=[10, 11, 12], parents=[-1, -1, 0])
    m = t.attention_mask(prefix_len=3)
    assert m.shape == (3, 6) and m.dtype == bool
    assert m[:, :3].all()
    np.testing.assert_array_equal(m[:, 3:], [[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    np.testing.assert_array_equal(t.position_ids(3), [3, 3, 4])
    assert t.path(2).tolist() == [0, 2] and t.path(-1).tolist() == []
    assert t.children(-1).tolist() == [0, 1] and t.children(1).tolist() == []
    assert t.child_with_token(0, 12) == 2 and t.child_with_token(0, 11) is None
    sub = t.subtree([0, 2])
    assert sub.tokens.tolist() == [10, 12] and sub.parents.tolist() == [-1, 0]
    with pytest.raises(ValueError, match="ancestor-closed"):
        t.subtree([2])


def test_draft_tree_validation_errors():
    with pytest.raises(ValueError, match="must match"):
        DraftTree(tokens=[1, 2], parents=[-1], depths=[1], logprobs=[0.0])
    with pytest.raises(ValueError, match="topological"):
        DraftTree.from_parents(tokens=[1, 2], parents=[1, -1])
    with pytest.raises(ValueError, match="same token"):
        DraftTree.from_parents(tokens=[1, 1], parents=[-1, -1])
    with pytest.raises(ValueError, match="depths"):
        DraftTree(tokens=[1, 2], parents=[-1, 0], depths=[1, 3], logprobs=[0.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        DraftTree(tokens=[1], parents=[-1], depths=[1], logprobs=[np.nan])
    t = DraftTree.from_parents(tokens=[1], parents=[-1])
    with pytest.raises(ValueError, match="prefix_len"):
        t.attention_mask(0)
    with pytest.raises(ValueError, match="node"):
        t.path(5)
    with pytest.raises(TypeError, match="node"):
        t.children(0.5)


def test_build_tree_bad_args():
    lm = MarkovLM.random(4, rng=0)
    fn = markov_draft_fn(lm, [0])
    with pytest.raises(ValueError, match="budget"):
        build_tree(fn, [0], 0)
    with pytest.raises(TypeError, match="budget"):
        build_tree(fn, [0], 2.5)
    with pytest.raises(ValueError, match="decay"):
        build_tree(fn, [0], 4, decay=1.5)
    with pytest.raises(ValueError, match="prefix"):
        build_tree(fn, [], 4)
    with pytest.raises(ValueError, match="branch_width"):
        build_tree(fn, [0], 4, branch_width=0)
    with pytest.raises(ValueError, match="shape"):
        build_tree(lambda tree, ids: np.zeros((len(ids) + 1, 4)), [0], 4)
    with pytest.raises(ValueError, match="NaN"):
        build_tree(lambda tree, ids: np.full((len(ids), 4), np.nan), [0], 4)
    with pytest.raises(TypeError, match="callable"):
        build_tree(None, [0], 4)
