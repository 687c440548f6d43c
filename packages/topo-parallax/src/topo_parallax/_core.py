"""Admissible edges, flag-complex persistence and the parallax filtration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree

from ._checks import check_array, check_callable, check_float, check_int, describe

#: Most points handed to the model in one call (the segment samples are batched up to this).
BATCH_POINTS = 65536

Model = Callable[[np.ndarray], Any]


def _check_X(X: Any) -> np.ndarray:
    return check_array(X, "X", ndim=2).astype(np.float64, copy=False)


def _check_r_max(r_max: Any) -> float:
    if r_max is None:
        return np.inf
    return check_float(r_max, "r_max", minimum=0.0, min_inclusive=False, finite=False)


def _check_taus(taus: Any) -> list[float]:
    if isinstance(taus, bool | np.bool_):
        raise TypeError(f"taus must be a number or a 1-D array of numbers, got {describe(taus)}")
    arr = check_array(taus, "taus", ndim=(0, 1))
    values = [float(t) for t in np.atleast_1d(arr)]
    for t in values:
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"taus must lie in [0, 1], got {t!r}")
    return values


def evaluate_model(f: Model, points: np.ndarray) -> np.ndarray:
    """Call ``f`` on ``points`` (B, D) and check that it returns B confidences in [0, 1].

    A result that is not numeric raises ``TypeError`` naming ``f``; a wrong shape, NaN/inf or a
    value outside [0, 1] raises ``ValueError`` naming ``f``. Nothing is clipped.
    """
    check_callable(f, "f")
    points = np.asarray(points, dtype=np.float64)
    out = f(points)
    try:
        arr = np.asarray(out)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"f must return a numeric array, got {describe(out)}") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.floating)
        or np.issubdtype(arr.dtype, np.integer)
        or arr.dtype == np.bool_
    ):
        raise TypeError(f"f must return a numeric array of shape (B,), got {describe(out)}")
    b = points.shape[0]
    if arr.shape != (b,):
        raise ValueError(
            f"f must map points of shape (B, D) to shape (B,); for B={b} it returned shape "
            f"{arr.shape}"
        )
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("f returned NaN or inf; a model must return confidences in [0, 1]")
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(
            f"f must return confidences in [0, 1], got values in [{arr.min()!r}, {arr.max()!r}]"
        )
    return arr


def _candidate_pairs(X: np.ndarray, r_max: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs i < j with ||x_i - x_j|| <= r_max, in lexicographic order, and their lengths."""
    n = X.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0)
    if np.isinf(r_max):
        i, j = np.triu_indices(n, k=1)
    else:
        # the tree prefilters with a little slack; the exact test below uses the same lengths
        # as everything else
        pairs = cKDTree(X).query_pairs(r_max * (1 + 1e-9) + 1e-300, output_type="ndarray")
        if pairs.size == 0:
            return np.zeros((0, 2), dtype=np.int64), np.zeros(0)
        pairs = np.sort(pairs, axis=1)
        order = np.lexsort((pairs[:, 1], pairs[:, 0]))
        i, j = pairs[order, 0], pairs[order, 1]
    lengths = np.linalg.norm(X[j] - X[i], axis=1)
    keep = lengths <= r_max
    edges = np.stack([i[keep], j[keep]], axis=1).astype(np.int64)
    return edges, lengths[keep]


def admissible_edges(
    X: Any, f: Model, *, r_max: float | None = None, m: int = 32
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate edge of ``X`` with the least model confidence along its segment.

    Parameters
    ----------
    X : (n, D) array
        Reference points.
    f : callable
        The model: ``f(points (B, D)) -> (B,)`` confidences in [0, 1].
    r_max : float or None
        Only pairs with ``||x_i - x_j|| <= r_max`` are edges (``None``: all pairs).
    m : int >= 2
        Samples per segment: ``x_i + t (x_j - x_i)`` for ``t = k / (m - 1)``, ``k = 0..m-1``
        (both endpoints included), all edges batched into few model calls.

    Returns
    -------
    edges : (E, 2) int64 array, ``i < j``, lexicographic order
    lengths : (E,) float64, Euclidean lengths
    min_conf : (E,) float64, the minimum of ``f`` over the ``m`` samples of each segment; the
        edge is admissible at level ``tau`` iff ``min_conf >= tau``.
    """
    X = _check_X(X)
    check_callable(f, "f")
    r = _check_r_max(r_max)
    m = check_int(m, "m", minimum=2)
    edges, lengths = _candidate_pairs(X, r)
    e = edges.shape[0]
    min_conf = np.empty(e)
    if e == 0:
        return edges, lengths, min_conf
    t = np.arange(m, dtype=np.float64) / (m - 1)
    per_call = max(1, BATCH_POINTS // m)
    d = X.shape[1]
    for start in range(0, e, per_call):
        stop = min(e, start + per_call)
        a = X[edges[start:stop, 0]]
        step = X[edges[start:stop, 1]] - a
        pts = a[:, None, :] + t[None, :, None] * step[:, None, :]
        conf = evaluate_model(f, pts.reshape(-1, d))
        min_conf[start:stop] = conf.reshape(stop - start, m).min(axis=1)
    return edges, lengths, min_conf


def _flag(n: int, edges: np.ndarray, lengths: np.ndarray, maxdim: int) -> list[np.ndarray]:
    from ripser import ripser

    # an explicit sparse matrix: absent entries are edges never added. COO entries are passed to
    # ripser as they are, so a zero length (duplicate points) stays an edge and is not dropped.
    dm = sparse.coo_matrix((lengths.astype(np.float64), (edges[:, 0], edges[:, 1])), shape=(n, n))
    res = ripser(dm, maxdim=maxdim, distance_matrix=True)
    out = []
    for dgm in res["dgms"]:
        dgm = np.asarray(dgm, dtype=np.float64).reshape(-1, 2)
        order = np.lexsort((dgm[:, 1], dgm[:, 0]))
        out.append(dgm[order])
    while len(out) < maxdim + 1:  # pragma: no cover - ripser always returns maxdim + 1
        out.append(np.zeros((0, 2)))
    return out


def flag_diagrams(
    n_vertices: int, edges: Any, lengths: Any, *, maxdim: int = 1
) -> list[np.ndarray]:
    """Persistence diagrams of the flag complex of a weighted graph (vertices born at 0).

    A simplex enters when its longest edge does; pairs absent from ``edges`` are never added.
    Returns ``[H0, H1, ..., H_maxdim]``, each ``(k, 2)`` (birth, death) sorted by birth, with
    ``inf`` deaths for essential classes. Computed with ripser on a sparse distance matrix.
    """
    n = check_int(n_vertices, "n_vertices", minimum=1)
    edges = check_array(edges, "edges", dtype="int", ndim=2, allow_empty=True)
    if edges.size == 0:
        edges = edges.reshape(0, 2)
    if edges.shape[1] != 2:
        raise ValueError(f"edges must have shape (E, 2), got {edges.shape}")
    lengths = check_array(lengths, "lengths", ndim=1, allow_empty=True)
    if lengths.shape[0] != edges.shape[0]:
        raise ValueError(
            f"lengths must have one entry per edge: {edges.shape[0]} edges, "
            f"{lengths.shape[0]} lengths"
        )
    if np.any(lengths < 0):
        raise ValueError("lengths must be non-negative")
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise ValueError(f"edges must index vertices 0..{n - 1}, got {edges.min()}..{edges.max()}")
    if np.any(edges[:, 0] == edges[:, 1]):
        raise ValueError("edges must join two different vertices (no loops)")
    maxdim = check_int(maxdim, "maxdim", minimum=0)
    a, b = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
    key = a.astype(np.int64) * n + b
    if np.unique(key).size != key.size:
        raise ValueError("edges must not repeat a pair")
    return _flag(n, np.stack([a, b], axis=1), lengths, maxdim)


def rips_diagrams(X: Any, *, maxdim: int = 1, r_max: float | None = None) -> list[np.ndarray]:
    """Vietoris-Rips persistence diagrams of ``X`` (Euclidean), edges up to ``r_max``.

    Returns ``[H0, ..., H_maxdim]``, each ``(k, 2)``, ``inf`` death for classes alive at
    ``r_max`` (or forever). Uses the same edge lengths as :func:`parallax_diagrams`, so the
    parallax diagrams of a model accepting everything equal these exactly.
    """
    X = _check_X(X)
    maxdim = check_int(maxdim, "maxdim", minimum=0)
    r = _check_r_max(r_max)
    edges, lengths = _candidate_pairs(X, r)
    return _flag(X.shape[0], edges, lengths, maxdim)


def _diagrams_from_edges(n, edges, lengths, min_conf, taus, maxdim):
    # the admissible sets are nested in tau, so the number of admissible edges identifies the set:
    # levels that admit the same edges share one persistence computation
    out: dict[float, list[np.ndarray]] = {}
    by_count: dict[int, list[np.ndarray]] = {}
    for tau in taus:
        if tau in out:
            continue
        keep = min_conf >= tau
        count = int(np.count_nonzero(keep))
        if count not in by_count:
            by_count[count] = _flag(n, edges[keep], lengths[keep], maxdim)
        out[tau] = [d.copy() for d in by_count[count]]
    return out


def _prepare(X, f, taus, maxdim, r_max, m):
    """Checked arguments and the admissible edges shared by every level."""
    X = _check_X(X)
    check_callable(f, "f")
    taus = _check_taus(taus)
    maxdim = check_int(maxdim, "maxdim", minimum=0)
    edges, lengths, min_conf = admissible_edges(X, f, r_max=r_max, m=m)
    return X, taus, maxdim, edges, lengths, min_conf


def parallax_diagrams(
    X: Any,
    f: Model,
    taus: Any,
    *,
    maxdim: int = 1,
    r_max: float | None = None,
    m: int = 32,
) -> dict[float, list[np.ndarray]]:
    """Persistence diagrams of the parallax filtration for each confidence level ``tau``.

    For each ``tau`` the complex at scale ``r`` is the flag complex on ``X`` with edge
    ``{x_i, x_j}`` iff ``||x_i - x_j|| <= min(r, r_max)`` and the sampled segment stays in
    ``{f >= tau}`` (:func:`admissible_edges`, one batched pass of model calls for all ``tau``).

    Returns ``{float(tau): [H0, ..., H_maxdim]}`` in the order of ``taus``; each diagram
    ``(k, 2)`` with ``inf`` deaths for essential classes.
    """
    X, taus, maxdim, edges, lengths, min_conf = _prepare(X, f, taus, maxdim, r_max, m)
    return _diagrams_from_edges(X.shape[0], edges, lengths, min_conf, taus, maxdim)
