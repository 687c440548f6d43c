"""The parallax complex at one level as a gudhi SimplexTree (the optional ``gudhi`` extra)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_callable, check_float, check_int
from ._core import _check_X, admissible_edges


def parallax_simplex_tree(
    X: Any, f: Any, tau: float, *, maxdim: int = 1, r_max: float | None = None, m: int = 32
) -> Any:
    """The parallax flag complex at level ``tau`` as a ``gudhi.SimplexTree``.

    Vertices enter at 0, each admissible edge (``min_conf >= tau``) at its length, and the flag
    complex is expanded up to dimension ``maxdim + 1`` (what homology up to ``maxdim`` needs),
    so gudhi's persistence, cohomology and distances apply. Needs ``pip install
    "topo-parallax[gudhi]"``.
    """
    X = _check_X(X)
    check_callable(f, "f")
    tau = check_float(tau, "tau", minimum=0.0, maximum=1.0)
    maxdim = check_int(maxdim, "maxdim", minimum=0)
    try:
        import gudhi
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'parallax_simplex_tree needs gudhi: pip install "topo-parallax[gudhi]"'
        ) from exc
    edges, lengths, min_conf = admissible_edges(X, f, r_max=r_max, m=m)
    keep = min_conf >= tau
    st = gudhi.SimplexTree()
    for v in range(X.shape[0]):
        st.insert([v], 0.0)
    for (i, j), length in zip(edges[keep].tolist(), lengths[keep].tolist(), strict=True):
        st.insert([i, j], float(length))
    st.expansion(maxdim + 1)
    return st


def _intervals(st: Any, maxdim: int) -> list[np.ndarray]:
    """[H0, ..., H_maxdim] of a SimplexTree (test helper)."""
    st.compute_persistence(persistence_dim_max=True)
    out = []
    for k in range(maxdim + 1):
        d = np.asarray(st.persistence_intervals_in_dimension(k), dtype=float).reshape(-1, 2)
        out.append(d)
    return out
