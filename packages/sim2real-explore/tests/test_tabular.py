"""Tabular tools against independent references: closed forms of the lock, brute force over
deterministic policies, trajectory enumeration, Monte Carlo, and the defining properties."""

import itertools

import numpy as np
import pytest
import sim2real_explore as se

import papershelf_mdp as pm


def _enumerate_step_laws(mdp, policy):
    """Law of (s_h, a_h) at every step by summing over every trajectory prefix (no matrices)."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    P = mdp.transitions()
    pi = np.broadcast_to(policy, (H, S, A)) if np.ndim(policy) == 2 else policy
    out = np.zeros((H, S, A))
    for s0 in range(S):
        if mdp.init[s0] == 0:
            continue
        stack = [(0, s0, mdp.init[s0])]
        while stack:
            h, s, p = stack.pop()
            for a in range(A):
                pa = p * pi[h, s, a]
                if pa == 0:
                    continue
                out[h, s, a] += pa
                if h + 1 < H:
                    for t in range(S):
                        if P[h, s, a, t]:
                            stack.append((h + 1, t, pa * P[h, s, a, t]))
    return out


def _deterministic_policies(H, S, A, steps):
    """Every deterministic Markov policy over ``steps`` (uniform at the other steps)."""
    for choice in itertools.product(range(A), repeat=len(steps) * S):
        pi = np.full((H, S, A), 1.0 / A)
        for i, h in enumerate(steps):
            pi[h] = np.eye(A)[list(choice[i * S : (i + 1) * S])]
        yield pi


# --------------------------------------------------------------------------- the lock


@pytest.mark.parametrize("H", [2, 3, 5, 16])
@pytest.mark.parametrize(("q_sim", "q_real", "safe"), [(0.4, 0.6, 0.5), (0.0, 0.9, 0.3)])
def test_lock_closed_forms(H, q_sim, q_real, safe):
    sim, real = se.two_corridor_lock(H, q_sim=q_sim, q_real=q_real, safe_reward=safe)
    assert sim.n_states == real.n_states == 2 * H + 1 and sim.n_actions == 2
    assert sim.horizon == H
    for mdp, q in ((sim, q_sim), (real, q_real)):
        S = mdp.n_states
        key = np.zeros((S, 2))
        key[:, se.KEY_ACTION] = 1.0
        safe_pol = np.zeros((S, 2))
        safe_pol[:, 0] = 1.0
        uniform = np.full((S, 2), 0.5)
        assert pm.policy_return(mdp, key) == pytest.approx(q)  # the lock pays q
        assert pm.policy_return(mdp, safe_pol) == pytest.approx(safe)  # the corridor pays safe
        # a random policy: half the time the corridor, else H-1 correct binary digits then q
        assert pm.policy_return(mdp, uniform) == pytest.approx(0.5 * safe + q * 0.5 ** (H - 1))
        assert pm.optimal_value(mdp)[0, 0] == pytest.approx(max(q, safe))
    # they differ in exactly one (s, a) row, by |q_real - q_sim| in TV
    tv = se.tv_distance(sim.P, real.P)
    assert np.count_nonzero(tv > 1e-12) == (q_sim != q_real)
    assert tv.max() == pytest.approx(abs(q_real - q_sim))


def test_lock_sim_and_real_optima_disagree_by_the_brief():
    sim, real = se.two_corridor_lock()
    Vs, pis = se.optimal_policy(sim)
    Vr, pir = se.optimal_policy(real)
    assert Vs[0, 0] == pytest.approx(0.5) and Vr[0, 0] == pytest.approx(0.6)
    assert pis[0, 0].argmax() == 0 and pir[0, 0].argmax() == se.KEY_ACTION
    assert se.policy_value(real, se.direct_transfer(sim))[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("zeta", [0.1, 0.5, 1.0])
def test_zeta_greedy_completion_probability(zeta):
    """zeta-greedy around pi^{sim,*}: with q_sim > 0 the sim policy plays the key inside the lock
    (entry (zeta/2), then (1 - zeta/2) per digit); with q_sim = 0 every lock action ties and the
    tie goes to action 0, so every digit needs a random 1: (zeta/2)^(H-1)."""
    H = 10
    for q_sim, law in ((0.4, (zeta / 2) * (1 - zeta / 2) ** (H - 2)), (0.0, (zeta / 2) ** (H - 1))):
        sim, real = se.two_corridor_lock(H, q_sim=q_sim, q_real=0.6, safe_reward=0.5)
        pi = (1 - zeta) * se.direct_transfer(sim) + zeta / 2
        corridor = 1 - zeta / 2
        assert pm.policy_return(real, pi) == pytest.approx(0.5 * corridor + 0.6 * law)


# --------------------------------------------------------------------------- perturb


@pytest.mark.parametrize("eps", [0.0, 0.01, 0.2, 1.0, 3.0])
def test_perturb_rows_within_eps(eps):
    mdp = pm.random_mdp(6, 3, horizon=4, rng=0)
    out = se.perturb(mdp, eps, rng=1)
    tv = se.tv_distance(mdp.P, out.P)
    assert np.all(tv <= eps)  # no rounding slack
    assert np.all(out.P >= 0) and np.allclose(out.P.sum(-1), 1.0)
    if 0 < eps < 0.05:  # a Dirichlet row is far from the original: the gap is used fully
        assert np.allclose(tv, eps)
    if eps == 0.0:
        assert np.array_equal(out.P, mdp.P)
    assert np.array_equal(out.R, mdp.R) and np.array_equal(out.init, mdp.init)
    assert out.horizon == mdp.horizon and out.reward_kind == mdp.reward_kind


def test_perturb_time_varying_discounted_and_seeded():
    P = np.random.default_rng(0).dirichlet(np.ones(4), size=(3, 4, 2))
    mdp = se.TabularMDP(P, np.ones((4, 2)), horizon=3)
    out = se.perturb(mdp, 0.05, rng=3)
    assert out.P.shape == (3, 4, 2, 4)
    assert np.allclose(se.tv_distance(P, out.P), 0.05)
    assert np.array_equal(out.P, se.perturb(mdp, 0.05, rng=3).P)
    assert not np.array_equal(out.P, se.perturb(mdp, 0.05, rng=4).P)
    disc = pm.random_mdp(4, 2, gamma=0.9, rng=0)
    assert se.perturb(disc, 0.1, rng=0).gamma == 0.9


def test_simulation_lemma_bounds_the_value_gap():
    """|V_real - V_sim| <= H^2 eps for any policy with rewards in [0, 1] (simulation lemma)."""
    for seed in range(5):
        sim = pm.random_mdp(8, 3, horizon=6, reward="hsa", rng=seed)
        eps = 0.02
        real = se.perturb(sim, eps, rng=seed + 10)
        pi = np.random.default_rng(seed).dirichlet(np.ones(3), size=(6, 8))
        gap = np.abs(se.policy_value(sim, pi)[0] - se.policy_value(real, pi)[0]).max()
        assert gap <= 6**2 * eps


# --------------------------------------------------------------------------- coverage


def test_feature_coverage_matches_trajectory_enumeration():
    mdp = pm.random_mdp(4, 2, horizon=3, rng=2)
    phi = np.random.default_rng(0).normal(size=(4, 2, 3))
    pols = [np.random.default_rng(k).dirichlet(np.ones(2), size=(3, 4)) for k in range(3)]
    cov = se.feature_coverage(mdp, pols, phi)
    ref = np.zeros((3, 3, 3))
    for p in pols:
        law = _enumerate_step_laws(mdp, p)
        for h, s, a in itertools.product(range(3), range(4), range(2)):
            ref[h] += law[h, s, a] * np.outer(phi[s, a], phi[s, a]) / len(pols)
    assert np.allclose(cov, ref)
    # a single policy, a (K, H, S, A) stack and step-dependent features agree with the list form
    assert np.allclose(
        se.feature_coverage(mdp, pols[0], phi), se.feature_coverage(mdp, [pols[0]], phi)
    )
    assert np.allclose(se.feature_coverage(mdp, np.stack(pols), phi), cov)
    assert np.allclose(se.feature_coverage(mdp, pols, np.broadcast_to(phi, (3, 4, 2, 3))), cov)


def test_feature_coverage_matches_monte_carlo():
    mdp = pm.random_mdp(5, 3, horizon=4, rng=4)
    phi = np.random.default_rng(1).random((5, 3, 2))
    pi = np.full((5, 3), 1 / 3)
    cov = se.feature_coverage(mdp, [pi], phi)
    n = 40_000
    tr = pm.sample_trajectories(mdp, pi, n, rng=0)
    f = phi[tr.observations, tr.actions]  # (n, H, d)
    mc = np.einsum("nhi,nhj->hij", f, f) / n
    sd = np.sqrt(np.einsum("nhi,nhj->hij", f**2, f**2) / n - mc**2) / np.sqrt(n)
    assert np.all(np.abs(cov - mc) <= 5 * sd + 1e-12)


def test_one_hot_coverage_is_the_state_action_distribution():
    mdp = pm.random_mdp(4, 2, horizon=3, rng=5)
    pi = np.random.default_rng(0).dirichlet(np.ones(2), size=(3, 4))
    cov = se.feature_coverage(mdp, [pi], se.one_hot_features(4, 2))
    d = pm.state_action_distribution(mdp, pi).reshape(3, 8)
    assert np.allclose(cov, np.stack([np.diag(x) for x in d]))
    assert np.allclose(se.min_eigenvalues(cov), d.min(axis=1))


def test_min_eigenvalues_against_numpy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 5, 5))
    C = X @ np.swapaxes(X, -1, -2)
    assert np.allclose(se.min_eigenvalues(C), [np.linalg.eigvalsh(c).min() for c in C])


# --------------------------------------------------------------------------- exploration


def test_reach_policies_against_brute_force():
    mdp = pm.random_mdp(3, 2, horizon=3, rng=7)
    for step in range(3):
        pols, reach = se.reach_policies(mdp, step)
        best = np.zeros(3)
        for pi in _deterministic_policies(3, 3, 2, list(range(step))):
            best = np.maximum(best, pm.state_action_distribution(mdp, pi)[step].sum(-1))
        assert np.allclose(reach, best)
        for s in range(3):
            assert pm.state_action_distribution(mdp, pols[s])[step, s].sum() == pytest.approx(
                reach[s]
            )
            assert np.allclose(pols[s][step:], 0.5)  # the random tail starts at the target step


def test_exploration_policies_cover_every_reachable_state_action():
    P = np.random.default_rng(3).dirichlet(np.full(4, 0.3), size=(4, 2))
    P[:, :, 3] = 0.0  # state 3 is never reached after the start ...
    P /= P.sum(-1, keepdims=True)
    init = np.array([0.5, 0.5, 0.0, 0.0])  # ... and never a start state
    sim = se.TabularMDP(P, np.zeros((4, 2)), init, horizon=3)
    explore = se.exploration_policies(sim)
    assert len(explore) == 3 and len(explore[0]) == 1  # at step 0 only the random policy
    for h in range(3):
        reach = np.zeros(4)
        for pi in _deterministic_policies(3, 4, 2, list(range(h))):
            reach = np.maximum(reach, pm.state_action_distribution(sim, pi)[h].sum(-1))
        mix = np.mean([pm.state_action_distribution(sim, p)[h] for p in explore[h]], axis=0)
        assert len(explore[h]) <= np.count_nonzero(reach > 1e-9)
        for s in np.flatnonzero(reach > 1e-9):
            assert np.all(mix[s] >= reach[s] / (2 * len(explore[h])) - 1e-12)
        assert np.all(mix[3] == 0) and reach[3] == 0


def test_exploration_covers_the_last_lock_digit():
    sim, _ = se.two_corridor_lock(16)
    explore = se.exploration_policies(sim)
    last_lock = 16 - 2  # state index of the last lock state (steps 1..H-2 are lock states)
    mix = np.mean([pm.state_action_distribution(sim, p)[14] for p in explore[14]], axis=0)
    assert mix[last_lock, se.KEY_ACTION] == pytest.approx(1 / (2 * len(explore[14])))


def test_random_tail():
    pi = np.random.default_rng(0).dirichlet(np.ones(3), size=(4, 2))
    out = se.random_tail(pi, 2)
    assert np.array_equal(out[:2], pi[:2]) and np.allclose(out[2:], 1 / 3)
    assert np.allclose(se.random_tail(pi, 0), 1 / 3) and np.array_equal(se.random_tail(pi, 4), pi)


def test_e_optimal_design_first_pick_is_the_best_deterministic_policy():
    mdp = pm.random_mdp(3, 2, horizon=3, rng=8)
    phi = np.random.default_rng(2).normal(size=(3, 2, 2))
    design = se.e_optimal_design(mdp, phi, n_iters=2, reg=1.0)
    u = np.linalg.eigh(np.eye(2))[1][:, 0]
    per_state = ((phi @ u) ** 2).mean(axis=1)  # mean over the uniform action at step h
    for h in range(3):
        best = max(
            pm.state_action_distribution(mdp, pi)[h].sum(-1) @ per_state
            for pi in _deterministic_policies(3, 3, 2, list(range(h)))
        )
        got = pm.state_action_distribution(mdp, design[h][0])[h].sum(-1) @ per_state
        assert got == pytest.approx(best)
        assert len(design[h]) == 2


def test_e_optimal_design_covers_a_low_rank_mdp():
    sim, phi = se.random_low_rank_mdp(12, 3, 3, horizon=4, rng=0)
    design = se.e_optimal_design(sim, phi)
    rand = [np.random.default_rng(k).dirichlet(np.ones(3), size=(4, 12)) for k in range(3)]
    for h in range(4):
        lam_design = se.min_eigenvalues(se.feature_coverage(sim, design[h], phi)[h])
        lam_uniform = se.min_eigenvalues(
            se.feature_coverage(sim, [np.full((12, 3), 1 / 3)], phi)[h]
        )
        assert lam_design > 0
        assert lam_design >= 0.5 * lam_uniform
        assert np.isfinite(se.min_eigenvalues(se.feature_coverage(sim, rand, phi)[h]))


def test_low_rank_mdp_has_rank_d():
    mdp, phi = se.random_low_rank_mdp(10, 3, 2, horizon=3, rng=1)
    P = mdp.transitions()
    for h in range(3):
        assert np.linalg.matrix_rank(P[h].reshape(30, 10), tol=1e-10) <= 2
    assert phi.shape == (10, 3, 2) and np.allclose(phi.sum(-1), 1)
    mu = np.random.default_rng(0).dirichlet(np.ones(10), size=2)
    m = se.low_rank_mdp(phi, mu, np.zeros((10, 3)), horizon=2)
    assert np.allclose(m.P, np.einsum("sad,dt->sat", phi, mu))
