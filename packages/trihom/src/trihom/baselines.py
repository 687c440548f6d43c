"""Baseline homophily metrics of the paper's comparison, on the simple undirected graph.

Label-based metrics take ``(edge_index, y)``; feature-based ones take ``(edge_index, X)`` or
``(edge_index, X, y)``. Nodes without neighbours are left out of node-level averages (as in
the authors' node homophily). The classifier-based metrics (h_GNB, h_SVM) need scikit-learn and
live in :mod:`trihom.classifier`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._checks import check_option
from ._core import (
    _neighbour_distribution,
    feature_homophily,
    label_homophily,
    structural_homophily,
    tri_hom,
)
from ._validation import Graph, check_features, check_graph, check_labels

__all__ = [
    "adjusted_homophily",
    "aggregation_homophily",
    "all_metrics",
    "attribute_homophily",
    "class_controlled_feature_homophily",
    "class_homophily",
    "cross_class_neighborhood_similarity",
    "density_aware_homophily",
    "edge_homophily",
    "generalized_edge_homophily",
    "label_informativeness",
    "local_similarity_homophily",
    "neighborhood_homophily",
    "node_homophily",
    "two_hop_homophily",
]


def _labelled(edge_index: Any, y: Any) -> tuple[np.ndarray, Graph, int]:
    y = check_labels(y)
    g = check_graph(edge_index, y.size)
    return y, g, int(y.max()) + 1


def _need_two_classes(c: int) -> None:
    if c < 2:
        raise ValueError("y must have max(y) >= 1 (at least 2 classes), got a single class 0")


def _node_mean(values: np.ndarray, g: Graph) -> float:
    """Mean over non-isolated nodes of the per-node mean of ``values`` over its edges."""
    deg = g.degree
    sums = np.bincount(g.src, weights=values, minlength=g.num_nodes)
    nz = deg > 0
    return float(np.mean(sums[nz] / deg[nz]))


def edge_homophily(edge_index: Any, y: Any) -> float:
    """h_edge (Zhu et al. 2020): fraction of edges joining same-label nodes (= h_L)."""
    return label_homophily(edge_index, y)


def node_homophily(edge_index: Any, y: Any) -> float:
    """h_node (Pei et al. 2020): mean over non-isolated nodes of the same-label neighbour
    fraction."""
    y, g, _ = _labelled(edge_index, y)
    return _node_mean((y[g.src] == y[g.dst]).astype(np.float64), g)


def class_homophily(edge_index: Any, y: Any) -> float:
    """h_class (Lim et al. 2021): (1/(C-1)) sum_k max(0, h_k - |C_k|/N), h_k the fraction of
    the edge ends at class-k nodes whose other end is in class k (0 for a class without
    edges)."""
    y, g, c = _labelled(edge_index, y)
    _need_two_classes(c)
    same = np.bincount(y[g.src], weights=(y[g.src] == y[g.dst]).astype(float), minlength=c)
    ends = np.bincount(y[g.src], minlength=c).astype(float)
    h = np.divide(same, ends, out=np.zeros(c), where=ends > 0)
    prop = np.bincount(y, minlength=c) / y.size
    return float(np.sum(np.maximum(0.0, h - prop)) / (c - 1))


def _edge_label_joint(y: np.ndarray, g: Graph, c: int) -> np.ndarray:
    joint = np.zeros((c, c))
    np.add.at(joint, (y[g.src], y[g.dst]), 1.0)
    return joint / g.src.size


def adjusted_homophily(edge_index: Any, y: Any) -> float:
    """h_adj (Platonov et al. 2023): (h_edge - sum_k pbar_k^2) / (1 - sum_k pbar_k^2),
    pbar_k = D_k / 2|E| with D_k the degree sum of class k."""
    y, g, c = _labelled(edge_index, y)
    pbar = np.bincount(y[g.src], minlength=c) / g.src.size
    s = float(np.sum(pbar**2))
    if s >= 1.0:
        raise ValueError("y puts every edge end in one class; adjusted homophily is undefined")
    return (float(np.mean(y[g.src] == y[g.dst])) - s) / (1.0 - s)


def _plogp(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(np.sum(p * np.log(p)))


def label_informativeness(edge_index: Any, y: Any) -> float:
    """LI (Platonov et al. 2023): I(y_xi; y_eta) / H(y_xi) for a uniformly random edge
    (xi, eta) = 2 - sum p(c1, c2) log p(c1, c2) / sum pbar_c log pbar_c."""
    y, g, c = _labelled(edge_index, y)
    joint = _edge_label_joint(y, g, c)
    pbar = joint.sum(axis=1)
    h = _plogp(pbar)
    if h == 0.0:
        raise ValueError("y puts every edge end in one class; label informativeness is undefined")
    return 2.0 - _plogp(joint.ravel()) / h


def density_aware_homophily(edge_index: Any, y: Any) -> float:
    """h_den (Wang et al. 2022, as the authors compute it): edge densities
    d_kk = E_kk / (n_k (n_k - 1) / 2) within and d_kl = E_kl / (n_k n_l) between classes;
    h_den = min_k (d_kk - max_{l != k} d_kl) / 2 + 1/2 over classes with >= 2 nodes."""
    y, g, c = _labelled(edge_index, y)
    _need_two_classes(c)
    n = np.bincount(y, minlength=c).astype(float)
    e = _edge_label_joint(y, g, c) * g.src.size  # ordered pairs: E_kl for k != l, 2 E_kk
    present = n > 0
    vals = []
    for k in range(c):
        if n[k] < 2:
            continue
        intra = (e[k, k] / 2.0) / (n[k] * (n[k] - 1) / 2.0)
        others = [e[k, m] / (n[k] * n[m]) for m in range(c) if m != k and present[m]]
        inter = max(others) if others else 0.0
        vals.append(intra - inter)
    if not vals:
        raise ValueError("y has no class with at least 2 nodes; h_den is undefined")
    return float(min(vals) / 2.0 + 0.5)


def _two_hop(g: Graph) -> Graph:
    a2 = (g.adj @ g.adj).tocsr()
    a2.setdiag(0)
    a2.eliminate_zeros()
    a2.data[:] = 1.0
    a2.sort_indices()
    src = np.repeat(np.arange(g.num_nodes), np.diff(a2.indptr))
    return Graph(adj=a2, src=src, dst=a2.indices.astype(np.int64), num_nodes=g.num_nodes)


def two_hop_homophily(edge_index: Any, y: Any) -> float:
    """h_2hop: node homophily on the 2-hop graph (u ~ v when they share a neighbour, u != v)."""
    y, g, _ = _labelled(edge_index, y)
    g2 = _two_hop(g)
    if g2.src.size == 0:
        raise ValueError("edge_index has no 2-hop pairs (a matching); h_2hop is undefined")
    return _node_mean((y[g2.src] == y[g2.dst]).astype(np.float64), g2)


def neighborhood_homophily(edge_index: Any, y: Any) -> float:
    """h_nei: mean over nodes with 2-hop neighbours of the largest single-label share among
    them (how concentrated a node's 2-hop label distribution is, whatever its own label)."""
    y, g, c = _labelled(edge_index, y)
    g2 = _two_hop(g)
    if g2.src.size == 0:
        raise ValueError("edge_index has no 2-hop pairs (a matching); h_nei is undefined")
    dist = _neighbour_distribution(g2, y, c)
    nz = g2.degree > 0
    return float(np.mean(dist[nz].max(axis=1)))


def _ccns(y: np.ndarray, g: Graph, c: int) -> tuple[np.ndarray, np.ndarray]:
    dist = _neighbour_distribution(g, y, c)
    keep = g.degree > 0
    u = dist[keep] / np.linalg.norm(dist[keep], axis=1, keepdims=True)
    lab = y[keep]
    sums = np.zeros((c, c))
    np.add.at(sums, lab, u)
    n = np.bincount(lab, minlength=c).astype(float)
    inner = sums @ sums.T
    pairs = np.outer(n, n)
    np.fill_diagonal(inner, np.diag(inner) - n)  # drop i == j (unit vectors: u_i . u_i = 1)
    np.fill_diagonal(pairs, n * (n - 1))
    return inner, pairs


def cross_class_neighborhood_similarity(edge_index: Any, y: Any) -> float:
    """h_NS from CCNS (Ma et al. 2022): s(c, c') = mean cosine similarity of the neighbour-label
    distributions of a class-c and a class-c' node (distinct nodes, isolated nodes left out);
    returns mean_{c != c'} s(c, c') / mean_c s(c, c) over classes where they are defined
    (lower = classes more distinguishable by their neighbourhoods)."""
    y, g, c = _labelled(edge_index, y)
    _need_two_classes(c)
    inner, pairs = _ccns(y, g, c)
    s = np.divide(inner, pairs, out=np.full((c, c), np.nan), where=pairs > 0)
    off = ~np.eye(c, dtype=bool) & ~np.isnan(s)
    diag = np.diag(s)[~np.isnan(np.diag(s))]
    if not off.any() or diag.size == 0 or np.mean(diag) == 0.0:
        raise ValueError("y gives too few non-isolated nodes per class; CCNS is undefined")
    return float(np.mean(s[off]) / np.mean(diag))


def aggregation_homophily(edge_index: Any, y: Any, *, mode: str = "soft") -> float:
    """h_agg (Luan et al. 2022) with S = (A_hat Z)(A_hat Z)^T, A_hat = D~^{-1}(A + I), Z the
    one-hot labels: the fraction h of nodes whose mean similarity to same-class nodes (itself
    included) is >= the mean to other-class nodes (``"soft"``), or whose class of largest
    summed similarity is their own (``"hard"``; a tie counts for the own class), reported as max(0, 2h - 1). O(N C^2)."""
    mode = check_option(mode, "mode", ("soft", "hard"))
    y, g, c = _labelled(edge_index, y)
    _need_two_classes(c)
    n = y.size
    z = np.zeros((n, c))
    z[np.arange(n), y] = 1.0
    a = g.adj + sp.identity(n, format="csr")
    h = np.asarray(a @ z) / (g.degree + 1.0)[:, None]
    w = h @ (h.T @ z)  # w[v, k] = sum_{u in class k} S[v, u]
    own = w[np.arange(n), y]
    if mode == "hard":
        # a tie with the node's own class counts for it (rounding-proof, unlike argmax order)
        frac = float(np.mean(own >= w.max(axis=1) * (1.0 - 1e-12)))
    else:
        size = np.bincount(y, minlength=c).astype(float)[y]
        other = w.sum(axis=1) - own
        # mean_same >= mean_other, without dividing (a class covering every node: True)
        frac = float(np.mean(own * (n - size) >= other * size * (1.0 - 1e-12)))
    return max(0.0, 2.0 * frac - 1.0)


def _features_only(edge_index: Any, X: Any) -> tuple[np.ndarray, Graph]:
    from ._checks import check_array

    x = check_array(X, "X", ndim=2)
    return x, check_graph(edge_index, x.shape[0])


def _cosine_on_edges(x: np.ndarray, g: Graph) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1)
    dots = np.einsum("ij,ij->i", x[g.src], x[g.dst])
    den = norm[g.src] * norm[g.dst]
    return np.divide(dots, den, out=np.zeros_like(dots), where=den > 0)


def generalized_edge_homophily(edge_index: Any, X: Any) -> float:
    """h_GE (Jin et al. 2022): mean cosine similarity of the features over edges (a zero
    feature vector has similarity 0, as in the authors' code)."""
    x, g = _features_only(edge_index, X)
    return float(np.mean(_cosine_on_edges(x, g)))


def local_similarity_homophily(edge_index: Any, X: Any, *, metric: str = "cosine") -> float:
    """h_LS (Chen et al. 2023): mean over non-isolated nodes of the mean similarity to their
    neighbours: cosine (``"cosine"``) or minus the Euclidean distance (``"euclidean"``)."""
    metric = check_option(metric, "metric", ("cosine", "euclidean"))
    x, g = _features_only(edge_index, X)
    if metric == "cosine":
        sim = _cosine_on_edges(x, g)
    else:
        sim = -np.linalg.norm(x[g.src] - x[g.dst], axis=1)
    return _node_mean(sim, g)


def attribute_homophily(edge_index: Any, X: Any) -> float:
    """h_attr (Yang et al. 2021): per feature f, sum_v x_vf * mean_{u in N(v)} x_uf / sum_v x_vf
    (meant for binary attributes), averaged over features; a feature summing to 0 counts 0, as
    in the authors' code."""
    x, g = _features_only(edge_index, X)
    deg = g.degree
    agg = np.asarray(g.adj @ x)
    nz = deg > 0
    agg[nz] /= deg[nz, None]
    num = np.sum(x * agg, axis=0)
    den = x.sum(axis=0)
    return float(np.mean(np.divide(num, den, out=np.zeros_like(num), where=den != 0)))


def class_controlled_feature_homophily(edge_index: Any, X: Any, y: Any) -> float:
    """h_CF (class-controlled feature homophily, Jin et al. 2024, our reading of the authors'
    code): with class-centred features x~_v = x_v - mean of v's class, squared distances
    d(u, v) = |x~_u - x~_v|^2, b_v = mean_u d(v, u) and e_v = mean_{u in N(v)} d(v, u) over
    non-isolated v, h_CF = mean_v (b_v - e_v) / max(mean_v b_v, mean_v e_v)."""
    y = check_labels(y)
    x = check_features(X, y.size)
    g = check_graph(edge_index, y.size)
    c = int(y.max()) + 1
    sums = np.zeros((c, x.shape[1]))
    np.add.at(sums, y, x)
    xt = x - (sums / np.maximum(np.bincount(y, minlength=c), 1)[:, None])[y]
    sq = np.einsum("ij,ij->i", xt, xt)
    # mean_u |x~_v - x~_u|^2 = |x~_v|^2 - 2 x~_v . mean(x~) + mean |x~_u|^2, mean(x~) = 0
    b = sq + sq.mean() - 2.0 * xt @ xt.mean(axis=0)
    d = np.sum((xt[g.src] - xt[g.dst]) ** 2, axis=1)
    deg = g.degree
    nz = deg > 0
    e = np.bincount(g.src, weights=d, minlength=y.size)[nz] / deg[nz]
    scale = max(float(np.mean(b[nz])), float(np.mean(e)))
    if scale == 0.0:
        raise ValueError("X is constant within every class; h_CF is undefined")
    return float(np.mean(b[nz] - e) / scale)


def all_metrics(edge_index: Any, X: Any, y: Any) -> dict[str, float]:
    """Every metric of this package on one graph (rho = 1 for Tri-Hom), by name."""
    y = check_labels(y)
    check_features(X, y.size)
    check_graph(edge_index, y.size)
    c = int(y.max()) + 1
    h_l = label_homophily(edge_index, y)
    h_s = structural_homophily(edge_index, y)
    h_f = feature_homophily(edge_index, X, y)
    out = {
        "h_L": h_l,
        "h_S": h_s,
        "h_F": h_f,
        "tri_hom_graph_aware": tri_hom(h_l, h_s, h_f, c, graph_aware=True),
        "tri_hom_graph_agnostic": tri_hom(h_l, h_s, h_f, c, graph_aware=False),
        "edge_homophily": edge_homophily(edge_index, y),
        "node_homophily": node_homophily(edge_index, y),
        "class_homophily": class_homophily(edge_index, y),
        "adjusted_homophily": adjusted_homophily(edge_index, y),
        "label_informativeness": label_informativeness(edge_index, y),
        "density_aware_homophily": density_aware_homophily(edge_index, y),
        "two_hop_homophily": two_hop_homophily(edge_index, y),
        "neighborhood_homophily": neighborhood_homophily(edge_index, y),
        "cross_class_neighborhood_similarity": cross_class_neighborhood_similarity(edge_index, y),
        "aggregation_homophily_soft": aggregation_homophily(edge_index, y, mode="soft"),
        "aggregation_homophily_hard": aggregation_homophily(edge_index, y, mode="hard"),
        "generalized_edge_homophily": generalized_edge_homophily(edge_index, X),
        "local_similarity_cosine": local_similarity_homophily(edge_index, X, metric="cosine"),
        "local_similarity_euclidean": local_similarity_homophily(edge_index, X, metric="euclidean"),
        "attribute_homophily": attribute_homophily(edge_index, X),
        "class_controlled_feature_homophily": class_controlled_feature_homophily(edge_index, X, y),
    }
    return out
