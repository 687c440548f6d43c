import dispo_rl as dr
import numpy as np
import pytest


def test_one_hot_is_the_identity_rows():
    phi = dr.OneHotFeatures(5)
    np.testing.assert_array_equal(phi([3, 0, 4]), np.eye(5)[[3, 0, 4]])
    np.testing.assert_array_equal(phi(np.array([[1.0], [2.0]])), np.eye(5)[[1, 2]])
    assert phi.dim == 5


def test_one_hot_refuses_states_out_of_range():
    with pytest.raises(ValueError, match="observations"):
        dr.OneHotFeatures(3)([3])
    with pytest.raises(ValueError, match="observations"):
        dr.OneHotFeatures(3)([0.5])


def test_random_fourier_features_layout():
    phi = dr.RandomFourierFeatures(2, n=8, hidden=4, rng=0)
    x = np.random.default_rng(1).normal(size=(20, 2))
    f = phi(x)
    assert f.shape == (20, 17) and phi.dim == 17
    np.testing.assert_allclose(f[:, :8] ** 2 + f[:, 8:16] ** 2, 1.0)  # sin^2 + cos^2
    np.testing.assert_array_equal(f[:, 16], 1.0)
    np.testing.assert_array_equal(f, dr.RandomFourierFeatures(2, n=8, hidden=4, rng=0)(x))
    assert not np.allclose(f, dr.RandomFourierFeatures(2, n=8, hidden=4, rng=1)(x))


def test_random_fourier_features_match_a_naive_forward_pass():
    phi = dr.RandomFourierFeatures(3, n=4, hidden=5, rng=2)
    x = np.random.default_rng(3).normal(size=(6, 3))
    for i in range(4):
        h = np.maximum(x @ phi.W1[i] + phi.b1[i], 0)
        h = np.maximum(h @ phi.W2[i] + phi.b2[i], 0)
        z = (h @ phi.W3[i])[:, 0]
        np.testing.assert_allclose(phi(x)[:, i], np.sin(z))
        np.testing.assert_allclose(phi(x)[:, 4 + i], np.cos(z))


def test_linear_rewards_are_recovered_exactly_with_one_hot_features():
    phi = dr.OneHotFeatures(49)
    g = np.random.default_rng(0)
    s = np.concatenate([np.arange(49), g.integers(0, 49, 200)])
    for _ in range(10):
        r_state = g.normal(size=49)
        w = dr.infer_reward_weights(phi, s, r_state[s])
        assert np.max(np.abs(phi(s) @ w - r_state[s])) < 1e-8


def test_ridge_weights_match_the_closed_form():
    phi = dr.RandomFourierFeatures(2, n=5, rng=0)
    g = np.random.default_rng(1)
    x, r = g.normal(size=(40, 2)), g.normal(size=40)
    F = phi(x)
    want = np.linalg.inv(F.T @ F + 0.3 * np.eye(11)) @ F.T @ r
    np.testing.assert_allclose(dr.infer_reward_weights(phi, x, r, ridge=0.3), want, atol=1e-10)
    # ridge = 0: least squares (the normal equations hold)
    w0 = dr.infer_reward_weights(phi, x, r)
    np.testing.assert_allclose(F.T @ (F @ w0 - r), 0, atol=1e-8)
