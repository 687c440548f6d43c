"""Neural policies and learners (the torch extra; skipped where torch is not installed, run by
`nox -s tests_extras`), against torch.distributions, the tabular MLE and least squares."""

import logloss_bc as lb
import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # tiny networks: intra-op threads only contend on a loaded machine


def test_categorical_log_prob_against_torch_distributions():
    torch.manual_seed(0)
    pi = lb.CategoricalMLP(3, 4)
    obs = torch.randn(5, 7, 3)
    acts = torch.randint(4, (5, 7))
    want = torch.distributions.Categorical(logits=pi(obs)).log_prob(acts)
    torch.testing.assert_close(pi.log_prob(obs, acts), want)
    assert torch.allclose(pi.log_probs(obs).exp().sum(-1), torch.ones(5, 7))
    # numpy inputs give the same numbers
    np.testing.assert_allclose(
        pi.log_prob(obs.numpy(), acts.numpy()).detach().numpy(), want.detach().numpy(), rtol=1e-6
    )


@pytest.mark.parametrize("state_dependent_std", [True, False])
def test_gaussian_log_prob_against_torch_distributions(state_dependent_std):
    torch.manual_seed(1)
    pi = lb.GaussianMLP(3, 2, state_dependent_std=state_dependent_std)
    obs, acts = torch.randn(6, 3), torch.randn(6, 2)
    mean, log_std = pi(obs)
    assert ((log_std >= -5) & (log_std <= 2)).all()
    want = torch.distributions.Normal(mean, log_std.exp()).log_prob(acts).sum(-1)
    torch.testing.assert_close(pi.log_prob(obs, acts), want)
    torch.testing.assert_close(pi.squared_error(obs, acts), ((mean - acts) ** 2).sum(-1))
    if not state_dependent_std:
        torch.testing.assert_close(log_std, torch.zeros_like(log_std), atol=1e-6, rtol=0)


def test_act_deterministic_and_sampled():
    torch.manual_seed(2)
    pi = lb.CategoricalMLP(2, 3, hidden_sizes=())
    obs = np.zeros((20000, 2), dtype=np.float32)
    g = torch.Generator().manual_seed(0)
    a = pi.act(obs, generator=g)
    assert isinstance(a, np.ndarray) and a.shape == (20000,)
    p = pi.log_probs(obs[:1]).exp().detach().numpy()[0]
    freq = np.bincount(a, minlength=3) / 20000
    np.testing.assert_allclose(freq, p, atol=4 * np.sqrt(p * (1 - p) / 20000).max())
    assert (pi.act(obs[:3], deterministic=True) == p.argmax()).all()
    assert isinstance(pi.act(torch.zeros(2, 2)), torch.Tensor)
    gm = lb.GaussianMLP(2, 1)
    np.testing.assert_allclose(gm.act(obs[:4], deterministic=True), gm(obs[:4])[0].detach().numpy())


def test_logloss_bc_on_one_hot_states_recovers_the_tabular_mle():
    # a linear softmax on one-hot states is the tabular softmax class: LogLossBC's optimum is
    # the empirical action frequencies (tabular_logloss_bc)
    g = np.random.default_rng(0)
    S, A = 4, 3
    states = g.integers(S, size=(6, 10))
    probs = g.dirichlet(np.ones(A), size=S)
    actions = (g.random((6, 10, 1)) > np.cumsum(probs[states], -1)).sum(-1)
    torch.manual_seed(0)
    pi = lb.CategoricalMLP(S, A, hidden_sizes=())
    obs = np.eye(S, dtype=np.float32)[states]
    lb.logloss_bc(pi, obs, actions, epochs=800, lr=5e-2, batch_size=60)
    fitted = pi.log_probs(np.eye(S, dtype=np.float32)).exp().detach().numpy()
    mle = lb.tabular_logloss_bc(states, actions, n_states=S, n_actions=A)
    np.testing.assert_allclose(fitted, mle, atol=0.02)


def test_mse_bc_linear_gaussian_mean_is_least_squares():
    g = np.random.default_rng(1)
    X = g.normal(size=(400, 3)).astype(np.float32)
    y = (X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3 + 0.1 * g.normal(size=(400, 1))).astype(
        np.float32
    )
    torch.manual_seed(1)
    pi = lb.GaussianMLP(3, 1, hidden_sizes=())
    lb.mse_bc(
        pi, X, y, epochs=300, lr=2e-2, batch_size=100, generator=torch.Generator().manual_seed(0)
    )
    coef, *_ = np.linalg.lstsq(np.c_[X, np.ones(400)], y, rcond=None)
    mean = pi.act(X, deterministic=True)
    np.testing.assert_allclose(mean, np.c_[X, np.ones(400)] @ coef, atol=0.02)


def test_learners_are_reproducible_with_a_generator():
    X = np.random.default_rng(2).normal(size=(300, 2)).astype(np.float32)
    a = (X[:, 0] > 0).astype(int)
    outs = []
    for _ in range(2):
        torch.manual_seed(3)
        pi = lb.CategoricalMLP(2, 2, hidden_sizes=(8,))
        out = lb.logloss_bc(pi, X, a, epochs=3, generator=torch.Generator().manual_seed(4))
        assert out is pi
        outs.append(torch.cat([p.detach().flatten() for p in pi.parameters()]))
    torch.testing.assert_close(outs[0], outs[1], rtol=0, atol=0)


def test_mse_bc_on_a_plain_regressor_module():
    X = torch.randn(200, 2)
    y = X @ torch.tensor([[2.0], [1.0]])
    net = torch.nn.Linear(2, 1)
    lb.mse_bc(net, X, y, epochs=200, lr=5e-2, batch_size=50)
    torch.testing.assert_close(net.weight.detach(), torch.tensor([[2.0, 1.0]]), atol=0.02, rtol=0)


def test_hellinger_sq_deterministic_expert_uses_the_mask():
    torch.manual_seed(4)
    pi = lb.CategoricalMLP(2, 2)
    obs = np.random.default_rng(5).normal(size=(7, 4, 2)).astype(np.float32)
    acts = np.random.default_rng(6).integers(2, size=(7, 4))
    mask = np.ones((7, 4), dtype=bool)
    mask[:, 3] = False
    lp = pi.log_prob(obs, acts).detach().double().numpy()
    got = lb.hellinger_sq_deterministic_expert(pi, obs, acts, mask=mask)
    assert got == pytest.approx(lb.hellinger_sq_from_logprobs(lp[:, :3]), rel=1e-6)


class OneHotTrap:
    """The trap MDP of test_tabular.py as a gymnasium-API env with one-hot observations."""

    def __init__(self, horizon=6):
        self.H = horizon

    def reset(self, *, seed=None, options=None):
        self.s = int(np.random.default_rng(seed).integers(2))
        self.h = 0
        return np.eye(3, dtype=np.float32)[self.s], {}

    def step(self, a):
        if self.s < 2 and a == 1:
            self.s = 2
        self.h += 1
        r = float(a == (1 if self.s == 2 else 0))
        return np.eye(3, dtype=np.float32)[self.s], r, self.h >= self.H, False, {}


def trap_expert(obs):
    return (np.asarray(obs).argmax(-1) == 2).astype(np.int64)


def test_dagger_learns_the_state_only_the_learner_visits():
    probs_at_trap = []
    for seed in range(3):
        torch.manual_seed(seed)
        pi = lb.CategoricalMLP(3, 2, hidden_sizes=())
        lb.dagger(
            OneHotTrap(),
            trap_expert,
            pi,
            rounds=4,
            n_per_round=2,
            horizon=6,
            epochs=100,
            lr=5e-2,
            deterministic=False,
            rng=seed,
            generator=torch.Generator().manual_seed(seed),
        )
        probs_at_trap.append(float(pi.log_probs(np.eye(3, dtype=np.float32)[2]).exp()[1].detach()))
    # offline data never reach the trap; DAgger's own rollouts do and get the expert's label
    assert max(probs_at_trap) > 0.9


def test_lazy_names_are_the_neural_ones():
    from logloss_bc import neural

    for name in lb.TORCH_NAMES:
        assert getattr(lb, name) is getattr(neural, name)


def test_dagger_on_a_tabular_env_with_int_observations():
    # TabularEnv observations are ints: they reach the network as (B, 1) floats
    mdp, expert = lb.random_imitation_mdp(3, 2, horizon=4, rng=0)
    table = expert.argmax(1)
    torch.manual_seed(0)
    pi = lb.CategoricalMLP(1, 2, hidden_sizes=(16,))
    lb.dagger(
        lb.TabularEnv(mdp),
        lambda s: table[np.asarray(s)],
        pi,
        rounds=3,
        n_per_round=4,
        horizon=4,
        epochs=150,
        lr=2e-2,
        rng=0,
    )
    assert pi.training  # the module's mode is restored (it was in training mode)
    states = np.arange(3, dtype=np.float64)[:, None]
    learned = pi.act(states, deterministic=True)
    visited = np.unique(lb.sample_trajectories(mdp, expert, 50, rng=1).observations)
    np.testing.assert_array_equal(learned[visited], table[visited])
