"""Loss evaluations and service best responses against naive per-user loops."""

import numpy as np
import pytest
from conftest import spd
from service_init import CallableUsers, QuadraticUsers, RegressionUsers, acquire


def naive_losses(optima, metrics, offsets, centers):
    n, k = optima.shape[0], centers.shape[0]
    out = np.zeros((n, k))
    for i in range(n):
        a = np.eye(optima.shape[1]) if metrics is None else metrics[i]
        if a.ndim == 1:
            a = np.diag(a)
        for j in range(k):
            v = centers[j] - optima[i]
            out[i, j] = offsets[i] + v @ a @ v
    return out


@pytest.mark.parametrize("kind", ["identity", "diag", "full"])
def test_losses_match_naive(rng, kind):
    n, d, k = 40, 3, 7
    x = rng.normal(size=(n, d))
    m = {"identity": None, "diag": rng.uniform(0.1, 3, (n, d)), "full": spd(rng, n, d)}[kind]
    off = rng.uniform(0, 1, n)
    c = rng.normal(size=(k, d))
    users = QuadraticUsers(x, metrics=m, offsets=off)
    ref = naive_losses(x, m, off, c)
    np.testing.assert_allclose(users.losses(c), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(users.loss_to(c[2]), ref[:, 2], rtol=1e-12, atol=1e-12)


def test_regression_users_equal_direct_mse(rng):
    d, k = 3, 5
    xs = [rng.normal(size=(int(rng.integers(5, 20)), d)) for _ in range(25)]
    ys = [x @ rng.normal(size=d) + rng.normal(size=x.shape[0]) for x in xs]
    users = RegressionUsers(xs, ys)
    c = rng.normal(size=(k, d))
    direct = np.array([[np.mean((x @ cj - y) ** 2) for cj in c] for x, y in zip(xs, ys)])
    np.testing.assert_allclose(users.losses(c), direct, rtol=1e-10, atol=1e-12)
    for i in (0, 7):
        np.testing.assert_allclose(users.query(i), np.linalg.lstsq(xs[i], ys[i], rcond=None)[0])


def test_regression_rank_deficient_identity_holds(rng):
    xs = [rng.normal(size=(2, 4)) for _ in range(6)]  # n_i < d: min-norm optimum
    ys = [rng.normal(size=2) for _ in range(6)]
    users = RegressionUsers(xs, ys)
    c = rng.normal(size=(3, 4))
    direct = np.array([[np.mean((x @ cj - y) ** 2) for cj in c] for x, y in zip(xs, ys)])
    np.testing.assert_allclose(users.losses(c), direct, rtol=1e-9, atol=1e-10)


def test_regression_fit_equals_pooled_weighted_least_squares(rng):
    d = 3
    xs = [rng.normal(size=(int(rng.integers(4, 12)), d)) for _ in range(12)]
    ys = [rng.normal(size=x.shape[0]) for x in xs]
    w = rng.uniform(0.5, 2, 12)
    users = RegressionUsers(xs, ys, weights=w)
    assign = np.arange(12) % 2
    fitted = users.fit(assign, 2, np.zeros((2, d)))
    pw = users.weights
    for j in range(2):
        idx = np.flatnonzero(assign == j)
        rows = np.vstack([np.sqrt(pw[i] / len(ys[i])) * xs[i] for i in idx])
        rhs = np.concatenate([np.sqrt(pw[i] / len(ys[i])) * ys[i] for i in idx])
        np.testing.assert_allclose(fitted[j], np.linalg.lstsq(rows, rhs, rcond=None)[0], atol=1e-10)


@pytest.mark.parametrize("kind", ["identity", "diag", "full"])
def test_fit_is_a_minimiser(rng, kind):
    n, d = 30, 2
    x = rng.normal(size=(n, d))
    m = {"identity": None, "diag": rng.uniform(0.1, 3, (n, d)), "full": spd(rng, n, d)}[kind]
    users = QuadraticUsers(x, metrics=m, weights=rng.uniform(0.1, 1, n))
    theta = users.fit(np.zeros(n, dtype=int), 1, np.zeros((1, d)))
    f = lambda t: users.weights @ users.loss_to(t)  # noqa: E731
    for _ in range(20):  # any perturbation increases the weighted loss (convex, so global)
        assert f(theta[0]) <= f(theta[0] + 1e-3 * rng.normal(size=d)) + 1e-15


def test_empty_service_keeps_previous(rng):
    users = QuadraticUsers(rng.normal(size=(10, 2)))
    prev = np.array([[0.0, 0.0], [99.0, 99.0]])
    new = users.fit(np.zeros(10, dtype=int), 2, prev)
    np.testing.assert_array_equal(new[1], prev[1])


def test_callable_users_roundtrip():
    x = np.array([0.0, 1.0, 5.0])
    users = CallableUsers(
        lambda c: np.abs(x[:, None] - c[None, :, 0]), lambda i: np.array([x[i]]), n_users=3, dim=1
    )
    np.testing.assert_array_equal(users.losses(np.array([[1.0], [5.0]])), [[1, 5], [0, 4], [4, 0]])
    with pytest.raises(ValueError, match="fit_fn"):
        users.fit(np.zeros(3, dtype=int), 1, np.zeros((1, 1)))
    with pytest.raises(ValueError, match="optimal_losses"):
        users.optimal_losses  # noqa: B018


def test_callable_users_infer_n_users_and_dim(rng):
    """CallableUsers(loss_fn, argmin_fn) as the API proposes: N and d are inferred."""
    x = rng.normal(size=(25, 3))
    users = CallableUsers(lambda c: ((x[:, None] - c[None]) ** 2).sum(-1), lambda i: x[i])
    assert users.n_users == 25 and users.dim == 3
    quad = QuadraticUsers(x)
    np.testing.assert_array_equal(acquire(users, 5, rng=1)[1], acquire(quad, 5, rng=1)[1])
    with pytest.raises(ValueError, match="loss_fn"):
        CallableUsers(lambda c: np.zeros(5), lambda i: x[i])
    with pytest.raises(TypeError, match="n_users"):
        CallableUsers(lambda c: np.zeros((25, 1)), lambda i: x[i], n_users=2.5)
    with pytest.raises(ValueError, match="dim"):
        CallableUsers(lambda c: np.zeros((25, 1)), lambda i: x[i], dim=0)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"optima": np.zeros((0, 2))}, ValueError, "optima"),
        ({"optima": np.zeros(3)}, ValueError, "optima"),
        ({"optima": np.array([[np.nan, 1.0]])}, ValueError, "optima"),
        ({"optima": np.array([["a", "b"]])}, TypeError, "optima"),
        ({"optima": np.zeros((3, 2)), "metrics": np.zeros((3, 3))}, ValueError, "metrics"),
        ({"optima": np.zeros((2, 2)), "metrics": -np.ones((2, 2))}, ValueError, "metrics"),
        (
            {"optima": np.zeros((1, 2)), "metrics": np.array([[[1.0, 2], [0, 1]]])},
            ValueError,
            "symm",
        ),
        (
            {"optima": np.zeros((1, 2)), "metrics": np.array([[[1.0, 2], [2, 1]]])},
            ValueError,
            "semi",
        ),
        ({"optima": np.zeros((3, 2)), "offsets": -np.ones(3)}, ValueError, "offsets"),
        ({"optima": np.zeros((3, 2)), "offsets": np.ones(2)}, ValueError, "offsets"),
        ({"optima": np.zeros((3, 2)), "weights": np.array([1.0, -1, 1])}, ValueError, "weights"),
        ({"optima": np.zeros((3, 2)), "weights": np.zeros(3)}, ValueError, "weights"),
        ({"optima": np.zeros((3, 2)), "weights": np.ones(4)}, ValueError, "weights"),
    ],
)
def test_quadratic_users_validation(kwargs, err, match):
    with pytest.raises(err, match=match):
        QuadraticUsers(**kwargs)


def test_regression_users_validation():
    with pytest.raises(ValueError, match="equal length"):
        RegressionUsers([np.ones((3, 2))], [])
    with pytest.raises(ValueError, match="y_list\\[0\\]"):
        RegressionUsers([np.ones((3, 2))], [np.ones(2)])
    with pytest.raises(ValueError, match="X_list\\[1\\]"):
        RegressionUsers([np.ones((3, 2)), np.ones((3, 3))], [np.ones(3), np.ones(3)])
    with pytest.raises(ValueError, match="NaN"):
        RegressionUsers([np.full((3, 2), np.nan)], [np.ones(3)])
    with pytest.raises(TypeError, match="sequence of arrays"):
        RegressionUsers(5, 6)


def test_centers_validation(rng):
    users = QuadraticUsers(rng.normal(size=(5, 2)))
    with pytest.raises(ValueError, match="centers"):
        users.losses(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="centers"):
        users.losses(np.array([[np.inf, 0.0]]))
