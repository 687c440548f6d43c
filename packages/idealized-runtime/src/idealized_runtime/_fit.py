"""Fitting the cost model from timing records (p, o, seconds), as in the paper's section 3."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_array, check_option
from ._cost_model import CostModel

__all__ = ["FitReport", "denoise", "fit_cost_model"]

_AGG = {"min": np.min, "median": np.median, "mean": np.mean}


@dataclass(frozen=True, eq=False)
class FitReport:
    """Goodness of fit of the fitted model on the aggregated cells.

    ``r2``: coefficient of determination; ``mse``: mean squared error (s²); ``max_sq_err``:
    largest squared error (s²); ``median_rel_err``: median of ``|pred - T| / T``;
    ``n_cells``: number of distinct (p, o) cells; ``cells``: the aggregated ``(m, 3)`` array
    ``(p, o, seconds)`` the model was fitted on.
    """

    r2: float
    mse: float
    max_sq_err: float
    median_rel_err: float
    n_cells: int
    cells: np.ndarray


def _check_records(records: Any) -> np.ndarray:
    arr = check_array(records, "records", dtype="numeric", ndim=2, shape=(None, 3))
    arr = arr.astype(np.float64, copy=False)
    p, o, s = arr[:, 0], arr[:, 1], arr[:, 2]
    if np.any(p != np.round(p)) or np.any(o != np.round(o)):
        raise ValueError(
            "records: prompt sizes p and output sizes o (columns 0, 1) must be integers"
        )
    if p.min() < 1:
        raise ValueError(f"records: prompt sizes p must be >= 1, got {p.min():g}")
    if o.min() < 1:
        raise ValueError(f"records: output sizes o must be >= 1, got {o.min():g}")
    if s.min() < 0:
        raise ValueError(f"records: seconds (column 2) must be >= 0, got {s.min():g}")
    return arr


def denoise(records: Any, *, aggregate: str = "min") -> np.ndarray:
    """Aggregate repeated timings per (p, o) cell: ``(m, 3)`` rows ``(p, o, seconds)`` sorted by
    (p, o). ``"min"`` is the paper's denoising (it drops queueing and contention delays)."""
    arr = _check_records(records)
    check_option(aggregate, "aggregate", tuple(_AGG))
    cells, inverse = np.unique(arr[:, :2], axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    fn = _AGG[aggregate]
    order = np.argsort(inverse, kind="stable")
    splits = np.cumsum(np.bincount(inverse, minlength=len(cells)))[:-1]
    groups = np.split(arr[order, 2], splits)
    t = np.array([fn(g) for g in groups], dtype=np.float64)
    return np.column_stack([cells, t])


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares line y = a + b x; returns (a, b)."""
    xm, ym = x.mean(), y.mean()
    sxx = float(np.sum((x - xm) ** 2))
    b = float(np.sum((x - xm) * (y - ym)) / sxx)
    return float(ym - b * xm), b


def fit_cost_model(
    records: Any, *, aggregate: str = "min", alpha: str = "o1"
) -> tuple[CostModel, FitReport]:
    """Fit ``T(p, o) = alpha(p) + beta (o - 1)`` to timing records.

    Parameters
    ----------
    records
        ``(n, 3)`` rows ``(p, o, seconds)``; repeated rows of a cell are aggregated first.
    aggregate
        ``"min"`` (denoising, the paper's choice), ``"median"`` or ``"mean"``.
    alpha
        ``"o1"``: ``alpha(p) = T(p, 1)``, the measured cell at one output token (every prompt
        size needs an ``o = 1`` row). ``"regression"``: per prompt size, the OLS line of ``T``
        on ``o`` evaluated at ``o = 1``, floored at the value found for the smallest prompt size.

    ``beta`` is the least-squares slope (with intercept, the intercept discarded) of
    ``T(p, o) - alpha(p)`` against ``o - 1``, all cells pooled. Returns ``(CostModel, FitReport)``.
    """
    check_option(aggregate, "aggregate", tuple(_AGG))
    check_option(alpha, "alpha", ("o1", "regression"))
    cells = denoise(records, aggregate=aggregate)
    p, o, t = cells[:, 0].astype(np.int64), cells[:, 1].astype(np.int64), cells[:, 2]
    if np.unique(o).size < 2:
        raise ValueError(
            f"records must hold at least two distinct output sizes to fit beta, got only o = {o[0]}"
        )
    sizes = np.unique(p)
    a = np.empty(len(sizes))
    for i, k in enumerate(sizes):
        m = p == k
        if alpha == "o1":
            hit = m & (o == 1)
            if not hit.any():
                raise ValueError(
                    f"records has no o = 1 row for prompt size p = {k}; alpha='o1' needs T(p, 1)"
                )
            a[i] = t[hit][0]
        else:
            if np.unique(o[m]).size < 2:
                if not np.any(m & (o == 1)):
                    raise ValueError(
                        f"records has no o = 1 row for prompt size p = {k} and too few output "
                        "sizes for alpha='regression' (needs two distinct o, or o = 1)"
                    )
                a[i] = t[m & (o == 1)][0]
            else:
                icpt, slope = _ols(o[m].astype(np.float64) - 1.0, t[m])
                a[i] = icpt
    if alpha == "regression":
        a = np.maximum(a, a[0])
    if a[0] < 0:
        raise ValueError(
            f"records give a negative alpha at p = {sizes[0]} ({a[0]:g} s); cannot fit a cost model"
        )
    alpha_of = dict(zip(sizes.tolist(), a.tolist(), strict=True))
    resid = t - a[np.searchsorted(sizes, p)]
    _, beta = _ols(o.astype(np.float64) - 1.0, resid)
    if beta < 0:
        raise ValueError(
            f"records give a negative per-output-token time (beta = {beta:g} s); runtime must "
            "grow with the number of output tokens"
        )
    model = CostModel(alpha_of, beta)
    pred = model.runtime(p, o)
    err = pred - t
    sq = err**2
    ss_tot = float(np.sum((t - t.mean()) ** 2))
    r2 = 1.0 - float(np.sum(sq)) / ss_tot if ss_tot > 0 else (1.0 if not sq.any() else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(err) / t
    rel = np.where(t > 0, rel, np.where(err == 0, 0.0, np.inf))
    report = FitReport(
        r2=r2,
        mse=float(np.mean(sq)),
        max_sq_err=float(np.max(sq)),
        median_rel_err=float(np.median(rel)),
        n_cells=len(cells),
        cells=cells,
    )
    return model, report
