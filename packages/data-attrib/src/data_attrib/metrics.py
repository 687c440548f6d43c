"""Ground truth by retraining, and the metrics that compare attributions with it.

Conventions: score matrices are ``[n_train, n_test]`` (numpy arrays or torch tensors),
**positive = helpful**. Retraining targets are "higher is better" quantities of each test
example (for example ``-test loss`` or a margin), so a helpful training example's removal
lowers the target.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ._checks import check_callable, check_int, check_probability, check_rng, describe
from ._validation import to_numpy_array

__all__ = [
    "LDSGroundTruth",
    "LOOGroundTruth",
    "lds",
    "loo_corr",
    "mislabel_auc",
    "retrain_lds",
    "retrain_loo",
]


def _rank(x: np.ndarray) -> np.ndarray:
    """Ranks along axis 0 (1-based, ties get their average rank), as scipy's rankdata."""
    out = np.empty(x.shape, dtype=np.float64)
    for j in np.ndindex(x.shape[1:]):
        col = x[(slice(None), *j)]
        order = np.argsort(col, kind="mergesort")
        xs = col[order]
        start = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
        counts = np.diff(np.r_[start, xs.size])
        ranks = np.empty(xs.size)
        ranks[order] = np.repeat(start + (counts + 1) / 2.0, counts)
        out[(slice(None), *j)] = ranks
    return out


def _column_pearson(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> np.ndarray:
    a = a - a.mean(axis=0)
    b = b - b.mean(axis=0)
    na = np.sqrt((a * a).sum(axis=0))
    nb = np.sqrt((b * b).sum(axis=0))
    for nrm, name in ((na, name_a), (nb, name_b)):
        bad = np.flatnonzero(nrm == 0)
        if bad.size:
            raise ValueError(
                f"{name} is constant for test column(s) {bad[:5].tolist()}: the correlation "
                "is undefined"
            )
    return (a * b).sum(axis=0) / (na * nb)


def _scores(scores: Any) -> np.ndarray:
    return to_numpy_array(scores, "scores", ndim=2)


def loo_corr(scores: Any, loo_change: Any) -> float:
    """Mean over test examples of the Pearson correlation, across training examples, between
    ``scores`` ``[n, n_test]`` and the retrained change ``loo_change`` ``[n, n_test]``
    (the drop of the target when each training example is left out, as
    :func:`retrain_loo` returns; for target = -loss it is the test-loss increase).

    Rows of ``scores`` must be the left-out examples, in ``loo_change``'s order. Needs n >= 2;
    a constant column raises ``ValueError``.
    """
    s = _scores(scores)
    c = to_numpy_array(loo_change, "loo_change", ndim=2)
    if c.shape != s.shape:
        raise ValueError(f"loo_change must have the shape of scores {s.shape}, got shape {c.shape}")
    if s.shape[0] < 2:
        raise ValueError(f"scores needs at least 2 rows (training examples), got {s.shape[0]}")
    return float(np.mean(_column_pearson(s, c, "scores", "loo_change")))


def _check_subsets(subsets: Any, n_train: int, n_subsets: int) -> np.ndarray:
    sub = to_numpy_array(subsets, "subsets", ndim=2, dtype="int")
    if sub.shape[0] != n_subsets:
        raise ValueError(
            f"subsets must have one row per row of targets ({n_subsets}), got {sub.shape[0]}"
        )
    if sub.min() < 0 or sub.max() >= n_train:
        raise ValueError(
            f"subsets must hold training indices in [0, {n_train}), got values in "
            f"[{sub.min()}, {sub.max()}]"
        )
    return sub


def lds(scores: Any, targets: Any, subsets: Any) -> float:
    """Linear datamodeling score: for each test example, the Spearman correlation across the
    ``S`` subsets between the summed scores of the subset's training examples and the
    retrained ``targets`` ``[S, n_test]`` (higher = better, e.g. -test loss); the mean over
    test examples. ``subsets``: int ``[S, k]`` training indices (:func:`retrain_lds`)."""
    s = _scores(scores)
    t = to_numpy_array(targets, "targets", ndim=2)
    if t.shape[1] != s.shape[1]:
        raise ValueError(
            f"targets must have one column per test example ({s.shape[1]}), got {t.shape[1]}"
        )
    if t.shape[0] < 2:
        raise ValueError(f"targets needs at least 2 subsets (rows), got {t.shape[0]}")
    sub = _check_subsets(subsets, s.shape[0], t.shape[0])
    pred = s[sub].sum(axis=1)  # [S, n_test]
    return float(np.mean(_column_pearson(_rank(pred), _rank(t), "scores", "targets")))


def mislabel_auc(self_scores: Any, is_flipped: Any) -> float:
    """ROC-AUC of ranking training examples by ``self_scores`` (high = suspect) against the
    boolean ``is_flipped`` (ties count one half)."""
    s = to_numpy_array(self_scores, "self_scores", ndim=1)
    if isinstance(is_flipped, np.ndarray | list | tuple) or hasattr(is_flipped, "detach"):
        f = to_numpy_array(is_flipped, "is_flipped", ndim=1, dtype="any")
    else:
        raise TypeError(f"is_flipped must be a boolean array, got {describe(is_flipped)}")
    if f.dtype.kind != "b":
        if not np.isin(f, (0, 1)).all():
            raise ValueError("is_flipped must be boolean (or 0/1), got other values")
        f = f.astype(bool)
    if f.shape[0] != s.shape[0]:
        raise ValueError(
            f"is_flipped has {f.shape[0]} entries but self_scores has {s.shape[0]}; they must match"
        )
    n_pos, n_neg = int(f.sum()), int((~f).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("is_flipped must contain both flipped and clean examples")
    r = _rank(s)
    return float((r[f].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _n_train(n_train: Any) -> int:
    if hasattr(n_train, "__len__") and not isinstance(n_train, str | bytes):
        n_train = len(n_train)
    return check_int(n_train, "n_train", minimum=1)


def _call_target(train_fn: Callable, idx: np.ndarray, n_test: int | None) -> np.ndarray:
    out = train_fn(idx)
    out = to_numpy_array(out, "train_fn's return value", ndim=1)
    if n_test is not None and out.shape[0] != n_test:
        raise ValueError(
            f"train_fn's return value changed length: {out.shape[0]} test targets, {n_test} before"
        )
    return out


class LDSGroundTruth(NamedTuple):
    """Retrained targets ``[S, n_test]`` and the ``[S, k]`` training indices of each subset
    (unpacks as ``targets, subsets`` and feeds ``lds(scores, *ground_truth)``)."""

    targets: np.ndarray
    subsets: np.ndarray

    def save(self, path: str | os.PathLike) -> None:
        """Write both arrays to ``path`` (``.npz``) so the ground truth is self-describing."""
        np.savez(path, targets=self.targets, subsets=self.subsets)

    @classmethod
    def load(cls, path: str | os.PathLike) -> LDSGroundTruth:
        """Read what :meth:`save` (or ``retrain_lds(..., path=...)``) wrote."""
        with np.load(path) as z:
            return cls(np.asarray(z["targets"]), np.asarray(z["subsets"]))


class LOOGroundTruth(NamedTuple):
    """``changes[j, t]`` = target(full set) - target(without ``indices[j]``) for test ``t``."""

    changes: np.ndarray
    indices: np.ndarray


def retrain_lds(
    train_fn: Callable,
    n_train: Any,
    *,
    n_subsets: int = 50,
    ratio: float = 0.5,
    rng: Any = None,
    path: str | os.PathLike | None = None,
) -> LDSGroundTruth:
    """Ground truth for :func:`lds`: retrain on ``n_subsets`` random subsets of
    ``round(ratio * n_train)`` training examples (without replacement, sorted indices).

    ``train_fn(indices)`` trains on the examples ``indices`` (an int64 array) and returns the
    target of every test example (1-d, higher = better, e.g. -test loss). ``n_train``: the
    training-set size or the dataset itself (its ``len``). ``path``: also write the targets
    and the subset indices to this ``.npz`` (:meth:`LDSGroundTruth.load` reads it back).
    """
    check_callable(train_fn, "train_fn")
    n = _n_train(n_train)
    S = check_int(n_subsets, "n_subsets", minimum=2)
    r = check_probability(ratio, "ratio", allow_zero=False)
    gen = check_rng(rng)
    k = int(round(r * n))
    if k < 1:
        raise ValueError(f"ratio * n_train must round to at least 1 example, got {r} * {n}")
    subsets = np.stack([np.sort(gen.choice(n, size=k, replace=False)) for _ in range(S)])
    subsets = subsets.astype(np.int64)
    rows, n_test = [], None
    for idx in subsets:
        out = _call_target(train_fn, idx.copy(), n_test)
        n_test = out.shape[0]
        rows.append(out)
    gt = LDSGroundTruth(np.stack(rows), subsets)
    if path is not None:
        gt.save(path)
    return gt


def retrain_loo(train_fn: Callable, n_train: Any, *, indices: Any = None) -> LOOGroundTruth:
    """Ground truth for :func:`loo_corr`: retrain without each of ``indices`` (default: every
    training example) and return the drop of each test target, target(full) - target(without
    i). ``train_fn`` as in :func:`retrain_lds`."""
    check_callable(train_fn, "train_fn")
    n = _n_train(n_train)
    if indices is None:
        idx = np.arange(n, dtype=np.int64)
    else:
        idx = to_numpy_array(indices, "indices", ndim=1, dtype="int")
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(
                f"indices must be in [0, {n}), got values in [{idx.min()}, {idx.max()}]"
            )
        if np.unique(idx).size != idx.size:
            raise ValueError("indices must not repeat")
    if n < 2:
        raise ValueError("n_train must be at least 2 to leave one out")
    everything = np.arange(n, dtype=np.int64)
    base = _call_target(train_fn, everything.copy(), None)
    rows = [base - _call_target(train_fn, np.delete(everything, i), base.shape[0]) for i in idx]
    return LOOGroundTruth(np.stack(rows), idx.astype(np.int64))
