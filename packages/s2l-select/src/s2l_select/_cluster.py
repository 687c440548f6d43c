"""K-means on loss trajectories (scikit-learn or faiss)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_int, check_option, check_rng
from ._validation import check_trajectories

__all__ = ["cluster_trajectories"]


def cluster_trajectories(
    trajectories: Any,
    *,
    n_clusters: int = 100,
    n_iter: int = 20,
    backend: str = "sklearn",
    rng: Any = None,
) -> np.ndarray:
    """Cluster the rows of a loss-trajectory matrix with K-means (L2), k-means++ seeding.

    Parameters
    ----------
    trajectories
        ``[n, T]`` per-example losses at T checkpoints (any real dtype, a float16 memmap too).
        NaN becomes 0 as in the original S2L code; +-inf raises ``ValueError``.
    n_clusters
        K, at most n (the paper's ``n_components`` = 100).
    n_iter
        Lloyd iterations (the paper: 20, faiss' ``niter``).
    backend
        ``"sklearn"`` (``KMeans``, one k-means++ start, ``max_iter=n_iter``, ``tol=0``) or
        ``"faiss"`` (``faiss.Kmeans`` with ``niter=n_iter``; like faiss' default and the
        original code it trains on a uniform sample of at most 256 points per centroid, seeded
        by k-means++ on that sample, then assigns every row to its nearest centroid). faiss is
        optional: ``pip install s2l-select[faiss]``.
    rng
        None, an int seed or a ``numpy.random.Generator``.

    Returns
    -------
    labels : int64 array ``[n]`` with values in ``[0, n_clusters)``.
    """
    x = check_trajectories(trajectories)
    n_clusters = check_int(n_clusters, "n_clusters", minimum=1)
    n_iter = check_int(n_iter, "n_iter", minimum=1)
    backend = check_option(backend, "backend", ("sklearn", "faiss"))
    gen = check_rng(rng)
    n = x.shape[0]
    if n_clusters > n:
        raise ValueError(
            f"n_clusters must be <= the number of trajectories ({n}), got {n_clusters}"
        )
    seed = int(gen.integers(0, 2**31 - 1))
    if backend == "sklearn":
        return _sklearn_kmeans(x, n_clusters, n_iter, seed)
    return _faiss_kmeans(x, n_clusters, n_iter, seed)


def _sklearn_kmeans(x: np.ndarray, k: int, n_iter: int, seed: int) -> np.ndarray:
    import warnings

    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    km = KMeans(
        n_clusters=k, init="k-means++", n_init=1, max_iter=n_iter, tol=0.0, random_state=seed
    )
    with warnings.catch_warnings():
        # duplicate rows (e.g. many NaN -> 0 trajectories) give fewer distinct points than K
        warnings.simplefilter("ignore", ConvergenceWarning)
        labels = km.fit_predict(x)
    return np.asarray(labels, dtype=np.int64)


_FAISS_POINTS_PER_CENTROID = 256


def _faiss_kmeans(x: np.ndarray, k: int, n_iter: int, seed: int) -> np.ndarray:
    try:
        import faiss
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            'backend="faiss" needs faiss: pip install "s2l-select[faiss]" (or faiss-cpu)'
        ) from e
    from sklearn.cluster import kmeans_plusplus

    x32 = np.ascontiguousarray(x, dtype=np.float32)
    n = x32.shape[0]
    # faiss trains on at most 256 points per centroid (its default, as in the original code):
    # draw that training sample here and seed it with k-means++ on the same points
    cap = _FAISS_POINTS_PER_CENTROID * k
    if n > cap:
        sample = np.sort(np.random.default_rng(seed).choice(n, cap, replace=False))
        train = x32[sample]
    else:
        train = x32
    init, _ = kmeans_plusplus(train, k, random_state=seed)
    km = faiss.Kmeans(
        x32.shape[1],
        k,
        niter=n_iter,
        seed=seed,
        verbose=False,
        max_points_per_centroid=_FAISS_POINTS_PER_CENTROID,
    )
    km.train(train, init_centroids=np.ascontiguousarray(init, dtype=np.float32))
    _, assign = km.index.search(x32, 1)
    return assign[:, 0].astype(np.int64)
