"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
import pfl_sim as ps
import torch
from hypothesis import strategies as st

from papershelf_harness import suite

X = torch.randn(4, 3, dtype=torch.float64)
Y = torch.randn(4, 1, dtype=torch.float64)
USERS = {"a": (X, Y), "b": (X, Y), "c": (X, Y)}
MODEL = torch.nn.Linear(3, 1).double()


def mse(p, y):
    return ((p - y) ** 2).mean()


def sim(**kw):
    args = {"model": MODEL, "loss_fn": mse, "users": USERS, "rounds": 1, "cohort_size": 2}
    args.update(kw)
    return ps.simulate(args.pop("model"), args.pop("loss_fn"), args.pop("users"), **args)


def gauss(**kw):
    return ps.CentralGaussian(**{"clip_bound": 1.0, "noise_multiplier": 1.0, **kw})


BUDGET = {"delta": 1e-5, "cohort_size": 2, "rounds": 2, "clip_bound": 1.0, "accountant": "rdp"}
EPS = {"sampling_prob": 0.1, "steps": 3, "delta": 1e-5}
NAN_X = X.clone()
NAN_X[0, 0] = float("nan")
NO_PARAMS = torch.nn.ReLU()


def number_in_range(fn, name, id, values, *args, **kw):
    """A real-number argument: the ``suite.Number`` case and its out-of-range ``values``."""
    return [
        suite.keyword(suite.Number, fn, name, *args, **kw),
        suite.keyword(suite.OutOfRange, fn, name, *args, id=id, values=values, **kw),
    ]


CASES = [
    suite.Values(
        "simulate.model",
        "model",
        lambda v: sim(model=v),
        bad=((3, TypeError), (None, TypeError), (NO_PARAMS, ValueError)),
    ),
    suite.Values(
        "simulate.loss_fn",
        "loss_fn",
        lambda v: sim(loss_fn=v),
        bad=((3, TypeError), ("mse", TypeError)),
    ),
    suite.Values(
        "simulate.users",
        "users",
        lambda v: sim(users=v),
        bad=(
            ([(X, Y)], TypeError),
            ({}, ValueError),
            ({"a": (X,)}, TypeError),
            ({"a": (NAN_X, Y), "b": (X, Y)}, ValueError),
            ({"a": (X, Y[:2]), "b": (X, Y)}, ValueError),
            ({"a": ("x", "y"), "b": (X, Y)}, TypeError),
            ({"a": (X[:0], Y[:0]), "b": (X, Y)}, ValueError),
            ({"a": (torch.tensor(1.0), Y), "b": (X, Y)}, ValueError),
        ),
    ),
    suite.keyword(suite.Int, sim, "rounds", minimum=1),
    suite.keyword(suite.Int, sim, "cohort_size", minimum=1),
    suite.keyword(
        suite.OutOfRange,
        sim,
        "cohort_size",
        id="simulate.cohort_size>users",
        values=st.integers(4, 100),
    ),
    suite.keyword(suite.Int, sim, "local_epochs", minimum=1),
    suite.keyword(suite.Int, sim, "local_batch_size", minimum=1, none_ok=True),
    *number_in_range(sim, "local_lr", "simulate.local_lr<=0", st.floats(-10, 0)),
    *number_in_range(sim, "central_lr", "simulate.central_lr<=0", st.floats(-10, 0)),
    suite.keyword(suite.Option, sim, "central_optimizer", valid=frozenset({"sgd", "adam"})),
    suite.keyword(suite.Option, sim, "weighting", valid=frozenset({"uniform", "examples"})),
    suite.keyword(suite.Values, sim, "privacy", bad=((3, TypeError), ("dp", TypeError))),
    suite.keyword(suite.Int, sim, "n_workers", minimum=1),
    suite.keyword(suite.Int, sim, "seed", minimum=0),
    suite.Mismatch(
        "simulate.noise_cohort<cohort",
        "noise_cohort_size",
        lambda: sim(privacy=gauss(noise_cohort_size=1)),
    ),
    suite.Mismatch(
        "simulate.examples+privacy", "weighting", lambda: sim(privacy=gauss(), weighting="examples")
    ),
    # CentralGaussian
    *number_in_range(gauss, "clip_bound", "CentralGaussian.clip_bound<=0", st.floats(-5, 0)),
    *number_in_range(gauss, "noise_multiplier", "CentralGaussian.sigma<0", st.floats(-5, -1e-3)),
    suite.keyword(suite.Int, gauss, "noise_cohort_size", minimum=1, none_ok=True),
    suite.keyword(suite.Flag, gauss, "adaptive"),
    *number_in_range(gauss, "target_quantile", "CentralGaussian.quantile>1", st.floats(1.01, 10)),
    suite.keyword(suite.Number, gauss, "clip_lr"),
    suite.keyword(suite.Number, gauss, "indicator_noise_std", none_ok=True),
    suite.Array(
        "CentralGaussian.aggregate.deltas",
        "deltas",
        lambda v: gauss().aggregate(v),
        shape=(3, 4),
        ndims=(2,),
    ),
    suite.keyword(
        suite.Number,
        gauss().aggregate,
        "clip_bound",
        np.ones((2, 3)),
        none_ok=True,
        id="CentralGaussian.aggregate.clip_bound",
    ),
    suite.keyword(
        suite.Values,
        gauss().aggregate,
        "generator",
        np.ones((2, 3)),
        id="CentralGaussian.aggregate.generator",
        bad=(("abc", TypeError), (3, TypeError)),
    ),
    suite.Mismatch(
        "CentralGaussian.aggregate.cohort>noise_cohort",
        "noise_cohort_size",
        lambda: gauss(noise_cohort_size=2).aggregate(np.ones((3, 2))),
    ),
    suite.keyword(
        suite.Number,
        ps.CentralGaussian.from_budget,
        "epsilon",
        kwargs={**BUDGET, "population": 100},
        id="CentralGaussian.from_budget.epsilon",
    ),
    suite.keyword(
        suite.Int,
        ps.CentralGaussian.from_budget,
        "population",
        2.0,
        kwargs=BUDGET,
        minimum=1,
        id="CentralGaussian.from_budget.population",
    ),
    suite.Mismatch(
        "CentralGaussian.from_budget.population<cohort",
        "population",
        lambda: ps.CentralGaussian.from_budget(
            2.0, delta=1e-5, cohort_size=20, population=10, rounds=2, clip_bound=1.0
        ),
    ),
    # accountants
    suite.keyword(suite.Number, ps.compute_epsilon, "noise_multiplier", kwargs=EPS),
    *number_in_range(
        ps.compute_epsilon,
        "sampling_prob",
        "compute_epsilon.q_out",
        st.sampled_from([0.0, -0.1, 1.5]),
        1.0,
        kwargs={"steps": 3, "delta": 1e-5},
    ),
    suite.keyword(
        suite.Int,
        ps.compute_epsilon,
        "steps",
        1.0,
        kwargs={"sampling_prob": 0.1, "delta": 1e-5},
        minimum=1,
    ),
    *number_in_range(
        ps.compute_epsilon,
        "delta",
        "compute_epsilon.delta_out",
        st.sampled_from([0.0, 1.0, -1e-5, 2.0]),
        1.0,
        kwargs={"sampling_prob": 0.1, "steps": 3},
    ),
    suite.keyword(
        suite.Option,
        ps.compute_epsilon,
        "accountant",
        1.0,
        kwargs=EPS,
        valid=frozenset({"pld", "rdp", "prv"}),
    ),
    suite.keyword(suite.Number, ps.compute_epsilon, "discretization", 1.0, kwargs=EPS),
    *number_in_range(
        ps.compute_noise_multiplier,
        "epsilon",
        "compute_noise_multiplier.eps<=0",
        st.floats(-5, 0),
        kwargs={**EPS, "accountant": "rdp"},
    ),
    suite.keyword(
        suite.Int,
        ps.compute_noise_multiplier,
        "steps",
        1.0,
        kwargs={"sampling_prob": 0.1, "delta": 1e-5, "accountant": "rdp"},
        minimum=1,
    ),
    suite.keyword(
        suite.Number,
        ps.compute_noise_multiplier,
        "tolerance",
        1.0,
        kwargs={**EPS, "accountant": "rdp"},
    ),
    suite.keyword(suite.Number, ps.compute_rdp, "noise_multiplier", kwargs={"sampling_prob": 0.1}),
    suite.keyword(
        suite.Values,
        ps.compute_rdp,
        "orders",
        1.0,
        kwargs={"sampling_prob": 0.1},
        bad=(([], ValueError), ([0.5, 2], ValueError), ([2, np.inf], ValueError)),
    ),
]

globals().update(suite.bad_input_suite(CASES))
