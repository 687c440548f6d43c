"""Exact small-scale references: the global optimum and AcQUIre's exact expected loss.

Initializing Services in Interactive ML Systems for Diverse Users (Bose et al., NeurIPS 2024)
- https://arxiv.org/abs/2312.11846. Sec. 3: the guarantee compares E[L(AcQUIre)] with OPT, the
globally optimal total loss with complete preference data. Both sides are computable exactly for a
few users: OPT by enumerating all k^N user partitions (quadratic users have a closed-form best
service per part), the expectation by enumerating AcQUIre's N^k query sequences level by level.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import check_bool, check_int
from ._validation import check_k, check_users
from .dynamics import total_loss
from .users import QuadraticUsers

__all__ = ["Optimum", "exact_optimum", "acquire_expected_loss"]


class Optimum(NamedTuple):
    """What :func:`exact_optimum` returns (unpacks as ``opt, centers, assignment``)."""

    loss: float  #: the optimal total loss OPT
    centers: np.ndarray  #: (k, d) optimal services
    assignment: np.ndarray  #: (N,) the optimal partition


def _full_metrics(users: QuadraticUsers) -> np.ndarray:
    n, d = users.optima.shape
    if users.metrics is None:
        return np.broadcast_to(np.eye(d), (n, d, d)).copy()
    if users.metrics.ndim == 2:
        return np.einsum("nd,de->nde", users.metrics, np.eye(d))
    return users.metrics


def exact_optimum(users, k, *, max_assignments=5_000_000):
    """Global optimum OPT = min over Theta of the total loss, by brute force over partitions.

    For quadratic users the best service of a part C is ``(sum_C pi A)^+ (sum_C pi A theta^*)`` and
    the part's loss is ``sum_C pi (c + theta^*T A theta^*) - b^T M^+ b``; every labelled partition
    (k^N of them) is scored in vectorised batches.

    Args:
        users: a :class:`QuadraticUsers` (or :class:`RegressionUsers`) population, small N.
        k: number of services.
        max_assignments: refuse when k^N exceeds this (an int >= 1).

    Returns:
        :class:`Optimum` ``(loss, centers (k, d), assignment (N,))``.
    """
    users = check_users(users)
    if not isinstance(users, QuadraticUsers):
        raise TypeError(
            f"users must be QuadraticUsers or RegressionUsers for exact_optimum, got {type(users).__name__}"
        )
    k = check_k(k, users.n_users)
    max_assignments = check_int(max_assignments, "max_assignments", minimum=1)
    n, d = users.optima.shape
    total = k**n
    if total > max_assignments:
        raise ValueError(f"k^N = {total} partitions exceeds max_assignments={max_assignments}")
    a = _full_metrics(users)  # (N, d, d)
    w = users.weights
    b_i = np.einsum("nde,ne->nd", a, users.optima) * w[:, None]  # (N, d)
    wa = a * w[:, None, None]  # (N, d, d)
    const = float(
        w
        @ (
            users.offsets
            + np.einsum("nd,nd->n", users.optima, b_i / np.where(w[:, None] > 0, w[:, None], 1.0))
        )
    )
    powers = k ** np.arange(n)
    best_val, best_code = np.inf, 0
    batch = max(1, 2_000_000 // (n * k * d * d + 1))
    for start in range(0, total, batch):
        codes = np.arange(start, min(total, start + batch))
        assign = (codes[:, None] // powers[None, :]) % k  # (B, N)
        onehot = (assign[:, :, None] == np.arange(k)).astype(float)  # (B, N, k)
        big_m = np.einsum("bnk,nde->bkde", onehot, wa)  # (B, k, d, d)
        rhs = np.einsum("bnk,nd->bkd", onehot, b_i)  # (B, k, d)
        sol = np.einsum("bkde,bke->bkd", np.linalg.pinv(big_m, hermitian=True), rhs)
        vals = const - np.einsum("bkd,bkd->b", rhs, sol)
        j = int(np.argmin(vals))
        if vals[j] < best_val:
            best_val, best_code = float(vals[j]), int(codes[j])
    assign = (best_code // powers) % k
    centers = users.fit(assign, k, np.zeros((k, d)))
    return Optimum(total_loss(users, centers), centers, assign)


def acquire_expected_loss(users, k, *, excess=False, max_states=200_000):
    """Exact E[L(Theta_AcQUIre)] by enumerating every query sequence with its probability.

    Args:
        users: any population (its N x N matrix of losses at the personal optima is formed).
        k: number of services.
        excess: as in :func:`acquire`.
        max_states: refuse when a level of the enumeration has more sequences than this
            (an int >= 1).

    Returns:
        The expected total loss (float).
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    excess = check_bool(excess, "excess")
    max_states = check_int(max_states, "max_states", minimum=1)
    n = users.n_users
    opt = np.stack([users.query(i) for i in range(n)])  # (N, d)
    mat = users.losses(opt)  # (N, N): mat[i, m] = l_i(theta_m^*)
    w = users.weights
    base = users.optimal_losses if excess else np.zeros(n)
    prob = w.copy()  # (S,) probability of each state (first query by pi)
    cur = mat.T.copy()  # (S, N): losses after the first query m
    keep = prob > 0
    prob, cur = prob[keep], cur[keep]
    for _ in range(1, k):
        sc = w[None, :] * np.maximum(cur - base[None, :], 0.0)  # (S, N)
        tot = sc.sum(axis=1, keepdims=True)
        fallback = np.broadcast_to(w, sc.shape)
        p = np.where(tot > 0, sc / np.where(tot > 0, tot, 1.0), fallback)  # (S, N)
        s_idx, m_idx = np.nonzero(p > 0)
        if s_idx.size > max_states:
            raise ValueError(f"{s_idx.size} query sequences exceed max_states={max_states}")
        prob = prob[s_idx] * p[s_idx, m_idx]
        cur = np.minimum(cur[s_idx], mat[:, m_idx].T)
    return float(prob @ (cur @ w))
