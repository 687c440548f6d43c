"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import sim2real_explore as se
from hypothesis import given, settings
from hypothesis import strategies as st

import papershelf_mdp as pm
from papershelf_harness.strategies import (
    bad_probabilities,
    non_finite_floats,
    non_integers,
    non_numeric,
    not_rngs,
)
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
SIM, REAL = se.two_corridor_lock(4)
S = SIM.n_states
UNIFORM = np.full((S, 2), 0.5)
PHI = se.one_hot_features(S, 2)


@FAST
@given(v=non_integers())
def test_counts_must_be_ints(v):
    assert_rejects(TypeError, "horizon", se.two_corridor_lock, v)
    assert_rejects(TypeError, "n_episodes", se.sim2real_transfer, SIM, REAL, n_episodes=v)
    assert_rejects(
        TypeError, "n_episodes", se.zeta_greedy_transfer, SIM, REAL, n_episodes=v, zeta=0.1
    )
    assert_rejects(TypeError, "step", se.reach_policies, SIM, v)
    assert_rejects(TypeError, "switch_step", se.random_tail, np.full((4, S, 2), 0.5), v)
    assert_rejects(TypeError, "n_side", se.waypoint_explorers, se.Point2D(), n_side=v)


@FAST
@given(v=st.integers(max_value=0))
def test_counts_below_one(v):
    assert_rejects(ValueError, "horizon", se.two_corridor_lock, v)
    assert_rejects(ValueError, "n_episodes", se.sim2real_transfer, SIM, REAL, n_episodes=v)
    assert_rejects(
        ValueError, "n_episodes", se.zeta_greedy_transfer, SIM, REAL, n_episodes=v, zeta=0.1
    )
    assert_rejects(ValueError, "horizon", se.Point2D, horizon=v)
    assert_rejects(ValueError, "n_iters", se.e_optimal_design, SIM, PHI, n_iters=v)
    assert_rejects(ValueError, "n_states", se.random_low_rank_mdp, v, 2, 2, horizon=3)


def test_lock_options():
    assert_rejects(ValueError, "horizon", se.two_corridor_lock, 1)
    assert_rejects(TypeError, "safe_reward", se.two_corridor_lock, 4, safe_reward="high")
    assert_rejects(ValueError, "safe_reward", se.two_corridor_lock, 4, safe_reward=np.nan)


@FAST
@given(q=bad_probabilities())
def test_probabilities_out_of_range(q):
    assert_rejects(ValueError, "q_sim", se.two_corridor_lock, 4, q_sim=q)
    assert_rejects(ValueError, "q_real", se.two_corridor_lock, 4, q_real=q)
    assert_rejects(ValueError, "zeta", se.zeta_greedy_transfer, SIM, REAL, n_episodes=4, zeta=q)


@FAST
@given(v=non_numeric())
def test_non_numeric_options(v):
    assert_rejects(TypeError, "zeta", se.zeta_greedy_transfer, SIM, REAL, n_episodes=4, zeta=v)
    assert_rejects(TypeError, "eps_tv", se.perturb, SIM, v)
    assert_rejects(TypeError, "q_sim", se.two_corridor_lock, 4, q_sim=v)
    assert_rejects(TypeError, "phi", se.feature_coverage, SIM, [UNIFORM], v)
    assert_rejects(TypeError, "policies", se.feature_coverage, SIM, v, PHI)


@FAST
@given(eps=st.floats(max_value=-1e-12, allow_nan=False) | non_finite_floats())
def test_eps_tv_must_be_non_negative_and_finite(eps):
    assert_rejects(ValueError, "eps_tv", se.perturb, SIM, eps)


@FAST
@given(rng=not_rngs())
def test_rng(rng):
    exc = ValueError if isinstance(rng, int) and not isinstance(rng, bool) else TypeError
    assert_rejects(exc, "rng", se.perturb, SIM, 0.1, rng=rng)
    assert_rejects(exc, "rng", se.sim2real_transfer, SIM, REAL, n_episodes=4, rng=rng)
    assert_rejects(exc, "rng", se.zeta_greedy_transfer, SIM, REAL, n_episodes=4, zeta=0.1, rng=rng)
    assert_rejects(exc, "rng", se.random_low_rank_mdp, 4, 2, 2, horizon=3, rng=rng)


def test_mdp_arguments():
    for fn, args in (
        (se.sim2real_transfer, ("sim", REAL)),
        (se.zeta_greedy_transfer, ("sim", REAL)),
    ):
        kw = {"n_episodes": 4} | ({"zeta": 0.1} if fn is se.zeta_greedy_transfer else {})
        assert_rejects(TypeError, "sim", fn, *args, **kw)
        assert_rejects(TypeError, "real_env", fn, SIM, "real", **kw)
        assert_rejects(TypeError, "real_env", fn, SIM, object(), **kw)
    assert_rejects(TypeError, "sim", se.direct_transfer, SIM.P)
    assert_rejects(TypeError, "mdp", se.perturb, "mdp", 0.1)
    assert_rejects(TypeError, "mdp", se.feature_coverage, None, [UNIFORM], PHI)
    assert_rejects(TypeError, "mdp", se.policy_value, "mdp", UNIFORM)
    assert_rejects(TypeError, "mdp", se.optimal_policy, [SIM])
    disc = pm.random_mdp(3, 2, gamma=0.9, rng=0)
    assert_rejects(ValueError, "sim", se.sim2real_transfer, disc, disc, n_episodes=4)
    assert_rejects(
        ValueError, "mdp", se.feature_coverage, disc, [np.full((3, 2), 0.5)], np.ones((3, 2, 1))
    )
    other = pm.random_mdp(3, 2, horizon=4, rng=0)
    assert_rejects(ValueError, "real_env", se.sim2real_transfer, SIM, other, n_episodes=4)
    assert_rejects(ValueError, "real_env", se.sim2real_transfer, SIM, se.Point2D(), n_episodes=4)


def test_fqi_options_of_the_transfers():
    kw = {"n_episodes": 4}
    assert_rejects(ValueError, "gamma", se.sim2real_transfer, SIM, REAL, **kw, gamma=1.5)
    assert_rejects(TypeError, "gamma", se.sim2real_transfer, SIM, REAL, **kw, gamma="one")
    assert_rejects(TypeError, "pool_steps", se.sim2real_transfer, SIM, REAL, **kw, pool_steps=1)
    assert_rejects(
        ValueError, "gamma", se.zeta_greedy_transfer, SIM, REAL, **kw, zeta=0.1, gamma=-1.0
    )


def test_tabular_mdp_contract_errors():
    assert_rejects(
        ValueError, "P", se.TabularMDP, np.full((2, 2, 2), 0.6), np.zeros((2, 2)), horizon=2
    )
    assert_rejects(
        ValueError, "horizon", se.TabularMDP, np.full((2, 2, 2), 0.5), np.zeros((2, 2)), horizon=0
    )
    assert_rejects(
        ValueError, "R", se.TabularMDP, np.full((2, 2, 2), 0.5), np.zeros((3, 2)), horizon=2
    )
    P = np.full((2, 2, 2), 0.5)
    P[0, 0, 0] = np.nan
    assert_rejects(ValueError, "P", se.TabularMDP, P, np.zeros((2, 2)), horizon=2)


def test_policies_and_features():
    bad = UNIFORM.copy()
    bad[0] = [0.7, 0.7]
    assert_rejects(ValueError, "policies[1]", se.feature_coverage, SIM, [UNIFORM, bad], PHI)
    assert_rejects(ValueError, "policies", se.feature_coverage, SIM, [], PHI)
    assert_rejects(ValueError, "policies", se.feature_coverage, SIM, np.full((3, S, 2), 0.5), PHI)
    assert_rejects(ValueError, "phi", se.feature_coverage, SIM, [UNIFORM], np.ones((S, 3, 2)))
    nan_phi = PHI.copy()
    nan_phi[0, 0, 0] = np.nan
    assert_rejects(ValueError, "phi", se.feature_coverage, SIM, [UNIFORM], nan_phi)
    assert_rejects(ValueError, "policy", se.policy_value, SIM, np.full((S, 3), 1 / 3))
    assert_rejects(
        ValueError,
        "exploration",
        se.sim2real_transfer,
        SIM,
        REAL,
        n_episodes=4,
        exploration=[[UNIFORM]],
    )
    assert_rejects(
        TypeError, "exploration", se.sim2real_transfer, SIM, REAL, n_episodes=4, exploration=UNIFORM
    )
    assert_rejects(
        ValueError,
        "exploration[0]",
        se.sim2real_transfer,
        SIM,
        REAL,
        n_episodes=4,
        exploration=[[bad]] * 4,
    )
    assert_rejects(ValueError, "switch_step", se.random_tail, np.full((4, S, 2), 0.5), 5)
    assert_rejects(ValueError, "step", se.reach_policies, SIM, 4)
    assert_rejects(ValueError, "reg", se.e_optimal_design, SIM, PHI, reg=0.0)
    assert_rejects(
        ValueError,
        "phi",
        se.low_rank_mdp,
        np.ones((3, 2, 2)),
        np.full((2, 3), 1 / 3),
        np.zeros((3, 2)),
        horizon=2,
    )
    assert_rejects(
        ValueError,
        "mu",
        se.low_rank_mdp,
        np.full((3, 2, 2), 0.5),
        np.full((2, 4), 0.25),
        np.zeros((3, 2)),
        horizon=2,
    )
    assert_rejects(ValueError, "p and q", se.tv_distance, np.ones(3) / 3, np.ones(2) / 2)
    assert_rejects(ValueError, "cov", se.min_eigenvalues, np.ones((2, 3)))


def test_fqi_inputs():
    data = se.Transitions.from_arrays([0, 1], [0, 1], [0, 1], [1.0, 0.0], [1, 0])
    assert_rejects(
        TypeError, "data", se.fitted_q_iteration, {"step": [0]}, horizon=2, n_states=2, n_actions=2
    )
    assert_rejects(
        ValueError, "data.state", se.fitted_q_iteration, data, horizon=2, n_states=1, n_actions=2
    )
    assert_rejects(
        ValueError, "data.step", se.fitted_q_iteration, data, horizon=1, n_states=2, n_actions=2
    )
    assert_rejects(
        ValueError,
        "gamma",
        se.fitted_q_iteration,
        data,
        horizon=2,
        n_states=2,
        n_actions=2,
        gamma=1.5,
    )
    assert_rejects(
        TypeError,
        "pool_steps",
        se.fitted_q_iteration,
        data,
        horizon=2,
        n_states=2,
        n_actions=2,
        pool_steps="yes",
    )
    assert_rejects(ValueError, "reward", se.Transitions.from_arrays, [0], [0], [0], [np.nan], [0])
    assert_rejects(
        ValueError, "action", se.Transitions.from_arrays, [0, 1], [0, 1], [0], [0.0, 0.0], [0, 0]
    )
    assert_rejects(TypeError, "state", se.Transitions.from_arrays, [0], [0.5], [0], [0.0], [0])
    assert_rejects(ValueError, "Q", se.greedy_policy, np.array([[np.nan, 1.0]]))


class _BadObsEnv:
    def __init__(self, obs):
        self.obs = obs

    def reset(self, *, seed=None, options=None):
        return self.obs, {}

    def step(self, action):
        return self.obs, 0.0, False, False, {}


def test_real_env_contract():
    assert_rejects(
        ValueError, "observation", se.sim2real_transfer, SIM, _BadObsEnv(S + 3), n_episodes=4
    )
    assert_rejects(
        TypeError, "observation", se.sim2real_transfer, SIM, _BadObsEnv("s0"), n_episodes=4
    )
    assert_rejects(
        TypeError, "observation", se.sim2real_transfer, SIM, _BadObsEnv(0.5), n_episodes=4
    )


def test_practical_pieces():
    sim, real = se.action_scale_mismatch()
    enc = se.GridEncoder([0, 0], [1, 1], 4)
    ex = se.waypoint_explorers(sim, n_side=2)
    kw = {"n_episodes": 4, "horizon": 30, "encoder": enc}
    assert_rejects(ValueError, "explorers", se.exploration_transfer, real, [], None, **kw)
    assert_rejects(TypeError, "explorers", se.exploration_transfer, real, ex[0], None, **kw)
    assert_rejects(
        TypeError, "explorers[1]", se.exploration_transfer, real, [ex[0], "left"], ex[0], **kw
    )
    assert_rejects(TypeError, "sim_policy", se.exploration_transfer, real, ex, "direct", **kw)
    assert_rejects(
        TypeError,
        "encoder",
        se.exploration_transfer,
        real,
        ex,
        ex[0],
        n_episodes=4,
        horizon=30,
        encoder=3,
    )
    assert_rejects(ValueError, "gamma", se.exploration_transfer, real, ex, ex[0], **kw, gamma=-0.1)
    assert_rejects(
        ValueError, "n_actions", se.exploration_transfer, real, ex, ex[0], **kw, n_actions=3
    )
    assert_rejects(ValueError, "high", se.GridEncoder, [0, 0], [1, 0], 3)
    assert_rejects(ValueError, "bins", se.GridEncoder, [0, 0], [1, 1], 0)
    assert_rejects(ValueError, "observation", enc, np.array([np.nan, 0.1]))
    assert_rejects(ValueError, "probs", se.TabularPolicy, np.full((2, 3), 0.5))
    assert_rejects(ValueError, "action_scale", se.Point2D, action_scale=0.0)
    assert_rejects(ValueError, "scale_real", se.action_scale_mismatch, scale_real=-1.0)
    assert_rejects(TypeError, "sim", se.waypoint_explorers, real.__dict__)
    assert_rejects(ValueError, "bins", se.plan_on_grid, sim, bins=1)
    env = se.Point2D()
    env.reset(seed=0)
    assert_rejects(ValueError, "action", env.step, 8)
    assert_rejects(TypeError, "action", env.step, "up")
    assert_rejects(ValueError, "n_episodes", se.evaluate, env, ex[0], 0, horizon=3)
    assert_rejects(TypeError, "env", se.evaluate, "env", ex[0], 3, horizon=3)


# ------------------------------------------------------------ continuous testbed and [torch] extra
from papershelf_harness.suite import Array, Int, Number, OutOfRange, bad_input_suite, keyword  # noqa: E402

try:
    import torch as _torch
except ImportError:
    _torch = None


def _stepped(a):
    env = se.ContinuousPoint2D()
    env.reset(seed=0)
    return env.step(a)


CONT = se.ContinuousPoint2D(horizon=3)
CASES = [
    keyword(Number, se.ContinuousPoint2D, "action_scale"),
    keyword(Number, se.ContinuousPoint2D, "shaping"),
    keyword(
        OutOfRange,
        se.ContinuousPoint2D,
        "shaping",
        id="ContinuousPoint2D.shaping<0",
        values=st.floats(max_value=-1e-09, min_value=-1000000.0),
    ),
    keyword(Number, se.ContinuousPoint2D, "radius"),
    keyword(Int, se.ContinuousPoint2D, "horizon", minimum=1),
    keyword(Array, se.ContinuousPoint2D, "start", shape=(2,), ndims=(1,)),
    Array("ContinuousPoint2D.step.action", "action", _stepped, shape=(2,), ndims=(1,)),
    OutOfRange(
        "ContinuousPoint2D.step.action>1",
        "action",
        lambda v: _stepped(np.array([v, 0.0])),
        st.floats(min_value=1.001, max_value=1e6) | st.floats(min_value=-1e6, max_value=-1.001),
    ),
    keyword(Number, se.continuous_action_scale_mismatch, "scale_real"),
    keyword(Number, se.continuous_action_scale_mismatch, "sim_shaping"),
    Int(
        "rollout_returns.n_episodes",
        "n_episodes",
        lambda v: se.rollout_returns(CONT, se.waypoint_explorers(se.Point2D(), n_side=1)[0], v),
        minimum=1,
    ),
]


def _transfer(kind, fn, name, **options):
    """A case for an option of a sim-to-real transfer function (two episodes, continuous testbed)."""
    return keyword(kind, fn, name, CONT, CONT, kwargs={"n_episodes": 2}, **options)


if _torch is not None:
    _G = lambda: _torch.Generator().manual_seed(0)  # noqa: E731
    TORCH_CASES = [
        Int("SAC.obs_dim", "obs_dim", lambda v: se.SAC(v, 2), minimum=1),
        keyword(Int, se.SAC, "n_skills", 2, 2, minimum=1),
        keyword(Int, se.SAC, "batch_size", 2, 2, minimum=1),
        keyword(Number, se.SAC, "lr", 2, 2),
        keyword(
            OutOfRange,
            se.SAC,
            "gamma",
            2,
            2,
            values=st.floats(min_value=1.0, max_value=10)
            | st.floats(max_value=-1e-09, min_value=-10),
        ),
        keyword(OutOfRange, se.SAC, "tau", 2, 2, values=st.floats(min_value=1.001, max_value=10)),
        Int(
            "SAC.policy.z", "z", lambda v: se.SAC(2, 2, n_skills=3).policy(v), minimum=0, maximum=2
        ),
        keyword(Int, se.ReplayBuffer, "capacity", 2, 2, minimum=1),
        keyword(Int, se.DiverseEnsembleSAC, "n", CONT, minimum=1),
        keyword(Number, se.DiverseEnsembleSAC, "alpha", CONT),
        keyword(
            OutOfRange,
            se.DiverseEnsembleSAC,
            "alpha",
            CONT,
            id="DiverseEnsembleSAC.alpha<0",
            values=st.floats(max_value=-1e-09, min_value=-1000000.0),
        ),
        keyword(Number, se.DiverseEnsembleSAC, "task_threshold", CONT),
        keyword(Int, se.DiverseEnsembleSAC, "update_every", CONT, minimum=1),
        keyword(Int, se.DiverseEnsembleSAC, "warmup_steps", CONT, minimum=0),
        Int(
            "DiverseEnsembleSAC.fit.n_episodes",
            "n_episodes",
            lambda v: se.DiverseEnsembleSAC(CONT, n=2).fit(v),
            minimum=1,
        ),
        keyword(Number, se.RealWorldLearner, "explore_prob", CONT, []),
        keyword(
            OutOfRange, se.RealWorldLearner, "explore_prob", CONT, [], values=bad_probabilities()
        ),
        Int(
            "RealWorldLearner.fit.n_episodes",
            "n_episodes",
            lambda v: se.RealWorldLearner(CONT, []).fit(v),
            minimum=1,
        ),
        keyword(Int, se.train_sac, "n_episodes", CONT, minimum=1),
        keyword(Int, se.sac_exploration_transfer, "n_episodes", CONT, CONT, minimum=1),
        _transfer(Int, se.sac_exploration_transfer, "sim_episodes", minimum=1),
        _transfer(Int, se.sac_exploration_transfer, "n_policies", minimum=1),
        _transfer(
            OutOfRange, se.sac_exploration_transfer, "explore_prob", values=bad_probabilities()
        ),
        _transfer(
            OutOfRange,
            se.sac_exploration_transfer,
            "gamma",
            values=st.floats(min_value=1.0, max_value=10),
        ),
        _transfer(Int, se.sac_direct_transfer, "sim_episodes", minimum=1),
        _transfer(Int, se.sac_direct_transfer, "update_every", minimum=1),
    ]
    CASES += TORCH_CASES

globals().update(bad_input_suite(CASES))


def test_torch_generator_and_envs():
    pytest = __import__("pytest")
    if _torch is None:
        pytest.skip("torch not installed")
    for call in (
        lambda g: se.SAC(2, 2, generator=g),
        lambda g: se.DiverseEnsembleSAC(CONT, generator=g),
        lambda g: se.RealWorldLearner(CONT, [], generator=g),
        lambda g: se.sac_exploration_transfer(CONT, CONT, n_episodes=2, generator=g),
        lambda g: se.sac_direct_transfer(CONT, CONT, n_episodes=2, generator=g),
    ):
        for bad in (0, np.random.default_rng(0), "seed"):
            assert_rejects(TypeError, "generator", call, bad)
    assert_rejects(TypeError, "env_sim", se.DiverseEnsembleSAC, "env")
    assert_rejects(ValueError, "env_sim", se.DiverseEnsembleSAC, se.TabularEnv(REAL))  # no dims
    assert_rejects(TypeError, "real_env", se.sac_exploration_transfer, CONT, object(), n_episodes=2)
    assert_rejects(TypeError, "sim_env", se.sac_direct_transfer, None, CONT, n_episodes=2)
    assert_rejects(TypeError, "explorers", se.RealWorldLearner, CONT, se.SAC(2, 2).policy())
    assert_rejects(TypeError, "explorers[0]", se.RealWorldLearner, CONT, ["left"])
    assert_rejects(TypeError, "sac_init", se.RealWorldLearner, CONT, [], sac_init="sim")
    assert_rejects(
        ValueError, "sac_init", se.RealWorldLearner, CONT, [], sac_init=se.SAC(2, 2, n_skills=2)
    )
    assert_rejects(ValueError, "other", se.SAC(2, 2).load_from, se.SAC(2, 2, hidden=8))
    assert_rejects(TypeError, "policy", se.rollout_returns, CONT, "east", 2)
    assert_rejects(TypeError, "env", se.rollout_returns, "env", se.SAC(2, 2).policy(), 2)
