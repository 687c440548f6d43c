"""Exact evaluation: policy values, Q-values, optimal policies, state-action distributions."""

from __future__ import annotations

import numpy as np

from ._validation import check_policy
from .mdp import TabularMDP


def _check_mdp(mdp, name: str = "mdp") -> TabularMDP:
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"{name} must be a TabularMDP, got {type(mdp).__name__}")
    return mdp


def q_values(mdp: TabularMDP, policy) -> np.ndarray:
    """Q of ``policy``: (H, S, A) for a finite horizon (backward induction), (S, A) discounted
    (the linear system (I - gamma P_pi) V = r_pi solved exactly)."""
    _check_mdp(mdp)
    pi = check_policy(policy, mdp)
    r, P = mdp.expected_reward(), mdp.transitions()
    if mdp.horizon is not None:
        H = mdp.horizon
        Q = np.empty((H, mdp.n_states, mdp.n_actions))
        v_next = np.zeros(mdp.n_states)
        for h in range(H - 1, -1, -1):
            Q[h] = r[h] + P[h] @ v_next
            v_next = np.einsum("sa,sa->s", pi[h], Q[h])
        return Q
    V = policy_value(mdp, pi)
    return r + mdp.gamma * P @ V


def policy_value(mdp: TabularMDP, policy) -> np.ndarray:
    """V of ``policy``: (H, S) for a finite horizon (V[h, s] = expected reward from step h), (S,)
    discounted."""
    _check_mdp(mdp)
    pi = check_policy(policy, mdp)
    if mdp.horizon is not None:
        return np.einsum("hsa,hsa->hs", pi, q_values(mdp, pi))
    r, P = mdp.expected_reward(), mdp.P
    r_pi = np.einsum("sa,sa->s", pi, r)
    P_pi = np.einsum("sa,sat->st", pi, P)
    return np.linalg.solve(np.eye(mdp.n_states) - mdp.gamma * P_pi, r_pi)


def policy_return(mdp: TabularMDP, policy) -> float:
    """Expected return of ``policy`` from the initial distribution: init @ V[0] (or init @ V)."""
    V = policy_value(mdp, policy)
    return float(mdp.init @ (V[0] if mdp.horizon is not None else V))


def _greedy(Q: np.ndarray) -> np.ndarray:
    """Deterministic greedy policy as probabilities; ties go to the lowest action index."""
    pi = np.zeros_like(Q)
    idx = np.argmax(Q, axis=-1)
    np.put_along_axis(pi, idx[..., None], 1.0, axis=-1)
    return pi


def optimal_q(mdp: TabularMDP, *, tol: float = 1e-12, max_iter: int = 10_000) -> np.ndarray:
    """Q*: backward induction (finite horizon, exact) or policy iteration (discounted: exact up
    to the linear solves; it stops when the greedy policy repeats)."""
    _check_mdp(mdp)
    r, P = mdp.expected_reward(), mdp.transitions()
    if mdp.horizon is not None:
        Q = np.empty((mdp.horizon, mdp.n_states, mdp.n_actions))
        v_next = np.zeros(mdp.n_states)
        for h in range(mdp.horizon - 1, -1, -1):
            Q[h] = r[h] + P[h] @ v_next
            v_next = Q[h].max(axis=-1)
        return Q
    pi = _greedy(r)
    for _ in range(max_iter):
        Q = q_values(mdp, pi)
        # keep the current action unless another is better by more than tol (no cycling on ties)
        best = Q.max(axis=-1, keepdims=True)
        current = (pi * Q).sum(axis=-1, keepdims=True)
        improve = (best - current > tol * (1 + np.abs(best))).squeeze(-1)
        if not improve.any():
            return Q
        new = pi.copy()
        new[improve] = _greedy(Q[improve])
        pi = new
    raise RuntimeError(f"policy iteration did not converge in {max_iter} iterations")


def optimal_policy(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray]:
    """(V*, a deterministic optimal policy as probabilities, ties to the lowest action index)."""
    Q = optimal_q(mdp)
    return Q.max(axis=-1), _greedy(Q)


def optimal_value(mdp: TabularMDP) -> np.ndarray:
    """V*: (H, S) for a finite horizon, (S,) discounted."""
    return optimal_q(mdp).max(axis=-1)


def state_action_distribution(mdp: TabularMDP, policy) -> np.ndarray:
    """Finite horizon: the law of (s_h, a_h) at every step, (H, S, A), each step summing to 1."""
    _check_mdp(mdp)
    if mdp.horizon is None:
        raise ValueError("mdp is discounted: use occupancy() for its discounted occupancy")
    pi = check_policy(policy, mdp)
    P = mdp.transitions()
    out = np.empty((mdp.horizon, mdp.n_states, mdp.n_actions))
    d = mdp.init.copy()
    for h in range(mdp.horizon):
        out[h] = d[:, None] * pi[h]
        d = np.einsum("sa,sat->t", out[h], P[h])
    return out


def occupancy(mdp: TabularMDP, policy) -> np.ndarray:
    """Normalised state-action occupancy (S, A), summing to 1: discounted,
    (1 - gamma) sum_t gamma^t Pr(s_t = s, a_t = a); finite horizon, the mean over steps of
    :func:`state_action_distribution`."""
    _check_mdp(mdp)
    if mdp.horizon is not None:
        return state_action_distribution(mdp, policy).mean(axis=0)
    pi = check_policy(policy, mdp)
    P_pi = np.einsum("sa,sat->st", pi, mdp.P)
    d = np.linalg.solve(np.eye(mdp.n_states) - mdp.gamma * P_pi.T, (1 - mdp.gamma) * mdp.init)
    return d[:, None] * pi
