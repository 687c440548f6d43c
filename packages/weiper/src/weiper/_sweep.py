"""Hyper-parameter sweep of WeiPer+KLD on a validation ID/OOD split (the OpenOOD protocol)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from papershelf_ood import auroc, msp

from ._core import WeiPerKLD, _block_mean, _eps_pair, _features, _layer, _logit_blocks
from ._histogram import histogram_rows, symmetric_kl, uniform_smooth

__all__ = ["PAPER_GRID", "SweepResult", "sweep"]

#: the authors' sweep grid (configs/postprocessors/weiper_kldiv.yml)
PAPER_GRID = {
    "delta": (1.8, 2.0, 2.2, 2.4),
    "n_bins": (60, 80, 100),
    "s1": (4, 8, 12, 20, 40),
    "s2": (15, 25, 40),
    "lambda1": (0.1, 1.0, 2.5, 4.0),
    "lambda2": (0.1, 0.25, 1.0, 2.5, 5.0),
}


@dataclass(frozen=True)
class SweepResult:
    """``best``: the WeiPerKLD keyword arguments of the highest validation AUROC
    (``best_auroc``); ``results``: every ``(params, auroc)`` tried, in grid order."""

    best: dict
    best_auroc: float
    results: tuple


def _grid(grid) -> dict:
    if grid is None:
        return dict(PAPER_GRID)
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict of lists or None, got {type(grid).__name__}")
    unknown = set(grid) - set(PAPER_GRID)
    if unknown:
        raise ValueError(f"grid has unknown keys {sorted(unknown)}; known: {list(PAPER_GRID)}")
    out = dict(PAPER_GRID)
    for key, values in grid.items():
        values = tuple(values) if isinstance(values, list | tuple) else (values,)
        if not values:
            raise ValueError(f"grid[{key!r}] must not be empty")
        out[key] = values
    return out


def sweep(Z_train, Z_val_id, Z_val_ood, W, b, *, grid=None, r=100, eps=(0.01, 0.025), rng=None):
    """Pick WeiPerKLD's hyper-parameters by validation AUROC (ID ``Z_val_id`` vs OOD
    ``Z_val_ood``). ``grid`` overrides entries of :data:`PAPER_GRID` (keys ``delta``,
    ``n_bins``, ``s1``, ``s2``, ``lambda1``, ``lambda2``); unspecified keys use the paper's
    grid. One fit per (delta, n_bins); the histograms are reused for every smoothing width and
    weight, so a full paper grid (3600 settings) costs 12 fits. Use an int ``rng`` so that the
    chosen setting can be refitted with the same ``W_tilde``: ``WeiPerKLD(**best, r=r, eps=eps,
    rng=rng)``."""
    W, b = _layer(W, b)
    D = W.shape[1]
    Z_tr = _features(Z_train, "Z_train", D)
    Z_id = _features(Z_val_id, "Z_val_id", D)
    Z_ood = _features(Z_val_ood, "Z_val_ood", D)
    g = _grid(grid)
    eps = _eps_pair(eps)
    probe = WeiPerKLD(r=r, eps=eps, rng=rng)  # validates r and rng
    for key in ("delta", "n_bins", "s1", "s2", "lambda1", "lambda2"):  # validates the grid
        for v in g[key]:
            try:
                WeiPerKLD(**{key: v})
            except (TypeError, ValueError) as e:
                raise type(e)(f"grid[{key!r}]: {e}") from None
    n_id = Z_id.shape[0]
    Z_val = np.concatenate([Z_id, Z_ood])
    results = []
    for delta, n_bins in itertools.product(g["delta"], g["n_bins"]):
        det = WeiPerKLD(r=probe.r, delta=delta, n_bins=n_bins, eps=eps, rng=rng).fit(Z_tr, W, b)
        h_z = histogram_rows(Z_val, *det.z_range_, n_bins)
        parts = [
            (histogram_rows(lg, *det.wz_range_, n_bins), _block_mean(lg, det.r, msp))
            for _, _, lg in _logit_blocks(Z_val, det.W_tilde_, det.b_tilde_)
        ]
        h_wz = np.concatenate([p[0] for p in parts])
        msp_w = np.concatenate([p[1] for p in parts])
        d_z = {s: symmetric_kl(det.q_z_, uniform_smooth(h_z, s), eps=eps[0]) for s in g["s1"]}
        d_wz = {s: symmetric_kl(det.q_wz_, uniform_smooth(h_wz, s), eps=eps[1]) for s in g["s2"]}
        for s1, s2, l1, l2 in itertools.product(g["s1"], g["s2"], g["lambda1"], g["lambda2"]):
            score = -(d_z[s1] + l1 * d_wz[s2] - l2 * msp_w)
            params = dict(delta=delta, n_bins=n_bins, s1=s1, s2=s2, lambda1=l1, lambda2=l2)
            results.append((params, auroc(score[:n_id], score[n_id:])))
    best, best_auroc = max(results, key=lambda item: item[1])
    return SweepResult(best=dict(best), best_auroc=float(best_auroc), results=tuple(results))
