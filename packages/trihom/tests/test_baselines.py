"""Baseline metrics against loops written from the papers' definitions, hand-computed values
and the closed-form sanity checks of the brief (check 3)."""

import math
import statistics

import numpy as np
import pytest
import trihom
from conftest import dense_adjacency, random_messy_graph
from trihom import baselines as B


def _edges(nbrs):
    return [(i, j) for i, s in enumerate(nbrs) for j in s]  # both directions


def test_path_hand_computed():
    # path 0-1-2-3, labels 0 0 1 1
    ei, y = np.array([[0, 1, 2], [1, 2, 3]]), np.array([0, 0, 1, 1])
    assert B.edge_homophily(ei, y) == pytest.approx(2 / 3)
    assert B.node_homophily(ei, y) == pytest.approx((1 + 0.5 + 0.5 + 1) / 4)
    assert B.class_homophily(ei, y) == pytest.approx(((2 / 3 - 0.5) * 2) / 1)
    assert B.adjusted_homophily(ei, y) == pytest.approx((2 / 3 - 0.5) / 0.5)
    # LI = I(y_xi; y_eta) / H(y_xi): p(0,0) = p(1,1) = 1/3, p(0,1) = p(1,0) = 1/6, pbar = 1/2
    mi = 2 * (1 / 3) * math.log((1 / 3) / 0.25) + 2 * (1 / 6) * math.log((1 / 6) / 0.25)
    assert B.label_informativeness(ei, y) == pytest.approx(mi / math.log(2))


def test_loops(messy):
    ei, y, x, nbrs = messy
    y = list(y)
    c = max(y) + 1
    n = len(y)
    e = _edges(nbrs)
    live = [i for i in range(n) if nbrs[i]]
    # node homophily
    node = statistics.fmean(sum(y[j] == y[i] for j in nbrs[i]) / len(nbrs[i]) for i in live)
    assert B.node_homophily(ei, y) == pytest.approx(node)
    # class homophily
    val = 0.0
    for k in range(c):
        ends = [(i, j) for i, j in e if y[i] == k]
        hk = sum(y[j] == k for _, j in ends) / len(ends) if ends else 0.0
        val += max(0.0, hk - y.count(k) / n)
    assert B.class_homophily(ei, y) == pytest.approx(val / (c - 1))
    # adjusted homophily
    pbar = [sum(len(nbrs[i]) for i in range(n) if y[i] == k) / len(e) for k in range(c)]
    he = sum(y[i] == y[j] for i, j in e) / len(e)
    s2 = sum(p * p for p in pbar)
    assert B.adjusted_homophily(ei, y) == pytest.approx((he - s2) / (1 - s2))
    # label informativeness, as mutual information / entropy
    joint = {}
    for i, j in e:
        joint[(y[i], y[j])] = joint.get((y[i], y[j]), 0) + 1 / len(e)
    mi = sum(p * math.log(p / (pbar[a] * pbar[b])) for (a, b), p in joint.items())
    ent = -sum(p * math.log(p) for p in pbar if p > 0)
    assert B.label_informativeness(ei, y) == pytest.approx(mi / ent)
    # density-aware homophily
    diffs = []
    for k in range(c):
        nk = y.count(k)
        if nk < 2:
            continue
        intra = sum(1 for i, j in e if i < j and y[i] == y[j] == k) / (nk * (nk - 1) / 2)
        inter = max(
            sum(1 for i, j in e if y[i] == k and y[j] == m) / (nk * y.count(m))
            for m in range(c)
            if m != k and y.count(m)
        )
        diffs.append(intra - inter)
    assert B.density_aware_homophily(ei, y) == pytest.approx(min(diffs) / 2 + 0.5)
    # two-hop graph
    hop2 = [set() for _ in range(n)]
    for i in range(n):
        for j in nbrs[i]:
            for k in nbrs[j]:
                if k != i:
                    hop2[i].add(k)
    live2 = [i for i in range(n) if hop2[i]]
    two = statistics.fmean(sum(y[j] == y[i] for j in hop2[i]) / len(hop2[i]) for i in live2)
    assert B.two_hop_homophily(ei, y) == pytest.approx(two)
    nei = statistics.fmean(
        max(sum(y[j] == k for j in hop2[i]) for k in range(c)) / len(hop2[i]) for i in live2
    )
    assert B.neighborhood_homophily(ei, y) == pytest.approx(nei)
    # CCNS ratio: mean cosine of neighbour-label distributions between / within classes
    d = {i: np.array([sum(y[j] == k for j in nbrs[i]) for k in range(c)], float) for i in live}
    cos = lambda u, v: float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))  # noqa: E731
    s = np.full((c, c), np.nan)
    for a in range(c):
        for b in range(c):
            vals = [
                cos(d[i], d[j]) for i in live for j in live if i != j and y[i] == a and y[j] == b
            ]
            if vals:
                s[a, b] = statistics.fmean(vals)
    off = [s[a, b] for a in range(c) for b in range(c) if a != b and not np.isnan(s[a, b])]
    diag = [s[a, a] for a in range(c) if not np.isnan(s[a, a])]
    assert B.cross_class_neighborhood_similarity(ei, y) == pytest.approx(
        statistics.fmean(off) / statistics.fmean(diag)
    )


def test_aggregation_homophily_loop(messy):
    ei, y, _, nbrs = messy
    n, c = len(y), int(y.max()) + 1
    a = dense_adjacency(nbrs) + np.eye(n)
    a_hat = a / a.sum(axis=1, keepdims=True)
    z = np.eye(c)[y]
    sim = (a_hat @ z) @ (a_hat @ z).T  # the N x N similarity, formed here on purpose
    soft = hard = 0
    for v in range(n):
        same = [sim[v, u] for u in range(n) if y[u] == y[v]]
        other = [sim[v, u] for u in range(n) if y[u] != y[v]]
        # ties (exact in rationals, not in floats) count for the own class
        soft += (not other) or statistics.fmean(same) >= statistics.fmean(other) - 1e-12
        per_class = [sum(sim[v, u] for u in range(n) if y[u] == k) for k in range(c)]
        hard += per_class[y[v]] >= max(per_class) - 1e-12
    assert B.aggregation_homophily(ei, y) == pytest.approx(max(0, 2 * soft / n - 1))
    assert B.aggregation_homophily(ei, y, mode="hard") == pytest.approx(max(0, 2 * hard / n - 1))


def test_feature_metrics_loop(messy):
    ei, y, x, nbrs = messy
    n = len(y)
    e = _edges(nbrs)
    live = [i for i in range(n) if nbrs[i]]
    cos = lambda u, v: float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))  # noqa: E731
    assert B.generalized_edge_homophily(ei, x) == pytest.approx(
        statistics.fmean(cos(x[i], x[j]) for i, j in e)
    )
    assert B.local_similarity_homophily(ei, x) == pytest.approx(
        statistics.fmean(statistics.fmean(cos(x[i], x[j]) for j in nbrs[i]) for i in live)
    )
    assert B.local_similarity_homophily(ei, x, metric="euclidean") == pytest.approx(
        statistics.fmean(
            statistics.fmean(-float(np.linalg.norm(x[i] - x[j])) for j in nbrs[i]) for i in live
        )
    )
    xb = (x > 0).astype(float)  # attribute homophily is defined on binary attributes
    vals = []
    for f in range(x.shape[1]):
        tot = xb[:, f].sum()
        num = sum(
            xb[v, f] * statistics.fmean(xb[u, f] for u in nbrs[v]) for v in range(n) if nbrs[v]
        )
        vals.append(num / tot if tot else 0.0)
    assert B.attribute_homophily(ei, xb) == pytest.approx(statistics.fmean(vals))
    # class-controlled feature homophily
    xt = x.copy()
    for k in set(y.tolist()):
        xt[y == k] -= x[y == k].mean(axis=0)
    dist = lambda u, v: float(np.sum((xt[u] - xt[v]) ** 2))  # noqa: E731
    b = {v: statistics.fmean(dist(v, u) for u in range(n)) for v in live}
    ev = {v: statistics.fmean(dist(v, u) for u in nbrs[v]) for v in live}
    scale = max(statistics.fmean(b.values()), statistics.fmean(ev.values()))
    assert B.class_controlled_feature_homophily(ei, x, y) == pytest.approx(
        statistics.fmean(b[v] - ev[v] for v in live) / scale
    )


def test_intra_class_edges_only_give_one():
    ei, y, _, nbrs = random_messy_graph(4, n=30, p=0.4)
    keep = y[ei[0]] == y[ei[1]]
    ei = ei[:, keep]
    for f in (B.edge_homophily, B.node_homophily, B.class_homophily, B.adjusted_homophily):
        assert f(ei, y) == pytest.approx(1.0)
    assert B.label_informativeness(ei, y) == pytest.approx(1.0)


def test_erdos_renyi_random_labels_give_zero_adjusted_and_class():
    """ER graph, N = 3000, mean degree 20, balanced random labels (C = 4): h_adj and h_class
    are 0 in expectation; their sd here is about 0.005, so +-0.03 is a 6-sigma band."""
    gen = np.random.default_rng(0)
    n, m = 3000, 30000
    ei = gen.integers(0, n, size=(2, m))
    y = gen.permutation(np.arange(n) % 4)
    assert abs(B.adjusted_homophily(ei, y)) < 0.03
    assert abs(B.class_homophily(ei, y)) < 0.03
    assert abs(B.label_informativeness(ei, y)) < 0.03


def test_all_metrics_keys_and_values(messy):
    ei, y, x, _ = messy
    out = trihom.all_metrics(ei, x, y)
    assert out["h_L"] == out["edge_homophily"] == trihom.label_homophily(ei, y)
    assert out["node_homophily"] == B.node_homophily(ei, y)
    assert out["tri_hom_graph_aware"] == trihom.tri_hom_from_graph(ei, x, y)
    assert out is not trihom.baselines.all_metrics(ei, x, y)
    assert all(isinstance(v, float) and math.isfinite(v) for v in out.values())
    assert len(out) == 21
