"""scikit-learn conformance (check_estimator) for the three estimators."""

import numpy as np
import pytest
from dp_robust import DPRobustLinearRegression, DPRobustLogisticRegression, DPRobustMean
from sklearn.utils.estimator_checks import parametrize_with_checks

# Small M, T and max_iter keep the ~50 checks per estimator fast; no expected failures.
# sklearn itself skips check_array_api_input unless SCIPY_ARRAY_API=1 (the estimators are
# numpy-only, so there is no array-API path to check).
ESTIMATORS = [
    DPRobustLinearRegression(M=10, T=20, random_state=0),
    DPRobustLogisticRegression(M=8, T=20, max_iter=50, random_state=0),
    DPRobustMean(M=10, T=20, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_random_state_controls_draws():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(size=40)
    a = DPRobustLinearRegression(M=20, T=30, random_state=1).fit(X, y).coef_
    b = DPRobustLinearRegression(M=20, T=30, random_state=1).fit(X, y).coef_
    c = DPRobustLinearRegression(M=20, T=30, random_state=2).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_multiclass_one_vs_rest():
    rng = np.random.default_rng(0)
    centers = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 3.0]])
    y = np.repeat([0, 1, 2], 30)
    X = centers[y] + rng.normal(size=(90, 2))
    clf = DPRobustLogisticRegression(M=20, T=60, random_state=0).fit(X, y)
    assert clf.coef_.shape == (3, 2) and clf.intercept_.shape == (3,)
    assert clf.score(X, y) > 0.9
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"beta": 0.0}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"prior_scale": -1.0}, "prior_scale"),
        ({"phi": "cubic"}, "phi"),
        ({"phi": "power", "beta": 0.5}, "beta"),
        ({"method": "gibbs"}, "method"),
        ({"M": 0}, "M"),
        ({"prior": "cauchy"}, "prior"),
        ({"loss": "huber"}, "loss"),
    ],
)
def test_bad_parameters_raise(kwargs, match):  # wrong values; wrong types: test_bad_input.py
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match=match):
        DPRobustLinearRegression(**kwargs).fit(X, X[:, 0])


def test_bad_inputs_raise():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="NaN"):  # scikit-learn's own message, naming X
        DPRobustLinearRegression().fit(np.where(X > 1, np.nan, X), X[:, 0])
    with pytest.raises(ValueError):
        DPRobustLinearRegression().fit(X, X[:5, 0])
    with pytest.raises(ValueError):
        DPRobustMean().fit(np.empty((0, 2)))
    with pytest.raises(ValueError, match="prior_mean"):
        DPRobustMean(prior_mean=[0.0, 1.0, 2.0]).fit(X)
    with pytest.raises(ValueError, match="class"):
        DPRobustLogisticRegression().fit(X, np.zeros(10))


def test_random_state_accepts_generator():
    # Regression: a numpy Generator (what DirichletProcessPosterior and SmoothAmbiguityRisk take)
    # used to fail inside sklearn's check_random_state with an unrelated-looking message.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = X @ [1.0, -1.0]
    a = DPRobustLinearRegression(M=5, T=10, random_state=np.random.default_rng(3)).fit(X, y)
    b = DPRobustLinearRegression(M=5, T=10, random_state=np.random.default_rng(3)).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)  # same generator state, same draws
    DPRobustMean(M=5, T=10, random_state=np.random.default_rng(1)).fit(X)
    DPRobustLogisticRegression(M=5, T=10, random_state=np.random.default_rng(1)).fit(X, X[:, 0] > 0)
    with pytest.raises(TypeError, match="random_state"):
        DPRobustLinearRegression(M=5, T=10, random_state="seed").fit(X, y)
