"""Tabular tools: the combination lock, TV perturbations, low-rank MDPs, feature coverage and the
exploration policies learned in the simulator (Algorithm 1, step 1, tabular stand-ins).

Conventions (papershelf): ``P[s, a, s']`` (S, A, S) or (H, S, A, S); policies are action
probabilities (S, A) or (H, S, A); a finite horizon H means steps h = 0 .. H-1.
"""

from __future__ import annotations

import numpy as np

import papershelf_mdp as pm
from papershelf_mdp import TabularMDP

from ._checks import check_array, check_float, check_int, check_probability, check_rng
from ._validation import check_finite_mdp, check_mdp, check_policy_list

__all__ = [
    "KEY_ACTION",
    "e_optimal_design",
    "exploration_policies",
    "feature_coverage",
    "low_rank_mdp",
    "min_eigenvalues",
    "one_hot_features",
    "perturb",
    "random_low_rank_mdp",
    "random_tail",
    "reach_policies",
    "tv_distance",
    "two_corridor_lock",
]

#: The key action at every lock step of :func:`two_corridor_lock` (action 0 is the safe corridor
#: at the start and the wrong digit in the lock, so a simulator whose lock pays nothing -- every
#: lock action then ties and ties go to action 0 -- knows nothing about the key).
KEY_ACTION = 1


# --------------------------------------------------------------------------- instances


def two_corridor_lock(horizon=16, *, q_sim=0.4, q_real=0.6, safe_reward=0.5):
    """The didactic instance: a safe corridor and a combination lock, as ``(sim, real)``.

    Two actions. From the start state, action 0 enters a corridor that pays ``safe_reward`` at
    its end (step H-1) whatever is played; action 1 (:data:`KEY_ACTION`) enters a lock of H-2
    states where only the key action (1) advances and any other action falls into an absorbing
    state worth 0. The key action in the last lock state reaches the goal state (reward 1 at step
    H-1) with probability ``q`` (``q_sim`` in the simulator, ``q_real`` in the real MDP) and
    falls otherwise. The two MDPs differ in that one row only: TV gap ``|q_real - q_sim|``.

    With the defaults the simulator's optimum is the corridor (0.5 > 0.4) and the real optimum is
    the lock (0.6 > 0.5); a uniformly random policy completes the lock with probability
    ``2**-(H-1)``. States: 0 start, 1..H-2 lock, H-1..2H-4 corridor, then goal, corridor end,
    dead (absorbing) and done (absorbing, after a reward) -- 2H + 1 states. ``horizon >= 2``.
    """
    H = check_int(horizon, "horizon", minimum=1)
    if H < 2:
        raise ValueError(f"horizon must be >= 2 (the lock needs one step to pay), got {H}")
    qs = check_probability(q_sim, "q_sim")
    qr = check_probability(q_real, "q_real")
    rs = check_float(safe_reward, "safe_reward")
    m = H - 2
    lock = list(range(1, m + 1))
    corr = list(range(m + 1, 2 * m + 1))
    goal, end, dead, done = 2 * m + 1, 2 * m + 2, 2 * m + 3, 2 * m + 4
    S, A = 2 * m + 5, 2

    def build(q):
        P = np.zeros((S, A, S))
        # start state
        if m:
            P[0, KEY_ACTION, lock[0]] = 1.0
            P[0, 0, corr[0]] = 1.0
        else:
            P[0, KEY_ACTION, goal] = q
            P[0, KEY_ACTION, dead] += 1.0 - q
            P[0, 0, end] = 1.0
        for k, s in enumerate(lock):
            P[s, 0, dead] = 1.0
            if k + 1 < m:
                P[s, KEY_ACTION, lock[k + 1]] = 1.0
            else:
                P[s, KEY_ACTION, goal] = q
                P[s, KEY_ACTION, dead] += 1.0 - q
        for k, s in enumerate(corr):
            P[s, :, corr[k + 1] if k + 1 < m else end] = 1.0
        P[goal, :, done] = 1.0
        P[end, :, done] = 1.0
        P[dead, :, dead] = 1.0
        P[done, :, done] = 1.0
        R = np.zeros((S, A))
        R[goal] = 1.0
        R[end] = rs
        init = np.zeros(S)
        init[0] = 1.0
        return TabularMDP(P, R, init, horizon=H)

    return build(qs), build(qr)


def low_rank_mdp(phi, mu, R, init=None, *, horizon):
    """The tabular MDP of a low-rank model: ``P_h(s' | s, a) = <phi(s, a), mu_h(., s')>``.

    ``phi`` (S, A, d) with every ``phi[s, a]`` a probability vector over the d factors, ``mu``
    (d, S) or (H, d, S) with every row a distribution over next states (so P is stochastic);
    ``R`` and ``init`` as for :class:`TabularMDP`."""
    H = check_int(horizon, "horizon", minimum=1)
    phi = check_array(phi, "phi", ndim=3)
    mu = check_array(mu, "mu", ndim=(2, 3))
    S, A, d = phi.shape
    want = (d, S) if mu.ndim == 2 else (H, d, S)
    if mu.shape != want:
        raise ValueError(f"mu must have shape {want} (phi is {phi.shape}), got {mu.shape}")
    pm.check_stochastic(phi, "phi")
    pm.check_stochastic(mu, "mu")
    P = np.einsum("sad,dt->sat", phi, mu) if mu.ndim == 2 else np.einsum("sad,hdt->hsat", phi, mu)
    P = P / P.sum(axis=-1, keepdims=True)  # exact in theory; removes rounding
    return TabularMDP(P, R, init, horizon=H)


def random_low_rank_mdp(n_states, n_actions, rank, *, horizon, concentration=0.3, rng=None):
    """A random low-rank MDP and its features: ``(mdp, phi)`` with ``phi`` (S, A, d).

    ``phi[s, a]`` ~ Dirichlet(concentration) over d factors, each ``mu_h[i]`` ~ Dirichlet(
    concentration) over states (time-varying), rewards Uniform(0, 1) of shape (H, S, A), start
    state 0."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    d = check_int(rank, "rank", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    c = check_float(concentration, "concentration", minimum=0.0, min_inclusive=False)
    g = check_rng(rng)
    phi = g.dirichlet(np.full(d, c), size=(S, A))
    mu = g.dirichlet(np.full(S, c), size=(H, d))
    R = g.random((H, S, A))
    init = np.zeros(S)
    init[0] = 1.0
    return low_rank_mdp(phi, mu, R, init, horizon=H), phi


def one_hot_features(n_states, n_actions):
    """phi(s, a) = e_{s A + a}: the tabular case of a low-rank MDP, (S, A, S*A)."""
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    return np.eye(S * A).reshape(S, A, S * A)


# --------------------------------------------------------------------------- perturbations


def tv_distance(p, q):
    """Total-variation distance between the rows (last axis) of two stochastic arrays."""
    p = check_array(p, "p")
    q = check_array(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    return 0.5 * np.abs(p - q).sum(axis=-1)


def perturb(mdp, eps_tv, *, rng=None):
    """A copy of ``mdp`` whose every transition row is within ``eps_tv`` of the original in TV.

    Each row p = P[..., s, a, :] is moved towards a random distribution u ~ Dirichlet(1):
    ``p + t (u - p)`` with ``t = min(1, eps_tv / TV(p, u))`` (times 1 - 1e-9, so that rounding
    never takes a row past the radius), so its TV distance to p is ``min(eps_tv, TV(p, u))`` --
    ``eps_tv`` unless the whole row is replaced -- and never more than ``eps_tv``. Rewards, the
    initial distribution and the horizon (or discount) are kept; ``eps_tv = 0`` returns an equal
    MDP. ``eps_tv >= 1`` allows any rows."""
    check_mdp(mdp)
    eps = check_float(eps_tv, "eps_tv", minimum=0.0)
    g = check_rng(rng)
    P = np.array(mdp.P)
    u = g.dirichlet(np.ones(mdp.n_states), size=P.shape[:-1])
    tv = 0.5 * np.abs(u - P).sum(axis=-1, keepdims=True)
    # t slightly under eps / TV(p, u), so that the computed TV never exceeds eps by rounding
    t = np.where(tv > 0, np.minimum(1.0, eps * (1 - 1e-9) / np.where(tv > 0, tv, 1.0)), 0.0)
    Q = P + t * (u - P)  # a convex combination: non-negative, rows sum to 1; t = 0 keeps P
    while True:  # rounding guard (never needed in practice): pull offending rows back to P
        over = 0.5 * np.abs(Q - P).sum(axis=-1) > eps
        if not over.any():
            break
        Q[over] = P[over] + 0.5 * (Q[over] - P[over])
    return TabularMDP(
        Q,
        mdp.R,
        mdp.init,
        horizon=mdp.horizon,
        gamma=mdp.gamma,
        reward_kind=mdp.reward_kind,
    )


# --------------------------------------------------------------------------- coverage


def _check_phi(phi, mdp, name="phi"):
    phi = check_array(phi, name, ndim=(3, 4))
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    if phi.ndim == 3 and phi.shape[:2] != (S, A):
        raise ValueError(f"{name} must have shape ({S}, {A}, d) (S, A, d), got {phi.shape}")
    if phi.ndim == 4 and phi.shape[:3] != (H, S, A):
        raise ValueError(f"{name} must have shape ({H}, {S}, {A}, d) (H, S, A, d), got {phi.shape}")
    return phi


def feature_coverage(mdp, policies, phi):
    """The policy-averaged feature covariance at every step, (H, d, d):
    ``Sigma_h = mean_k E^{mdp, pi_k}[phi(s_h, a_h) phi(s_h, a_h)^T]`` (exact).

    ``policies`` is a list of action-probability arrays ((S, A) or (H, S, A)) or one such array;
    ``phi`` is (S, A, d), or (H, S, A, d) for step-dependent features."""
    check_finite_mdp(mdp)
    pols = check_policy_list(policies, mdp)
    phi = _check_phi(phi, mdp)
    d = np.mean([pm.state_action_distribution(mdp, p) for p in pols], axis=0)  # (H, S, A)
    if phi.ndim == 3:
        return np.einsum("hsa,sai,saj->hij", d, phi, phi)
    return np.einsum("hsa,hsai,hsaj->hij", d, phi, phi)


def min_eigenvalues(cov):
    """The smallest eigenvalue of every (d, d) matrix in ``cov`` (..., d, d)."""
    cov = check_array(cov, "cov", ndim=(2, 3))
    if cov.shape[-1] != cov.shape[-2]:
        raise ValueError(f"cov must hold square matrices, got shape {cov.shape}")
    return np.linalg.eigvalsh(0.5 * (cov + np.swapaxes(cov, -1, -2)))[..., 0]


# --------------------------------------------------------------------------- exploration


def random_tail(policy, switch_step):
    """``policy`` (H, S, A) up to step ``switch_step - 1``, uniformly random from ``switch_step``
    on (the paper's ``pi o_h pi_unif``). Returns a new (H, S, A) array."""
    pi = check_array(policy, "policy", ndim=3)
    pm.check_stochastic(pi, "policy")
    h = check_int(switch_step, "switch_step", minimum=0, maximum=pi.shape[0])
    out = pi.copy()
    out[h:] = 1.0 / pi.shape[-1]
    return out


def _greedy(Q):
    pi = np.zeros_like(Q)
    np.put_along_axis(pi, np.argmax(Q, axis=-1)[..., None], 1.0, axis=-1)
    return pi


def _plan_to(mdp, step, values):
    """Deterministic policies maximising E[values[s_step, j]] for every column j, and the optimum.

    ``values`` (S, J). Returns (policies (J, H, S, A): greedy before ``step``, uniform from
    ``step`` on; optimum (J,) from ``init``)."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    P = mdp.transitions()
    J = values.shape[1]
    pols = np.full((J, H, S, A), 1.0 / A)
    V = values  # (S, J) value at `step`
    for t in range(step - 1, -1, -1):
        Q = np.einsum("sat,tj->jsa", P[t], V)  # (J, S, A)
        pols[:, t] = _greedy(Q)
        V = Q.max(axis=-1).T
    return pols, mdp.init @ V


def reach_policies(mdp, step):
    """For every state s: the deterministic policy maximising ``P(s_step = s)`` (ties to the lowest
    action), uniformly random from ``step`` on, and that maximal probability.

    Returns ``(policies (S, H, S, A), reach (S,))``. ``step`` in [0, H-1]."""
    check_finite_mdp(mdp)
    h = check_int(step, "step", minimum=0, maximum=mdp.horizon - 1)
    return _plan_to(mdp, h, np.eye(mdp.n_states))


def _dedupe(pols):
    out, seen = [], set()
    for p in pols:
        key = p.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def exploration_policies(sim, *, tol=1e-9):
    """Exploration policies learned in the simulator, tail-augmented, one list per step.

    ``result[h]`` holds, for every state s reachable at step h in ``sim`` (max probability
    > ``tol``), the policy that maximises ``P^sim(s_h = s)`` up to step h-1 and acts uniformly
    at random from step h on (duplicates removed). A uniform draw from ``result[h]`` covers
    every reachable (s, a) at step h with probability >= max-reach(s) / (A |result[h]|): the
    tabular case (phi one-hot) of the paper's coverage requirement, with its random tail."""
    check_finite_mdp(sim, "sim")
    tol = check_float(tol, "tol", minimum=0.0)
    out = []
    for h in range(sim.horizon):
        pols, reach = reach_policies(sim, h)
        out.append(_dedupe([pols[s] for s in np.flatnonzero(reach > tol)]))
    return out


def e_optimal_design(sim, phi, *, n_iters=None, reg=1e-3):
    """Exploration policies by a greedy E-optimal design in the simulator, one list per step.

    For each step h, ``n_iters`` times (default d): take the least-covered direction u (the
    bottom eigenvector of ``reg I + sum`` of the covariances chosen so far), plan in ``sim`` the
    deterministic policy maximising ``E[mean_a (u^T phi(s_h, a))^2]`` and add it, with a uniform
    tail from step h. Our simplification of the paper's dynamic optimal-design routine."""
    check_finite_mdp(sim, "sim")
    phi = _check_phi(phi, sim)
    reg = check_float(reg, "reg", minimum=0.0, min_inclusive=False)
    d = phi.shape[-1]
    n = d if n_iters is None else check_int(n_iters, "n_iters", minimum=1)
    out = []
    for h in range(sim.horizon):
        ph = phi if phi.ndim == 3 else phi[h]  # (S, A, d)
        per_state = np.einsum("sai,saj->sij", ph, ph) / sim.n_actions  # uniform action at h
        lam = reg * np.eye(d)
        chosen = []
        for _ in range(n):
            w, v = np.linalg.eigh(lam)
            u = v[:, 0]
            score = np.einsum("i,sij,j->s", u, per_state, u)
            pols, _ = _plan_to(sim, h, score[:, None])
            pol = pols[0]
            dist = pm.state_action_distribution(sim, pol)[h].sum(axis=-1)
            lam = lam + np.einsum("s,sij->ij", dist, per_state)
            chosen.append(pol)
        out.append(chosen)
    return out


def check_exploration(exploration, sim, name="exploration") -> list[list[np.ndarray]]:
    """One non-empty list of (H, S, A) policies per step."""
    H = sim.horizon
    if isinstance(exploration, np.ndarray) or not isinstance(exploration, list | tuple):
        raise TypeError(
            f"{name} must be a list of H={H} lists of policies (one list per switch step), got "
            f"{type(exploration).__name__}"
        )
    if len(exploration) != H:
        raise ValueError(f"{name} must hold one list per step (H={H}), got {len(exploration)}")
    return [check_policy_list(p, sim, f"{name}[{h}]") for h, p in enumerate(exploration)]
