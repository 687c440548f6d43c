"""The real gymnasium tasks (the gym extra; skipped without gymnasium, run by
`nox -s tests_extras`): the experts' quality and rollout() on CartPole-v1 / Pendulum-v1."""

import logloss_bc as lb
import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")


def test_cartpole_expert_balances_full_episodes():
    env = gym.make("CartPole-v1", max_episode_steps=500)
    ro = lb.rollout(env, lb.cartpole_expert, 20, horizon=500, rng=0)
    assert (ro.lengths == 500).all() and (ro.returns == 500).all()
    assert ro.observations.shape == (20, 500, 4) and ro.actions.dtype.kind == "i"


def test_cartpole_rollout_is_seeded_and_matches_a_manual_loop():
    env = gym.make("CartPole-v1", max_episode_steps=50)

    def flaky(o):  # a poor policy, so that episodes end early
        return (o[:, 2] > 0.05).astype(np.int64)

    a = lb.rollout(env, flaky, 4, horizon=50, rng=1)
    b = lb.rollout(env, flaky, 4, horizon=50, rng=1)
    np.testing.assert_array_equal(a.observations, b.observations)
    assert (a.lengths < 50).any()
    seeds = np.random.default_rng(1).integers(0, 2**31 - 1, size=4)
    for i, s in enumerate(seeds):
        o, _ = env.reset(seed=int(s))
        for h in range(a.lengths[i]):
            np.testing.assert_allclose(a.observations[i, h], o)
            o, r, te, tr, _ = env.step(int(flaky(o[None])[0]))
            assert a.terminals[i, h] == te
        assert te or tr or a.lengths[i] == 50


def test_pendulum_expert_swings_up():
    env = gym.make("Pendulum-v1")
    ro = lb.rollout(env, lb.pendulum_expert, 10, horizon=200, rng=0)
    idle = lb.rollout(env, lambda o: np.zeros((len(o), 1)), 10, horizon=200, rng=0)
    assert ro.actions.shape == (10, 200, 1)
    assert ro.returns.mean() > -250 and idle.returns.mean() < -800
    # once up, it stays up: the last 50 steps cost little
    assert (ro.rewards[:, -50:].sum(1) > -10).mean() >= 0.9


def test_neural_policy_in_cartpole():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    env = gym.make("CartPole-v1", max_episode_steps=100)
    data = lb.rollout(env, lb.cartpole_expert, 4, horizon=100, rng=2)
    torch.manual_seed(0)
    pi = lb.CategoricalMLP(4, 2)
    lb.logloss_bc(pi, data.observations, data.actions, epochs=40, lr=1e-2)
    ev = lb.rollout(env, lambda o: pi.act(o, deterministic=True), 5, horizon=100, rng=3)
    assert ev.returns.mean() >= 90
    d2 = lb.hellinger_sq_deterministic_expert(pi, data.observations, data.actions, mask=data.mask)
    assert 0.0 <= d2 <= 2.0
