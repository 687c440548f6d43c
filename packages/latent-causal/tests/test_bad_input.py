"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import latent_causal as lc
import numpy as np
import pytest
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

MODEL = lc.MeasurementModel([[0, 1], [0, 0]], np.eye(2))
X = np.random.default_rng(0).standard_normal((30, 3))
UDGS = [lc.oracle_udg(MODEL), lc.oracle_udg(MODEL, 1)]
CH = [frozenset({0}), frozenset({1})]
ENVS = [X, X + 1.0]
_bad_alpha = st.one_of(
    st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
    st.floats(min_value=1.0, allow_nan=False, allow_infinity=False),
)

CASES = [
    suite.Array(
        "MeasurementModel.latent_adj",
        "latent_adj",
        lambda v: lc.MeasurementModel(v, np.eye(2)),
        (2, 2),
        (2,),
    ),
    suite.Array(
        "MeasurementModel.bipartite",
        "bipartite",
        lambda v: lc.MeasurementModel(np.zeros((2, 2)), v),
        (2, 2),
        (2,),
    ),
    suite.Mismatch(
        "MeasurementModel.bipartite.m",
        "bipartite",
        lambda: lc.MeasurementModel(np.zeros((2, 2)), np.eye(3)),
    ),
    *(
        suite.Int(f"{f.__name__}.target", "target", lambda v, f=f: f(MODEL, v), 0, 1, none_ok=ok)
        for f, ok in [(lc.oracle_udg, True), (lc.oracle_shift_set, False)]
    ),
    suite.Array("estimate_udg.X", "X", lambda v: lc.estimate_udg(v), (30, 3), (2,)),
    suite.keyword(
        suite.Option, lc.estimate_udg, "test", X, valid=frozenset({"pearson", "xi", "hsic"})
    ),
    suite.keyword(suite.Number, lc.estimate_udg, "alpha", X),
    suite.keyword(suite.OutOfRange, lc.estimate_udg, "alpha", X, values=_bad_alpha),
    suite.Array(
        "estimate_shift_set.X_obs", "X_obs", lambda v: lc.estimate_shift_set(v, X), (30, 3), (2,)
    ),
    suite.Array(
        "estimate_shift_set.X_env", "X_env", lambda v: lc.estimate_shift_set(X, v), (30, 3), (2,)
    ),
    suite.Mismatch("estimate_shift_set.X_env", "X_env", lambda: lc.estimate_shift_set(X, X[:, :2])),
    suite.keyword(suite.OutOfRange, lc.estimate_shift_set, "alpha", X, X, values=_bad_alpha),
    suite.Array(
        "recover_bipartite.udgs[0]", "udgs", lambda v: lc.recover_bipartite([v]), (2, 2), (2,)
    ),
    suite.Mismatch(
        "recover_bipartite.udgs.shape",
        "udgs",
        lambda: lc.recover_bipartite([np.zeros((2, 2)), np.zeros((3, 3))]),
    ),
    suite.Mismatch(
        "recover_latent_dag.children", "children", lambda: lc.recover_latent_dag([{0}, {5}], UDGS)
    ),
    suite.Mismatch(
        "recover_latent_dag.shift_sets",
        "shift_sets",
        lambda: lc.recover_latent_dag(CH, UDGS, shift_sets=[{0}, {1}, {0}]),
    ),
    suite.keyword(suite.Option, lc.learn, "test", ENVS, valid=frozenset({"pearson", "xi", "hsic"})),
    suite.keyword(suite.OutOfRange, lc.learn, "alpha", ENVS, values=_bad_alpha),
    suite.keyword(suite.Flag, lc.learn, "use_shifts", ENVS),
    suite.Mismatch("learn.envs", "envs", lambda: lc.learn([X, X[:, :2]])),
    suite.Int(
        "random_measurement_model.m", "m", lambda v: lc.random_measurement_model(v, 4), minimum=1
    ),
    suite.keyword(
        suite.OutOfRange,
        lc.random_measurement_model,
        "latent_density",
        2,
        3,
        values=st.floats(min_value=1.01, max_value=10),
    ),
    suite.keyword(suite.Rng, lc.random_measurement_model, "rng", 2, 3),
    suite.keyword(suite.Rng, lc.sample, "rng", MODEL, 10),
    suite.Int("sample.n_samples", "n_samples", lambda v: lc.sample(MODEL, v), minimum=1),
    suite.keyword(
        suite.Option, lc.sample, "sem", MODEL, 10, valid=frozenset({"linear", "nonlinear"})
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_cyclic_graph_and_bad_containers():
    assert_rejects(ValueError, "latent_adj", lc.MeasurementModel, [[0, 1], [1, 0]], np.eye(2))
    assert_rejects(ValueError, "latent_adj", lc.MeasurementModel, [[0, 2], [0, 0]], np.eye(2))
    assert_rejects(ValueError, "udgs", lc.recover_bipartite, [])
    assert_rejects(TypeError, "udgs", lc.recover_bipartite, "abc")
    assert_rejects(
        ValueError, "udgs", lc.recover_bipartite, [np.array([[0, 1], [0, 0]])]
    )  # asymmetric
    assert_rejects(TypeError, "children", lc.recover_latent_dag, None, UDGS)
    assert_rejects(ValueError, "children", lc.recover_latent_dag, [set()], UDGS)
    assert_rejects(TypeError, "model", lc.oracle_udg, "model")
    assert_rejects(ValueError, "envs", lc.learn, [])
    # two interventional environments but one hidden variable
    assert_rejects(ValueError, "udgs", lc.recover_latent_dag, [{0, 1}], UDGS * 2)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.5])
def test_alpha_bounds(alpha):
    assert_rejects(ValueError, "alpha", lc.estimate_udg, X, alpha=alpha)
