"""Algorithm 1 against a real gymnasium environment (FrozenLake-v1 through gymnasium.make, with
its TimeLimit wrapper and np.int64 observations); the simulator is the non-slippery lake."""

import numpy as np
import pytest
import sim2real_explore as se

gym = pytest.importorskip("gymnasium")


def _lake_mdp(slippery, horizon):
    """The TabularMDP of FrozenLake 4x4 from the env's own transition table; holes and the goal
    are absorbing (gymnasium ends the episode there)."""
    env = gym.make("FrozenLake-v1", is_slippery=slippery)
    table = env.unwrapped.P
    S, A = 16, 4
    P, R = np.zeros((S, A, S)), np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            for prob, s2, r, _done in table[s][a]:
                P[s, a, s2] += prob
                R[s, a, s2] = r
    desc = env.unwrapped.desc.astype(str).ravel()
    for s in np.flatnonzero((desc == "H") | (desc == "G")):
        P[s] = 0.0
        P[s, :, s] = 1.0
        R[s] = 0.0
    init = np.zeros(S)
    init[0] = 1.0
    return se.TabularMDP(P, R, init, horizon=horizon), env


class Counting(gym.Wrapper):
    def __init__(self, env):
        super().__init__(env)
        self.resets = 0

    def reset(self, **kw):
        self.resets += 1
        return self.env.reset(**kw)


def test_transfer_on_gymnasium_frozen_lake():
    """The sim's shortest path falls into holes on slippery ice (real value ~0); exploration
    transfer with FQI pooled over steps (the lake is time-homogeneous) gets near the optimum."""
    H = 40
    sim, _ = _lake_mdp(False, H)
    real, env = _lake_mdp(True, H)
    v_direct = real.init @ se.policy_value(real, se.direct_transfer(sim))[0]
    v_star = real.init @ se.optimal_policy(real)[0][0]
    assert v_direct < 0.01 and v_star > 0.4
    counted = Counting(env)
    pol, info = se.sim2real_transfer(sim, counted, n_episodes=3000, rng=0, pool_steps=True)
    assert counted.resets == info.episodes_used == 3000
    assert info.selected == "fqi"
    assert real.init @ se.policy_value(real, pol)[0] >= 0.8 * v_star
