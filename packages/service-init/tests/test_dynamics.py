"""Learning dynamics and objectives against sklearn's Lloyd and naive formulas."""

import numpy as np
import pytest
import service_init as si
from conftest import spd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans


def test_alternating_minimization_is_lloyd(rng):
    x = np.concatenate([rng.normal(c, 0.7, (100, 2)) for c in ([0, 0], [4, 0], [0, 4], [4, 4])])
    users = si.QuadraticUsers(x)
    init = x[[0, 100, 200, 300]] + 0.5
    ours, assign, hist = si.alternating_minimization(users, init, iters=5, tol=0.0)
    km = KMeans(4, init=init, n_init=1, max_iter=5, tol=0.0, algorithm="lloyd").fit(x)
    np.testing.assert_allclose(ours, km.cluster_centers_, atol=1e-10)
    assert hist[-1] == pytest.approx(km.inertia_ / len(x), rel=1e-9)
    np.testing.assert_array_equal(assign, km.labels_)


@pytest.mark.parametrize("kind", ["full", "regression"])
def test_alternating_minimization_monotone(rng, kind):
    if kind == "full":
        users = si.QuadraticUsers(
            rng.normal(size=(200, 3)), metrics=spd(rng, 200, 3), offsets=rng.uniform(0, 1, 200)
        )
    else:
        xs = [rng.normal(size=(8, 3)) for _ in range(150)]
        ys = [x @ rng.normal(size=3) for x in xs]
        users = si.RegressionUsers(xs, ys)
    c0, _ = si.acquire(users, 5, rng=rng)
    _, _, hist = si.alternating_minimization(users, c0, iters=15)
    assert np.all(np.diff(hist) <= 1e-12 * hist[0])
    assert hist[0] == pytest.approx(si.total_loss(users, c0))


def test_multiplicative_weights_large_step_is_one_lloyd_round(rng):
    x = rng.normal(size=(120, 2))
    users = si.QuadraticUsers(x)
    c0 = x[:3]
    c_mw, resp, _ = si.multiplicative_weights(users, c0, iters=1, step=1e6)
    c_am, assign, _ = si.alternating_minimization(users, c0, iters=1)
    np.testing.assert_allclose(c_mw, c_am, atol=1e-9)
    np.testing.assert_array_equal(resp.argmax(1), users.losses(c0).argmin(1))


def test_multiplicative_weights_small_step_lowers_loss(rng):
    x = np.concatenate([rng.normal(c, 0.3, (50, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    users = si.QuadraticUsers(x)
    _, resp, hist = si.multiplicative_weights(
        users, si.acquire(users, 3, rng=0)[0], iters=40, step=2.0
    )
    assert hist[-1] <= hist[0] + 1e-12
    np.testing.assert_allclose(resp.sum(1), 1.0)


def test_objectives_match_naive(rng):
    x = rng.normal(size=(30, 2))
    w = rng.uniform(0.1, 1, 30)
    groups = np.array(["x", "y", "z"])[np.arange(30) % 3]
    users = si.QuadraticUsers(x, weights=w)
    c = rng.normal(size=(4, 2))
    per = np.array([min(np.sum((p - cj) ** 2) for cj in c) for p in x])
    np.testing.assert_allclose(si.user_losses(users, c), per)
    assert si.total_loss(users, c) == pytest.approx(np.sum(w * per) / w.sum())
    ref = [np.sum((w * per)[groups == g]) / np.sum(w[groups == g]) for g in ("x", "y", "z")]
    np.testing.assert_allclose(si.group_losses(users, c, groups), ref)
    assert si.max_group_loss(users, c, groups) == pytest.approx(max(ref))


@settings(derandomize=True, deadline=None, max_examples=30)
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 4),
    k=st.integers(1, 6),
    seed=st.integers(0, 10_000),
)
def test_acquire_properties(n, d, k, seed):
    k = min(k, n)
    g = np.random.default_rng(seed)
    x = np.round(g.normal(size=(n, d)), 1)  # duplicates happen
    users = si.QuadraticUsers(x)
    centers, queried = si.acquire(users, k, rng=seed)
    assert centers.shape == (k, d) and queried.shape == (k,)
    assert np.all((0 <= queried) & (queried < n))
    np.testing.assert_array_equal(centers, x[queried])
    # adding services never increases the loss: prefixes of the seeding are monotone
    losses = [si.total_loss(users, centers[: s + 1]) for s in range(k)]
    assert np.all(np.diff(losses) <= 1e-12)
    # once every distinct point is covered the loss is zero
    if k >= len(np.unique(x, axis=0)):
        assert losses[-1] == pytest.approx(0.0, abs=1e-12)


def test_dynamics_validation(rng):
    users = si.QuadraticUsers(rng.normal(size=(10, 2)))
    with pytest.raises(ValueError, match="centers"):
        si.alternating_minimization(users, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="iters"):
        si.alternating_minimization(users, np.zeros((2, 2)), iters=-1)
    with pytest.raises(ValueError, match="step"):
        si.multiplicative_weights(users, np.zeros((2, 2)), step=0)
    with pytest.raises(ValueError, match="groups"):
        si.group_losses(users, np.zeros((2, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        si.total_loss(users, np.array([[np.nan, 0.0]]))
