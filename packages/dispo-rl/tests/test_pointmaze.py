"""PointMaze2D: gymnasium's API, the dynamics against a per-step reference, walls, datasets."""

import importlib.util

import dispo_rl as dr
import numpy as np
import pytest

HAS_GYM = importlib.util.find_spec("gymnasium") is not None


def reference_step(maze, s, a):
    """The documented dynamics for one point, written with scalars."""
    a = [min(1.0, max(-1.0, float(x))) for x in a]
    v = [
        min(maze.max_speed, max(-maze.max_speed, maze.damping * s[2 + i] + maze.accel * a[i]))
        for i in (0, 1)
    ]
    p = [s[0], s[1]]
    for ax in (0, 1):
        q = list(p)
        q[ax] += v[ax]
        col, row = int(np.floor(q[0])), int(np.floor(q[1]))
        inside = 0 <= col < maze.width and 0 <= row < maze.height
        if inside and maze.layout[row][col] == ".":
            p = q
        else:
            v[ax] = 0.0
    return np.array([*p, *v])


def test_reset_and_step_follow_gymnasium_api():
    env = dr.PointMaze2D()
    obs, info = env.reset(seed=3)
    assert obs.shape == (4,) and obs.dtype == np.float64 and isinstance(info, dict)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[2:], 0.0)
    out = env.step(env.action_space.sample(0))
    assert len(out) == 5
    o, r, term, trunc, info = out
    assert isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)
    assert "success" in info
    # same seed, same start and goal, whatever happened before
    again, info2 = env.reset(seed=3)
    np.testing.assert_array_equal(again, obs)
    np.testing.assert_array_equal(info2["goal"], info["goal"])
    other, info3 = env.reset()  # a new random goal per episode unless one is fixed
    assert not np.array_equal(info3["goal"], info["goal"])
    fixed = dr.PointMaze2D(goal=(1.5, 1.5))
    assert all(np.array_equal(fixed.reset()[1]["goal"], [1.5, 1.5]) for _ in range(3))


def test_dynamics_match_the_scalar_reference():
    env = dr.PointMaze2D()
    g = np.random.default_rng(0)
    s = np.concatenate([env.sample_free(300, g), g.uniform(-0.25, 0.25, (300, 2))], 1)
    a = g.uniform(-1.5, 1.5, (300, 2))
    want = np.stack([reference_step(env, si, ai) for si, ai in zip(s, a)])
    np.testing.assert_allclose(env.dynamics(s, a), want, atol=1e-12)


def test_walls_are_never_entered():
    env = dr.PointMaze2D()
    env.reset(seed=0, options={"start": (1.5, 1.5), "goal": (1.5, 3.5)})
    for _ in range(60):  # push down into the wall row 2 (cells (1, 2), (2, 2) are walls)
        o, *_ = env.step(np.array([0.0, 1.0]))
        assert env.is_free(o[:2])
    assert 1.75 < o[1] < 2.0 and o[0] == 1.5 and o[3] == 0.0  # stopped at the wall
    for _ in range(60):  # push right and down: slides along the wall into the right column
        o, *_ = env.step(np.array([1.0, 1.0]))
        assert env.is_free(o[:2])
    assert o[0] > 3.0 and o[1] > 3.0
    assert env.is_free(env.sample_free(1000, 1)).all()


def test_goal_terminates_and_horizon_truncates():
    env = dr.PointMaze2D(horizon=5)
    env.reset(seed=0, options={"start": (1.5, 1.5), "goal": (1.6, 1.5)})
    o, r, term, trunc, info = env.step(np.zeros(2))
    assert (r, term, trunc, info["success"]) == (1.0, True, False, True)
    env.reset(seed=0, options={"start": (1.5, 1.5), "goal": (3.5, 3.5)})
    flags = [env.step(np.zeros(2))[3] for _ in range(5)]
    assert flags == [False] * 4 + [True]


def test_goal_reward_is_the_gaussian_bump():
    env = dr.PointMaze2D()
    obs = np.array([[1.5, 1.5, 0, 0], [2.0, 1.5, 0.1, 0]])
    np.testing.assert_allclose(
        env.goal_reward(obs, np.array([1.5, 1.5]), scale=0.5), [1.0, np.exp(-0.5)]
    )


def test_dataset_is_consistent_with_the_dynamics():
    env = dr.PointMaze2D()
    d = dr.pointmaze_dataset(env, 20, 30, rng=0)
    assert d["observations"].shape == (600, 4) and d["actions"].shape == (600, 2)
    np.testing.assert_allclose(
        env.dynamics(d["observations"], d["actions"]), d["next_observations"], atol=1e-12
    )
    seg = d["observations"].reshape(20, 30, 4)
    np.testing.assert_array_equal(seg[:, 1:], d["next_observations"].reshape(20, 30, 4)[:, :-1])
    assert np.abs(d["actions"]).max() <= 1.0
    # segments move: the controller follows corridors from cell to cell
    assert np.linalg.norm(seg[:, -1, :2] - seg[:, 0, :2], axis=1).mean() > 0.5


@pytest.mark.skipif(HAS_GYM, reason="gymnasium is installed (the real check runs instead)")
def test_to_gymnasium_without_gymnasium_says_which_extra():
    with pytest.raises(ImportError, match=r"dispo-rl\[gym\]"):
        dr.PointMaze2D().to_gymnasium()


@pytest.mark.skipif(not HAS_GYM, reason="needs dispo-rl[gym] (run by tests_extras)")
def test_gymnasium_env_checker_accepts_the_maze():
    from gymnasium.utils.env_checker import check_env

    env = dr.PointMaze2D().to_gymnasium()
    check_env(env, skip_render_check=True)
    # the view steps the same dynamics as the maze itself
    o1, _ = env.reset(seed=5)
    o2, _ = dr.PointMaze2D().reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    assert env.observation_space.contains(o1)
    a = env.action_space.sample()
    np.testing.assert_allclose(env.step(a)[0], env.unwrapped.maze.dynamics(o1[None], a[None])[0])
