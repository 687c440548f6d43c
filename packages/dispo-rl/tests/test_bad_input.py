"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import importlib.util

import dispo_rl as dr
import numpy as np
import pytest
from hypothesis import strategies as st

from papershelf_harness.suite import (
    Array,
    Int,
    Mismatch,
    Number,
    Option,
    OutOfRange,
    Rng,
    bad_input_suite,
)
from papershelf_harness.testing import assert_rejects

PHI = dr.OneHotFeatures(4)
RFF = dr.RandomFourierFeatures(2, n=3, rng=0)
DATA = {
    "observations": np.array([0, 1, 2]),
    "actions": np.array([0, 1, 0]),
    "next_observations": np.array([1, 2, 3]),
    "terminals": np.array([False, False, True]),
}
FITTED = dr.DiSPO(PHI, gamma=0.9, n_particles=4, rng=0).fit(DATA, steps=3)
BSF = dr.BehaviorSF(PHI, gamma=0.9).fit(DATA, steps=3)
W = np.ones(4)
MAZE = dr.PointMaze2D()
MAZE.reset(seed=0)
HAS_TORCH = importlib.util.find_spec("torch") is not None
BAD_GAMMA = st.sampled_from([1.0, -0.1, 1.5, 7.0])


def with_key(key, value):
    return {**DATA, key: value}


def dispo(**kw):
    return dr.DiSPO(PHI, **kw)


CASES = [
    Int("OneHotFeatures.n", "n", lambda v: dr.OneHotFeatures(v), minimum=1),
    Int(
        "RandomFourierFeatures.obs_dim", "obs_dim", lambda v: dr.RandomFourierFeatures(v), minimum=1
    ),
    Int("RandomFourierFeatures.n", "n", lambda v: dr.RandomFourierFeatures(2, n=v), minimum=1),
    Int(
        "RandomFourierFeatures.hidden",
        "hidden",
        lambda v: dr.RandomFourierFeatures(2, hidden=v),
        minimum=1,
    ),
    Rng("RandomFourierFeatures.rng", "rng", lambda v: dr.RandomFourierFeatures(2, rng=v)),
    Array("OneHotFeatures.observations", "observations", PHI, shape=(3,), ndims=(1, 2)),
    Array("RandomFourierFeatures.observations", "observations", RFF, shape=(3, 2), ndims=(1, 2)),
    Number("DiSPO.gamma", "gamma", lambda v: dispo(gamma=v)),
    OutOfRange("DiSPO.gamma.range", "gamma", lambda v: dispo(gamma=v), BAD_GAMMA),
    Int("DiSPO.n_particles", "n_particles", lambda v: dispo(n_particles=v), minimum=1),
    Number("DiSPO.guidance", "guidance", lambda v: dispo(guidance=v)),
    OutOfRange(
        "DiSPO.guidance.range", "guidance", lambda v: dispo(guidance=v), st.floats(-1e6, -1e-6)
    ),
    Option(
        "DiSPO.model",
        "model",
        lambda v: dispo(model=v),
        valid=frozenset({"particles", "gmm", "diffusion"}),
    ),
    Rng("DiSPO.rng", "rng", lambda v: dispo(rng=v)),
    Int("DiSPO.fit.steps", "steps", lambda v: dispo().fit(DATA, steps=v), minimum=1),
    Array(
        "DiSPO.fit.observations",
        "dataset['observations']",
        lambda v: dispo().fit(with_key("observations", v), steps=1),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array(
        "DiSPO.fit.actions",
        "dataset['actions']",
        lambda v: dispo().fit(with_key("actions", v), steps=1),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array(
        "DiSPO.fit.next_observations",
        "dataset['next_observations']",
        lambda v: dispo().fit(with_key("next_observations", v), steps=1),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array(
        "DiSPO.fit.terminals",
        "dataset['terminals']",
        lambda v: dispo().fit(with_key("terminals", v), steps=1),
        shape=(3,),
        ndims=(1,),
    ),
    Array(
        "DiSPO.sample_outcomes.observations",
        "observations",
        lambda v: FITTED.sample_outcomes(v, 2),
        shape=(3,),
        ndims=(1, 2),
    ),
    Int("DiSPO.sample_outcomes.n", "n", lambda v: FITTED.sample_outcomes([0], v), minimum=1),
    Array(
        "DiSPO.infer_reward_weights.observations",
        "observations",
        lambda v: FITTED.infer_reward_weights(v, np.ones(3)),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array(
        "DiSPO.infer_reward_weights.rewards",
        "rewards",
        lambda v: FITTED.infer_reward_weights([0, 1, 2], v),
        shape=(3,),
        ndims=(1,),
    ),
    Number(
        "DiSPO.infer_reward_weights.ridge",
        "ridge",
        lambda v: FITTED.infer_reward_weights([0, 1], [1.0, 2.0], ridge=v),
    ),
    OutOfRange(
        "DiSPO.infer_reward_weights.ridge.range",
        "ridge",
        lambda v: FITTED.infer_reward_weights([0], [1.0], ridge=v),
        st.floats(-1e6, -1e-6),
    ),
    Array(
        "DiSPO.act.observations",
        "observations",
        lambda v: FITTED.act(v, W),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array("DiSPO.act.w", "w", lambda v: FITTED.act([0], v), shape=(4,), ndims=(1,)),
    Option(
        "DiSPO.act.planner",
        "planner",
        lambda v: FITTED.act([0], W, planner=v),
        valid=frozenset({"guided", "shooting"}),
    ),
    Array("BehaviorSF.act.w", "w", lambda v: BSF.act([0], v), shape=(4,), ndims=(1,)),
    Number("BehaviorSF.gamma", "gamma", lambda v: dr.BehaviorSF(PHI, gamma=v)),
    OutOfRange("BehaviorSF.gamma.range", "gamma", lambda v: dr.BehaviorSF(PHI, gamma=v), BAD_GAMMA),
    Int(
        "BehaviorSF.fit.steps", "steps", lambda v: dr.BehaviorSF(PHI).fit(DATA, steps=v), minimum=1
    ),
    OutOfRange(
        "cliff_grid.slip", "slip", lambda v: dr.cliff_grid(slip=v), st.sampled_from([-0.1, 1.5])
    ),
    Int("cliff_grid.rows", "rows", lambda v: dr.cliff_grid(v), minimum=3),
    Array(
        "random_walk_dataset.P",
        "P",
        lambda v: dr.random_walk_dataset(v, 2, 2),
        shape=(2, 2, 2),
        ndims=(3,),
    ),
    Int(
        "random_walk_dataset.n_segments",
        "n_segments",
        lambda v: dr.random_walk_dataset(np.full((2, 2, 2), 0.5), v, 2),
        minimum=1,
    ),
    Int(
        "random_walk_dataset.length",
        "length",
        lambda v: dr.random_walk_dataset(np.full((2, 2, 2), 0.5), 2, v),
        minimum=1,
    ),
    Rng(
        "random_walk_dataset.rng",
        "rng",
        lambda v: dr.random_walk_dataset(np.full((2, 2, 2), 0.5), 2, 2, rng=v),
    ),
    # inputs that do not fit together
    Mismatch(
        "fit.unequal_arrays",
        "dataset['actions']",
        lambda: dispo().fit(with_key("actions", [0, 1]), steps=1),
    ),
    Mismatch(
        "fit.unequal_next",
        "dataset['next_observations']",
        lambda: dispo().fit(with_key("next_observations", [1, 2]), steps=1),
    ),
    Mismatch(
        "fit.obs_columns",
        "dataset['next_observations']",
        lambda: dr.DiSPO(RFF).fit(
            {**DATA, "observations": np.zeros((3, 2)), "next_observations": np.zeros((3, 3))},
            steps=1,
        ),
    ),
    Mismatch(
        "fit.missing_key",
        "terminals",
        lambda: dispo().fit({k: v for k, v in DATA.items() if k != "terminals"}, steps=1),
    ),
    Mismatch(
        "fit.terminals_not_01",
        "dataset['terminals']",
        lambda: dispo().fit(with_key("terminals", [0, 2, 1]), steps=1),
    ),
    Mismatch(
        "fit.states_beyond_one_hot",
        "observations",
        lambda: dr.DiSPO(dr.OneHotFeatures(2)).fit(DATA, steps=1),
    ),
    Mismatch("act.wrong_len_w", "w", lambda: FITTED.act([0], np.ones(5))),
    Mismatch("predicted_values.wrong_len_w", "w", lambda: FITTED.predicted_values([0], np.ones(3))),
    Mismatch("bsf.wrong_len_w", "w", lambda: BSF.act([0], np.ones(3))),
    Mismatch("rewards_length", "rewards", lambda: FITTED.infer_reward_weights([0, 1], [1.0])),
    Mismatch(
        "bsf.continuous_actions",
        "dataset['actions']",
        lambda: dr.BehaviorSF(PHI).fit(with_key("actions", [0.5, 1.0, 0.0]), steps=1),
    ),
    Mismatch(
        "random_walk.P_not_stochastic",
        "P",
        lambda: dr.random_walk_dataset(np.full((2, 2, 2), 0.7), 2, 2),
    ),
    Mismatch("unfitted", "fit", lambda: dispo().act([0], W)),
    # PointMaze2D and its datasets
    Number("PointMaze2D.goal_radius", "goal_radius", lambda v: dr.PointMaze2D(goal_radius=v)),
    OutOfRange(
        "PointMaze2D.goal_radius.range",
        "goal_radius",
        lambda v: dr.PointMaze2D(goal_radius=v),
        st.sampled_from([0.0, -1.0]),
    ),
    Int("PointMaze2D.horizon", "horizon", lambda v: dr.PointMaze2D(horizon=v), minimum=1),
    OutOfRange(
        "PointMaze2D.damping.range",
        "damping",
        lambda v: dr.PointMaze2D(damping=v),
        st.sampled_from([-0.1, 1.5]),
    ),
    Number("PointMaze2D.accel", "accel", lambda v: dr.PointMaze2D(accel=v)),
    OutOfRange(
        "PointMaze2D.max_speed.range",
        "max_speed",
        lambda v: dr.PointMaze2D(max_speed=v),
        st.sampled_from([0.0, -0.2, 1.0, 3.0]),
    ),
    Array(
        "PointMaze2D.goal",
        "goal",
        lambda v: dr.PointMaze2D(goal=v),
        shape=(2,),
        ndims=(1,),
        none_ok=True,
    ),
    Array("PointMaze2D.step.action", "action", lambda v: MAZE.step(v), shape=(2,), ndims=(1,)),
    Array(
        "PointMaze2D.dynamics.observations",
        "observations",
        lambda v: MAZE.dynamics(v, np.zeros((1, 2))),
        shape=(1, 4),
        ndims=(2,),
    ),
    Array(
        "PointMaze2D.dynamics.actions",
        "actions",
        lambda v: MAZE.dynamics(np.array([[1.5, 1.5, 0, 0]]), v),
        shape=(1, 2),
        ndims=(2,),
    ),
    Array(
        "PointMaze2D.goal_reward.observations",
        "observations",
        lambda v: MAZE.goal_reward(v),
        shape=(1, 4),
        ndims=(2,),
    ),
    Number(
        "PointMaze2D.goal_reward.scale",
        "scale",
        lambda v: MAZE.goal_reward(np.ones((1, 4)), scale=v),
    ),
    Int("PointMaze2D.sample_free.n", "n", lambda v: MAZE.sample_free(v), minimum=1),
    Rng("PointMaze2D.reset.seed", "seed", lambda v: dr.PointMaze2D().reset(seed=v)),
    Int(
        "pointmaze_dataset.n_segments",
        "n_segments",
        lambda v: dr.pointmaze_dataset(MAZE, v, 2),
        minimum=1,
    ),
    Int(
        "pointmaze_dataset.length", "length", lambda v: dr.pointmaze_dataset(MAZE, 2, v), minimum=1
    ),
    Number("pointmaze_dataset.noise", "noise", lambda v: dr.pointmaze_dataset(MAZE, 2, 2, noise=v)),
    Rng("pointmaze_dataset.rng", "rng", lambda v: dr.pointmaze_dataset(MAZE, 2, 2, rng=v)),
    Mismatch("PointMaze2D.goal_in_wall", "goal", lambda: dr.PointMaze2D(goal=(0.5, 0.5))),
    Mismatch(
        "PointMaze2D.start_in_wall",
        "start",
        lambda: dr.PointMaze2D().reset(options={"start": (2.5, 2.5)}),
    ),
    Mismatch("PointMaze2D.layout_chars", "layout", lambda: dr.PointMaze2D(["#x#"])),
    Mismatch("PointMaze2D.layout_ragged", "layout", lambda: dr.PointMaze2D(["##", "#.#"])),
    Mismatch("PointMaze2D.layout_all_walls", "layout", lambda: dr.PointMaze2D(["##"])),
    Mismatch(
        "PointMaze2D.dynamics_lengths",
        "observations",
        lambda: MAZE.dynamics(np.ones((2, 4)), np.zeros((3, 2))),
    ),
    Mismatch("PointMaze2D.step_before_reset", "reset", lambda: dr.PointMaze2D().step([0.0, 0.0])),
    # OneStepModelMPC: its options are checked before torch is imported
    Number("OneStepModelMPC.gamma", "gamma", lambda v: dr.OneStepModelMPC(PHI, gamma=v)),
    OutOfRange(
        "OneStepModelMPC.gamma.range",
        "gamma",
        lambda v: dr.OneStepModelMPC(PHI, gamma=v),
        BAD_GAMMA,
    ),
    Int(
        "OneStepModelMPC.horizon",
        "horizon",
        lambda v: dr.OneStepModelMPC(PHI, horizon=v),
        minimum=1,
    ),
    Int(
        "OneStepModelMPC.n_samples",
        "n_samples",
        lambda v: dr.OneStepModelMPC(PHI, n_samples=v),
        minimum=1,
    ),
    Rng("OneStepModelMPC.rng", "rng", lambda v: dr.OneStepModelMPC(PHI, rng=v)),
]

if HAS_TORCH:
    MAZE_DATA = dr.pointmaze_dataset(MAZE, 4, 5, rng=0)
    RFF4 = dr.RandomFourierFeatures(4, n=2, rng=0)
    om = dr.GaussianMixtureOutcomeModel(n_components=2, hidden=(8,))
    GMM = dr.DiSPO(RFF4, model=om, n_particles=4, rng=0).fit(MAZE_DATA, steps=2)
    MPC = dr.OneStepModelMPC(RFF4, horizon=2, n_samples=4, hidden=(8,), rng=0)
    MPC.fit(MAZE_DATA, steps=2)
    W4 = np.ones(RFF4.dim)
    CASES += [
        Int(
            "GMM.n_components",
            "n_components",
            lambda v: dr.GaussianMixtureOutcomeModel(n_components=v),
            minimum=1,
        ),
        Number("GMM.lr", "lr", lambda v: dr.GaussianMixtureOutcomeModel(lr=v)),
        Int(
            "GMM.batch_size",
            "batch_size",
            lambda v: dr.GaussianMixtureOutcomeModel(batch_size=v),
            minimum=1,
        ),
        OutOfRange(
            "GMM.ema",
            "ema",
            lambda v: dr.GaussianMixtureOutcomeModel(ema=v),
            st.sampled_from([-0.1, 1.0, 2.0]),
        ),
        Number("GMM.min_std", "min_std", lambda v: dr.GaussianMixtureOutcomeModel(min_std=v)),
        Int(
            "Diffusion.n_diffusion_steps",
            "n_diffusion_steps",
            lambda v: dr.DiffusionOutcomeModel(n_diffusion_steps=v),
            minimum=2,
        ),
        Int(
            "Diffusion.n_inference_steps",
            "n_inference_steps",
            lambda v: dr.DiffusionOutcomeModel(n_inference_steps=v),
            minimum=1,
        ),
        Number("Diffusion.lr", "lr", lambda v: dr.DiffusionOutcomeModel(lr=v)),
        Array(
            "GMM.sample_outcomes.observations",
            "observations",
            lambda v: GMM.sample_outcomes(v, 2),
            shape=(2, 4),
            ndims=(1, 2),
        ),
        Array(
            "GMM.act.w",
            "w",
            lambda v: GMM.act(MAZE_DATA["observations"][:1], v),
            shape=(RFF4.dim,),
            ndims=(1,),
        ),
        Array(
            "MPC.act.observations",
            "observations",
            lambda v: MPC.act(v, W4),
            shape=(2, 4),
            ndims=(1, 2),
        ),
        Array(
            "MPC.act.w",
            "w",
            lambda v: MPC.act(MAZE_DATA["observations"][:1], v),
            shape=(RFF4.dim,),
            ndims=(1,),
        ),
        Array(
            "MPC.predict.actions",
            "actions",
            lambda v: MPC.predict(MAZE_DATA["observations"][:2], v),
            shape=(2, 2),
            ndims=(1, 2),
        ),
        Int(
            "MPC.fit.steps",
            "steps",
            lambda v: dr.OneStepModelMPC(RFF4).fit(MAZE_DATA, steps=v),
            minimum=1,
        ),
        Mismatch(
            "GMM.obs_columns", "observations", lambda: GMM.sample_outcomes(np.ones((2, 3)), 2)
        ),
        Mismatch(
            "GMM.wrong_len_w", "w", lambda: GMM.act(MAZE_DATA["observations"][:1], np.ones(3))
        ),
        Mismatch("MPC.obs_columns", "observations", lambda: MPC.act(np.ones((2, 3)), W4)),
        Mismatch(
            "MPC.wrong_len_w", "w", lambda: MPC.act(MAZE_DATA["observations"][:1], np.ones(3))
        ),
        Mismatch(
            "MPC.discrete_actions",
            "dataset['actions']",
            lambda: dr.OneStepModelMPC(PHI).fit(DATA, steps=1),
        ),
        Mismatch(
            "MPC.predict_lengths",
            "actions",
            lambda: MPC.predict(MAZE_DATA["observations"][:2], np.ones((3, 2))),
        ),
        Mismatch("MPC.unfitted", "fit", lambda: dr.OneStepModelMPC(RFF4).act(np.ones((1, 4)), W4)),
    ]
globals().update(bad_input_suite(CASES))


@pytest.mark.parametrize("dataset", [None, [1, 2], "data", np.zeros((3, 4))], ids=repr)
def test_dataset_must_be_a_dict(dataset):
    assert_rejects(TypeError, "dataset", dispo().fit, dataset, steps=1)
    assert_rejects(TypeError, "dataset", dr.BehaviorSF(PHI).fit, dataset, steps=1)


@pytest.mark.parametrize("features", [None, 3, "phi", np.eye(3)], ids=repr)
def test_features_must_be_a_feature_map(features):
    assert_rejects(TypeError, "features", dr.DiSPO, features)
    assert_rejects(TypeError, "features", dr.BehaviorSF, features)


@pytest.mark.skipif(HAS_TORCH, reason="torch is installed")
def test_torch_parts_without_torch_name_the_extra():
    for call in (
        lambda: dr.DiSPO(PHI, model="gmm"),
        lambda: dr.DiSPO(PHI, model="diffusion"),
        lambda: dr.OneStepModelMPC(PHI),
        lambda: dr.GaussianMixtureOutcomeModel,
    ):
        with pytest.raises(ImportError, match=r"dispo-rl\[torch\]"):
            call()
