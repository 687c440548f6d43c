"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import cmpe
import numpy as np
import pytest
import torch

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

CP, FM = cmpe.ConsistencyPosterior, cmpe.FlowMatchingPosterior
MODEL = CP(2, 3, width=8, n_blocks=1)
FLOW = FM(2, 3, width=8, n_blocks=1)
TH, X = np.zeros((4, 2)) + np.arange(4)[:, None], np.ones((4, 3))
X2 = np.ones((2, 3))
IX = np.zeros(2)
GM = np.zeros((10, 2))
kw, N, I, A = suite.keyword, suite.Number, suite.Int, suite.Array
DS = cmpe.DeepSet
SET_NET = DS(2, 3, width=8)
SET_MODEL = CP(2, 3, width=8, n_blocks=1, summary_net=DS(2, 3, width=8))


def _reference(fn, x_obs, *, ndims, **kwargs):
    """The cases every task's reference posterior sampler ``fn(x_obs, n_samples, *, rng)``
    shares: ``x_obs`` (valid: the given array), ``n_samples`` >= 1 and ``rng``."""
    name = fn.__name__
    return [
        A(f"{name}.x_obs", "x_obs", lambda v: fn(v, 3, **kwargs), shape=x_obs.shape, ndims=ndims),
        I(f"{name}.n_samples", "n_samples", lambda v: fn(x_obs, v, **kwargs), minimum=1),
        suite.Rng(f"{name}.rng", "rng", lambda v: fn(x_obs, 3, rng=v, **kwargs)),
    ]


CASES = [
    # constructors
    I("ConsistencyPosterior.theta_dim", "theta_dim", lambda v: CP(v, 3), minimum=1),
    I("ConsistencyPosterior.cond_dim", "cond_dim", lambda v: CP(2, v), minimum=1),
    kw(I, CP, "width", 2, 3, minimum=1),
    kw(I, CP, "n_blocks", 2, 3, minimum=0),
    kw(N, CP, "dropout", 2, 3),
    kw(N, CP, "eps", 2, 3),
    kw(N, CP, "t_max", 2, 3),
    kw(I, CP, "s0", 2, 3, minimum=1),
    kw(I, CP, "s1", 2, 3, kwargs={"s0": 1}, minimum=1),
    kw(N, CP, "rho", 2, 3),
    kw(suite.Option, CP, "huber", 2, 3, valid=frozenset({"elementwise", "vector"})),
    kw(
        suite.Values,
        CP,
        "sigma2",
        2,
        3,
        bad=(
            (-1.0, ValueError),
            (float("nan"), ValueError),
            ("a", TypeError),
            ([1.0, 2.0, 3.0], ValueError),
            ([1.0, -1.0], ValueError),
        ),
    ),
    I("FlowMatchingPosterior.theta_dim", "theta_dim", lambda v: FM(v, 3), minimum=1),
    I("FlowMatchingPosterior.cond_dim", "cond_dim", lambda v: FM(2, v), minimum=1),
    kw(I, FM, "width", 2, 3, minimum=1),
    kw(N, FM, "sigma_min", 2, 3),
    # fit
    A("fit.theta", "theta", lambda v: MODEL.fit(v, X, epochs=1), shape=(4, 2), ndims=(2,)),
    A("fit.x", "x", lambda v: MODEL.fit(TH, v, epochs=1), shape=(4, 3), ndims=(2,)),
    suite.Mismatch("fit.rows", "x", lambda: MODEL.fit(TH, X[:3], epochs=1)),
    suite.Mismatch("fit.theta_dim", "theta", lambda: MODEL.fit(np.ones((4, 3)), X, epochs=1)),
    kw(I, MODEL.fit, "epochs", TH, X, minimum=1, id="fit.epochs"),
    kw(I, MODEL.fit, "batch_size", TH, X, kwargs={"epochs": 1}, minimum=1, id="fit.batch_size"),
    kw(N, MODEL.fit, "lr", TH, X, kwargs={"epochs": 1}, id="fit.lr"),
    kw(N, MODEL.fit, "weight_decay", TH, X, kwargs={"epochs": 1}, id="fit.weight_decay"),
    A(
        "FlowMatchingPosterior.fit.theta",
        "theta",
        lambda v: FLOW.fit(v, X, epochs=1),
        shape=(4, 2),
        ndims=(2,),
    ),
    # sample / consistency
    A("sample.x", "x", lambda v: MODEL.sample(v, 3), shape=(2, 3), ndims=(2,)),
    I("sample.n_samples", "n_samples", lambda v: MODEL.sample(X2, v), minimum=1),
    kw(I, MODEL.sample, "n_steps", X2, 3, minimum=1, id="sample.n_steps"),
    kw(I, FLOW.sample, "n_steps", X2, 3, minimum=1, id="FlowMatchingPosterior.sample.n_steps"),
    A(
        "consistency.theta_t",
        "theta_t",
        lambda v: MODEL.consistency(v, 1.0, X),
        shape=(4, 2),
        ndims=(2,),
    ),
    A("consistency.x", "x", lambda v: MODEL.consistency(TH, 1.0, v), shape=(4, 3), ndims=(2,)),
    N("consistency.t", "t", lambda v: MODEL.consistency(TH, v, X)),
    suite.Mismatch("consistency.t_len", "t", lambda: MODEL.consistency(TH, np.ones(3), X)),
    suite.Mismatch("consistency.rows", "x", lambda: MODEL.consistency(TH, 1.0, X[:2])),
    # summary network and set-valued x
    I("DeepSet.input_dim", "input_dim", lambda v: DS(v, 2), minimum=1),
    I("DeepSet.summary_dim", "summary_dim", lambda v: DS(2, v), minimum=1),
    kw(I, DS, "width", 2, 3, minimum=1),
    kw(I, DS, "n_layers", 2, 3, minimum=1),
    kw(suite.Option, DS, "pooling", 2, 3, valid=frozenset({"mean", "sum"})),
    A("DeepSet.x", "x", lambda v: SET_NET(v), shape=(4, 5, 2), ndims=(3,)),
    A("fit.x.summary", "x", lambda v: SET_MODEL.fit(TH, v, epochs=1), shape=(4, 5, 2), ndims=(3,)),
    A("sample.x.summary", "x", lambda v: SET_MODEL.sample(v, 2), shape=(2, 5, 2), ndims=(3,)),
    suite.Mismatch(
        "fit.rows.summary", "x", lambda: SET_MODEL.fit(TH, np.ones((3, 5, 2)), epochs=1)
    ),
    # grids
    N("karras_grid.eps", "eps", lambda v: cmpe.karras_grid(v, 10.0, 5)),
    N("karras_grid.t_max", "t_max", lambda v: cmpe.karras_grid(1e-3, v, 5)),
    I("karras_grid.n", "n", lambda v: cmpe.karras_grid(1e-3, 10.0, v), minimum=2),
    kw(N, cmpe.karras_grid, "rho", 1e-3, 10.0, 5),
    suite.Mismatch("karras_grid.order", "t_max", lambda: cmpe.karras_grid(1.0, 0.5, 5)),
    I(
        "discretization_steps.k",
        "k",
        lambda v: cmpe.discretization_steps(v, 100, s0=10, s1=50),
        minimum=0,
    ),
    I(
        "discretization_steps.total_steps",
        "total_steps",
        lambda v: cmpe.discretization_steps(0, v, s0=10, s1=50),
        minimum=1,
    ),
    kw(I, cmpe.discretization_steps, "s0", 0, 100, kwargs={"s1": 50}, minimum=1),
    kw(I, cmpe.discretization_steps, "s1", 0, 100, kwargs={"s0": 1}, minimum=1),
    # metrics
    A("c2st.ref", "ref", lambda v: cmpe.c2st(v, np.ones((10, 2))), shape=(10, 2), ndims=(2,)),
    A("c2st.approx", "approx", lambda v: cmpe.c2st(np.ones((10, 2)), v), shape=(10, 2), ndims=(2,)),
    suite.Mismatch("c2st.columns", "approx", lambda: cmpe.c2st(np.ones((10, 2)), np.ones((10, 3)))),
    kw(I, cmpe.c2st, "folds", np.ones((10, 2)), np.ones((10, 2)), minimum=2, maximum=10),
    kw(I, cmpe.c2st, "random_state", np.ones((10, 2)), np.ones((10, 2)), minimum=0),
    A(
        "sbc_ranks.theta",
        "theta",
        lambda v: cmpe.sbc_ranks(v, np.ones((3, 5, 2))),
        shape=(3, 2),
        ndims=(2,),
    ),
    A(
        "sbc_ranks.samples",
        "samples",
        lambda v: cmpe.sbc_ranks(np.ones((3, 2)), v),
        shape=(3, 5, 2),
        ndims=(3,),
    ),
    suite.Mismatch(
        "sbc_ranks.rows", "samples", lambda: cmpe.sbc_ranks(np.ones((3, 2)), np.ones((4, 5, 2)))
    ),
    I(
        "sbc_chi2.n_samples",
        "n_samples",
        lambda v: cmpe.sbc_chi2(np.zeros((5, 1), dtype=int), v, bins=2),
        minimum=1,
    ),
    kw(I, cmpe.sbc_chi2, "bins", np.zeros((5, 1), dtype=int), 9, minimum=2),
    # tasks
    I("two_moons.n", "n", lambda v: cmpe.two_moons(v), minimum=1),
    suite.Rng("two_moons.rng", "rng", lambda v: cmpe.two_moons(3, rng=v)),
    *_reference(cmpe.two_moons_reference, IX, ndims=(1,)),
    I("gmm_bimodal.n", "n", lambda v: cmpe.gmm_bimodal(v), minimum=1),
    kw(I, cmpe.gmm_bimodal, "n_obs", 3, minimum=1),
    suite.Rng("gmm_bimodal.rng", "rng", lambda v: cmpe.gmm_bimodal(3, rng=v)),
    *_reference(cmpe.gmm_bimodal_reference, GM, ndims=(2,)),
    I("inverse_kinematics.n", "n", lambda v: cmpe.inverse_kinematics(v), minimum=1),
    suite.Rng("inverse_kinematics.rng", "rng", lambda v: cmpe.inverse_kinematics(3, rng=v)),
    *_reference(cmpe.inverse_kinematics_reference, np.array([0.0, 2.0]), ndims=(1,), epsilon=0.1),
    kw(N, cmpe.inverse_kinematics_reference, "epsilon", np.array([0.0, 2.0]), 3),
    kw(I, cmpe.inverse_kinematics_reference, "max_draws", np.array([0.0, 2.0]), 3, minimum=1),
    I("gaussian_conjugate.n", "n", lambda v: cmpe.gaussian_conjugate(v), minimum=1),
    kw(I, cmpe.gaussian_conjugate, "dim", 3, minimum=1),
    kw(N, cmpe.gaussian_conjugate, "prior_std", 3),
    kw(N, cmpe.gaussian_conjugate, "noise_std", 3),
    suite.Rng("gaussian_conjugate.rng", "rng", lambda v: cmpe.gaussian_conjugate(3, rng=v)),
    A(
        "gaussian_conjugate_posterior.x_obs",
        "x_obs",
        lambda v: cmpe.gaussian_conjugate_posterior(v),
        shape=(3, 2),
        ndims=(2,),
    ),
    *_reference(cmpe.gaussian_conjugate_reference, X, ndims=(2,)),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("bad", [0, "seed", np.random.default_rng(0), 1.5])
def test_generator_must_be_a_torch_generator(bad):
    assert_rejects(TypeError, "generator", MODEL.fit, TH, X, epochs=1, generator=bad)
    assert_rejects(TypeError, "generator", MODEL.sample, X2, 2, generator=bad)
    assert_rejects(TypeError, "generator", FLOW.sample, X2, 2, generator=bad)


def test_tensor_inputs_are_checked_too():
    assert_rejects(ValueError, "x", MODEL.sample, torch.full((2, 3), float("nan")), 2)
    assert_rejects(ValueError, "theta", MODEL.fit, torch.ones(4, 5), torch.ones(4, 3), epochs=1)
    assert_rejects(
        TypeError,
        "theta",
        MODEL.fit,
        torch.ones(4, 2, dtype=torch.int64),
        torch.ones(4, 3),
        epochs=1,
    )
    assert_rejects(
        ValueError, "t", MODEL.consistency, torch.ones(4, 2), torch.zeros(4), torch.ones(4, 3)
    )


def test_constant_theta_column_needs_sigma2():
    m = CP(2, 3, width=8)
    assert_rejects(ValueError, "sigma2", m.fit, np.ones((4, 2)), X, epochs=1)
    assert_rejects(ValueError, "x_obs", cmpe.gmm_bimodal_reference, np.zeros((17, 2)), 3)
    assert_rejects(
        ValueError,
        "max_draws",
        cmpe.inverse_kinematics_reference,
        np.array([5.0, 5.0]),
        3,
        max_draws=10,
    )
