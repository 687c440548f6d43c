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
    keyword,
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
    keyword(Int, dr.RandomFourierFeatures, "n", 2, minimum=1),
    keyword(Int, dr.RandomFourierFeatures, "hidden", 2, minimum=1),
    keyword(Rng, dr.RandomFourierFeatures, "rng", 2),
    Array("OneHotFeatures.observations", "observations", PHI, shape=(3,), ndims=(1, 2)),
    Array("RandomFourierFeatures.observations", "observations", RFF, shape=(3, 2), ndims=(1, 2)),
    keyword(Number, dispo, "gamma", id="DiSPO.gamma"),
    keyword(OutOfRange, dispo, "gamma", id="DiSPO.gamma.range", values=BAD_GAMMA),
    keyword(Int, dispo, "n_particles", id="DiSPO.n_particles", minimum=1),
    keyword(Number, dispo, "guidance", id="DiSPO.guidance"),
    keyword(
        OutOfRange,
        dispo,
        "guidance",
        id="DiSPO.guidance.range",
        values=st.floats(-1000000.0, -1e-06),
    ),
    keyword(
        Option, dispo, "model", id="DiSPO.model", valid=frozenset({"particles", "gmm", "diffusion"})
    ),
    keyword(Rng, dispo, "rng", id="DiSPO.rng"),
    keyword(Int, dispo().fit, "steps", DATA, id="DiSPO.fit.steps", minimum=1),
    *[
        Array(
            f"DiSPO.fit.{key}",
            f"dataset['{key}']",
            lambda v, key=key: dispo().fit(with_key(key, v), steps=1),
            shape=(3,),
            ndims=ndims,
        )
        for key, ndims in [
            ("observations", (1, 2)),
            ("actions", (1, 2)),
            ("next_observations", (1, 2)),
            ("terminals", (1,)),
        ]
    ],
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
    keyword(
        Number,
        FITTED.infer_reward_weights,
        "ridge",
        [0, 1],
        [1.0, 2.0],
        id="DiSPO.infer_reward_weights.ridge",
    ),
    keyword(
        OutOfRange,
        FITTED.infer_reward_weights,
        "ridge",
        [0],
        [1.0],
        id="DiSPO.infer_reward_weights.ridge.range",
        values=st.floats(-1000000.0, -1e-06),
    ),
    Array(
        "DiSPO.act.observations",
        "observations",
        lambda v: FITTED.act(v, W),
        shape=(3,),
        ndims=(1, 2),
    ),
    Array("DiSPO.act.w", "w", lambda v: FITTED.act([0], v), shape=(4,), ndims=(1,)),
    keyword(
        Option,
        FITTED.act,
        "planner",
        [0],
        W,
        id="DiSPO.act.planner",
        valid=frozenset({"guided", "shooting"}),
    ),
    Array("BehaviorSF.act.w", "w", lambda v: BSF.act([0], v), shape=(4,), ndims=(1,)),
    keyword(Number, dr.BehaviorSF, "gamma", PHI),
    keyword(OutOfRange, dr.BehaviorSF, "gamma", PHI, id="BehaviorSF.gamma.range", values=BAD_GAMMA),
    keyword(Int, dr.BehaviorSF(PHI).fit, "steps", DATA, id="BehaviorSF.fit.steps", minimum=1),
    keyword(OutOfRange, dr.cliff_grid, "slip", values=st.sampled_from([-0.1, 1.5])),
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
    keyword(Rng, dr.random_walk_dataset, "rng", np.full((2, 2, 2), 0.5), 2, 2),
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
    keyword(Number, dr.PointMaze2D, "goal_radius"),
    keyword(Int, dr.PointMaze2D, "horizon", minimum=1),
    keyword(Number, dr.PointMaze2D, "accel"),
    *[
        keyword(
            OutOfRange,
            dr.PointMaze2D,
            name,
            id=f"PointMaze2D.{name}.range",
            values=st.sampled_from(bad),
        )
        for name, bad in [
            ("goal_radius", [0.0, -1.0]),
            ("damping", [-0.1, 1.5]),
            ("max_speed", [0.0, -0.2, 1.0, 3.0]),
        ]
    ],
    keyword(Array, dr.PointMaze2D, "goal", shape=(2,), ndims=(1,), none_ok=True),
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
    keyword(Number, MAZE.goal_reward, "scale", np.ones((1, 4)), id="PointMaze2D.goal_reward.scale"),
    Int("PointMaze2D.sample_free.n", "n", lambda v: MAZE.sample_free(v), minimum=1),
    keyword(Rng, dr.PointMaze2D().reset, "seed", id="PointMaze2D.reset.seed"),
    Int(
        "pointmaze_dataset.n_segments",
        "n_segments",
        lambda v: dr.pointmaze_dataset(MAZE, v, 2),
        minimum=1,
    ),
    Int(
        "pointmaze_dataset.length", "length", lambda v: dr.pointmaze_dataset(MAZE, 2, v), minimum=1
    ),
    keyword(Number, dr.pointmaze_dataset, "noise", MAZE, 2, 2),
    keyword(Rng, dr.pointmaze_dataset, "rng", MAZE, 2, 2),
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
    keyword(Number, dr.OneStepModelMPC, "gamma", PHI),
    keyword(
        OutOfRange,
        dr.OneStepModelMPC,
        "gamma",
        PHI,
        id="OneStepModelMPC.gamma.range",
        values=BAD_GAMMA,
    ),
    keyword(Int, dr.OneStepModelMPC, "horizon", PHI, minimum=1),
    keyword(Int, dr.OneStepModelMPC, "n_samples", PHI, minimum=1),
    keyword(Rng, dr.OneStepModelMPC, "rng", PHI),
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
        keyword(
            Int, dr.GaussianMixtureOutcomeModel, "n_components", id="GMM.n_components", minimum=1
        ),
        keyword(Number, dr.GaussianMixtureOutcomeModel, "lr", id="GMM.lr"),
        keyword(Int, dr.GaussianMixtureOutcomeModel, "batch_size", id="GMM.batch_size", minimum=1),
        keyword(
            OutOfRange,
            dr.GaussianMixtureOutcomeModel,
            "ema",
            id="GMM.ema",
            values=st.sampled_from([-0.1, 1.0, 2.0]),
        ),
        keyword(Number, dr.GaussianMixtureOutcomeModel, "min_std", id="GMM.min_std"),
        keyword(
            Int,
            dr.DiffusionOutcomeModel,
            "n_diffusion_steps",
            id="Diffusion.n_diffusion_steps",
            minimum=2,
        ),
        keyword(
            Int,
            dr.DiffusionOutcomeModel,
            "n_inference_steps",
            id="Diffusion.n_inference_steps",
            minimum=1,
        ),
        keyword(Number, dr.DiffusionOutcomeModel, "lr", id="Diffusion.lr"),
        Array(
            "GMM.sample_outcomes.observations",
            "observations",
            lambda v: GMM.sample_outcomes(v, 2),
            shape=(2, 4),
            ndims=(1, 2),
        ),
        Array(
            "MPC.act.observations",
            "observations",
            lambda v: MPC.act(v, W4),
            shape=(2, 4),
            ndims=(1, 2),
        ),
        Array(
            "MPC.predict.actions",
            "actions",
            lambda v: MPC.predict(MAZE_DATA["observations"][:2], v),
            shape=(2, 2),
            ndims=(1, 2),
        ),
        keyword(
            Int, dr.OneStepModelMPC(RFF4).fit, "steps", MAZE_DATA, id="MPC.fit.steps", minimum=1
        ),
        Mismatch(
            "GMM.obs_columns", "observations", lambda: GMM.sample_outcomes(np.ones((2, 3)), 2)
        ),
        Mismatch("MPC.obs_columns", "observations", lambda: MPC.act(np.ones((2, 3)), W4)),
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
    # the reward-weight argument w of act, the same checks for both fitted torch policies
    OBS1 = MAZE_DATA["observations"][:1]
    for label, policy in [("GMM", GMM), ("MPC", MPC)]:
        CASES += [
            Array(
                f"{label}.act.w",
                "w",
                lambda v, policy=policy: policy.act(OBS1, v),
                shape=(RFF4.dim,),
                ndims=(1,),
            ),
            Mismatch(
                f"{label}.wrong_len_w", "w", lambda policy=policy: policy.act(OBS1, np.ones(3))
            ),
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
