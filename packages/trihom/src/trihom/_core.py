"""The three homophily aspects (label, structural, feature) and the Tri-Hom metric."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._checks import check_bool, check_float, check_int, check_option, check_probability
from ._validation import Graph, check_features, check_graph, check_labels

_DENSE_EIG_MAX = 400


def _radius(graph: Graph) -> float:
    adj = graph.adj
    n = graph.num_nodes
    if adj.nnz == 0:
        return 0.0
    if n <= _DENSE_EIG_MAX:
        return float(np.linalg.eigvalsh(adj.toarray())[-1])
    # Perron-Frobenius: for a non-negative symmetric matrix the largest eigenvalue is rho(A).
    v0 = np.sqrt(graph.degree + 1.0)
    val = spla.eigsh(adj, k=1, which="LA", v0=v0, tol=1e-10, return_eigenvectors=False)
    return float(val[0])


def spectral_radius(edge_index: Any, *, num_nodes: int | None = None) -> float:
    """Spectral radius rho(A) of the simple undirected graph (largest adjacency eigenvalue).

    ``num_nodes`` defaults to ``max(edge_index) + 1`` (or the sparse matrix's size).
    """
    if num_nodes is None:
        if sp.issparse(edge_index):
            num_nodes = int(edge_index.shape[0])
        else:
            from ._validation import _torch_to_numpy, check_int_array

            arr = check_int_array(_torch_to_numpy(edge_index), "edge_index", ndim=2)
            num_nodes = int(arr.max()) + 1 if arr.size else 0
    num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
    return _radius(check_graph(edge_index, num_nodes, require_edges=False))


def label_homophily(edge_index: Any, y: Any) -> float:
    """h_L: the fraction of (undirected) edges whose endpoints share a label (edge homophily)."""
    y = check_labels(y)
    g = check_graph(edge_index, y.size)
    return float(np.mean(y[g.src] == y[g.dst]))


def _neighbour_distribution(g: Graph, y: np.ndarray, num_classes: int) -> np.ndarray:
    onehot = sp.csr_matrix((np.ones(y.size), (np.arange(y.size), y)), shape=(y.size, num_classes))
    counts = np.asarray((g.adj @ onehot).todense())
    deg = g.degree
    out = np.zeros_like(counts)
    nz = deg > 0
    out[nz] = counts[nz] / deg[nz, None]
    return out


def structural_homophily(
    edge_index: Any,
    y: Any,
    *,
    weighting: str = "uniform",
    per_class: bool = False,
) -> float | np.ndarray:
    """h_S: consistency of the neighbour-label distributions within each class.

    d_i = (A Y)_i / deg_i for every non-isolated node i; for class c and label k,
    sigma_{c,k} is the sample standard deviation (ddof=1, as in the authors' code) of d_i[k]
    over the non-isolated nodes of class c; h_S(c) = mean_k (1 - sigma_{c,k} / sigma_max)
    with sigma_max = sqrt((1 - 1/C) / C) and C = max(y) + 1.

    Returns the mean of h_S(c) over classes with at least 2 non-isolated nodes
    (``weighting="uniform"``) or their mean weighted by those node counts
    (``weighting="class_size"``). With ``per_class=True`` returns the array [C] of h_S(c),
    NaN for a class with fewer than 2 non-isolated nodes (the classes the mean skips).
    """
    y = check_labels(y)
    weighting = check_option(weighting, "weighting", ("uniform", "class_size"))
    per_class = check_bool(per_class, "per_class")
    g = check_graph(edge_index, y.size)
    c = int(y.max()) + 1
    if c < 2:
        raise ValueError("y must have max(y) >= 1 (at least 2 classes), got a single class 0")
    dist = _neighbour_distribution(g, y, c)
    keep = g.degree > 0
    sigma_max = np.sqrt((1.0 - 1.0 / c) / c)
    per = np.full(c, np.nan)
    sizes = np.zeros(c)
    for k in range(c):
        rows = dist[keep & (y == k)]
        if rows.shape[0] < 2:
            continue
        sigma = rows.std(axis=0, ddof=1)
        per[k] = float(np.mean(1.0 - sigma / sigma_max))
        sizes[k] = rows.shape[0]
    if per_class:
        return per
    ok = ~np.isnan(per)
    if not ok.any():
        raise ValueError(
            "y has no class with at least 2 non-isolated nodes; structural homophily is undefined"
        )
    if weighting == "uniform":
        return float(np.mean(per[ok]))
    return float(np.sum(per[ok] * sizes[ok]) / np.sum(sizes[ok]))


def _grid(step: float) -> np.ndarray:
    k = int(np.floor(1.0 / step + 1e-9))
    return np.round(np.arange(-k, k + 1) * step, 12)


def _class_centre(z: np.ndarray, y: np.ndarray, num_classes: int) -> np.ndarray:
    sums = np.zeros((num_classes, z.shape[1]))
    np.add.at(sums, y, z)
    counts = np.bincount(y, minlength=num_classes).astype(np.float64)
    means = sums / np.maximum(counts, 1.0)[:, None]
    return z - means[y]


def feature_homophily(
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    grid_step: float = 0.01,
    per_feature: bool = False,
) -> float | np.ndarray:
    """h_F: per feature f, the grid value h in [-1, 1] minimising the within-class sum of
    squares v_f(h) = sum_i (x0_i - mean of x0 over i's class)^2 of x0 = (I - (h/rho(A)) A) x_f;
    returns the mean over features (or the array [F] with ``per_feature=True``).

    The grid is ``grid_step * k`` for the integers k with |grid_step * k| <= 1 (the authors'
    {-1.00, -0.99, ..., 1.00} by default); ties go to the smallest h, as ``argmin`` does in the
    authors' code. v_f is a quadratic in h, so the grid is scanned from three inner products per
    feature (one sparse product A X in all): O(E F + |grid| F).
    """
    y = check_labels(y)
    grid_step = check_float(grid_step, "grid_step", minimum=0.0, maximum=1.0, min_inclusive=False)
    per_feature = check_bool(per_feature, "per_feature")
    x = check_features(X, y.size)
    g = check_graph(edge_index, y.size)
    rho = _radius(g)
    c = int(y.max()) + 1
    r = _class_centre(x, y, c)
    s = _class_centre(np.asarray(g.adj @ x) / rho, y, c)
    rr = np.einsum("ij,ij->j", r, r)
    rs = np.einsum("ij,ij->j", r, s)
    ss = np.einsum("ij,ij->j", s, s)
    h = _grid(grid_step)
    v = rr[None, :] - 2.0 * h[:, None] * rs[None, :] + (h * h)[:, None] * ss[None, :]
    best = h[np.argmin(v, axis=0)]
    if per_feature:
        return best
    return float(np.mean(best))


def tri_hom(
    h_L: float,
    h_S: float,
    h_F: float,
    num_classes: int,
    *,
    rho: float = 1.0,
    graph_aware: bool = True,
) -> float:
    """Tri-Hom J_h (the authors' README formulas).

    lambda = (h_L C - 1)/(C - 1), kappa = h_F / rho,
    Q = C ((1 - h_L)/(C - 1))^2 + C (1 - h_S)^2/(C - 1) + lambda^2;
    graph-agnostic J^{notG} = (1 - kappa^2 Q) / (1 - kappa lambda)^2,
    graph-aware J^G = (lambda^2 / Q) J^{notG}.
    The README writes rho(A); ``rho=1`` (default) is the class-level normalisation.
    """
    h_L = check_probability(h_L, "h_L")
    h_S = check_probability(h_S, "h_S")
    h_F = check_float(h_F, "h_F", minimum=-1.0, maximum=1.0)
    c = check_int(num_classes, "num_classes", minimum=2)
    rho = check_float(rho, "rho", minimum=0.0, min_inclusive=False)
    graph_aware = check_bool(graph_aware, "graph_aware")
    lam = (h_L * c - 1.0) / (c - 1.0)
    kappa = h_F / rho
    q = c * ((1.0 - h_L) / (c - 1.0)) ** 2 + c * (1.0 - h_S) ** 2 / (c - 1.0) + lam**2
    denom = (1.0 - kappa * lam) ** 2
    if denom == 0.0:
        raise ValueError(
            f"h_F={h_F} with rho={rho} makes 1 - (h_F/rho) lambda = 0 (h_L={h_L}): J is infinite"
        )
    j_agnostic = (1.0 - kappa**2 * q) / denom
    if not graph_aware:
        return float(j_agnostic)
    return float(lam**2 / q * j_agnostic)


def tri_hom_from_graph(
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    rho: float | str = 1.0,
    graph_aware: bool = True,
    weighting: str = "uniform",
    grid_step: float = 0.01,
) -> float:
    """Tri-Hom of a graph: h_L, h_S, h_F measured, C = max(y) + 1, then :func:`tri_hom`.

    ``rho`` is a positive number or ``"spectral"`` for the graph's rho(A).
    """
    if isinstance(rho, str):
        rho = check_option(rho, "rho", ("spectral",))
    else:
        rho = check_float(rho, "rho", minimum=0.0, min_inclusive=False)
    yy = check_labels(y)
    h_l = label_homophily(edge_index, yy)
    h_s = structural_homophily(edge_index, yy, weighting=weighting)
    h_f = feature_homophily(edge_index, X, yy, grid_step=grid_step)
    if rho == "spectral":
        rho = _radius(check_graph(edge_index, yy.size))
    return tri_hom(h_l, h_s, h_f, int(yy.max()) + 1, rho=rho, graph_aware=graph_aware)
