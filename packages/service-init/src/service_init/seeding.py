"""AcQUIre, Fair AcQUIre and the baseline initialisations.

Initializing Services in Interactive ML Systems for Diverse Users (Bose et al., NeurIPS 2024)
- https://arxiv.org/abs/2312.11846. Sec. 3 (AcQUIre: adaptive querying of users, a generalisation of
k-means++ D^2 seeding), Sec. 4 (Fair AcQUIre for the worst-group objective), Sec. 6 (baselines:
random, greedy, epsilon-greedy and demographically balanced initialisations).

All seeders share the signature ``f(users, k, *, rng, ...) -> (centers (k, d), queried (k,) int64)``
(``fair_acquire`` and the balanced baselines take ``groups`` after ``k``):
``queried[s]`` is the user whose data was collected at step ``s`` and ``centers[s]`` its personal
optimum. Every seeder queries exactly ``k`` users and, between queries, observes only the bandit
feedback ``L_i = min_j l_i(theta_j)`` of the services deployed so far. One step costs one
``users.loss_to`` call (O(N d) Euclidean, O(N d^2) Mahalanobis) plus an O(N) draw, so
``k`` services for N = 10^5 users take well under a second for k <= 100.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import check_bool, check_option, check_probability
from ._validation import check_groups, check_k, check_rng, check_users

__all__ = [
    "Seeding",
    "acquire",
    "fair_acquire",
    "random_init",
    "greedy_init",
    "eps_greedy_init",
    "balanced_random_init",
    "balanced_greedy_init",
]


class Seeding(NamedTuple):
    """What every seeder returns (unpacks as ``centers, queried``)."""

    centers: np.ndarray  #: (k, d) float64 services, ``centers[s]`` the optimum of ``queried[s]``
    queried: np.ndarray  #: (k,) int64 index of the user queried at step s


def _draw(scores: np.ndarray, rng: np.random.Generator, fallback: np.ndarray) -> int:
    """One index with probability scores / scores.sum() (``fallback`` weights if all are zero)."""
    total = float(scores.sum())
    if not total > 0.0:
        scores, total = fallback, float(fallback.sum())
    cdf = np.cumsum(scores)
    i = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    return min(i, scores.shape[0] - 1)


def _scores(users, current: np.ndarray, excess: bool) -> np.ndarray:
    """(N,) non-negative sampling mass pi_i * L_i (or pi_i * (L_i - l_i(theta_i^*)))."""
    if excess:
        current = np.maximum(current - users.optimal_losses, 0.0)
    return users.weights * current


def _run(users, k, rng, pick_first, pick_next):
    d = users.dim
    centers = np.empty((k, d))
    queried = np.empty(k, dtype=np.int64)
    i = pick_first()
    queried[0] = i
    centers[0] = users.query(i)
    current = users.loss_to(centers[0])  # (N,) bandit feedback L_i after deploying theta_1
    for s in range(1, k):
        i = pick_next(s, current)
        queried[s] = i
        centers[s] = users.query(i)
        current = np.minimum(current, users.loss_to(centers[s]))
    return Seeding(centers, queried)


def acquire(users, k, *, rng=None, excess=False):
    """AcQUIre (Alg. 1): query users with probability proportional to their current loss.

    Step 1 queries a user drawn from the weights pi; step s queries user i with probability
    ``pi_i L_i / sum_l pi_l L_l`` where ``L_i`` is user i's loss at the best of the s - 1 services
    deployed so far, and deploys the queried user's optimum. For squared-distance users this is
    exactly k-means++ seeding; in general E[total loss] <= C (ln k + O(1)) OPT (Sec. 3).

    Args:
        users: a user population (:class:`QuadraticUsers`, :class:`RegressionUsers`,
            :class:`CallableUsers`).
        k: number of services, 1 <= k <= N.
        rng: None, an int seed or a ``numpy.random.Generator``.
        excess: sample proportional to the excess loss ``L_i - l_i(theta_i^*)`` instead of the
            observed loss (needs ``users.optimal_losses``; the paper's MovieLens metric).

    Returns:
        ``(centers, queried)``: (k, d) services and the (k,) int64 indices of the queried users.

    >>> from service_init import QuadraticUsers
    >>> users = QuadraticUsers(np.array([[0.0], [0.1], [10.0], [10.1]]))
    >>> centers, queried = acquire(users, 2, rng=0)
    >>> sorted(np.round(centers[:, 0]).tolist()), queried.shape
    ([0.0, 10.0], (2,))
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    excess = check_bool(excess, "excess")
    w = users.weights

    def pick_next(s, current):
        return _draw(_scores(users, current, excess), rng, w)

    return _run(users, k, rng, lambda: _draw(w, rng, w), pick_next)


def fair_acquire(users, k, groups, *, rng=None, rule="proportional", excess=False):
    """Fair AcQUIre (Sec. 4): AcQUIre for the worst-group objective max_g L_g(Theta).

    ``L_g`` is group g's weighted average loss. Rules:

    - ``"proportional"`` (default): draw a group with probability proportional to its current
      average loss ``L_g``, then a user within it proportional to ``pi_i L_i``. This is *exactly*
      AcQUIre run with group-normalised weights ``pi_i / pi(g(i))`` (every group has total weight
      one), i.e. AcQUIre on the objective ``sum_g L_g``; since ``max_g L_g <= sum_g L_g <= m
      max_g L_g`` for m groups, it inherits the O(log k) guarantee up to the factor m.
      The first query draws a group uniformly, then a user by pi within it.
    - ``"worst-group"``: always draw from the group with the largest current ``L_g`` (ties broken
      at random), proportional to ``pi_i L_i`` within it.

    Args:
        users: a user population.
        k: number of services, 1 <= k <= N.
        groups: (N,) group label of each user (any sortable labels).
        rng: None, an int seed or a ``numpy.random.Generator``.
        rule: ``"proportional"`` or ``"worst-group"``.
        excess: sample by excess loss, as in :func:`acquire`.

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    _, codes = check_groups(groups, users.n_users)
    rule = check_option(rule, "rule", ("proportional", "worst-group"))
    excess = check_bool(excess, "excess")
    w = users.weights
    group_mass = np.bincount(codes, weights=w)  # (G,)
    if np.any(group_mass <= 0):
        raise ValueError(
            "groups: every group needs a positive total weight (some group's users all have weight 0)"
        )
    w_fair = w / group_mass[codes]  # (N,) each group sums to one

    def pick_first():
        return _draw(w_fair, rng, w_fair)

    if rule == "proportional":

        def pick_next(s, current):
            return _draw(_scores(users, current, excess) / group_mass[codes], rng, w_fair)

    else:

        def pick_next(s, current):
            sc = _scores(users, current, excess)  # (N,)
            avg = np.bincount(codes, weights=sc) / group_mass  # (G,) current L_g
            worst = np.flatnonzero(avg >= avg.max() * (1 - 1e-12))
            g = worst[rng.integers(worst.size)] if worst.size > 1 else worst[0]
            members = np.flatnonzero(codes == g)
            return int(members[_draw(sc[members], rng, w[members])])

    return _run(users, k, rng, pick_first, pick_next)


def random_init(users, k, *, rng=None):
    """Baseline: query k distinct users drawn by their weights pi (uniform by default).

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    w = users.weights
    if np.count_nonzero(w) < k:
        raise ValueError(f"random_init needs at least k={k} users with positive weight")
    queried = rng.choice(users.n_users, size=k, replace=False, p=w).astype(np.int64)
    centers = np.stack([users.query(i) for i in queried])
    return Seeding(centers, queried)


def greedy_init(users, k, *, rng=None, excess=False):
    """Baseline: first user drawn by pi, then always the not-yet-queried user with the largest
    ``pi_i L_i`` (a queried user's loss stays at their irreducible loss ``l_i(theta_i^*)``, which
    can be the largest: re-querying them would deploy copies of one service).

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    return eps_greedy_init(users, k, rng=rng, eps=0.0, excess=excess)


def eps_greedy_init(users, k, *, rng=None, eps=0.1, excess=False):
    """Baseline: at each step, with probability ``eps`` a user drawn by pi among those not yet
    queried (re-querying a user would only duplicate a service), else the greedy one.

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    eps = check_probability(eps, "eps")
    excess = check_bool(excess, "excess")
    w = users.weights
    taken = np.zeros(users.n_users, dtype=bool)

    def pick_first():
        i = _draw(w, rng, w)
        taken[i] = True
        return i

    def pick_next(s, current):
        if eps > 0 and rng.random() < eps:
            free = np.flatnonzero(~taken)
            i = int(free[_draw(w[free], rng, np.ones(free.size))])
        else:  # a queried user keeps their irreducible loss: never pick them again
            i = int(np.argmax(np.where(taken, -np.inf, _scores(users, current, excess))))
        taken[i] = True
        return i

    return _run(users, k, rng, pick_first, pick_next)


def _round_robin(k, n_groups, rng):
    order = rng.permutation(n_groups)
    return order[np.arange(k) % n_groups]  # (k,) group of each step


def balanced_random_init(users, k, groups, *, rng=None):
    """Baseline: demographically balanced random queries (groups in round-robin, users by pi).

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    _, codes = check_groups(groups, users.n_users)
    w = users.weights
    plan = _round_robin(k, codes.max() + 1, rng)
    taken = np.zeros(users.n_users, dtype=bool)
    queried = np.empty(k, dtype=np.int64)
    for s, g in enumerate(plan):
        members = np.flatnonzero((codes == g) & ~taken)
        if members.size == 0:  # group exhausted: fall back to any remaining user
            members = np.flatnonzero(~taken)
        i = int(members[_draw(w[members], rng, np.ones(members.size))])
        taken[i] = True
        queried[s] = i
    centers = np.stack([users.query(i) for i in queried])
    return Seeding(centers, queried)


def balanced_greedy_init(users, k, groups, *, rng=None, excess=False):
    """Baseline: groups in round-robin; within the group, the not-yet-queried user with the
    largest ``pi_i L_i`` (any remaining user once the group is exhausted, as in
    :func:`balanced_random_init`).

    Returns:
        ``(centers (k, d), queried (k,) int64)``.
    """
    users = check_users(users)
    k = check_k(k, users.n_users)
    rng = check_rng(rng)
    _, codes = check_groups(groups, users.n_users)
    excess = check_bool(excess, "excess")
    w = users.weights
    plan = _round_robin(k, codes.max() + 1, rng)
    taken = np.zeros(users.n_users, dtype=bool)

    def candidates(s):
        members = np.flatnonzero((codes == plan[s]) & ~taken)
        if members.size == 0:  # group exhausted: fall back to any remaining user
            members = np.flatnonzero(~taken)
        return members

    def pick_first():
        members = candidates(0)
        i = int(members[_draw(w[members], rng, np.ones(members.size))])
        taken[i] = True
        return i

    def pick_next(s, current):
        members = candidates(s)
        i = int(members[np.argmax(_scores(users, current, excess)[members])])
        taken[i] = True
        return i

    return _run(users, k, rng, pick_first, pick_next)
