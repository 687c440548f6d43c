"""Exact tabular tools: LogLossBC as a count table, exact values and trajectory-level Hellinger
distances, a tabular DAgger, and the random imitation instances of the paper's analysis.

Conventions (papershelf): ``P[s, a, s']`` (S, A, S) or (H, S, A, S); policies are
action-probability arrays (S, A) (stationary) or (H, S, A) (one table per step); trajectories are
(n, H) int arrays of states and actions, step h = 0 .. H-1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from papershelf_mdp import TabularMDP, check_policy, policy_return, sample_trajectories

from ._checks import check_array, check_bool, check_float, check_int, check_rng
from ._validation import check_indices, check_mdp, check_same_shape


def exact_value(mdp: TabularMDP, policy) -> float:
    """J(policy): the expected return from the initial distribution, by backward induction.

    ``policy`` is (S, A) (stationary) or (H, S, A). The regret of a learner is
    ``exact_value(mdp, expert) - exact_value(mdp, learner)``. (The per-step table V (H, S) is
    :func:`papershelf_mdp.policy_value`.)"""
    check_mdp(mdp, finite=False)
    check_policy(policy, mdp, "policy")
    return policy_return(mdp, policy)


def exact_values(mdp: TabularMDP, policies) -> np.ndarray:
    """J of K policies at once, (K,): ``policies`` is (K, S, A) (stationary) or (K, H, S, A);
    the same numbers as :func:`exact_value` for each, in one backward pass (for sweeps)."""
    check_mdp(mdp)
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    pis = check_array(policies, "policies", ndim=(3, 4))
    want = (S, A) if pis.ndim == 3 else (H, S, A)
    if pis.shape[1:] != want:
        raise ValueError(
            f"policies must have shape (K, {', '.join(map(str, want))}), got {pis.shape}"
        )
    _check_probabilities(pis, "policies")
    r, P = mdp.expected_reward(), mdp.transitions()
    v = np.zeros((pis.shape[0], S))
    for h in range(H - 1, -1, -1):
        q = r[h][None] + np.einsum("sat,kt->ksa", P[h], v)
        pi_h = pis if pis.ndim == 3 else pis[:, h]
        v = np.einsum("ksa,ksa->ks", pi_h, q)
    return v @ mdp.init


def _check_trajectories(observations, actions, n_states: int, n_actions: int):
    obs = check_indices(observations, "observations", upper=n_states, what="state index")
    act = check_indices(actions, "actions", upper=n_actions, what="action index")
    check_same_shape(observations=obs, actions=act)
    return obs, act


def tabular_logloss_bc(observations, actions, *, n_states, n_actions, stationary=True):
    """LogLossBC over tabular softmax policies: the maximiser of sum_i sum_h log pi_h(a_ih | x_ih).

    For the stationary class (one table shared by every step) it is the empirical action
    frequency of each state over all steps, (S, A); for the non-stationary class (one table per
    step) the frequency at each step, (H, S, A). A state never seen (at that step) gets the
    uniform distribution (the likelihood does not depend on it; uniform is the paper's choice).

    Parameters
    ----------
    observations, actions
        (n, H) int arrays: state and expert action of episode i at step h.
    n_states, n_actions
        Sizes S and A (every entry must be a valid index).
    stationary
        True: one (S, A) table; False: one per step, (H, S, A).
    """
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    stationary = check_bool(stationary, "stationary")
    obs, act = _check_trajectories(observations, actions, S, A)
    n, H = obs.shape
    if stationary:
        counts = np.bincount((obs * A + act).ravel(), minlength=S * A).reshape(S, A)
    else:
        flat = (np.arange(H)[None, :] * S + obs) * A + act
        counts = np.bincount(flat.ravel(), minlength=H * S * A).reshape(H, S, A)
    counts = counts.astype(np.float64)
    totals = counts.sum(axis=-1, keepdims=True)
    return np.where(totals > 0, counts / np.maximum(totals, 1.0), 1.0 / A)


def policy_log_probs(policy, observations, actions) -> np.ndarray:
    """log pi_h(a_ih | x_ih) of a tabular ``policy`` ((S, A) or (H, S, A)) along (n, H)
    trajectories, (n, H); ``-inf`` where the policy gives the action probability 0."""
    pi = check_array(policy, "policy", ndim=(2, 3))
    _check_probabilities(pi, "policy")
    S, A = pi.shape[-2:]
    obs, act = _check_trajectories(observations, actions, S, A)
    if pi.ndim == 3 and pi.shape[0] != obs.shape[1]:
        raise ValueError(
            f"policy has {pi.shape[0]} steps but the trajectories have H={obs.shape[1]}"
        )
    p = pi[obs, act] if pi.ndim == 2 else pi[np.arange(obs.shape[1])[None, :], obs, act]
    with np.errstate(divide="ignore"):
        return np.log(p)


def _check_probabilities(pi: np.ndarray, name: str) -> None:
    if np.any(pi < 0):
        raise ValueError(f"{name} must be non-negative, got {pi.min()}")
    sums = pi.sum(axis=-1)
    if np.any(np.abs(sums - 1.0) > 1e-8):
        bad = sums[np.abs(sums - 1.0) > 1e-8].flat[0]
        raise ValueError(f"{name} rows must sum to 1 over actions, got a row summing to {bad:.6g}")


def hellinger_sq(mdp: TabularMDP, pa, pb) -> float:
    """Squared Hellinger distance between the trajectory laws of ``pa`` and ``pb`` in ``mdp``.

    D^2_H(P^pa, P^pb) = sum over trajectories tau = (x_0, a_0, ..., x_{H-1}, a_{H-1}) of
    (sqrt P^pa(tau) - sqrt P^pb(tau))^2, in [0, 2], computed exactly as 2 - 2 BC with the
    Bhattacharyya coefficient BC = sum_tau sqrt(P^pa P^pb) by a forward recursion (the dynamics
    are shared, so only the policies enter the square roots). A rounding-level negative result
    is returned as 0."""
    check_mdp(mdp)
    a = check_policy(pa, mdp, "pa")
    b = check_policy(pb, mdp, "pb")
    P = mdp.transitions()
    root = np.sqrt(a * b)
    m = mdp.init.copy()
    bc = 0.0
    for h in range(mdp.horizon):
        w = m[:, None] * root[h]
        if h == mdp.horizon - 1:
            bc = float(w.sum())
        else:
            m = np.einsum("sa,sat->t", w, P[h])
    return max(0.0, 2.0 - 2.0 * bc)


def _sum_over_steps(values: np.ndarray, name: str) -> np.ndarray:
    if np.any(np.isnan(values)):
        raise ValueError(f"{name} must not contain NaN, got {int(np.isnan(values).sum())} NaN(s)")
    if np.any(values == np.inf):
        raise ValueError(f"{name} must not contain +inf")
    return values.sum(axis=1)


def hellinger_sq_from_logprobs(log_probs) -> float:
    """Estimate D^2_H(P^learner, P^expert) for a deterministic expert from expert rollouts.

    ``log_probs`` (n, H): log pi_h(a_ih | x_ih) of the *learner* at the expert's states and
    actions (``-inf`` allowed: probability 0). With a deterministic expert the likelihood ratio
    of a trajectory is prod_h pi_h(a_h | x_h), so D^2_H = 2 - 2 E_expert[prod_h pi_h^(1/2)]:
    the estimate is ``2 - 2 * mean_i exp(0.5 * sum_h log_probs[i, h])``, unbiased and in [0, 2].
    (Pad the steps after an early termination with 0.)"""
    lp = check_array(log_probs, "log_probs", ndim=2, finite=False)
    if np.any(lp > 0):
        raise ValueError(
            f"log_probs must be <= 0 (log-probabilities of discrete actions), got {lp.max():.6g}"
        )
    s = _sum_over_steps(lp, "log_probs")
    return float(2.0 - 2.0 * np.mean(np.exp(0.5 * s)))


def hellinger_sq_from_log_ratios(log_ratios) -> float:
    """Monte-Carlo D^2_H(P^a, P^b) for any two policies, from rollouts of ``a``.

    ``log_ratios`` (n, H): log pi^b_h(a_ih | x_ih) - log pi^a_h(a_ih | x_ih) along n episodes of
    policy a (``-inf`` allowed). D^2_H = 2 - 2 E_a[exp(0.5 * sum_h log_ratios)]; the estimate is
    unbiased but, unlike :func:`hellinger_sq_from_logprobs`, not confined to [0, 2]."""
    lr = check_array(log_ratios, "log_ratios", ndim=2, finite=False)
    s = _sum_over_steps(lr, "log_ratios")
    return float(2.0 - 2.0 * np.mean(np.exp(0.5 * s)))


def tabular_dagger(mdp: TabularMDP, expert, *, n_rounds, n_per_round, stationary=True, rng=None):
    """DAgger with tabular log-loss (maximum-likelihood) fits, n_rounds * n_per_round labelled
    episodes in all.

    Round 1 rolls out the expert (beta_1 = 1); every later round rolls out the current learner
    and labels each state it visits with an action drawn from ``expert`` at that state and step
    (beta_i = 0 for i > 1, the variant Ross et al. recommend); the learner is refitted on all the
    labelled data after each round (:func:`tabular_logloss_bc`). Returns the last fit, (S, A)
    when ``stationary`` else (H, S, A)."""
    check_mdp(mdp)
    pe = check_policy(expert, mdp, "expert")
    R = check_int(n_rounds, "n_rounds", minimum=1)
    m = check_int(n_per_round, "n_per_round", minimum=1)
    stationary = check_bool(stationary, "stationary")
    g = check_rng(rng)
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    steps = np.arange(H)[None, :]
    obs_all, act_all = [], []
    learner = None
    for r in range(R):
        if r == 0:
            tr = sample_trajectories(mdp, pe, m, rng=g)
            labels = tr.actions
        else:
            tr = sample_trajectories(mdp, learner, m, rng=g)
            cum = np.cumsum(pe[steps, tr.observations], axis=-1)
            u = g.random(tr.observations.shape)[..., None]
            labels = np.minimum((u > cum).sum(axis=-1), A - 1)
        obs_all.append(tr.observations)
        act_all.append(labels)
        learner = tabular_logloss_bc(
            np.concatenate(obs_all),
            np.concatenate(act_all),
            n_states=S,
            n_actions=A,
            stationary=stationary,
        )
    return learner


class ImitationProblem(NamedTuple):
    """A tabular imitation problem: the MDP (its reward defines the regret) and the expert."""

    mdp: TabularMDP
    expert: np.ndarray


def random_imitation_mdp(
    n_states, n_actions, *, horizon, normalized=True, concentration=1.0, rng=None
) -> ImitationProblem:
    """The paper's tabular testbed: Dirichlet(concentration) transition rows, a uniform start,
    a deterministic stationary expert pi* (a uniformly random action per state, as an (S, A)
    one-hot array) and the reward r_h(x, a) = 1{a = pi*(x)} / H (``normalized``, so the return
    is in [0, 1]: R = 1) or 1{a = pi*(x)} (dense, R = H). The expert is optimal with return R."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    normalized = check_bool(normalized, "normalized")
    c = check_float(concentration, "concentration", minimum=0.0, min_inclusive=False)
    g = check_rng(rng)
    P = g.dirichlet(np.full(S, c), size=(S, A))
    expert = np.zeros((S, A))
    expert[np.arange(S), g.integers(A, size=S)] = 1.0
    R = expert / H if normalized else expert.copy()
    return ImitationProblem(TabularMDP(P, R, np.full(S, 1.0 / S), horizon=H), expert)
