"""rollout() in gymnasium-API environments (papershelf's TabularEnv, a terminating toy env, a
non-copyable env) and the two classic-control experts (formulas; the real gymnasium tasks are
in test_gym.py)."""

import logloss_bc as lb
import numpy as np
import pytest


def _tabular_policy(pi):
    g = np.random.default_rng(0)

    def act(states):
        cum = np.cumsum(pi[states], axis=1)
        return (g.random((len(states), 1)) > cum).sum(axis=1)

    return act


def test_rollout_return_matches_the_exact_value():
    mdp, expert = lb.random_imitation_mdp(5, 3, horizon=7, normalized=False, rng=0)
    pi = np.random.default_rng(1).dirichlet(np.ones(3), size=5)
    ro = lb.rollout(lb.TabularEnv(mdp), _tabular_policy(pi), 4000, horizon=7, rng=2)
    assert ro.observations.shape == ro.actions.shape == ro.mask.shape == (4000, 7)
    assert ro.mask.all() and ro.terminals[:, -1].all() and not ro.terminals[:, :-1].any()
    se = ro.returns.std(ddof=1) / np.sqrt(4000)
    assert ro.returns.mean() == pytest.approx(lb.exact_value(mdp, pi), abs=4 * se)
    np.testing.assert_array_equal(ro.next_observations[:, :-1], ro.observations[:, 1:])


class Countdown:
    """Observation [k]; any action decrements k; terminates at 0, reward 1 per step."""

    def __init__(self):
        self.k = 0

    def reset(self, *, seed=None, options=None):
        self.k = int(np.random.default_rng(seed).integers(1, 5))
        return np.array([self.k], dtype=float), {}

    def step(self, action):
        self.k -= 1
        return np.array([self.k], dtype=float), 1.0, self.k == 0, False, {}


class NoCopy(Countdown):
    def __deepcopy__(self, memo):
        raise TypeError("cannot copy")


def test_early_termination_padding_and_d4rl():
    ro = lb.rollout(Countdown(), lambda o: np.zeros(len(o), dtype=int), 50, horizon=6, rng=0)
    start = ro.observations[:, 0, 0]
    np.testing.assert_array_equal(ro.lengths, start)
    np.testing.assert_array_equal(ro.returns, start)
    assert not ro.mask[np.arange(50), np.minimum(ro.lengths, 5)][ro.lengths < 6].any()
    assert (ro.rewards[~ro.mask] == 0).all()
    d = ro.to_d4rl()
    assert set(d) == {
        "observations",
        "actions",
        "rewards",
        "next_observations",
        "terminals",
        "timeouts",
    }
    assert d["observations"].shape == (int(ro.lengths.sum()), 1)
    assert d["terminals"].sum() == 50 and not d["timeouts"].any()  # all end by termination
    obs, act = ro.flat()
    assert obs.shape[0] == act.shape[0] == ro.lengths.sum()


def test_timeouts_when_the_horizon_cuts_episodes():
    ro = lb.rollout(Countdown(), lambda o: np.zeros(len(o), dtype=int), 20, horizon=2, rng=1)
    d = ro.to_d4rl()
    long = ro.observations[:, 0, 0] > 2
    assert d["timeouts"].sum() == long.sum()
    assert d["terminals"].sum() == (~long & (ro.observations[:, 0, 0] <= 2)).sum()


def test_non_copyable_env_gives_the_same_episodes():
    def policy(o):
        return np.zeros(len(o), dtype=int)

    a = lb.rollout(Countdown(), policy, 10, horizon=5, rng=3)
    b = lb.rollout(NoCopy(), policy, 10, horizon=5, rng=3)
    for f in ("observations", "actions", "rewards", "mask", "terminals"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))


def test_policy_must_return_one_action_per_observation():
    with pytest.raises(ValueError, match="policy"):
        lb.rollout(Countdown(), lambda o: np.zeros(len(o) + 1, dtype=int), 3, horizon=2, rng=0)


def test_cartpole_expert_formula():
    g = np.random.default_rng(0)
    obs = g.normal(size=(100, 4))
    want = [int(0.5 * x + v + 10 * t + 2 * w > 0) for x, v, t, w in obs]
    np.testing.assert_array_equal(lb.cartpole_expert(obs), want)
    assert lb.cartpole_expert(obs[:1].reshape(1, 1, 4)).shape == (1, 1)


def test_pendulum_expert_formula():
    # near the top: PD law; far from it: energy pumping in the direction of motion; clipped
    th, w = 0.1, -0.3
    u = lb.pendulum_expert([np.cos(th), np.sin(th), w])
    assert u.shape == (1,) and u[0] == pytest.approx(-10 * th - 2 * w)
    down = lb.pendulum_expert(np.array([[-1.0, 0.0, 0.5], [-1.0, 0.0, -0.5]]))
    assert down[0, 0] == 2.0 and down[1, 0] == -2.0  # E = -30: push with the velocity, clipped
    at_rest_top = lb.pendulum_expert([[1.0, 0.0, 0.0]])
    assert at_rest_top[0, 0] == 0.0
