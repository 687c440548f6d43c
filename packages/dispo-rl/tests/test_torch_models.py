"""The [torch] outcome models and OneStepModelMPC (skipped without torch; run by
`nox -s tests_extras`), against the exact linear solve psi_beta = (I - gamma P_hat)^-1 Phi,
importance weighting (the GMM's exact tilt) and the maze's true dynamics."""

import dispo_rl as dr
import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # tiny networks: intra-op threads only contend on a loaded machine

S, GAMMA = 5, 0.7


class Identity:
    """phi(x) = x: with one-hot observations this is one-hot state features."""

    dim = S

    def __call__(self, x):
        return np.asarray(x, dtype=float)


def ring_data(rng=0):
    P = np.zeros((S, 3, S))
    for s in range(S):
        for a, step in enumerate((-1, 0, 1)):
            P[s, a, (s + step) % S] = 1.0
    d = dr.random_walk_dataset(P, 200, 10, rng=rng)
    E = np.eye(S)
    return {
        **d,
        "observations": E[d["observations"]],
        "next_observations": E[d["next_observations"]],
    }


def psi_beta(data, gamma):
    """The exact successor features of the data's empirical transition law."""
    src, dst = data["observations"].argmax(1), data["next_observations"].argmax(1)
    P = np.zeros((S, S))
    np.add.at(P, (src, dst), 1.0)
    P /= P.sum(1, keepdims=True)
    return np.linalg.solve(np.eye(S) - gamma * P, np.eye(S))


def check_mean(model, data, rel):
    """Sample mean within 3 Monte-Carlo s.e. + rel * max|psi_beta| of psi_beta, and that this
    tolerance is tight enough to reject psi_beta at gamma +- rel (the test has power)."""
    x = model.sample_outcomes(np.eye(S), 4000)
    assert x.shape == (S, 4000, S)
    ref = psi_beta(data, GAMMA)
    tol = 3 * x.std(1) / np.sqrt(x.shape[1]) + rel * np.abs(ref).max()
    for wrong in (GAMMA - rel, GAMMA + rel):
        assert (np.abs(psi_beta(data, wrong) - ref) > tol).any()
    err = np.abs(x.mean(1) - ref)
    assert (err <= tol).all(), (err.max(), tol.min())
    # one-hot outcomes sum to 1 / (1 - gamma) (no terminals)
    np.testing.assert_allclose(x.mean(1).sum(1), 1 / (1 - GAMMA), rtol=rel)


@pytest.fixture(scope="module")
def ring():
    return ring_data()


@pytest.fixture(scope="module")
def gmm(ring):
    om = dr.GaussianMixtureOutcomeModel(n_components=8, hidden=(64, 64), lr=1e-2, ema=0.98)
    return dr.DiSPO(Identity(), gamma=GAMMA, model=om, n_particles=64, rng=0).fit(ring, steps=600)


def test_gmm_mean_is_the_behaviour_successor_features(gmm, ring):
    assert gmm.model == "gmm"
    check_mean(gmm, ring, rel=0.05)


@pytest.mark.slow
def test_diffusion_mean_is_the_behaviour_successor_features(ring):
    om = dr.DiffusionOutcomeModel(
        hidden=(256, 256), lr=5e-3, ema=0.95, n_diffusion_steps=50, n_inference_steps=10
    )
    m = dr.DiSPO(Identity(), gamma=GAMMA, model=om, rng=0).fit(ring, steps=800)
    check_mean(m, ring, rel=0.1)


def _tilted_mean_by_quadrature(logits, mu, sd, g):
    """E[x] under p(x) exp(g^T x) for a mixture of diagonal Gaussians, each component's
    integrals by 80-node Gauss-Hermite quadrature per coordinate (independent of the closed
    form the sampler uses)."""
    t, h = np.polynomial.hermite_e.hermegauss(80)  # nodes/weights for exp(-t^2 / 2)
    h = h / h.sum()
    x = mu[..., None] + sd[..., None] * t  # (K, d, nodes)
    e = np.exp(g[:, None] * x)
    z = (e * h).sum(-1)  # (K, d): E_k[exp(g_j x_j)]
    m1 = (x * e * h).sum(-1) / z  # (K, d): tilted mean of x_j within component k
    logw = logits - logits.max() + np.log(z).sum(-1)
    wk = np.exp(logw - logw.max())
    return (wk[:, None] * m1).sum(0) / wk.sum()


def test_gmm_guidance_is_the_exact_exponential_tilt(gmm):
    """The guided draws' mean = the mixture's mean under exp(k w.psi), computed from the
    model's own mixture by quadrature. (An importance-weighted mean of plain draws is no
    reference here: a rare component far along w carries the tilted law, so its effective
    sample size swings from 28k to 112k of 200k between repetitions.)"""
    w = np.array([1.0, -0.5, 0.0, 0.3, 0.0])
    k = 0.5
    om = gmm.outcome_model
    obs = np.eye(S)[[1]]
    c = om.codec
    with torch.no_grad():
        logits, mu, log_sd = (t[0].double().numpy() for t in om._params(om.target, c.obs(obs)))
    d = S
    g = k * w * c.m  # the tilt in the model's scaled space x = psi / m
    want = c.m * _tilted_mean_by_quadrature(logits, mu[:, :d], np.exp(log_sd[:, :d]), g)
    plain, _ = om.sample(obs, 200_000, clip=False)
    tilted, _ = om.sample(obs, 200_000, w=w, guidance=k, clip=False)
    se = tilted[0].std(0) / np.sqrt(200_000)
    assert np.all(np.abs(tilted[0].mean(0) - want) <= 4 * se + 1e-6)
    # power: the untilted law is far outside that tolerance
    assert np.any(np.abs(plain[0].mean(0) - want) > 20 * se)
    assert tilted[0].mean(0) @ w > plain[0].mean(0) @ w + 0.05
    # clipped samples stay in the box |psi_j| <= max|phi_j| / (1 - gamma)
    clipped, _ = om.sample(np.eye(S), 1000, w=w, guidance=20.0, clip=True)
    assert np.all((clipped >= -1 / (1 - GAMMA) - 1e-9) & (clipped <= 1 / (1 - GAMMA) + 1e-9))


def test_gmm_readout_matches_the_conditional_outcome_means(gmm, ring):
    """The joint (psi, a) model's readout: the action marginal at s is the data's (uniform over
    left / stay / right), and E[psi | s, a] = phi(s) + gamma psi_beta(s'(s, a))."""
    ref = psi_beta(ring, GAMMA)
    psi, a = gmm.outcome_model.sample(np.eye(S), 6000)
    assert a.shape == (S, 6000) and a.dtype.kind in "iu"
    for s in range(S):
        freq = np.bincount(a[s], minlength=3) / 6000
        np.testing.assert_allclose(freq, 1 / 3, atol=0.06)
        for act, step in enumerate((-1, 0, 1)):
            x = psi[s][a[s] == act]
            want = np.eye(S)[s] + GAMMA * ref[(s + step) % S]
            tol = 3 * x.std(0) / np.sqrt(len(x)) + 0.08 * np.abs(ref).max()
            assert np.all(np.abs(x.mean(0) - want) <= tol), (s, act, x.mean(0), want)
    # planning: the chosen actions are valid and predicted values are the best sample's value
    acts = gmm.act(np.eye(S), np.eye(S)[2], planner="shooting")
    assert acts.shape == (S,) and set(acts) <= {0, 1, 2}
    assert gmm.act(np.eye(S), np.eye(S)[2]).shape == (S,)


def test_same_seed_same_samples(ring):
    def fit(seed):
        om = dr.GaussianMixtureOutcomeModel(n_components=2, hidden=(8,))
        return dr.DiSPO(Identity(), gamma=GAMMA, model=om, rng=seed).fit(ring, steps=5)

    a, b, c = fit(3), fit(3), fit(4)
    np.testing.assert_array_equal(a.sample_outcomes(np.eye(S), 3), b.sample_outcomes(np.eye(S), 3))
    assert not np.array_equal(a.sample_outcomes(np.eye(S), 3), c.sample_outcomes(np.eye(S), 3))


@pytest.fixture(scope="module")
def maze():
    env = dr.PointMaze2D()
    return env, dr.pointmaze_dataset(env, 60, 40, rng=0)


def test_diffusion_shapes_bounds_and_guidance(maze):
    env, data = maze
    phi = dr.RandomFourierFeatures(4, n=3, rng=0)
    om = dr.DiffusionOutcomeModel(hidden=(32, 32), n_diffusion_steps=20, n_inference_steps=4)
    m = dr.DiSPO(phi, gamma=0.9, model=om, n_particles=32, rng=0).fit(data, steps=30)
    obs = data["observations"][:3]
    assert m.sample_outcomes(obs, 7).shape == (3, 7, phi.dim)
    a = m.act(obs, np.ones(phi.dim), planner="shooting")
    assert a.shape == (3, 2) and np.all(np.abs(a) <= 1.0)
    # the outcomes stay within the feature bounds / (1 - gamma), the scaled range [-1, 1]
    psi = m.sample_outcomes(obs, 50)
    bound = np.abs(phi(data["observations"])).max(0) / (1 - 0.9)
    assert np.all(np.abs(psi) <= bound + 1e-6)
    w = np.zeros(phi.dim)
    w[0] = 1.0
    plain, _ = om.sample(obs, 200)
    guided, _ = om.sample(obs, 200, w=w, guidance=2.0)
    assert (guided @ w).mean() > (plain @ w).mean()


def test_one_step_model_learns_the_maze_dynamics(maze):
    env, data = maze
    phi = dr.RandomFourierFeatures(4, n=3, rng=0)
    mpc = dr.OneStepModelMPC(phi, horizon=5, n_samples=64, hidden=(64, 64), rng=0)
    mpc.fit(data, steps=400)
    g = np.random.default_rng(1)
    s = np.concatenate([env.sample_free(500, g), g.uniform(-0.2, 0.2, (500, 2))], 1)
    a = g.uniform(-1, 1, (500, 2))
    err = np.abs(mpc.predict(s, a) - env.dynamics(s, a))
    moved = np.abs(env.dynamics(s, a) - s)
    assert np.median(err[:, :2]) < 0.25 * np.median(moved[:, :2])


def test_mpc_random_shooting_picks_the_best_sequence(maze):
    """With the true dynamics swapped in, plan() returns the best of its sampled sequences,
    and its first action heads towards the reward."""
    env, data = maze
    phi = dr.RandomFourierFeatures(4, n=3, rng=0)
    mpc = dr.OneStepModelMPC(phi, horizon=10, n_samples=128, gamma=0.9, rng=0)
    mpc.fit(data, steps=1)
    mpc.dynamics_model.predict = env.dynamics  # exact model

    class X:
        dim = 1

        def __call__(self, x):
            return np.asarray(x)[:, :1]

    mpc.features = X()
    obs = np.array([[1.5, 3.5, 0.0, 0.0], [3.5, 1.5, 0.0, 0.0]])
    a, ret = mpc.plan(obs, np.array([1.0]))  # reward = x position: go right (x grows)
    assert a.shape == (2, 2) and ret.shape == (2,)
    assert a[0, 0] > 0.3  # the open corridor to the right
    assert ret[0] > 1.5 * (1 - 0.9**10) / (1 - 0.9) + 0.5  # better than standing still


def test_models_reject_bad_options():
    with pytest.raises(ValueError, match="n_components"):
        dr.GaussianMixtureOutcomeModel(n_components=0)
    with pytest.raises(TypeError, match="hidden"):
        dr.GaussianMixtureOutcomeModel(hidden=64)
    with pytest.raises(ValueError, match="ema"):
        dr.DiffusionOutcomeModel(ema=1.0)
    with pytest.raises(ValueError, match="n_inference_steps"):
        dr.DiffusionOutcomeModel(n_diffusion_steps=10, n_inference_steps=20)
    with pytest.raises(ValueError, match="lr"):
        dr.OneStepModelMPC(Identity(), lr=0.0)
    with pytest.raises(TypeError, match="model"):
        dr.DiSPO(Identity(), model=object())
