"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Plain tests below cover the
rules the kinds do not (non-stochastic P or policies, non-modules, non-callables).
"""

import behavior_distill as bd
import numpy as np
import pytest
import torch

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

torch.manual_seed(0)
_rng = np.random.default_rng(0)
P = _rng.dirichlet(np.ones(3), size=(3, 2))
R = _rng.random((3, 2))
INIT = np.array([0.5, 0.25, 0.25])
MDP = bd.TabularMDP(P, R, gamma=0.9, init=INIT)
PI = np.full((3, 2), 0.5)
POLICY = bd.MLPPolicy(2, 2, hidden=(4,), discrete=False)
S = np.zeros((4, 2)) + 0.1
A = np.zeros((4, 2))
BATCH = {"observations": np.ones((6, 2)), "actions": np.zeros((6, 2))}
DATA = {"observations": np.ones((10, 2)), "actions": np.zeros((10, 2))}


def teacher(o):
    return torch.zeros(o.shape[0], 2, dtype=o.dtype)


def critic(o, a):
    return torch.ones(o.shape[0], dtype=o.dtype)


def _make():
    return bd.MLPPolicy(2, 2, hidden=(4,), discrete=False)


def meta_gradient(**kw):
    args = dict(policy=POLICY, states=S, actions=A, objective=bd.DBC(), batch=BATCH, inner_steps=2)
    args.update(kw)
    return bd.meta_gradient(
        args.pop("policy"),
        args.pop("states"),
        args.pop("actions"),
        args.pop("objective"),
        args.pop("batch"),
        **args,
    )


def distill(**kw):
    args = dict(states=S, actions=A, offline_data=DATA, outer_steps=1, inner_steps=1, batch_size=4)
    args.update(kw)
    return bd.distill(
        args.pop("states"),
        args.pop("actions"),
        _make,
        bd.DBC(),
        args.pop("offline_data"),
        **args,
    )


def train_bc(**kw):
    args = dict(states=S, actions=A, steps=2)
    args.update(kw)
    return bd.train_bc(_make(), args.pop("states"), args.pop("actions"), **args)


def _floats(lo=None, hi=None):
    from hypothesis import strategies as st

    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def _discount(fn, *args, **kwargs):
    """The discount ``gamma`` of ``fn(*args, gamma=v, **kwargs)``: a number in [0, 1)."""
    gamma = f"{fn.__name__}.gamma"
    return [
        suite.keyword(suite.Number, fn, "gamma", *args, kwargs=kwargs),
        suite.keyword(
            suite.OutOfRange,
            fn,
            "gamma",
            *args,
            kwargs=kwargs,
            id=f"{gamma}>=1",
            values=_floats(lo=1.0, hi=1000000.0),
        ),
        suite.keyword(
            suite.OutOfRange,
            fn,
            "gamma",
            *args,
            kwargs=kwargs,
            id=f"{gamma}<0",
            values=_floats(hi=-1e-09),
        ),
    ]


def _lr_momentum(fn, loop):
    """The step options of an SGD-with-momentum loop (``inner`` of meta_gradient, ``outer`` of
    distill): ``<loop>_lr`` a number > 0, ``<loop>_momentum`` a number in [0, 1)."""
    lr, momentum = f"{loop}_lr", f"{loop}_momentum"
    return [
        suite.keyword(suite.Number, fn, lr),
        suite.keyword(suite.OutOfRange, fn, lr, values=_floats(hi=0.0)),
        suite.keyword(suite.Number, fn, momentum),
        suite.keyword(suite.OutOfRange, fn, momentum, values=_floats(lo=1.0, hi=1000000.0)),
    ]


CASES = [
    # --- tabular
    suite.Array(
        "TabularMDP.P",
        "P",
        lambda v: bd.TabularMDP(v, R, gamma=0.9, init=INIT),
        (3, 2, 3),
        ndims=(3, 4),
    ),
    suite.Array(
        "TabularMDP.R",
        "R",
        lambda v: bd.TabularMDP(P, v, gamma=0.9, init=INIT),
        (3, 2),
        ndims=(2, 3, 4),
    ),
    suite.keyword(
        suite.Array, bd.TabularMDP, "init", P, R, kwargs={"gamma": 0.9}, shape=(3,), ndims=(1,)
    ),
    *_discount(bd.TabularMDP, P, R, init=INIT),
    suite.Mismatch(
        "TabularMDP.R", "R", lambda: bd.TabularMDP(P, np.ones((3, 3)), gamma=0.9, init=INIT)
    ),
    suite.Mismatch(
        "TabularMDP.init", "init", lambda: bd.TabularMDP(P, R, gamma=0.9, init=[0.5, 0.5])
    ),
    suite.Array("q_values.pi", "pi", lambda v: bd.q_values(MDP, v), (3, 2), ndims=(2,)),
    suite.Array("policy_value.pi", "pi", lambda v: bd.policy_value(MDP, v), (3, 2), ndims=(2,)),
    suite.Array("occupancy.pi", "pi", lambda v: bd.occupancy(MDP, v), (3, 2), ndims=(2,)),
    suite.Array("policy_return.pi", "pi", lambda v: bd.policy_return(MDP, v), (3, 2), ndims=(2,)),
    suite.Array(
        "performance_gap_identity.pi",
        "pi",
        lambda v: bd.performance_gap_identity(MDP, v, PI),
        (3, 2),
        ndims=(2,),
    ),
    suite.Array(
        "performance_gap_identity.pi_star",
        "pi_star",
        lambda v: bd.performance_gap_identity(MDP, PI, v),
        (3, 2),
        ndims=(2,),
    ),
    suite.Array("gap_bounds.pi", "pi", lambda v: bd.gap_bounds(MDP, v, PI), (3, 2), ndims=(2,)),
    suite.Array(
        "gap_bounds.pi_star", "pi_star", lambda v: bd.gap_bounds(MDP, PI, v), (3, 2), ndims=(2,)
    ),
    suite.Mismatch(
        "performance_gap_identity.pi",
        "pi",
        lambda: bd.performance_gap_identity(MDP, np.full((3, 3), 1 / 3), PI),
    ),
    suite.Mismatch("q_values.pi", "pi", lambda: bd.q_values(MDP, np.full((2, 2), 0.5))),
    suite.keyword(suite.Number, bd.gap_bounds, "r_max", MDP, PI, PI, none_ok=True),
    suite.keyword(suite.OutOfRange, bd.gap_bounds, "r_max", MDP, PI, PI, values=_floats(hi=-1e-09)),
    # --- objectives
    suite.keyword(suite.Number, bd.AvPBC, "beta", teacher, critic),
    suite.keyword(suite.OutOfRange, bd.AvPBC, "beta", teacher, critic, values=_floats(hi=0.0)),
    suite.Array(
        "DBC.batch.observations",
        "batch['observations']",
        lambda v: bd.DBC()(POLICY, {"observations": v, "actions": np.zeros((6, 2))}),
        (6, 2),
        ndims=(2,),
    ),
    suite.Array(
        "DBC.batch.actions",
        "batch['actions']",
        lambda v: bd.DBC()(POLICY, {"observations": np.ones((6, 2)), "actions": v}),
        (6, 2),
        ndims=(1, 2),
    ),
    suite.Array(
        "PBC.batch.observations",
        "batch['observations']",
        lambda v: bd.PBC(teacher)(POLICY, {"observations": v}),
        (6, 2),
        ndims=(2,),
    ),
    suite.Mismatch(
        "DBC.batch.actions",
        "batch['actions']",
        lambda: bd.DBC()(POLICY, {"observations": np.ones((6, 2)), "actions": np.zeros((5, 2))}),
    ),
    # --- meta_gradient
    suite.keyword(suite.Array, meta_gradient, "states", shape=(4, 2), ndims=(2,)),
    suite.keyword(suite.Array, meta_gradient, "actions", shape=(4, 2), ndims=(1, 2)),
    suite.Mismatch(
        "meta_gradient.actions", "actions", lambda: meta_gradient(actions=np.zeros((3, 2)))
    ),
    suite.Mismatch(
        "meta_gradient.actions.width", "actions", lambda: meta_gradient(actions=np.zeros((4, 3)))
    ),
    suite.keyword(suite.Int, meta_gradient, "inner_steps", minimum=1),
    *_lr_momentum(meta_gradient, "inner"),
    suite.keyword(suite.Option, meta_gradient, "method", valid=frozenset(bd.METHODS)),
    suite.Array(
        "meta_gradient.batch.observations",
        "batch['observations']",
        lambda v: meta_gradient(batch={"observations": v, "actions": np.zeros((6, 2))}),
        (6, 2),
        ndims=(2,),
    ),
    # --- train_bc
    suite.keyword(suite.Array, train_bc, "states", shape=(4, 2), ndims=(2,)),
    suite.keyword(suite.Array, train_bc, "actions", shape=(4, 2), ndims=(1, 2)),
    suite.Mismatch("train_bc.actions", "actions", lambda: train_bc(actions=np.zeros((5, 2)))),
    suite.keyword(suite.Int, train_bc, "steps", minimum=1),
    suite.keyword(suite.Number, train_bc, "lr"),
    suite.keyword(suite.OutOfRange, train_bc, "lr", values=_floats(hi=0.0)),
    suite.keyword(suite.Number, train_bc, "momentum"),
    suite.keyword(suite.OutOfRange, train_bc, "momentum", values=_floats(hi=-1e-09)),
    # --- distill
    suite.keyword(suite.Array, distill, "states", shape=(4, 2), ndims=(2,)),
    suite.keyword(suite.Array, distill, "actions", shape=(4, 2), ndims=(1, 2)),
    suite.Mismatch("distill.actions", "actions", lambda: distill(actions=np.zeros((3, 2)))),
    suite.Array(
        "distill.offline_data.observations",
        "offline_data['observations']",
        lambda v: distill(offline_data={"observations": v}),
        (10, 2),
        ndims=(2,),
    ),
    suite.Mismatch(
        "distill.offline_data.actions",
        "offline_data['actions']",
        lambda: distill(
            offline_data={"observations": np.ones((10, 2)), "actions": np.zeros((9, 2))}
        ),
    ),
    suite.keyword(suite.Int, distill, "outer_steps", minimum=1),
    suite.keyword(suite.Int, distill, "batch_size", minimum=1),
    suite.Mismatch("distill.batch_size", "batch_size", lambda: distill(batch_size=11)),
    suite.keyword(suite.Int, distill, "inner_steps", minimum=1),
    *_lr_momentum(distill, "outer"),
    suite.keyword(suite.Number, distill, "inner_lr"),
    suite.keyword(suite.Number, distill, "clip_norm", none_ok=True),
    suite.keyword(suite.OutOfRange, distill, "clip_norm", values=_floats(hi=0.0)),
    suite.keyword(
        suite.Int,
        distill,
        "eval_every",
        kwargs={"eval_fn": lambda s, a: 0.0},
        minimum=1,
        none_ok=True,
    ),
    suite.keyword(suite.Option, distill, "method", valid=frozenset(bd.METHODS)),
    # --- datasets
    suite.Array(
        "save_dataset.observations",
        "data['observations']",
        lambda v: bd.save_dataset("/dev/null", {"observations": v}),
        (4, 2),
        ndims=(2,),
    ),
    suite.Mismatch(
        "save_dataset.actions",
        "data['actions']",
        lambda: bd.save_dataset("/dev/null", {"observations": S, "actions": np.zeros(3)}),
    ),
    # --- grid, teacher, policies
    suite.Int("slippery_grid.size", "size", lambda v: bd.slippery_grid(v), minimum=2),
    suite.keyword(suite.Number, bd.slippery_grid, "slip", 3),
    suite.keyword(
        suite.OutOfRange, bd.slippery_grid, "slip", 3, values=_floats(lo=1.0 + 1e-09, hi=1000000.0)
    ),
    *_discount(bd.slippery_grid, 3),
    suite.Int(
        "epsilon_greedy_dataset.n_transitions",
        "n_transitions",
        lambda v: bd.epsilon_greedy_dataset(bd.slippery_grid(3), v),
        minimum=1,
    ),
    suite.keyword(
        suite.Int, bd.epsilon_greedy_dataset, "episode_length", bd.slippery_grid(3), 10, minimum=1
    ),
    suite.keyword(
        suite.Array,
        bd.epsilon_greedy_dataset,
        "epsilons",
        bd.slippery_grid(3),
        10,
        shape=(2,),
        ndims=(1,),
    ),
    suite.keyword(suite.Rng, bd.epsilon_greedy_dataset, "rng", bd.slippery_grid(3), 10),
    suite.Array(
        "TabularTeacher.features",
        "features",
        lambda v: bd.TabularTeacher(v, PI, np.ones((3, 2))),
        (3, 2),
        ndims=(2,),
    ),
    suite.Array(
        "TabularTeacher.q",
        "q",
        lambda v: bd.TabularTeacher(np.ones((3, 2)), PI, v),
        (3, 2),
        ndims=(2,),
    ),
    suite.Array(
        "TabularTeacher.obs",
        "obs",
        lambda v: bd.TabularTeacher(np.eye(3, 2), PI, np.ones((3, 2)))(v),
        (4, 2),
        ndims=(2,),
    ),
    suite.Array(
        "policy_table.features",
        "features",
        lambda v: bd.policy_table(bd.MLPPolicy(2, 2, hidden=(3,)), v),
        (4, 2),
        ndims=(2,),
    ),
    suite.Int("MLPPolicy.obs_dim", "obs_dim", lambda v: bd.MLPPolicy(v, 2), minimum=1),
    suite.Int("MLPPolicy.out_dim", "out_dim", lambda v: bd.MLPPolicy(2, v), minimum=1),
    suite.keyword(suite.Flag, bd.MLPPolicy, "discrete", 2, 2),
    suite.keyword(suite.Number, bd.MLPPolicy, "max_action", 2, 2, kwargs={"discrete": False}),
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))


def test_non_stochastic_p_and_policies_are_value_errors():
    bad_P = P.copy()
    bad_P[0, 0] *= 2
    assert_rejects(ValueError, "P", bd.TabularMDP, bad_P, R, gamma=0.9, init=INIT)
    assert_rejects(ValueError, "init", bd.TabularMDP, P, R, gamma=0.9, init=[0.5, 0.5, 0.5])
    assert_rejects(ValueError, "pi", bd.q_values, MDP, np.full((3, 2), 0.7))
    assert_rejects(ValueError, "pi_star", bd.performance_gap_identity, MDP, PI, -PI)
    assert_rejects(TypeError, "init", bd.TabularMDP, P, R, gamma=0.9, init=None)
    assert_rejects(TypeError, "gamma", bd.TabularMDP, P, R, gamma=None, init=INIT)


def test_wrong_mdp_types():
    for fn in (bd.q_values, bd.occupancy, bd.policy_value):
        assert_rejects(TypeError, "mdp", fn, "mdp", PI)
    assert_rejects(TypeError, "mdp", bd.performance_gap_identity, None, PI, PI)


def test_non_callables_and_non_modules_are_type_errors():
    assert_rejects(TypeError, "teacher", bd.PBC, "teacher")
    assert_rejects(TypeError, "critic", bd.AvPBC, teacher, 3.0)
    assert_rejects(TypeError, "policy", bd.meta_gradient, lambda x: x, S, A, bd.DBC(), BATCH)
    assert_rejects(TypeError, "objective", meta_gradient, objective="DBC")
    assert_rejects(TypeError, "policy", bd.train_bc, "policy", S, A)
    assert_rejects(TypeError, "make_policy", bd.distill, S, A, None, bd.DBC(), DATA, outer_steps=1)
    assert_rejects(
        TypeError,
        "make_policy",
        bd.distill,
        S,
        A,
        lambda: "x",
        bd.DBC(),
        DATA,
        outer_steps=1,
        batch_size=4,
    )
    assert_rejects(TypeError, "objective", bd.distill, S, A, _make, 3, DATA, outer_steps=1)
    assert_rejects(TypeError, "generator", distill, generator=3)
    assert_rejects(TypeError, "eval_fn", distill, eval_fn="x")
    assert_rejects(TypeError, "policies", bd.PolicyEnsemble, [POLICY, "x"])
    assert_rejects(ValueError, "policies", bd.PolicyEnsemble, [])


def test_batches_must_be_d4rl_dicts():
    assert_rejects(TypeError, "batch", bd.DBC(), POLICY, [np.ones((6, 2))])
    assert_rejects(ValueError, "batch", bd.PBC(teacher), POLICY, {"obs": np.ones((6, 2))})
    assert_rejects(TypeError, "offline_data", distill, offline_data=np.ones((10, 2)))


def test_torch_inputs_are_checked_too():
    assert_rejects(ValueError, "states", meta_gradient, states=torch.full((4, 2), float("nan")))
    assert_rejects(TypeError, "states", meta_gradient, states=torch.zeros(4, 2, dtype=torch.bool))
    assert_rejects(
        TypeError, "actions", meta_gradient, actions=torch.zeros(4, 2, dtype=torch.int64)
    )
    assert_rejects(ValueError, "states", meta_gradient, states=torch.zeros(0, 2))


def test_policy_output_shape_mismatch_names_actions():
    wide = bd.MLPPolicy(2, 3, hidden=(4,), discrete=False)
    assert_rejects(ValueError, "actions", bd.train_bc, wide, S, A)


@pytest.mark.parametrize("value", [1.0, 1])
def test_momentum_one_is_refused(value):
    assert_rejects((ValueError, TypeError), "inner_momentum", meta_gradient, inner_momentum=value)
