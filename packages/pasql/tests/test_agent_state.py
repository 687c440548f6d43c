"""Agent states: last observation, frame stacks (checked against an explicit deque) and tables."""

from collections import deque

import numpy as np
import pasql as pq
import pytest


def test_last_observation():
    ag = pq.LastObservation(3)
    assert ag.n_states == 3 and ag.init(2) == 2 and ag.update(0, 1, 5) == 1
    with pytest.raises(ValueError, match="y"):
        ag.init(3)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("n_actions", [None, 2])
def test_frame_stack_matches_a_deque(k, n_actions):
    Y = 3
    fs = pq.FrameStack(k, Y, n_actions)
    A = n_actions or 2
    expect_n = (Y + 1) ** (k - 1) * Y * ((n_actions + 1) ** (k - 1) if n_actions else 1)
    assert fs.n_states == expect_n
    rng = np.random.default_rng(k)
    seen = set()
    for _ in range(20):
        y = int(rng.integers(Y))
        obs, acts = deque([None] * (k - 1) + [y], maxlen=k), deque([None] * (k - 1), maxlen=k - 1)
        z = fs.init(y)
        for _t in range(8):
            assert fs.decode(z) == (tuple(obs), tuple(acts) if n_actions else ())
            seen.add(z)
            a, y = int(rng.integers(A)), int(rng.integers(Y))
            z = fs.update(z, y, a)
            assert 0 <= z < fs.n_states
            obs.append(y)
            if k > 1:
                acts.append(a)
    # distinct histories get distinct codes
    assert len(seen) == len({fs.decode(z) for z in seen})


def test_frame_stack_of_one_is_last_observation():
    pom = pq.random_pomdp(3, 2, 3, rng=0)
    pol = np.random.default_rng(1).dirichlet(np.ones(2), size=(2, 3))
    assert pq.evaluate_periodic(pom, pq.FrameStack(1, 3), pol) == pytest.approx(
        pq.evaluate_periodic(pom, pq.LastObservation(3), pol), abs=1e-12
    )


def test_finite_automaton_from_agent_state():
    fs = pq.FrameStack(2, 2, 2)
    fa = pq.FiniteAutomaton.from_agent_state(fs, 2, 2)
    assert fa.n_states == fs.n_states
    for z in range(fs.n_states):
        for y in range(2):
            for a in range(2):
                assert fa.update(z, y, a) == fs.update(z, y, a)
    assert [fa.init(y) for y in range(2)] == [fs.init(y) for y in range(2)]
    pom = pq.random_pomdp(3, 2, 2, rng=4)
    pol = np.full((3, fs.n_states, 2), 0.5)
    pol[1, :, 0], pol[1, :, 1] = 0.9, 0.1
    assert pq.evaluate_periodic(pom, fa, pol) == pytest.approx(
        pq.evaluate_periodic(pom, fs, pol), abs=1e-12
    )


def test_tabulate_rejects_codes_out_of_range():
    class Bad:
        n_states = 2

        def init(self, y):
            return 0

        def update(self, z, y, a):
            return 2  # out of range

    with pytest.raises(ValueError, match="agent_state"):
        pq.tabulate(Bad(), 2, 2)
    with pytest.raises(ValueError, match="agent_state"):
        pq.pasql(pq.phase_pomdp(), Bad(), np.full((1, 2, 2), 0.5), 5, gamma=0.9, rng=0)
