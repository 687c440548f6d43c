"""Users, prompts and cost-effectiveness (Mahmood, NeurIPS 2024, https://arxiv.org/abs/2411.02661, Sec. 3).

A user solving a task with a model prompts it repeatedly until an output satisfies them (binary
satisfaction). With a per-prompt success probability ``q`` (independent rounds) the number of prompts
``N`` is geometric, ``E[N] = 1/q``. Paying ``p`` per prompt, the expected cost of the task is
``p * E[N]``; model B is *cost-effective* against A on a task iff ``p_B E[N_B] <= p_A E[N_A]``, i.e.
``p_B <= kappa * p_A`` with the relative performance ``kappa = E[N_A] / E[N_B]``.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int
from ._validation import broadcast_shape, check_tie, in_range, positive_array, real_array

__all__ = ["expected_prompts", "relative_performance", "is_cost_effective"]


def expected_prompts(q, *, cap: int | None = None):
    """Expected number of prompts a user sends before being satisfied (or giving up).

    Args:
        q: per-prompt success probability, scalar or array in ``(0, 1]`` (``[0, 1]`` when ``cap`` is
            given), with independent rounds; or a callable ``q(r)`` giving the success probability of
            round ``r`` (an int array ``1..cap``, returning shape ``(cap, ...)``): a per-round success
            curve, which needs ``cap``.
        cap: the user gives up after ``cap`` prompts (an int >= 1; ``None``: never).

    Returns:
        ``E[N] = 1/q`` without a cap; ``E[min(N, cap)] = (1 - (1-q)^cap) / q`` with one; for a curve,
        ``sum_{r=1}^{cap} prod_{s<r} (1 - q(s))``. Float for scalar input, else an array of ``q``'s shape.

    >>> float(expected_prompts(0.25))
    4.0
    >>> round(float(expected_prompts(0.5, cap=2)), 6)
    1.5
    """
    if cap is not None:
        cap = check_int(cap, "cap", minimum=1)
    if callable(q):
        if cap is None:
            raise ValueError("cap is required when q is a per-round success curve, got cap=None")
        rounds = np.arange(1, cap + 1)
        qr = in_range(real_array(q(rounds), "q(r)"), "q(r)", 0.0, 1.0, lo_open=False)
        if qr.shape[:1] != (cap,):
            raise ValueError(f"q(r) must return shape (cap, ...) = ({cap}, ...), got {qr.shape}")
        # P(N >= r) = prod_{s<r} (1 - q_s)
        survive = np.cumprod(np.concatenate([np.ones_like(qr[:1]), 1 - qr[:-1]]), axis=0)
        out = survive.sum(axis=0)
        return float(out) if out.ndim == 0 else out
    qa = in_range(real_array(q, "q"), "q", 0.0, 1.0, lo_open=False)
    if cap is None:
        if (qa == 0).any():
            raise ValueError(
                f"q must be > 0 without a cap (E[N] is infinite), got {int((qa == 0).sum())} zero(s)"
            )
        out = 1.0 / qa
    else:
        safe = np.where(qa > 0, qa, 1.0)
        with np.errstate(divide="ignore"):
            out = np.where(qa > 0, -np.expm1(cap * np.log1p(-safe)) / safe, float(cap))
    return float(out) if out.ndim == 0 else out


def relative_performance(qA, qB):
    """Relative performance ``kappa = E[N_A] / E[N_B]`` of model B against model A, per task.

    In the geometric model ``kappa = qB / qA``: ``kappa > 1`` means B needs fewer prompts. B is
    cost-effective on the task iff ``p_B <= kappa * p_A`` (:func:`is_cost_effective`).

    Args:
        qA, qB: per-prompt success probabilities of A and B, broadcastable arrays in ``(0, 1]``.

    >>> relative_performance([0.2, 0.5], [0.4, 0.5]).tolist()
    [2.0, 1.0]
    """
    qa = _success_probability(qA, "qA")
    qb = _success_probability(qB, "qB")
    shape = broadcast_shape(qA=qa, qB=qb)
    out = np.broadcast_to(qb, shape) / qa  # E[N_A]/E[N_B] = (1/qA)/(1/qB)
    return float(out) if out.ndim == 0 else out


def _success_probability(q, name: str) -> np.ndarray:
    return in_range(real_array(q, name), name, 0.0, 1.0, lo_open=True)


def is_cost_effective(pA, pB, kappa, *, tie: str = "latecomer"):
    """Whether model B is cost-effective against model A: ``p_B * E[N_B] <= p_A * E[N_A]``.

    Args:
        pA, pB: per-prompt prices (> 0), broadcastable.
        kappa: relative performance ``E[N_A]/E[N_B]`` (> 0), broadcastable.
        tie: ``"latecomer"`` (equal expected cost goes to B, ``<=``) or ``"first_mover"`` (``<``).

    Returns:
        bool or bool array (broadcast shape).

    >>> bool(is_cost_effective(1.0, 2.0, 2.0))
    True
    """
    check_tie(tie)
    pa = positive_array(pA, "pA")
    pb = positive_array(pB, "pB")
    k = positive_array(kappa, "kappa")
    broadcast_shape(pA=pa, pB=pb, kappa=k)
    out = pb <= k * pa if tie == "latecomer" else pb < k * pa
    return bool(out) if out.ndim == 0 else out
