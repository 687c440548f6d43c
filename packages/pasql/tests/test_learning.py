"""PASQL against a naive implementation, closed forms and the Theorem-1 limits."""

import numpy as np
import pasql as pq
import pytest
from pasql.learning import _learn


def naive_pasql(z, a, r, L, Z, A, gamma, step, q0=0.0):
    """The update rule written out with dicts, one transition at a time."""
    Q = {(l, zz, aa): q0 for l in range(L) for zz in range(Z) for aa in range(A)}
    N = dict.fromkeys(Q, 0)
    for t in range(len(a)):
        l, l1 = t % L, (t + 1) % L
        key = (l, int(z[t]), int(a[t]))
        target = r[t] + gamma * max(Q[(l1, int(z[t + 1]), b)] for b in range(A))
        alpha = step(N[key])
        Q[key] = Q[key] + alpha * (target - Q[key])
        N[key] += 1
    return np.array([[[Q[(l, zz, aa)] for aa in range(A)] for zz in range(Z)] for l in range(L)])


def random_data(R, T, Z, A, seed):
    g = np.random.default_rng(seed)
    return g.integers(0, Z, (R, T + 1)), g.integers(0, A, (R, T)), g.normal(size=(R, T))


@pytest.mark.parametrize("L,Z,A", [(1, 3, 2), (2, 2, 2), (3, 4, 3)])
@pytest.mark.parametrize(
    "step_size", [None, 0.1, lambda n: 1.0 / (1 + n)], ids=["default", "const", "callable"]
)
def test_from_data_against_naive(L, Z, A, step_size):
    z, a, r = random_data(3, 600, Z, A, L * 10 + A)
    Q = pq.pasql_from_data(
        z, a, r, period=L, gamma=0.8, n_agent_states=Z, n_actions=A, step_size=step_size
    )
    if step_size is None:
        step = lambda n: (1 + n) ** -0.6  # noqa: E731
    elif callable(step_size):
        step = step_size
    else:
        step = lambda n: 0.1  # noqa: E731
    for k in range(3):
        np.testing.assert_allclose(
            Q[k], naive_pasql(z[k], a[k], r[k], L, Z, A, 0.8, step), atol=1e-12
        )
    # one run (1-d data) gives the same as its row of the batch
    np.testing.assert_allclose(
        pq.pasql_from_data(
            z[1],
            a[1],
            r[1],
            period=L,
            gamma=0.8,
            n_agent_states=Z,
            n_actions=A,
            step_size=step_size,
        ),
        Q[1],
        atol=1e-12,
    )


@pytest.mark.parametrize("L,A", [(1, 2), (2, 2), (3, 3)])
def test_vectorised_kernel_is_bitwise_the_loop(L, A):
    z, a, r = random_data(6, 9000, 3, A, 7)  # longer than one block
    Qv = _learn(z, a, r, L, 3, A, 0.9, None, 0.5, vectorised=True)
    Ql = _learn(z, a, r, L, 3, A, 0.9, None, 0.5, vectorised=False)
    np.testing.assert_array_equal(Qv, Ql)


def test_gamma_zero_with_harmonic_steps_gives_sample_means():
    """gamma = 0, alpha_n = 1/(1+n): each entry is the mean of the rewards it saw."""
    z, a, r = random_data(1, 500, 2, 2, 3)
    z, a, r = z[0], a[0], r[0]
    Q = pq.pasql_from_data(
        z, a, r, period=2, gamma=0.0, n_agent_states=2, n_actions=2, step_size=lambda n: 1 / (1 + n)
    )
    ph = np.arange(500) % 2
    for l in range(2):
        for zz in range(2):
            for aa in range(2):
                sel = (ph == l) & (z[:-1] == zz) & (a == aa)
                assert Q[l, zz, aa] == pytest.approx(r[sel].mean(), abs=1e-12)


class Recorder:
    """Wraps an env and records what the learner saw."""

    def __init__(self, env):
        self.env, self.obs, self.actions, self.rewards = env, [], [], []

    def reset(self, seed=None):
        y, info = self.env.reset(seed=seed)
        self.obs.append(y)
        return y, info

    def step(self, a):
        out = self.env.step(a)
        self.actions.append(a)
        self.rewards.append(out[1])
        self.obs.append(out[0])
        return out


@pytest.mark.parametrize("ag", [pq.LastObservation(2), pq.FrameStack(2, 2, 2)], ids=repr)
def test_env_learner_equals_learning_on_its_trajectory(ag):
    pom = pq.random_pomdp(4, 2, 2, rng=1)
    mu = np.random.default_rng(0).dirichlet(np.ones(2), size=(2, ag.n_states))
    env = Recorder(pom)
    Q = pq.pasql(env, ag, mu, 3000, gamma=0.9, rng=4)
    zs = [ag.init(env.obs[0])]
    for y, act in zip(env.obs[1:], env.actions):
        zs.append(ag.update(zs[-1], y, act))
    Qd = pq.pasql_from_data(
        zs, env.actions, env.rewards, period=2, gamma=0.9, n_agent_states=ag.n_states, n_actions=2
    )
    np.testing.assert_array_equal(Q, Qd)
    # behaviour frequencies follow mu
    ph = np.arange(3000) % 2
    zz, aa = np.array(zs[:-1]), np.array(env.actions)
    for l in range(2):
        for z in range(min(ag.n_states, 2)):
            sel = (ph == l) & (zz == z)
            if sel.sum() > 200:
                p = mu[l, z, 1]
                assert abs(aa[sel].mean() - p) < 5 * np.sqrt(p * (1 - p) / sel.sum())


def test_phase_example_pasql_and_asql():
    pom, ag = pq.phase_pomdp(), pq.LastObservation(1)
    mu = np.full((2, 1, 2), 0.5)
    Q = pq.pasql(pom, ag, mu, 50_000, gamma=0.9, rng=0)
    np.testing.assert_allclose(Q, [[[10, 9]], [[9, 10]]], atol=0.05)
    assert pq.evaluate_periodic(pom, ag, pq.greedy_periodic(Q)) == pytest.approx(10, abs=1e-9)
    Qa = pq.asql(pom, ag, mu[0], 50_000, gamma=0.9, rng=1)
    assert Qa.shape == (1, 2)
    np.testing.assert_allclose(Qa, [[5, 5]], atol=0.2)  # noisier: rewards alternate with s


def test_pasql_many_converges_to_its_limit():
    pom, ag = pq.random_pomdp(5, 2, 2, rng=7), pq.LastObservation(2)
    mu = np.random.default_rng(0).dirichlet(2 * np.ones(2), size=(2, 2))
    Qlim = pq.limit_q(pom, ag, mu)
    Q = pq.pasql_many(pom, ag, mu, 30_000, 6, rng=2)
    assert Q.shape == (6, 2, 2, 2)
    rel = np.abs(Q - Qlim).max(axis=(1, 2, 3)) / np.abs(Qlim).max()
    assert rel.max() < 0.03, rel
    # same seed, same runs
    np.testing.assert_array_equal(Q, pq.pasql_many(pom, ag, mu, 30_000, 6, rng=2))
    # per-run behaviours (n_runs, L, Z, A): each run goes to its own limit
    mus = np.stack([mu, np.full((2, 2, 2), 0.5)] * 2)
    Q2 = pq.pasql_many(pom, ag, mus, 30_000, 4, rng=3)
    for k in range(4):
        lim = pq.limit_q(pom, ag, mus[k])
        assert np.abs(Q2[k] - lim).max() / np.abs(lim).max() < 0.03


def test_pasql_many_data_law_matches_the_env():
    """Small batches (loop kernel) and large (vectorised) runs are the same method."""
    pom, ag = pq.random_pomdp(3, 2, 2, rng=3), pq.LastObservation(2)
    mu = np.full((2, 2, 2), 0.5)
    lim = pq.limit_q(pom, ag, mu)
    small = pq.pasql_many(pom, ag, mu, 30_000, 2, rng=0)
    big = pq.pasql_many(pom, ag, mu, 30_000, 8, rng=0)
    for Q in (small, big):
        assert np.abs(Q - lim).max() / np.abs(lim).max() < 0.05


class OneStep:
    """Episodes of one step: y = 0, reward 1 + a, then terminated."""

    def reset(self, seed=None):
        return 0, {}

    def step(self, a):
        return 0, 1.0 + a, True, False, {}


def test_terminal_transitions_do_not_bootstrap():
    Q = pq.pasql(OneStep(), pq.LastObservation(1), np.full((2, 1, 2), 0.5), 4000, gamma=0.9, rng=0)
    np.testing.assert_allclose(Q[0], [[1.0, 2.0]], atol=1e-3)
    np.testing.assert_array_equal(Q[1], [[0.0, 0.0]])  # the phase restarts with each episode
    Q = pq.pasql(
        OneStep(),
        pq.LastObservation(1),
        np.full((2, 1, 2), 0.5),
        4000,
        gamma=0.9,
        rng=0,
        phase_reset=False,
    )
    np.testing.assert_allclose(Q, [[[1.0, 2.0]], [[1.0, 2.0]]], atol=1e-3)


@pytest.mark.parametrize("joint", [True, False], ids=["joint-chain", "factored"])
def test_pasql_many_simulators_agree_with_the_limit(joint, monkeypatch):
    """Both simulators of pasql_many (one draw on the joint (s, z, a) chain, or one draw per
    factor for large agent states) give data whose PASQL limit is Theorem 1's."""
    import pasql.learning as pl

    monkeypatch.setattr(pl, "JOINT_MAX_STATES", 10**9 if joint else 0)
    pom0 = pq.random_pomdp(3, 2, 2, rng=11)
    R = np.random.default_rng(0).random((3, 2, 3))  # per-transition rewards
    pom = pq.TabularPOMDP(pom0.P, pom0.O, R, pom0.init, gamma=0.8)
    ag = pq.FrameStack(2, 2, 2)
    mu = np.random.default_rng(1).dirichlet(2 * np.ones(2), size=(2, ag.n_states))
    lim = pq.limit_q(pom, ag, mu)
    Q = pq.pasql_many(pom, ag, mu, 40_000, 8, rng=5).mean(axis=0)
    # compare on the recurrent entries (the padded start codes are transient)
    rec = pq.cyclic_limit(pom, ag, mu).sum(axis=1) > 1e-12
    rel = np.abs(Q - lim)[rec].max() / np.abs(lim).max()
    assert rel < 0.025, rel  # seeds 0-2 give 0.8-1.4%
