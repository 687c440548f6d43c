"""Meta-gradients against central finite differences, reverse_hvp against unroll, the inner loop
against torch.optim.SGD."""

import copy

import behavior_distill as bd
import numpy as np
import pytest
import torch
from conftest import close

DT = torch.float64
W = torch.tensor([[1.0, -0.5], [0.3, 0.8]], dtype=DT)


def teacher(o):
    return torch.tanh(o @ W)


def critic(o, a):
    return 1.0 + (o**2).sum(1) + (a**2).sum(1)


OBJECTIVES = {
    "DBC": bd.DBC(),
    "PBC": bd.PBC(teacher),
    "AvPBC": bd.AvPBC(teacher, critic, beta=0.5),
}
KW = dict(inner_steps=10, inner_lr=0.1, inner_momentum=0.5)


@pytest.fixture(scope="module")
def problem():
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    policy = bd.MLPPolicy(2, 2, hidden=(16,), discrete=False, dtype=DT)
    S = torch.randn(8, 2, generator=g, dtype=DT)
    A = 0.5 * torch.randn(8, 2, generator=g, dtype=DT)
    batch = {
        "observations": torch.randn(40, 2, generator=g, dtype=DT),
        "actions": 0.5 * torch.randn(40, 2, generator=g, dtype=DT),
    }
    return policy, S, A, batch


def _fd(policy, S, A, objective, batch, which, entries, eps=1e-6):
    out = []
    for i, j in entries:
        vals = []
        for sign in (1.0, -1.0):
            S2, A2 = S.clone(), A.clone()
            (S2 if which == "states" else A2)[i, j] += sign * eps
            vals.append(float(bd.meta_gradient(policy, S2, A2, objective, batch, **KW)[0]))
        out.append((vals[0] - vals[1]) / (2 * eps))
    return np.array(out)


@pytest.mark.parametrize("name", OBJECTIVES)
def test_unroll_and_reverse_hvp_match_finite_differences(problem, name):
    policy, S, A, batch = problem
    obj = OBJECTIVES[name]
    before = copy.deepcopy(policy.state_dict())
    loss_u, gs_u, ga_u = bd.meta_gradient(policy, S, A, obj, batch, method="unroll", **KW)
    loss_r, gs_r, ga_r = bd.meta_gradient(policy, S, A, obj, batch, method="reverse_hvp", **KW)
    for k, v in policy.state_dict().items():  # theta_0 untouched
        assert torch.equal(v, before[k])
    assert float(loss_u) == pytest.approx(float(loss_r), rel=1e-12)
    for gu, gr in ((gs_u, gs_r), (ga_u, ga_r)):
        assert gu.shape == (8, 2)
        assert float((gu - gr).norm() / gu.norm()) < 1e-10
    entries = [(0, 0), (7, 1)]
    for which, G in (("states", gs_u), ("actions", ga_u)):
        fd = _fd(policy, S, A, obj, batch, which, entries)
        an = np.array([float(G[i, j]) for i, j in entries])
        assert np.linalg.norm(fd - an) / np.linalg.norm(an) < 1e-4


def test_loss_is_the_objective_after_train_bc(problem):
    policy, S, A, batch = problem
    obj = OBJECTIVES["PBC"]
    loss, _, _ = bd.meta_gradient(policy, S, A, obj, batch, **KW)
    trained = bd.train_bc(copy.deepcopy(policy), S, A, steps=10, lr=0.1, momentum=0.5)
    assert float(loss) == pytest.approx(float(obj(trained, batch).detach()), rel=1e-10)


def _heavy_ball_reference(policy, S, A, steps, lr, momentum):
    """The documented update, on flat parameter vectors: v = mu v + g, theta -= lr v."""
    ref = copy.deepcopy(policy)
    params = list(ref.parameters())
    v = [torch.zeros_like(p) for p in params]
    for _ in range(steps):
        grads = torch.autograd.grad(((ref(S) - A) ** 2).sum(1).mean(), params)
        with torch.no_grad():
            for p, vi, gi in zip(params, v, grads):
                vi.mul_(momentum).add_(gi)
                p.sub_(lr * vi)
    return ref


def test_train_bc_is_the_heavy_ball_update(problem):
    policy, S, A, _ = problem
    trained = bd.train_bc(copy.deepcopy(policy), S, A, steps=7, lr=0.2, momentum=0.9)
    ref = _heavy_ball_reference(policy, S, A, 7, 0.2, 0.9)
    for p, q in zip(trained.parameters(), ref.parameters()):
        close(p, q, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # torch.optim's first step imports torch._dynamo (up to a minute when loaded)
def test_train_bc_is_torch_optim_sgd(problem):
    policy, S, A, _ = problem
    trained = bd.train_bc(copy.deepcopy(policy), S, A, steps=10, lr=0.1, momentum=0.5)
    ref = copy.deepcopy(policy)
    opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.5)
    for _ in range(10):
        opt.zero_grad()
        ((ref(S) - A) ** 2).sum(1).mean().backward()
        opt.step()
    for p, q in zip(trained.parameters(), ref.parameters()):
        close(p, q, rtol=1e-12, atol=1e-12)


def test_meta_gradient_of_a_linear_policy_one_step_closed_form():
    # pi(s) = s W (no bias), one SGD step: W1 = W0 - lr * (2/N) S^T (S W0 - A);
    # DBC on a batch (X, Y): H = mean ||X W1 - Y||^2, dH/dA = lr (2/N) S dH/dW1,
    # dH/dW1 = (2/B) X^T (X W1 - Y)
    g = torch.Generator().manual_seed(1)
    lin = torch.nn.Linear(3, 2, bias=False, dtype=DT)
    S = torch.randn(5, 3, generator=g, dtype=DT)
    A = torch.randn(5, 2, generator=g, dtype=DT)
    X = torch.randn(7, 3, generator=g, dtype=DT)
    Y = torch.randn(7, 2, generator=g, dtype=DT)
    lr = 0.05
    W0 = lin.weight.detach().T
    W1 = W0 - lr * (2 / 5) * S.T @ (S @ W0 - A)
    dW1 = (2 / 7) * X.T @ (X @ W1 - Y)
    want_a = lr * (2 / 5) * S @ dW1
    for method in bd.METHODS:
        loss, _, ga = bd.meta_gradient(
            lin,
            S,
            A,
            bd.DBC(),
            {"observations": X, "actions": Y},
            inner_steps=1,
            inner_lr=lr,
            method=method,
        )
        assert float(loss) == pytest.approx(float(((X @ W1 - Y) ** 2).sum(1).mean()), rel=1e-12)
        close(ga, want_a, rtol=1e-10, atol=1e-12)


def test_discrete_policy_with_integer_offline_actions():
    torch.manual_seed(0)
    policy = bd.MLPPolicy(2, 3, hidden=(8,), dtype=DT)
    S = torch.randn(6, 2, dtype=DT)
    A = torch.softmax(torch.randn(6, 3, dtype=DT), 1)
    batch = {"observations": torch.randn(20, 2, dtype=DT), "actions": np.arange(20) % 3}
    out = [
        bd.meta_gradient(policy, S, A, bd.DBC(), batch, inner_steps=4, method=m) for m in bd.METHODS
    ]
    for a, b in zip(out[0][1:], out[1][1:]):
        close(a, b, rtol=1e-9, atol=1e-12)
    fd = _fd(policy, S, A, bd.DBC(), batch, "actions", [(2, 1)])
    # _fd uses KW's 10 steps; compare with the same settings
    g = bd.meta_gradient(policy, S, A, bd.DBC(), batch, **KW)[2]
    assert float(g[2, 1]) == pytest.approx(fd[0], rel=1e-4, abs=1e-9)


def test_numpy_inputs_and_one_dimensional_actions():
    torch.manual_seed(0)
    policy = bd.MLPPolicy(2, 1, hidden=(4,), discrete=False)
    S = np.random.default_rng(0).standard_normal((5, 2))
    A = np.linspace(-0.5, 0.5, 5)
    batch = {"observations": S, "actions": A}
    loss, gs, ga = bd.meta_gradient(policy, S, A, bd.DBC(), batch, inner_steps=2)
    assert gs.shape == (5, 2) and ga.shape == (5,)
    assert gs.dtype == torch.float32 and loss.ndim == 0
