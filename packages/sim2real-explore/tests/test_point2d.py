"""The 2-D action-scale mismatch: the env's dynamics, the simulator's planner (succeeds in sim,
fails in real), the waypoint explorers, the grid encoder, and exploration transfer."""

import numpy as np
import pytest
import sim2real_explore as se
from sim2real_explore.point2d import MOVES


def test_env_api_and_dynamics():
    env = se.Point2D(action_scale=0.6, noise=0.0, start_jitter=0.0)
    obs, info = env.reset(seed=0)
    assert np.allclose(obs, [0.1, 0.5]) and info == {"h": 0}
    for a in range(8):
        env.reset()
        nxt, r, term, trunc, info = env.step(a)
        assert np.allclose(nxt, np.clip([0.1, 0.5] + 0.04 * 0.6 * MOVES[a], 0, 1))
        assert (r, term, trunc) == (0.0, False, False)
    with pytest.raises(RuntimeError):
        se.Point2D().step(0)


def test_targets_pay_and_terminate_and_time_truncates():
    env = se.Point2D(noise=0.0, start_jitter=0.0, horizon=30)
    env.reset(seed=0)
    steps = 0
    while True:
        _, r, term, trunc, info = env.step(6)  # south: the near target (0.1, 0.15), radius 0.08
        steps += 1
        if term or trunc:
            break
    assert term and r == 0.5 and info["target"] == 1 and steps == 7  # 0.5 - 7 * 0.04 = 0.22
    env.reset()
    for _ in range(30):
        _, r, term, trunc, _ = env.step(2)  # north: the wall, no target
    assert trunc and not term and r == 0.0


def test_planner_succeeds_in_sim_and_fails_in_real():
    sim, real = se.action_scale_mismatch()
    direct = se.plan_on_grid(sim, bins=50)
    assert direct.probs.shape == (30, 2500, 8)
    in_sim = se.evaluate(sim, direct, 100, horizon=30, rng=0)
    in_real = se.evaluate(real, direct, 100, horizon=30, rng=0)
    assert np.all(in_sim == 1.0)  # the far target, in ~21 steps
    assert np.all(in_real == 0.0)  # out of reach at 0.6, and no time left for the near one
    # the real optimum is the near target: always going south reaches it
    south = np.zeros((1, 8))
    south[0, 6] = 1.0
    enc = se.GridEncoder([0, 0], [1, 1], 1)
    assert np.all(se.evaluate(real, south, 50, horizon=30, encoder=enc, rng=0) == 0.5)


def test_waypoint_explorers_reach_their_waypoints_in_both_systems():
    """Closed-loop, so they also work at the real action scale: each step cuts the Chebyshev
    distance by one (scaled) move until the waypoint is reached or time runs out."""
    sim, real = se.action_scale_mismatch()
    ex = se.waypoint_explorers(sim)
    assert len(ex) == 16
    for env, move in ((sim, 0.04), (real, 0.024)):
        for w in ex:
            obs, _ = env.reset(seed=1)
            cheb0 = np.abs(obs - w.waypoint).max()
            best = np.inf
            for h in range(30):
                obs, r, term, trunc, _ = env.step(w.act(obs, h))
                best = min(best, np.abs(obs - w.waypoint).max())
                if term or trunc:
                    break
            assert term or best <= max(0.04, cheb0 - 30 * move + 0.03)


def test_grid_encoder_against_digitize():
    enc = se.GridEncoder([0.0, -1.0], [1.0, 1.0], [4, 5])
    rng = np.random.default_rng(0)
    pts = rng.uniform([-0.2, -1.2], [1.2, 1.2], size=(300, 2))
    for p in pts:
        i = np.clip(np.digitize(p[0], np.linspace(0, 1, 5)[1:-1]), 0, 3)
        j = np.clip(np.digitize(p[1], np.linspace(-1, 1, 6)[1:-1]), 0, 4)
        assert enc(p) == i * 5 + j == enc(p.tolist())
    assert enc.n_codes == 20 and enc.centers().shape == (20, 2)
    assert all(enc(c) == k for k, c in enumerate(enc.centers()))


def _transfer(seed):
    """Exploration transfer on the 2-D mismatch: 1000 real episodes; the real success rate of the
    returned policy on 200 fresh episodes."""
    sim, real = se.action_scale_mismatch()
    pol, info = se.exploration_transfer(
        real,
        se.waypoint_explorers(sim),
        se.plan_on_grid(sim, bins=50),
        n_episodes=1000,
        horizon=30,
        encoder=se.GridEncoder([0, 0], [1, 1], 20),
        pool_steps=True,
        gamma=0.95,
        rng=seed,
    )
    return (se.evaluate(real, pol, 200, horizon=30, rng=100 + seed) > 0).mean(), info


def test_exploration_transfer_learns_the_near_target():
    success, info = _transfer(0)
    assert info.episodes_used == 1000 and info.selected == "fqi" and info.sim_return == 0.0
    assert success >= 0.8


@pytest.mark.slow
def test_exploration_transfer_over_seeds():
    assert np.mean([_transfer(seed)[0] for seed in range(5)]) >= 0.8
