"""Comparing the parallax diagrams with the Rips diagrams of the data."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_array
from ._core import _diagrams_from_edges, _flag, _prepare


def _check_diagram(d: Any, name: str) -> np.ndarray:
    arr = check_array(d, name, ndim=2, allow_empty=True, finite=False)
    if arr.size == 0:
        return np.zeros((0, 2))
    if arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (k, 2), got {arr.shape}")
    if np.any(np.isnan(arr)) or np.any(np.isinf(arr[:, 0])):
        raise ValueError(f"{name} must have finite births and no NaN")
    if np.any(arr[:, 1] < arr[:, 0]):
        raise ValueError(f"{name} has a death before its birth")
    return arr


def _finite_bottleneck(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Bottleneck distance of two finite diagrams (persim) and which bars of ``b`` go to the
    diagonal in the optimal matching (a boolean mask over ``b``)."""
    if a.shape[0] == 0 and b.shape[0] == 0:
        return 0.0, np.zeros(0, dtype=bool)
    if a.shape[0] == 0:
        return float(np.max(b[:, 1] - b[:, 0]) / 2), np.ones(b.shape[0], dtype=bool)
    if b.shape[0] == 0:
        return float(np.max(a[:, 1] - a[:, 0]) / 2), np.zeros(0, dtype=bool)
    from persim import bottleneck

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        d, matching = bottleneck(a, b, matching=True)
    to_diag = np.zeros(b.shape[0], dtype=bool)
    for i, j, _ in np.asarray(matching).reshape(-1, 3):
        if int(i) == -1 and int(j) >= 0:
            to_diag[int(j)] = True
    return float(d), to_diag


def _compare(a: np.ndarray, b: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(bottleneck, finite-part bottleneck, bars of b left unmatched by a)."""
    ea, eb = np.isinf(a[:, 1]), np.isinf(b[:, 1])
    fin, to_diag = _finite_bottleneck(a[~ea], b[~eb])
    births_a, births_b = np.sort(a[ea, 0]), b[eb, 0]
    order_b = np.argsort(births_b, kind="stable")
    k = min(births_a.size, births_b.size)
    if births_a.size != births_b.size:
        total = np.inf
    else:
        ess = float(np.max(np.abs(births_a - births_b[order_b]))) if k else 0.0
        total = max(fin, ess)
    # essential bars of b beyond the k matched (by birth order) are unmatched
    extra = b[eb][order_b[k:]]
    unmatched = np.concatenate([b[~eb][to_diag], extra], axis=0).reshape(-1, 2)
    return total, fin, unmatched[np.lexsort((unmatched[:, 1], unmatched[:, 0]))]


def bottleneck_distance(dgm_a: Any, dgm_b: Any) -> float:
    """Bottleneck distance between two diagrams ``(k, 2)`` that may hold essential bars.

    Finite bars: persim's bottleneck. Essential bars (``inf`` death) can only match each other
    (sorted by birth); if the two diagrams have different numbers of them the distance is ``inf``.
    """
    a = _check_diagram(dgm_a, "dgm_a")
    b = _check_diagram(dgm_b, "dgm_b")
    return _compare(a, b)[0]


@dataclass(frozen=True)
class ParallaxReport:
    """Parallax versus Rips, per ``tau`` (dict keys) and homology dimension (tuple index).

    Attributes
    ----------
    taus : the levels, in the order given
    rips : Rips diagrams of the data ``[H0, ..., H_maxdim]``
    parallax : ``{tau: [H0, ..., H_maxdim]}`` parallax diagrams
    bottleneck : ``{tau: (d_0, ..., d_maxdim)}`` bottleneck distance to the Rips diagram (``inf``
        when the numbers of essential bars differ)
    bottleneck_finite : the same between the finite parts only (persim)
    essential_rips : essential bars of Rips per dimension
    essential_parallax : ``{tau: (count_0, ...)}`` essential bars of the parallax diagrams
    unmatched : ``{tau: [bars of H0, bars of H1, ...]}`` parallax bars not matched to a Rips bar:
        finite bars the optimal bottleneck matching sends to the diagonal, plus essential bars in
        excess of the Rips ones (essential bars are matched in order of birth, so the
        latest-born surplus ones are the unmatched)
    n_edges : candidate edges (pairs with length <= r_max)
    n_admissible : ``{tau: edges with min_conf >= tau}``
    """

    taus: tuple[float, ...]
    rips: list[np.ndarray]
    parallax: dict[float, list[np.ndarray]]
    bottleneck: dict[float, tuple[float, ...]]
    bottleneck_finite: dict[float, tuple[float, ...]]
    essential_rips: tuple[int, ...]
    essential_parallax: dict[float, tuple[int, ...]]
    unmatched: dict[float, list[np.ndarray]]
    n_edges: int
    n_admissible: dict[float, int]

    @property
    def fraction_admissible(self) -> dict[float, float]:
        """``n_admissible / n_edges`` per ``tau`` (1.0 when there are no candidate edges)."""
        return {
            t: (k / self.n_edges if self.n_edges else 1.0) for t, k in self.n_admissible.items()
        }


def _essential(dgms: list[np.ndarray]) -> tuple[int, ...]:
    return tuple(int(np.isinf(d[:, 1]).sum()) for d in dgms)


def parallax_report(
    X: Any,
    f: Any,
    taus: Any,
    *,
    maxdim: int = 1,
    r_max: float | None = None,
    m: int = 32,
) -> ParallaxReport:
    """Rips and parallax diagrams of ``X`` for each ``tau``, and how they differ.

    One batched pass of model calls (:func:`admissible_edges`) serves every ``tau``; see
    :class:`ParallaxReport` for the fields.
    """
    X, taus, maxdim, edges, lengths, min_conf = _prepare(X, f, taus, maxdim, r_max, m)
    n = X.shape[0]
    rips = _flag(n, edges, lengths, maxdim)
    par = _diagrams_from_edges(n, edges, lengths, min_conf, taus, maxdim)
    bott, bfin, unm = {}, {}, {}
    for tau, dgms in par.items():
        rows = [_compare(r, p) for r, p in zip(rips, dgms, strict=True)]
        bott[tau] = tuple(r[0] for r in rows)
        bfin[tau] = tuple(r[1] for r in rows)
        unm[tau] = [r[2] for r in rows]
    return ParallaxReport(
        taus=tuple(par),
        rips=rips,
        parallax=par,
        bottleneck=bott,
        bottleneck_finite=bfin,
        essential_rips=_essential(rips),
        essential_parallax={t: _essential(d) for t, d in par.items()},
        unmatched=unm,
        n_edges=int(edges.shape[0]),
        n_admissible={t: int(np.count_nonzero(min_conf >= t)) for t in par},
    )
