"""The SUGARCREPE++ metrics, exactly as in the released evaluation code (numpy only).

Every comparison is strict (``>``): a tie counts as wrong.

- TOT (text-only task): correct iff ``s(t1, t2) > s(t1, tn)`` and ``s(t1, t2) > s(t2, tn)``.
- ITT (image-to-text): correct iff ``s(v, t1) > s(v, tn)`` and ``s(v, t2) > s(v, tn)``;
  ITT-P1 / ITT-P2 are the single-positive halves (the classic SugarCrepe test).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_same_length

__all__ = ["METRICS", "accuracy", "cosine", "itt_correct", "tot_correct"]

#: Metric names, in table order.
METRICS: tuple[str, ...] = ("tot", "itt", "itt_p1", "itt_p2")


def _scores(**arrays) -> list[np.ndarray]:
    out = [check_array(v, k, ndim=(0, 1), allow_empty=True) for k, v in arrays.items()]
    shapes = {a.shape for a in out}
    if len(shapes) > 1:
        check_same_length(**dict(zip(arrays, out)))
        names = list(arrays)
        raise ValueError(f"{names[1]} has shape {out[1].shape} but {names[0]} has {out[0].shape}")
    return out


def tot_correct(s12, s1n, s2n) -> np.ndarray:
    """TOT flags: ``(s12 > s1n) & (s12 > s2n)``, elementwise, as a bool array.

    ``s12 = s(P1, P2)``, ``s1n = s(P1, N)``, ``s2n = s(P2, N)``: float arrays of one shape
    ((n,) or a scalar). Ties are wrong.

    >>> tot_correct([0.9, 0.5, 0.5], [0.8, 0.5, 0.1], [0.1, 0.1, 0.7]).tolist()
    [True, False, False]
    """
    a, b, c = _scores(s12=s12, s1n=s1n, s2n=s2n)
    return (a > b) & (a > c)


def itt_correct(si1, si2, sin) -> dict[str, np.ndarray]:
    """ITT flags from image-caption similarities ``si1 = s(v, P1)``, ``si2 = s(v, P2)``,
    ``sin = s(v, N)``: ``{"itt": (si1 > sin) & (si2 > sin), "itt_p1": si1 > sin,
    "itt_p2": si2 > sin}`` (bool arrays; ties are wrong).

    >>> {k: v.tolist() for k, v in itt_correct([0.3, 0.3], [0.2, 0.4], [0.2, 0.1]).items()}
    {'itt': [False, True], 'itt_p1': [True, True], 'itt_p2': [False, True]}
    """
    a, b, c = _scores(si1=si1, si2=si2, sin=sin)
    p1 = a > c
    p2 = b > c
    return {"itt": p1 & p2, "itt_p1": p1, "itt_p2": p2}


def cosine(a, b, *, eps: float = 1e-6) -> np.ndarray:
    """Row-wise cosine similarity of ``a`` and ``b`` ((n, d) or (d,), same shape) with the
    semantics of ``torch.nn.CosineSimilarity(dim=-1, eps=eps)``:
    ``a.b / (max(||a||, eps) * max(||b||, eps))`` (``eps > 0``), in float64.

    The dot product is taken before dividing, so integer-valued vectors (bag-of-words counts)
    give exact dot products and mathematically equal cosines compare equal (a tie, which the
    strict metrics count as wrong) instead of being split by rounding.

    >>> cosine([[1.0, 0.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]).round(4).tolist()
    [1.0, 0.7071]
    """
    x = check_array(a, "a", ndim=(1, 2))
    y = check_array(b, "b", ndim=(1, 2))
    if x.shape != y.shape:
        raise ValueError(f"b has shape {y.shape} but a has {x.shape}; they must match")
    e = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
    nx = np.maximum(np.sqrt(np.einsum("...i,...i->...", x, x)), e)
    ny = np.maximum(np.sqrt(np.einsum("...i,...i->...", y, y)), e)
    return np.einsum("...i,...i->...", x, y) / (nx * ny)


def accuracy(flags) -> tuple[int, int, float]:
    """``(correct, total, correct / total)`` of a 1-d bool array of flags (NaN accuracy when
    empty)."""
    f = check_array(flags, "flags", ndim=1, dtype="bool", allow_empty=True)
    total = int(f.size)
    correct = int(np.count_nonzero(f))
    return correct, total, (correct / total if total else float("nan"))
