"""Correlation of a homophily metric with model accuracy over a set of graphs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ._checks import check_array, check_same_length

__all__ = ["Correlation", "correlate"]


@dataclass(frozen=True)
class Correlation:
    """Pearson and Spearman correlation (with two-sided p-values) over ``n`` graphs."""

    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float
    n: int


def correlate(metric: Any, accuracy: Any) -> Correlation:
    """Correlate a metric's values with accuracies, one pair per graph (at least 3, neither
    constant)."""
    m = check_array(metric, "metric", ndim=1)
    a = check_array(accuracy, "accuracy", ndim=1)
    check_same_length(metric=m, accuracy=a)
    if m.size < 3:
        raise ValueError(f"metric must hold at least 3 values, got {m.size}")
    for name, v in (("metric", m), ("accuracy", a)):
        if np.all(v == v[0]):
            raise ValueError(f"{name} is constant; its correlation is undefined")
    pr = stats.pearsonr(m, a)
    sr = stats.spearmanr(m, a)
    return Correlation(
        pearson=float(pr[0]),
        pearson_p=float(pr[1]),
        spearman=float(sr[0]),
        spearman_p=float(sr[1]),
        n=int(m.size),
    )
