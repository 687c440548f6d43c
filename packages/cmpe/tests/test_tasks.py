"""Reference posterior samplers against the analytic posteriors (independent: grid / closed form)."""

import cmpe
import numpy as np


def _grid_posterior_moments(log_density, lo, hi, n=801):
    g = np.linspace(lo, hi, n)
    t1, t2 = np.meshgrid(g, g, indexing="ij")
    pts = np.stack([t1.ravel(), t2.ravel()], 1)
    logp = log_density(pts)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    mean = w @ pts
    second = (w[:, None] * pts**2).sum(0)
    return w, pts, mean, second - mean**2


def _two_moons_logpost(x_obs):
    def logp(theta):
        u = np.stack(
            [
                -np.abs(theta[:, 0] + theta[:, 1]) / np.sqrt(2),
                (theta[:, 1] - theta[:, 0]) / np.sqrt(2),
            ],
            1,
        )
        q = x_obs - u - [0.25, 0.0]  # must equal (r cos a, r sin a), a in (-pi/2, pi/2)
        r = np.hypot(q[:, 0], q[:, 1])
        # density of q: N(r; 0.1, 0.01^2) * (1/pi) / r   (polar Jacobian), q_x > 0
        out = -0.5 * ((r - 0.1) / 0.01) ** 2 - np.log(r + 1e-300)
        return np.where(q[:, 0] > 0, out, -np.inf)

    return logp


def test_two_moons_reference_matches_grid_posterior():
    x_obs = np.array([0.0, 0.0])
    s = cmpe.two_moons_reference(x_obs, 40000, rng=0)
    assert s.shape == (40000, 2) and np.all(np.abs(s) <= 1)
    w, pts, mean, var = _grid_posterior_moments(_two_moons_logpost(x_obs), -1, 1)
    np.testing.assert_allclose(s.mean(0), mean, atol=0.01)
    np.testing.assert_allclose(s.var(0), var, rtol=0.03)
    # probability of the quadrant theta1 > 0, theta2 > 0
    p_grid = w[(pts[:, 0] > 0) & (pts[:, 1] > 0)].sum()
    assert abs(np.mean((s[:, 0] > 0) & (s[:, 1] > 0)) - p_grid) < 0.01


def test_two_moons_simulator_and_reference_agree_by_sbc():
    theta, x = cmpe.two_moons(300, rng=1)
    post = np.stack([cmpe.two_moons_reference(xi, 49, rng=i) for i, xi in enumerate(x)])
    assert np.all(cmpe.sbc_chi2(cmpe.sbc_ranks(theta, post), 49, bins=10) > 1e-3)


def test_gmm_bimodal_reference_matches_grid_posterior():
    theta, x = cmpe.gmm_bimodal(1, n_obs=10, rng=3)
    s = cmpe.gmm_bimodal_reference(x[0], 40000, rng=0)

    def logp(t):
        ll = np.zeros(len(t))
        for xj in x[0]:
            a = -((xj - t) ** 2).sum(1) / (2 * 0.25)
            b = -((xj + t) ** 2).sum(1) / (2 * 0.25)
            ll += np.logaddexp(a, b)
        return ll - 0.5 * (t**2).sum(1)

    w, pts, mean, var = _grid_posterior_moments(logp, -4, 4)
    np.testing.assert_allclose(s.mean(0), mean, atol=0.02)
    np.testing.assert_allclose(s.var(0), var, rtol=0.03)
    # bimodal: mass of theta1 > 0 equals the grid's (about one half by symmetry)
    assert abs(np.mean(s[:, 0] > 0) - w[pts[:, 0] > 0].sum()) < 0.01
    # the modes sit at +-theta_true (up to the sign symmetry)
    near = np.minimum(np.linalg.norm(s - theta[0], axis=1), np.linalg.norm(s + theta[0], axis=1))
    assert np.median(near) < 0.5


def test_gaussian_conjugate_posterior_closed_form():
    mean, var = cmpe.gaussian_conjugate_posterior(
        np.array([[1.0, -2.0]]), prior_std=1.0, noise_std=0.5
    )
    np.testing.assert_allclose(mean, [[0.8, -1.6]])
    assert np.isclose(var, 0.2)


def test_inverse_kinematics_reference_reproduces_observation():
    theta, x = cmpe.inverse_kinematics(1, rng=2)
    s = cmpe.inverse_kinematics_reference(x[0], 100, epsilon=0.05, rng=0)
    phi = np.cumsum(s[:, 1:], 1)
    end = np.stack(
        [
            s[:, 0] + (np.array([0.5, 0.5, 1.0]) * np.sin(phi)).sum(1),
            (np.array([0.5, 0.5, 1.0]) * np.cos(phi)).sum(1),
        ],
        1,
    )
    assert s.shape == (100, 4)
    assert np.all(np.linalg.norm(end - x[0], axis=1) <= 0.05)
    assert s.std(0).min() > 0.01  # a distribution, not a point
