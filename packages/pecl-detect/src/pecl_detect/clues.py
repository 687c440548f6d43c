"""The candidate clues and the multi-clue selection evaluator (reward) of PECL."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int

__all__ = [
    "build_state",
    "conformal_clue",
    "entropy_bits",
    "evaluator_delta",
    "multi_clue_reward",
    "prototype_similarity",
]


def _unit_interval(arr: np.ndarray, name: str) -> np.ndarray:
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name} must lie in [0, 1], got values in [{arr.min():g}, {arr.max():g}]")
    return arr


def conformal_clue(p, calib, *, margin=0.35):
    """Smoothed conformal p-value of a candidate (the release's fourth clue).

    With nonconformity ``alpha = 1 - p`` for the candidate's probability ``p`` of its class and
    ``alpha_j = 1 - calib_j`` for the calibration probabilities (the class's prototypes), the
    clue is ``mean_j [alpha_j > alpha - margin]``. ``margin=0`` gives the plain conformal
    p-value fraction ``#{j : alpha_j > alpha} / n``. ``p`` is a number (-> float) or a 1-d array
    (-> array of the same length); ``calib`` a non-empty 1-d array; all in [0, 1].
    """
    scalar = np.ndim(p) == 0 and not isinstance(p, list | tuple)
    if scalar:
        p_arr = np.array([check_float(p, "p", minimum=0.0, maximum=1.0)])
    else:
        p_arr = _unit_interval(check_array(p, "p", ndim=1), "p")
    calib = _unit_interval(check_array(calib, "calib", ndim=1), "calib")
    margin = check_float(margin, "margin")
    alpha = 1.0 - p_arr
    alpha_cal = 1.0 - calib
    out = np.mean(alpha_cal[None, :] > (alpha[:, None] - margin), axis=1)
    return float(out[0]) if scalar else out


def entropy_bits(v) -> float:
    """Shannon entropy in bits, ``-sum v log2 v`` with ``0 log 0 = 0``."""
    v = _unit_interval(check_array(v, "v", ndim=1), "v")
    nz = v[v > 0]
    return float(-np.sum(nz * np.log2(nz)))


def _check_delta_args(prob, c, group, p_det):
    prob = _unit_interval(check_array(prob, "prob", ndim=1), "prob")
    if prob.size < 2:
        raise ValueError(f"prob must hold background + >= 1 class, got shape {prob.shape}")
    c = check_int(c, "c", minimum=1, maximum=prob.size - 1)
    group = _unit_interval(check_array(group, "group", ndim=2), "group")
    if group.shape[1] != prob.size:
        raise ValueError(f"group must have {prob.size} columns like prob, got shape {group.shape}")
    p_det = check_float(p_det, "p_det", minimum=0.0, maximum=1.0)
    return prob, c, group, p_det


def evaluator_delta(prob, c, group, p_det) -> float:
    """The raw multi-clue evaluator value of the release (entropies in bits).

    ``prob``: the candidate's class-probability vector (index 0 = background, so ``K + 1``
    entries); ``c``: its class as an index into ``prob`` (``1 <= c <= K``); ``group``: the
    ``(m, K + 1)`` probability vectors of the class-``c`` reference group (its prototypes, the
    annotated class-``c`` instances of the image and the class-``c`` pseudo-labels already
    selected; ``m >= 1``); ``p_det``: the candidate's detector confidence. With
    ``v1 = mean(group)`` and ``v2 = mean(group + [prob])``::

        delta = H(v2) - H(v1) + (v1[c] - v1[0]) - (v2[c] - v2[0]) - p_det / 10 + 0.01

    Negative means that adding the candidate makes the class profile more certain / more
    separated from background.
    """
    prob, c, group, p_det = _check_delta_args(prob, c, group, p_det)
    v1 = group.mean(axis=0)
    v2 = np.vstack([group, prob[None, :]]).mean(axis=0)
    h1, h2 = entropy_bits(v1), entropy_bits(v2)
    return float(h2 - h1 + (v1[c] - v1[0]) - (v2[c] - v2[0]) - p_det / 10.0 + 0.01)


def multi_clue_reward(prob, c, group, p_det, action) -> int:
    """The evaluator's reward: ``+1`` if the action-signed delta is negative, else ``-1``.

    ``action`` 1 (select) signs ``delta`` as is, 0 (skip) negates it (see
    :func:`evaluator_delta` for the other arguments).
    """
    action = check_int(action, "action", minimum=0, maximum=1)
    delta = evaluator_delta(prob, c, group, p_det)
    signed = delta if action == 1 else -delta
    return 1 if signed < 0 else -1


def prototype_similarity(feats, prototypes) -> np.ndarray:
    """Cosine between each feature row and the normalised mean of its class's prototypes.

    ``feats``: ``(n, d)`` already matched to ``prototypes``: ``(n, k, d)`` (the ``k``
    prototypes of each row's class) or ``(k, d)`` (one class for all rows). Rows are
    L2-normalised first, as the release does with its layer-normed RoI features.
    """
    feats = check_array(feats, "feats", ndim=2)
    protos = check_array(prototypes, "prototypes", ndim=(2, 3))
    if protos.shape[-1] != feats.shape[1]:
        raise ValueError(
            f"prototypes must have {feats.shape[1]} features like feats, got shape {protos.shape}"
        )
    if protos.ndim == 3 and protos.shape[0] != feats.shape[0]:
        raise ValueError(f"prototypes has {protos.shape[0]} rows but feats has {feats.shape[0]}")
    mean = protos.mean(axis=-2)
    mean = mean / np.maximum(np.linalg.norm(mean, axis=-1, keepdims=True), 1e-12)
    f = feats / np.maximum(np.linalg.norm(feats, axis=1, keepdims=True), 1e-12)
    return f @ mean if mean.ndim == 1 else np.sum(f * mean, axis=1)


def build_state(cand, accepted) -> np.ndarray:
    """The explorer's state ``cand (4,) || mean(accepted (m, 4))`` (zeros when ``m = 0``)."""
    cand = check_array(cand, "cand", ndim=1)
    accepted = check_array(accepted, "accepted", ndim=2, allow_empty=True)
    if accepted.size and accepted.shape[1] != cand.size:
        raise ValueError(
            f"accepted must have {cand.size} columns like cand, got shape {accepted.shape}"
        )
    ctx = accepted.mean(axis=0) if accepted.shape[0] else np.zeros(cand.size)
    return np.concatenate([cand, ctx])
