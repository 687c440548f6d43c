"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

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
    Option("DiSPO.model", "model", lambda v: dispo(model=v), valid=frozenset({"particles"})),
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
