"""Closed forms for linear-Gaussian HEE models (the references the dynamics are checked against).

A model is linear-Gaussian when every conditional is ``GaussianFixedVar``, the nonlinearity is
``"identity"`` and the top prior is ``"gaussian"``: then x_{l-1} = sigma_l^2 (W x_l + b) +
sigma_l xi and the joint p(x_0:L) is Gaussian (probabilistic PCA / factor analysis with isotropic
noise when L = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ._checks import describe
from .families import GaussianFixedVar
from .model import HEE

__all__ = [
    "GaussianPosterior",
    "linear_gaussian_marginal",
    "linear_gaussian_posterior",
    "log_marginal",
]


@dataclass(frozen=True)
class GaussianPosterior:
    """The exact posterior p(x_1:L | x_0) of a linear-Gaussian model: ``mean`` ``[B, D]`` and
    ``cov`` ``[D, D]`` over the latents concatenated in layer order (D = d_1 + ... + d_L; the
    covariance does not depend on x_0)."""

    mean: torch.Tensor
    cov: torch.Tensor


def _check_linear_gaussian(model: Any) -> HEE:
    if not isinstance(model, HEE):
        raise TypeError(f"model must be an HEE model, got {describe(model)}")
    ok = (
        model.nonlinearity == "identity"
        and model.top_prior == "gaussian"
        and all(isinstance(f, GaussianFixedVar) for f in model.families)
    )
    if not ok:
        raise ValueError(
            "model must be linear-Gaussian (GaussianFixedVar families, nonlinearity='identity', "
            f"top_prior='gaussian'), got {model!r}"
        )
    return model


def linear_gaussian_marginal(model: HEE) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean ``[d_0]`` and covariance ``[d_0, d_0]`` of p(x_0), by the layer recursion
    m_{l-1} = s^2 (W m_l + b), C_{l-1} = s^4 W C_l W^T + s^2 I."""
    model = _check_linear_gaussian(model)
    d_top = model.layer_sizes[-1]
    mean = torch.zeros(d_top, dtype=model.dtype, device=model.device)
    cov = torch.eye(d_top, dtype=model.dtype, device=model.device)
    for layer in reversed(range(model.n_layers)):
        s2 = model.families[layer].var
        W = model.W[layer]
        mean = s2 * (W @ mean + model.b[layer])
        cov = s2**2 * W @ cov @ W.T + s2 * torch.eye(W.shape[0], dtype=W.dtype, device=W.device)
    return mean, cov


def log_marginal(model: HEE, x0: Any) -> torch.Tensor:
    """Exact log p(x_0) ``[B]`` of a linear-Gaussian model."""
    from .dynamics import _check_data

    model = _check_linear_gaussian(model)
    x = _check_data(model, x0, "x0")
    mean, cov = linear_gaussian_marginal(model)
    dist = torch.distributions.MultivariateNormal(mean, covariance_matrix=cov)
    return dist.log_prob(x)


def linear_gaussian_posterior(model: HEE, x0: Any) -> GaussianPosterior:
    """Exact posterior of the latents given ``x0`` ``[B, d_0]``: the energy is quadratic in the
    latents, so the precision is its (constant) Hessian and the mean one Newton step from 0."""
    from .dynamics import _check_data

    model = _check_linear_gaussian(model)
    x = _check_data(model, x0, "x0")
    sizes = model.layer_sizes[1:]
    D = sum(sizes)

    def energy(z):  # z: [B, D]
        parts = list(torch.split(z, sizes, dim=1))
        return model._energy([x, *parts]).sum()

    z0 = torch.zeros(x.shape[0], D, dtype=model.dtype, device=model.device, requires_grad=True)
    (grad,) = torch.autograd.grad(energy(z0), z0)
    one = torch.zeros(1, D, dtype=model.dtype, device=model.device)
    x_one = x[:1]

    def energy_one(z):
        parts = list(torch.split(z, sizes, dim=1))
        return model._energy([x_one, *parts]).sum()

    H = torch.autograd.functional.hessian(energy_one, one).reshape(D, D)
    H = 0.5 * (H + H.T)
    cov = torch.linalg.inv(H)
    mean = -grad.detach() @ cov
    return GaussianPosterior(mean=mean, cov=0.5 * (cov + cov.T))
