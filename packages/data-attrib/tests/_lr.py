"""A tiny L2-regularised multinomial logistic regression, fitted to high precision (float64)."""

from __future__ import annotations

import torch
from data_attrib import fit_to_optimum
from torch.func import functional_call

torch.set_num_threads(1)

LAM = 0.05


def make_data(n=30, m=8, d=4, classes=3, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(d, classes, generator=g, dtype=dtype)
    X = torch.randn(n + m, d, generator=g, dtype=dtype)
    logits = 2.0 * X @ w
    Y = torch.distributions.Categorical(logits=logits).sample()
    return (X[:n], Y[:n]), (X[n:], Y[n:])


def make_model(d=4, classes=3, dtype=torch.float64, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(d, classes).to(dtype)


def penalty(params):
    return 0.5 * LAM * sum((p**2).sum() for p in params.values())


def make_loss(model):
    def loss(params, batch):
        x, y = batch
        out = functional_call(model, params, (x,))
        return torch.nn.functional.cross_entropy(out, y) + penalty(params)

    return loss


def ce_loss(model):
    def loss(params, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(functional_call(model, params, (x,)), y)

    return loss


def fit(model, X, Y, *, lam=LAM, iters=100, rounds=3):
    def objective():
        loss = torch.nn.functional.cross_entropy(model(X), Y)
        return loss + 0.5 * lam * sum((p**2).sum() for p in model.parameters())

    fit_to_optimum(
        model,
        objective,
        max_iter=iters,
        rounds=rounds,
        tolerance_grad=1e-13,
        tolerance_change=1e-15,
    )
    return model


def per_example_losses(model, X, Y):
    with torch.no_grad():
        return torch.nn.functional.cross_entropy(model(X), Y, reduction="none")


def _flat_loss(theta, X, Y, d, classes, lam):
    """Mean penalised cross-entropy written out by hand (weight then bias, as named_parameters)."""
    W = theta[: d * classes].reshape(classes, d)
    b = theta[d * classes :]
    logits = X @ W.T + b
    ce = torch.logsumexp(logits, dim=1) - logits.gather(1, Y[:, None])[:, 0]
    return ce.mean() + 0.5 * lam * (theta**2).sum()


def flat(model):
    return torch.cat([model.weight.detach().reshape(-1), model.bias.detach()])


def reference_grads(model, X, Y, *, lam=LAM):
    """Per-example gradients by a plain autograd loop (no vmap, no torch.func)."""
    d, classes = model.in_features, model.out_features
    theta = flat(model).clone().requires_grad_(True)
    rows = []
    for i in range(X.shape[0]):
        loss = _flat_loss(theta, X[i : i + 1], Y[i : i + 1], d, classes, lam)
        (g,) = torch.autograd.grad(loss, theta)
        rows.append(g)
    return torch.stack(rows)


def reference_hessian(model, X, Y, *, lam=LAM):
    d, classes = model.in_features, model.out_features
    return torch.autograd.functional.hessian(
        lambda th: _flat_loss(th, X, Y, d, classes, lam), flat(model).clone()
    )
