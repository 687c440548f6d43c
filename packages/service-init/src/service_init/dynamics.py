"""Learning dynamics after deployment and the objectives they are judged by.

Initializing Services in Interactive ML Systems for Diverse Users (Bose et al., NeurIPS 2024)
- https://arxiv.org/abs/2312.11846. Sec. 2 (total loss ``L(Theta) = sum_i pi_i min_j l_i(theta_j)``
and the alternating user/service dynamics it motivates), Sec. 4 (group losses and the worst-group
objective), Sec. 6 (k-means-style and multiplicative-weights dynamics started from each
initialisation).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import check_float, check_int
from ._validation import check_centers_for, check_groups, check_users
from .users import QuadraticUsers

__all__ = [
    "AlternatingResult",
    "WeightsResult",
    "total_loss",
    "user_losses",
    "group_losses",
    "max_group_loss",
    "alternating_minimization",
    "multiplicative_weights",
]


class AlternatingResult(NamedTuple):
    """What :func:`alternating_minimization` returns (unpacks as before)."""

    centers: np.ndarray  #: (k, d) services after the last round
    assignment: np.ndarray  #: (N,) int64 service chosen by each user
    history: np.ndarray  #: (rounds + 1,) total loss after each round (0 = initial)


class WeightsResult(NamedTuple):
    """What :func:`multiplicative_weights` returns (unpacks as before)."""

    centers: np.ndarray  #: (k, d) services after the last round
    resp: np.ndarray  #: (N, k) each user's distribution over services
    history: np.ndarray  #: (iters + 1,) total loss after each round (0 = initial)


def _assign(users, centers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N,) loss at the chosen service and (N,) chosen index, O(N) memory for quadratic users."""
    if isinstance(users, QuadraticUsers):
        best = users.loss_to(centers[0])
        arg = np.zeros(users.n_users, dtype=np.int64)
        for j in range(1, centers.shape[0]):
            lj = users.loss_to(centers[j])
            better = lj < best
            best = np.where(better, lj, best)
            arg[better] = j
        return best, arg
    mat = users.losses(centers)  # (N, k)
    arg = np.argmin(mat, axis=1)
    return mat[np.arange(mat.shape[0]), arg], arg


def user_losses(users, centers) -> np.ndarray:
    """(N,) loss each user incurs at the service they choose, ``min_j l_i(theta_j)``."""
    users = check_users(users)
    return _assign(users, check_centers_for(users, centers))[0]


def total_loss(users, centers) -> float:
    """Total loss ``L(Theta) = sum_i pi_i min_j l_i(theta_j)`` (weights sum to one: the mean).

    >>> from service_init import QuadraticUsers
    >>> users = QuadraticUsers(np.array([[0.0], [2.0]]))
    >>> total_loss(users, np.array([[0.0]]))
    2.0
    """
    users = check_users(users)
    best, _ = _assign(users, check_centers_for(users, centers))
    return float(users.weights @ best)


def group_losses(users, centers, groups) -> np.ndarray:
    """(G,) weighted average loss of each group (groups in sorted label order)."""
    users = check_users(users)
    _, codes = check_groups(groups, users.n_users)
    best, _ = _assign(users, check_centers_for(users, centers))
    mass = np.bincount(codes, weights=users.weights)
    return np.bincount(codes, weights=users.weights * best) / np.where(mass > 0, mass, 1.0)


def max_group_loss(users, centers, groups) -> float:
    """Worst-group objective ``max_g L_g(Theta)`` (what Fair AcQUIre targets)."""
    return float(group_losses(users, centers, groups).max())


def alternating_minimization(users, centers, *, iters=10, tol=0.0):
    """Generalised Lloyd dynamics: users pick their best service, services refit on their users.

    Each round is a best response of both sides, so the total loss never increases.

    Args:
        users: a user population (CallableUsers needs ``fit_fn``).
        centers: (k, d) initial services (e.g. from :func:`acquire`).
        iters: maximum number of rounds (an int >= 0).
        tol: stop early when the relative decrease of the total loss is <= tol (finite, >= 0).

    Returns:
        ``(centers (k, d), assignment (N,) int64, history (rounds + 1,))`` where ``history[t]``
        is the total loss after t rounds (``history[0]`` is the initial loss).
    """
    users = check_users(users)
    centers = check_centers_for(users, centers).copy()
    iters = check_int(iters, "iters", minimum=0)
    tol = check_float(tol, "tol", minimum=0.0)
    k = centers.shape[0]
    best, assign = _assign(users, centers)
    history = [float(users.weights @ best)]
    for _ in range(iters):
        centers = users.fit(assign, k, centers)
        best, assign = _assign(users, centers)
        history.append(float(users.weights @ best))
        prev = history[-2]
        if prev - history[-1] <= tol * max(abs(prev), 1e-300):
            break
    return AlternatingResult(centers, assign, np.asarray(history))


def multiplicative_weights(users, centers, *, iters=50, step=1.0):
    """Soft dynamics: users re-weight services multiplicatively, services refit on the weights.

    User i holds a distribution ``p_i`` over services (uniform at start) and updates
    ``p_ij <- p_ij exp(-step * l_i(theta_j)) / Z``; each service then minimises
    ``sum_i pi_i p_ij l_i(theta)``.

    Args:
        users: a user population (CallableUsers needs ``fit_fn``).
        centers: (k, d) initial services.
        iters: number of rounds (an int >= 0).
        step: multiplicative-weights learning rate (finite, > 0).

    Returns:
        ``(centers (k, d), resp (N, k), history (iters + 1,))`` with ``history[t]`` the total loss
        ``L(Theta_t)`` (users at their best service) after t rounds.
    """
    users = check_users(users)
    centers = check_centers_for(users, centers).copy()
    step = check_float(step, "step", minimum=0.0, min_inclusive=False)
    iters = check_int(iters, "iters", minimum=0)
    n, k = users.n_users, centers.shape[0]
    logp = np.full((n, k), -np.log(k))  # (N, k)
    mat = users.losses(centers)
    history = [float(users.weights @ mat.min(axis=1))]
    for _ in range(iters):
        logp = logp - step * mat
        logp -= logp.max(axis=1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        resp = np.exp(logp)
        centers = users.fit_weighted(resp, centers)
        mat = users.losses(centers)
        history.append(float(users.weights @ mat.min(axis=1)))
    return WeightsResult(centers, np.exp(logp), np.asarray(history))
