"""Fuzzy reasoning over symbol probabilities, vectorised.

``P[i, s]`` is the probability that symbol ``s`` holds in image ``i``. A rule's truth is a
t-norm of its premises' probabilities (Gödel ``"min"`` as in the released evaluation;
``"product"`` and ``"lukasiewicz"`` as options); an activity's evidence is the maximum over its
rules (Gödel t-conorm), 0 for an activity without rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_int, check_option

__all__ = ["TNORMS", "activity_scores", "rule_scores", "t_norm", "yes_no_prob"]

TNORMS = ("min", "product", "lukasiewicz")


def yes_no_prob(ly: Any, ln: Any) -> Any:
    """p(symbol) from a VLM's language-model losses of the answers "Yes" (``ly``) and "No"
    (``ln``): ``softmax([ly, ln])[1] = sigmoid(ln - ly)``, high when "Yes" is likelier.

    Scalars give a float, arrays (broadcast together) an array.
    """
    a = check_array(ly, "ly", allow_empty=True)
    b = check_array(ln, "ln", allow_empty=True)
    try:
        x = np.subtract(b, a)
    except ValueError:
        raise ValueError(
            f"ln of shape {b.shape} does not broadcast with ly of shape {a.shape}"
        ) from None
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return float(out) if out.ndim == 0 else out


def _check_probs(P: Any, name: str = "P") -> np.ndarray:
    P = check_array(P, name, ndim=2)
    if P.size and (P.min() < 0.0 or P.max() > 1.0):
        raise ValueError(
            f"{name} must hold probabilities in [0, 1], got values in [{P.min()}, {P.max()}]"
        )
    return P


def _check_matrix(M: Any, n_symbols: int, name: str = "M") -> np.ndarray:
    M = check_array(M, name, ndim=2, dtype="any", allow_empty=True)
    if M.shape[1] != n_symbols:
        raise ValueError(
            f"{name} must have one column per symbol ({n_symbols}, the columns of P), "
            f"got shape {M.shape}"
        )
    if M.dtype != bool:
        if M.size and not np.all((M == 0) | (M == 1)):
            raise ValueError(f"{name} must hold 0/1 or booleans (rules x symbols)")
        M = M.astype(bool)
    return M


def _reduce(block: np.ndarray, k: int, tnorm: str) -> np.ndarray:
    """t-norm of ``block`` (..., k) over its last axis."""
    if tnorm == "min":
        return block.min(axis=-1)
    if tnorm == "product":
        return block.prod(axis=-1)
    return np.maximum(block.sum(axis=-1) - (k - 1), 0.0)


def t_norm(values: Any, *, kind: str = "min", axis: int = -1) -> np.ndarray:
    """The t-norm ``kind`` of ``values`` (probabilities) along ``axis``: ``"min"`` (Gödel),
    ``"product"``, ``"lukasiewicz"`` (``max(0, sum - (k - 1))``). An empty axis gives 1."""
    kind = check_option(kind, "kind", TNORMS)
    v = check_array(values, "values", allow_empty=True)
    if v.ndim == 0:
        raise ValueError("values must have at least one dimension, got a scalar")
    if v.size and (v.min() < 0.0 or v.max() > 1.0):
        raise ValueError(f"values must hold probabilities in [0, 1], got [{v.min()}, {v.max()}]")
    axis = check_int(axis, "axis", minimum=-v.ndim, maximum=v.ndim - 1)
    v = np.moveaxis(v, axis, -1)
    k = v.shape[-1]
    if k == 0:
        return np.ones(v.shape[:-1])
    return _reduce(v, k, kind)


def _rule_scores_t(P: np.ndarray, M: np.ndarray, tnorm: str) -> np.ndarray:
    """Rule truths in rule-major layout (n_rules, n_images): the premises' columns of P are
    gathered as contiguous rows of P.T and reduced pairwise, one premise count at a time."""
    PT = np.ascontiguousarray(P.T)
    out = np.empty((M.shape[0], P.shape[0]))
    counts = M.sum(axis=1)
    for k in np.unique(counts):
        k = int(k)
        if k == 0:
            out[counts == 0] = 1.0  # the empty conjunction is true (t-norm identity)
            continue
        rows = np.flatnonzero(counts == k)
        cols = np.nonzero(M[rows])[1].reshape(len(rows), k)  # row-major: k columns per rule
        acc = PT[cols[:, 0]]
        for j in range(1, k):
            nxt = PT[cols[:, j]]
            if tnorm == "min":
                np.minimum(acc, nxt, out=acc)
            else:  # product, or the running sum of Lukasiewicz
                acc = acc * nxt if tnorm == "product" else acc + nxt
        if tnorm == "lukasiewicz":
            acc = np.maximum(acc - (k - 1), 0.0)
        out[rows] = acc
    return out


def rule_scores(P: Any, M: Any, *, tnorm: str = "min") -> np.ndarray:
    """Rule truths (n_images, n_rules): the t-norm ``tnorm`` of each rule's premises.

    ``P``: (n_images, n_symbols) probabilities in [0, 1]; ``M``: (n_rules, n_symbols) bool
    premise matrix (:meth:`RuleBase.to_matrix`). A rule without premises is true (1).
    """
    tnorm = check_option(tnorm, "tnorm", TNORMS)
    P = _check_probs(P)
    M = _check_matrix(M, P.shape[1])
    return _rule_scores_t(P, M, tnorm).T


def activity_scores(
    P: Any, M: Any, rule_activity: Any, *, n_activities: int, tnorm: str = "min"
) -> np.ndarray:
    """Activity evidence R (n_images, n_activities): the max over each activity's rules of
    :func:`rule_scores`; 0 for an activity without rules.

    ``rule_activity[r]`` is the activity index (0 <= . < ``n_activities``) of rule ``r``.
    """
    tnorm = check_option(tnorm, "tnorm", TNORMS)
    n_activities = check_int(n_activities, "n_activities", minimum=1)
    P = _check_probs(P)
    M = _check_matrix(M, P.shape[1])
    ra = check_array(rule_activity, "rule_activity", ndim=1, dtype="numeric", allow_empty=True)
    ra = check_array(ra, "rule_activity", dtype="int", allow_empty=True)  # NaN: ValueError first
    if ra.shape[0] != M.shape[0]:
        raise ValueError(
            f"rule_activity has {ra.shape[0]} entries but M has {M.shape[0]} rules; they must match"
        )
    if ra.size and (ra.min() < 0 or ra.max() >= n_activities):
        raise ValueError(
            f"rule_activity must lie in [0, n_activities={n_activities}), "
            f"got values in [{ra.min()}, {ra.max()}]"
        )
    out = np.zeros((P.shape[0], n_activities))
    if M.shape[0] == 0:
        return out
    order = np.argsort(ra, kind="stable")
    RT = _rule_scores_t(P, M[order], tnorm)  # rows already grouped by activity
    acts, starts = np.unique(ra[order], return_index=True)
    out[:, acts] = np.maximum.reduceat(RT, starts, axis=0).T
    return out
