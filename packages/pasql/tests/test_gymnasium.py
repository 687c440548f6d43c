"""pasql on a real gymnasium environment (FrozenLake): run by `nox -s tests_extras`."""

import numpy as np
import pasql as pq
import pytest

gym = pytest.importorskip("gymnasium")


def optimal_q(env, gamma):
    """Q* of FrozenLake from its transition table, by value iteration (terminal: no bootstrap)."""
    P = env.unwrapped.P
    S, A = len(P), len(P[0])
    Q = np.zeros((S, A))
    for _ in range(500):
        V = Q.max(1)
        Q = np.array(
            [
                [
                    sum(p * (r + (0.0 if done else gamma * V[s2])) for p, s2, r, done in P[s][a])
                    for a in range(A)
                ]
                for s in range(S)
            ]
        )
    return Q


@pytest.mark.parametrize("period", [1, 2])
def test_frozen_lake(period):
    env = gym.make("FrozenLake-v1", is_slippery=False, max_episode_steps=100)
    ag = pq.LastObservation(16)
    mu = np.full((period, 16, 4), 0.25)
    Q = pq.pasql(env, ag, mu, 60_000, gamma=0.9, rng=0)
    assert Q.shape == (period, 16, 4)
    Qs = optimal_q(env, 0.9)
    # an MDP (the observation is the state): every phase's table tends to Q*
    for l in range(period):
        assert abs(Q[l, 0].max() - Qs[0].max()) < 0.02
        # the greedy policy of each phase walks to the goal
        s, _ = env.reset(seed=1)
        for _t in range(20):
            s, r, term, trunc, _ = env.step(int(np.argmax(Q[l, s])))
            if term or trunc:
                break
        assert r == 1.0
