"""The continuous 2-D point mass (numpy core) against hand-computed dynamics, and the core's
independence from torch."""

import math
import subprocess
import sys

import numpy as np
import pytest
import sim2real_explore as se


class Scripted:
    def __init__(self, action):
        self.action = np.asarray(action, float)

    def act(self, obs, h, rng=None):
        return self.action


def _run(env, action, seed=0):
    obs, _ = env.reset(seed=seed)
    path, rewards, info = [obs], [], {}
    while True:
        obs, r, term, trunc, info = env.step(np.asarray(action, float))
        path.append(obs)
        rewards.append(r)
        if term or trunc:
            return np.array(path), np.array(rewards), term, info


def test_moves_are_scaled_actions():
    env = se.ContinuousPoint2D(action_scale=0.5, noise=0.0, start_jitter=0.0)
    obs, info = env.reset(seed=0)
    assert np.allclose(obs, [0.1, 0.5]) and info["h"] == 0
    nxt, r, term, trunc, info = env.step(np.array([0.4, -1.0]))
    assert np.allclose(nxt, [0.1 + 0.15 * 0.5 * 0.4, 0.5 - 0.15 * 0.5])
    assert (r, term, trunc, info["h"]) == (0.0, False, False, 1)
    for _ in range(2):
        nxt, *_ = env.step(np.array([-1.0, -1.0]))  # 0.13 - 2 * 0.075 < 0: clipped to the square
    assert nxt[0] == 0.0 and nxt[1] == pytest.approx(0.5 - 3 * 0.075)


def test_far_target_unreachable_only_in_real():
    """Closed form: straight east at full speed reaches the far disc (x >= 0.88) after
    ceil(0.78 / 0.15) = 6 steps in sim; in real (0.5x) it needs 11 > horizon 10."""
    sim, real = se.continuous_action_scale_mismatch(sim_shaping=0.0)
    for env in (sim, real):
        env.noise, env.start_jitter = 0.0, 0.0
    path, rew, term, info = _run(sim, [1.0, 0.0])
    assert term and info["target"] == 0 and len(rew) == math.ceil(0.78 / 0.15) and rew[-1] == 1.0
    path, rew, term, _ = _run(real, [1.0, 0.0])
    assert not term and len(rew) == 10 and rew.sum() == 0.0
    # the near target (0.45, 0.2) is reached in real by heading for it
    path, rew, term, info = _run(real, [1.0, -0.857])
    assert term and info["target"] == 1 and rew.sum() == 0.5 and len(rew) <= 5


def test_shaping_telescopes():
    """The shaped rewards sum to the task reward + shaping * (d(start) - d(end)) to target 0."""
    env = se.ContinuousPoint2D(shaping=2.0)
    obs, _ = env.reset(seed=3)
    start, total, task = obs, 0.0, 0.0
    rng = np.random.default_rng(0)
    while True:
        obs, r, term, trunc, info = env.step(rng.uniform(-1, 1, 2))
        total += r
        task += info["task_reward"]
        if term or trunc:
            break
    far = env.targets[0]
    expect = task + 2.0 * (np.linalg.norm(start - far) - np.linalg.norm(obs - far))
    assert total == pytest.approx(expect, abs=1e-12)


def test_noise_and_reset_seed_reproducible():
    a, _, _, _ = _run(se.ContinuousPoint2D(), [0.3, 0.2], seed=5)
    b, _, _, _ = _run(se.ContinuousPoint2D(), [0.3, 0.2], seed=5)
    c, _, _, _ = _run(se.ContinuousPoint2D(), [0.3, 0.2], seed=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    steps = np.diff(a, axis=0) - 0.15 * np.array([0.3, 0.2])
    assert 0.001 < steps.std() < 0.01  # N(0, 0.005^2) per coordinate


def test_rollout_returns_scripted():
    sim, real = se.continuous_action_scale_mismatch(sim_shaping=0.0)
    east = Scripted([1.0, 0.0])
    assert np.all(se.rollout_returns(sim, east, 5, rng=0) == 1.0)
    assert np.all(se.rollout_returns(real, east, 5, rng=0) == 0.0)


def test_step_rejects_actions_outside_the_box():
    env = se.ContinuousPoint2D()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([1.5, 0.0]))


def test_core_imports_without_torch():
    """With torch unimportable the numpy core runs, and the torch names say which extra to
    install."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import sim2real_explore as se\n"
        "sim, real = se.two_corridor_lock(6)\n"
        "pol, info = se.sim2real_transfer(sim, real, n_episodes=40, rng=0)\n"
        "assert info.episodes_used == 40\n"
        "from sim2real_explore import *\n"
        "try:\n"
        "    se.DiverseEnsembleSAC\n"
        "except ImportError as e:\n"
        "    assert 'sim2real-explore[torch]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
        "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
