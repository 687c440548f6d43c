"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

The estimators follow scikit-learn for X and y (its own messages, which name X and y); their
hyper-parameters are checked in ``fit``, as scikit-learn does.
"""

import dp_robust as dpr
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=10, deadline=None)
RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 2))
Y = X @ [1.0, -1.0]
ESTIMATORS = [dpr.DPRobustLinearRegression, dpr.DPRobustLogisticRegression, dpr.DPRobustMean]
SMALL = dict(M=3, T=5)
positive_bad = st.one_of(st.floats(max_value=0.0), invalid.non_finite_floats())


def _fit(cls, **params):
    est = cls(**{**SMALL, **params})
    return lambda: est.fit(X, Y > 0 if cls is dpr.DPRobustLogisticRegression else Y)


@FAST
@given(value=positive_bad, name=st.sampled_from(["alpha", "beta", "prior_scale"]))
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_positive_floats(cls, value, name):
    assert_rejects(ValueError, name, _fit(cls, **{name: value}))


@FAST
@given(
    value=st.one_of(st.text(max_size=3), st.none(), st.booleans()),
    name=st.sampled_from(["alpha", "beta", "tol"]),
)
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_float_types(cls, value, name):
    assert_rejects(TypeError, name, _fit(cls, **{name: value}))


@FAST
@given(value=invalid.non_integers(), name=st.sampled_from(["M", "T", "max_iter"]))
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_integer_types(cls, value, name):
    assert_rejects(TypeError, name, _fit(cls, **{name: value}))


@FAST
@given(value=invalid.negative_or_zero_ints(), name=st.sampled_from(["M", "T", "max_iter"]))
def test_estimator_integer_ranges(value, name):
    assert_rejects(ValueError, name, _fit(dpr.DPRobustLinearRegression, **{name: value}))


@FAST
@given(
    rs=st.one_of(
        st.text(min_size=1, max_size=3), st.floats(), st.booleans(), st.integers(max_value=-1)
    )
)
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_random_state(cls, rs):
    assert_rejects((TypeError, ValueError), "random_state", _fit(cls, random_state=rs))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_options(cls):
    assert_rejects(ValueError, "phi", _fit(cls, phi="log"))
    assert_rejects(TypeError, "phi", _fit(cls, phi=3))
    assert_rejects(TypeError, "phi", _fit(cls, phi=(np.exp,)))
    assert_rejects(ValueError, "beta", _fit(cls, phi="power", beta=0.5))
    assert_rejects(ValueError, "method", _fit(cls, method="gibbs"))
    assert_rejects(TypeError, "method", _fit(cls, method=1))
    assert_rejects(ValueError, "prior", _fit(cls, prior="cauchy"))
    assert_rejects(TypeError, "prior", _fit(cls, prior=1.0))
    if cls is not dpr.DPRobustMean:
        assert_rejects(TypeError, "fit_intercept", _fit(cls, fit_intercept="yes"))


def test_estimator_specific_options():
    assert_rejects(ValueError, "loss", _fit(dpr.DPRobustLinearRegression, loss="huber"))
    assert_rejects(ValueError, "prior", _fit(dpr.DPRobustMean, prior="laplace-axis"))
    assert_rejects(ValueError, "prior_mean", _fit(dpr.DPRobustMean, prior_mean=[0.0, 1.0, 2.0]))
    assert_rejects(ValueError, "prior_mean", _fit(dpr.DPRobustMean, prior_mean=[np.nan, 0.0]))
    assert_rejects(TypeError, "prior_mean", _fit(dpr.DPRobustMean, prior_mean="0"))


@FAST
@given(value=invalid.non_finite_arrays(shape=(12, 2)))
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_estimator_non_finite_X(cls, value):
    # scikit-learn's validate_data: "Input X contains NaN/infinity"
    y = Y > 0 if cls is dpr.DPRobustLogisticRegression else Y
    assert_rejects(ValueError, "X", cls(**SMALL).fit, value, y)


@pytest.mark.parametrize("cls", [dpr.DPRobustLinearRegression, dpr.DPRobustLogisticRegression])
def test_estimator_y_length(cls):
    assert_rejects(ValueError, "samples", cls(**SMALL).fit, X, Y[:5] > 0)


# ----------------------------------------------------------------- samplers and the criterion
@FAST
@given(value=invalid.non_integers(), name=st.sampled_from(["M", "T"]))
def test_weight_sizes_types(value, name):
    kw = {"M": 2, "T": 3, name: value}
    assert_rejects(TypeError, name, dpr.stick_breaking_weights, kw["M"], kw["T"], 1.0)
    assert_rejects(TypeError, name, dpr.dirichlet_weights, kw["M"], kw["T"], 1.0)


@FAST
@given(a=positive_bad, rng=invalid.not_rngs())
def test_weight_values(a, rng):
    assert_rejects(ValueError, "concentration", dpr.stick_breaking_weights, 2, 3, a)
    assert_rejects(ValueError, "concentration", dpr.dirichlet_weights, 2, 3, a)
    assert_rejects((TypeError, ValueError), "rng", dpr.dirichlet_weights, 2, 3, 1.0, rng=rng)


@FAST
@given(scale=positive_bad, n=invalid.negative_or_zero_ints())
def test_prior_constructors(scale, n):
    for make in (dpr.gaussian_prior, dpr.laplace_axis_prior, dpr.logistic_gaussian_prior):
        assert_rejects(ValueError, "scale", make, 2, scale=scale)
        assert_rejects(ValueError, "n_features", make, n)
        assert_rejects(TypeError, "n_features", make, 2.0)
    assert_rejects(ValueError, "scale", dpr.location_gaussian_prior, 0.0, scale=scale)
    assert_rejects(ValueError, "response_scale", dpr.gaussian_prior, 2, response_scale=-1.0)
    assert_rejects(ValueError, "mean", dpr.location_gaussian_prior, [0.0, np.nan])
    assert_rejects(ValueError, "mean", dpr.location_gaussian_prior, np.zeros((2, 2)))


@FAST
@given(
    data=st.one_of(
        invalid.non_finite_arrays(shape=(4, 2)), invalid.wrong_ndim_arrays(ok_ndims=(1, 2))
    ),
    rng=invalid.not_rngs(),
)
def test_posterior_inputs(data, rng):
    s = dpr.location_gaussian_prior(0.0)
    assert_rejects(ValueError, "data", dpr.DirichletProcessPosterior, data, 1.0, s)
    assert_rejects(
        (TypeError, ValueError), "rng", dpr.DirichletProcessPosterior, np.ones(3), 1.0, s, rng=rng
    )


@FAST
@given(value=invalid.non_numeric())
def test_posterior_types(value):
    s = dpr.location_gaussian_prior(0.0)
    assert_rejects(TypeError, "data", dpr.DirichletProcessPosterior, value, 1.0, s)
    if not callable(value):
        assert_rejects(
            TypeError, "base_sampler", dpr.DirichletProcessPosterior, np.ones(3), 1.0, value
        )
    if not isinstance(value, complex):
        assert_rejects(TypeError, "alpha", dpr.DirichletProcessPosterior, np.ones(3), value, s)


def test_posterior_method_and_sampler_output():
    post = dpr.DirichletProcessPosterior(
        np.ones((3, 2)), 50.0, dpr.location_gaussian_prior([0.0, 0.0]), rng=0
    )
    assert_rejects(ValueError, "method", post.sample, 2, 2, method="polya")
    assert_rejects(ValueError, "M", post.sample_mdmc, 0, 2)
    bad = dpr.DirichletProcessPosterior(
        np.ones((3, 2)), 50.0, lambda rng, k: np.full((k, 2), np.inf)
    )
    assert_rejects(ValueError, "base_sampler", bad.sample_sbmc, 3, 10)
    bad = dpr.DirichletProcessPosterior(np.ones((3, 2)), 50.0, lambda rng, k: [["a"]] * k)
    assert_rejects(TypeError, "base_sampler", bad.sample_sbmc, 3, 10)


@FAST
@given(beta=positive_bad, alpha=positive_bad)
def test_risk_constructor_values(beta, alpha):
    assert_rejects(ValueError, "beta", dpr.SmoothAmbiguityRisk, beta=beta)
    assert_rejects(ValueError, "alpha", dpr.SmoothAmbiguityRisk, alpha=alpha)


def test_risk_constructor_options_and_types():
    assert_rejects(ValueError, "loss", dpr.SmoothAmbiguityRisk, "hinge")
    assert_rejects(TypeError, "loss", dpr.SmoothAmbiguityRisk, 3)
    assert_rejects(TypeError, "grad", dpr.SmoothAmbiguityRisk, lambda t, a: a[:, 0])
    assert_rejects(ValueError, "phi", dpr.SmoothAmbiguityRisk, phi="log")
    assert_rejects(ValueError, "method", dpr.SmoothAmbiguityRisk, method="x")
    assert_rejects(TypeError, "base_sampler", dpr.SmoothAmbiguityRisk, base_sampler="p0")
    assert_rejects(TypeError, "fit_intercept", dpr.SmoothAmbiguityRisk, fit_intercept=1)
    assert_rejects(TypeError, "M", dpr.SmoothAmbiguityRisk, M=2.5)
    assert_rejects(ValueError, "T", dpr.SmoothAmbiguityRisk, T=0)
    assert_rejects(TypeError, "rng", dpr.SmoothAmbiguityRisk, rng="seed")


@FAST
@given(theta=invalid.non_finite_arrays(shape=(2,)))
def test_risk_evaluation_and_draws(theta):
    risk = dpr.SmoothAmbiguityRisk().set_draws(np.ones((2, 3)) / 3, np.ones((2, 3, 3)))
    assert_rejects(ValueError, "theta", risk, theta)
    assert_rejects(ValueError, "theta", risk, np.zeros(5))
    assert_rejects(ValueError, "theta0", risk.minimize, theta)
    assert_rejects(ValueError, "theta0", risk.minimize, np.zeros(5))
    assert_rejects(ValueError, "solver", risk.minimize, solver="adam")
    assert_rejects(TypeError, "max_iter", risk.minimize, max_iter=1.5)
    assert_rejects(
        ValueError,
        "atoms",
        dpr.SmoothAmbiguityRisk().set_draws,
        np.ones((2, 3)),
        np.ones((2, 4, 3)),
    )
    assert_rejects(
        ValueError,
        "weights",
        dpr.SmoothAmbiguityRisk().set_draws,
        -np.ones((2, 3)),
        np.ones((2, 3, 3)),
    )
    assert_rejects(
        ValueError, "weights", dpr.SmoothAmbiguityRisk().set_draws, np.ones(3), np.ones((2, 3, 3))
    )


def test_criterion_nan_at_start_is_refused():
    nan_phi = (lambda t: np.full_like(t, np.nan), lambda t: np.ones_like(t))
    risk = dpr.SmoothAmbiguityRisk(phi=nan_phi).set_draws(np.ones((2, 3)) / 3, np.ones((2, 3, 3)))
    assert_rejects(ValueError, "phi", risk.minimize)


@FAST
@given(value=invalid.non_finite_arrays(shape=(5, 2)), y=invalid.non_finite_arrays(shape=(5,)))
def test_neutral_references(value, y):
    assert_rejects(ValueError, "X", dpr.neutral_closed_form, value, np.ones(5))
    assert_rejects(ValueError, "y", dpr.neutral_closed_form, np.ones((5, 2)), y)
    assert_rejects(ValueError, "y", dpr.neutral_closed_form, np.ones((5, 2)), np.ones(4))
    assert_rejects(ValueError, "X", dpr.neutral_mean_closed_form, value)
    assert_rejects(ValueError, "h_data", dpr.dp_risk_moments, y, 0.0, 1.0, alpha=1.0)


def test_neutral_reference_options():
    assert_rejects(
        ValueError, "alpha", dpr.neutral_closed_form, np.ones((5, 2)), np.ones(5), alpha=0.0
    )
    assert_rejects(
        ValueError,
        "prior_scale",
        dpr.neutral_closed_form,
        np.ones((5, 2)),
        np.ones(5),
        prior_scale=-1.0,
    )
    assert_rejects(TypeError, "alpha", dpr.neutral_mean_closed_form, np.ones(3), alpha="1")
    assert_rejects(
        ValueError,
        "prior_mean",
        dpr.neutral_mean_closed_form,
        np.ones((3, 2)),
        prior_mean=[1.0, 2.0, 3.0],
    )
    assert_rejects(
        ValueError, "h_prior_second_moment", dpr.dp_risk_moments, np.ones(3), 2.0, 1.0, alpha=1.0
    )
    assert_rejects(ValueError, "alpha", dpr.dp_risk_moments, np.ones(3), 0.0, 1.0, alpha=-1.0)
