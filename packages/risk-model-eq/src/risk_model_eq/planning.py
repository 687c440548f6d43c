"""Mean-variance planning and evaluation, and visit probabilities."""

from __future__ import annotations

import warnings

import numpy as np

from ._checks import check_array, check_float
from ._validation import check_policy, mdp_arrays
from .moments import _moments


def _q_moments(P, R, gamma, M1, M2):
    """Q1(s, a), Q2(s, a): first and second moments of the return of taking a in s, then
    following the policy whose moments are (M1, M2)."""
    Q1 = np.einsum("sat,sat->sa", P, R + gamma * M1[None, None])
    Q2 = np.einsum(
        "sat,sat->sa", P, R**2 + 2.0 * gamma * R * M1[None, None] + gamma**2 * M2[None, None]
    )
    return Q1, Q2


def _greedy(obj: np.ndarray) -> np.ndarray:
    """Index of the best action per state; near-ties (1e-12 relative) go to the lowest index."""
    best = obj.max(axis=1, keepdims=True)
    ok = obj >= best - 1e-12 * (1.0 + np.abs(best))
    return np.argmax(ok, axis=1)


def mean_variance_vi(mdp, *, lam=0.5) -> np.ndarray:
    """Mean-variance value iteration (the paper's risk-sensitive planner).

    Iterates on the first two moments (M1, M2): in each state, picks the action maximising
    Q1 - lam (Q2 - Q1^2) and backs up both moments of that action, until they stop changing
    (at most 10 000 sweeps). The greedy policy is then polished against its own exact moments
    (policy-iteration steps until it is greedy with respect to them, so the result is a fixed
    point of the planner). Ties go to the lowest action index; ``lam = 0`` is risk-neutral
    planning. Returns the deterministic policy as an (S, A) array of probabilities (evaluate
    it with :func:`mean_variance` or :func:`moment_evaluation`). If the polishing steps cycle
    (mean-variance greed has no monotone improvement), it warns (RuntimeWarning) and returns
    the policy of the cycle with the best mean-variance objective at ``mdp.init``."""
    P, R, gamma = mdp_arrays(mdp)
    lam = check_float(lam, "lam")
    S, A = mdp.n_states, mdp.n_actions
    scale = max(1.0, float(np.abs(R).max()) / (1.0 - gamma))
    rows = np.arange(S)
    M1, M2 = np.zeros(S), np.zeros(S)
    for _ in range(10_000):
        Q1, Q2 = _q_moments(P, R, gamma, M1, M2)
        a = _greedy(Q1 - lam * (Q2 - Q1**2))
        N1, N2 = Q1[rows, a], Q2[rows, a]
        done = max(np.abs(N1 - M1).max(), np.abs(N2 - M2).max()) <= 1e-12 * scale**2
        M1, M2 = N1, N2
        if done:
            break

    def policy(actions):
        pi = np.zeros((S, A))
        pi[rows, actions] = 1.0
        return pi

    seen: list[tuple[np.ndarray, float]] = []
    for _ in range(100):
        M = _moments(P, R, gamma, policy(a)[None], 2)[0]
        Q1, Q2 = _q_moments(P, R, gamma, M[1], M[2])
        new = _greedy(Q1 - lam * (Q2 - Q1**2))
        if np.array_equal(new, a):
            return policy(a)
        mean = float(mdp.init @ M[1])
        seen.append((a, mean - lam * (float(mdp.init @ M[2]) - mean**2)))
        if any(np.array_equal(new, b) for b, _ in seen):
            break
        a = new
    warnings.warn(
        "mean_variance_vi: the greedy policy cycles; returning the best policy of the cycle "
        "(mean-variance objective at init)",
        RuntimeWarning,
        stacklevel=2,
    )
    best = max(seen, key=lambda item: item[1])[0]
    return policy(best)


def mean_variance(mdp, pi, *, lam=0.5) -> float:
    """E[G] - lam Var[G] of the return G of ``pi`` from the initial distribution ``mdp.init``
    (exact: from the first two raw moments)."""
    P, R, gamma = mdp_arrays(mdp)
    pi = check_policy(pi, mdp, "pi")
    lam = check_float(lam, "lam")
    M = _moments(P, R, gamma, pi[None], 2)[0]
    mean = float(mdp.init @ M[1])
    second = float(mdp.init @ M[2])
    return mean - lam * (second - mean**2)


def hitting_probability(mdp, pi, states) -> np.ndarray:
    """Pr(the chain of ``pi`` ever visits one of ``states``, time 0 included), for every start
    state: an (S,) array (exact: reachability, then one linear solve)."""
    P, _, _ = mdp_arrays(mdp)
    pi = check_policy(pi, mdp, "pi")
    S = mdp.n_states
    idx = check_array(states, "states", ndim=(0, 1), dtype="int").reshape(-1)
    if idx.min() < 0 or idx.max() >= S:
        raise ValueError(f"states must be state indices in [0, {S - 1}], got {idx.tolist()}")
    P_pi = np.einsum("sa,sat->st", pi, P)
    target = np.zeros(S, dtype=bool)
    target[idx] = True
    # states that can reach the target (backward reachability on the support of P_pi)
    reach = target.copy()
    while True:
        new = reach | ((P_pi[:, reach] > 0).any(axis=1))
        if np.array_equal(new, reach):
            break
        reach = new
    h = target.astype(float)
    free = reach & ~target
    if free.any():
        A = np.eye(int(free.sum())) - P_pi[np.ix_(free, free)]
        b = P_pi[np.ix_(free, target)].sum(axis=1)
        h[free] = np.linalg.solve(A, b)
    return h
