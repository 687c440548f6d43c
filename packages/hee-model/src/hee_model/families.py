"""Exponential families of the HEE conditionals p(x | eta) = h(x) exp(eta . T(x) - A(eta)).

Every family works on tensors whose last axis is the layer's units; ``A`` and ``log_h`` (and
``log_prob``) sum that axis. ``fast_step`` is one step of the fast neurons (interneurons): a
Markov transition that leaves p(. | eta) invariant -- Langevin ``x + dt grad log p + sqrt(2 dt) xi``
for a continuous family, an exact continuous-time jump process observed after time ``dt`` for a
discrete one.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from ._checks import check_float, check_generator, describe
from ._validation import as_tensor

__all__ = ["Bernoulli", "ExponentialFamily", "GaussianFixedVar", "Poisson"]


def _vec(value: Any, name: str, like: torch.Tensor | None = None) -> torch.Tensor:
    kw = {} if like is None else {"dtype": like.dtype, "device": like.device}
    t = as_tensor(value, name, **kw)
    if t.ndim == 0:
        raise ValueError(f"{name} must have at least 1 dimension (the units), got a 0-d tensor")
    return t


def _pair(x: Any, eta: Any) -> tuple[torch.Tensor, torch.Tensor]:
    eta_t = _vec(eta, "eta")
    x_t = _vec(x, "x", like=eta_t)
    if x_t.shape != eta_t.shape:
        raise ValueError(
            f"x must have the shape of eta {tuple(eta_t.shape)}, got shape {tuple(x_t.shape)}"
        )
    return x_t, eta_t


class ExponentialFamily:
    """Base class. Subclasses implement the underscored, unchecked methods."""

    continuous: bool = True

    # -- public, validated -------------------------------------------------------------------
    def T(self, x: Any) -> torch.Tensor:
        """Sufficient statistic T(x) (same shape as ``x``)."""
        return self._T(self._support(_vec(x, "x"), "x"))

    def A(self, eta: Any) -> torch.Tensor:
        """Log-partition A(eta), summed over the last axis."""
        return self._A(_vec(eta, "eta"))

    def grad_A(self, eta: Any) -> torch.Tensor:
        """A'(eta) = E_{p(.|eta)}[T(x)] (same shape as ``eta``)."""
        return self._grad_A(_vec(eta, "eta"))

    def log_h(self, x: Any) -> torch.Tensor:
        """Base measure log h(x), summed over the last axis."""
        return self._log_h(self._support(_vec(x, "x"), "x"))

    def log_prob(self, x: Any, eta: Any) -> torch.Tensor:
        """log p(x | eta) = eta . T(x) - A(eta) + log h(x), summed over the last axis."""
        x_t, eta_t = _pair(x, eta)
        return self._log_prob(self._support(x_t, "x"), eta_t)

    def sample(self, eta: Any, *, generator: torch.Generator | None = None) -> torch.Tensor:
        """An exact draw x ~ p(. | eta) (same shape as ``eta``)."""
        return self._sample(_vec(eta, "eta"), check_generator(generator))

    def fast_step(
        self, x: Any, eta: Any, *, dt: float, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """One fast-neuron step of length ``dt`` that leaves p(. | eta) invariant."""
        x_t, eta_t = _pair(x, eta)
        dt = check_float(dt, "dt", minimum=0.0, min_inclusive=False)
        return self._fast_step(self._support(x_t, "x"), eta_t, dt, check_generator(generator))

    def score(self, x: Any, eta: Any) -> torch.Tensor:
        """grad_x log p(x | eta) (continuous families only)."""
        if not self.continuous:
            raise TypeError(f"{type(self).__name__} is discrete: it has no score grad_x log p")
        x_t, eta_t = _pair(x, eta)
        return self._score(x_t, eta_t)

    # -- internals -----------------------------------------------------------------------------
    def _support(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return x

    def _log_prob(self, x: torch.Tensor, eta: torch.Tensor) -> torch.Tensor:
        return (eta * self._T(x)).sum(-1) - self._A(eta) + self._log_h(x)

    def _T(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _score(self, x, eta):  # pragma: no cover - abstract
        raise NotImplementedError


class GaussianFixedVar(ExponentialFamily):
    """N(mean, sigma^2 I) with T(x) = x, eta = mean / sigma^2, A(eta) = sigma^2 |eta|^2 / 2,
    log h(x) = -|x|^2 / (2 sigma^2) - (d/2) log(2 pi sigma^2)."""

    continuous = True

    def __init__(self, sigma: float = 1.0):
        self.sigma = check_float(sigma, "sigma", minimum=0.0, min_inclusive=False)
        self.var = self.sigma**2

    def __repr__(self) -> str:
        return f"GaussianFixedVar(sigma={self.sigma!r})"

    def _T(self, x):
        return x

    def _A(self, eta):
        return 0.5 * self.var * (eta * eta).sum(-1)

    def _grad_A(self, eta):
        return self.var * eta

    def _log_h(self, x):
        d = x.shape[-1]
        return -(x * x).sum(-1) / (2 * self.var) - 0.5 * d * math.log(2 * math.pi * self.var)

    def _sample(self, eta, generator):
        noise = torch.randn(eta.shape, generator=generator, dtype=eta.dtype, device=eta.device)
        return self.var * eta + self.sigma * noise

    def _score(self, x, eta):
        return eta - x / self.var

    def _fast_step(self, x, eta, dt, generator):
        noise = torch.randn(x.shape, generator=generator, dtype=x.dtype, device=x.device)
        return x + dt * self._score(x, eta) + math.sqrt(2 * dt) * noise


class Bernoulli(ExponentialFamily):
    """Independent Bernoulli units: T(x) = x in {0, 1}, A(eta) = sum log(1 + e^eta),
    A'(eta) = sigmoid(eta), h = 1. ``fast_step`` redraws each unit from p(. | eta) at rate 1
    (probability 1 - e^-dt), an exact invariant jump process."""

    continuous = False

    def __repr__(self) -> str:
        return "Bernoulli()"

    def _support(self, x, name):
        if not bool(((x == 0) | (x == 1)).all()):
            raise ValueError(f"{name} must hold only 0 and 1 for Bernoulli, got other values")
        return x

    def _T(self, x):
        return x

    def _A(self, eta):
        return torch.nn.functional.softplus(eta).sum(-1)

    def _grad_A(self, eta):
        return torch.sigmoid(eta)

    def _log_h(self, x):
        return torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)

    def _sample(self, eta, generator):
        return torch.bernoulli(torch.sigmoid(eta), generator=generator)

    def _fast_step(self, x, eta, dt, generator):
        refresh = torch.rand(x.shape, generator=generator, dtype=x.dtype, device=x.device)
        new = self._sample(eta, generator)
        return torch.where(refresh < -math.expm1(-dt), new, x)


class Poisson(ExponentialFamily):
    """Independent Poisson counts: T(x) = x in {0, 1, 2, ...}, A(eta) = sum e^eta,
    A'(eta) = e^eta, log h(x) = -sum log x!. ``fast_step`` is the exact transition over time
    ``dt`` of a birth-death process (births at rate e^eta, each count dies at rate 1), whose
    stationary law is Poisson(e^eta)."""

    continuous = False

    def __repr__(self) -> str:
        return "Poisson()"

    def _support(self, x, name):
        if not bool(((x >= 0) & (x == torch.round(x))).all()):
            raise ValueError(
                f"{name} must hold non-negative integers for Poisson, got other values"
            )
        return x

    def _T(self, x):
        return x

    def _A(self, eta):
        return torch.exp(eta).sum(-1)

    def _grad_A(self, eta):
        return torch.exp(eta)

    def _log_h(self, x):
        return -torch.lgamma(x + 1).sum(-1)

    def _sample(self, eta, generator):
        return torch.poisson(torch.exp(eta), generator=generator)

    def _fast_step(self, x, eta, dt, generator):
        keep = math.exp(-dt)
        survivors = torch.binomial(x, torch.full_like(x, keep), generator=generator)
        births = torch.poisson(torch.exp(eta) * (1 - keep), generator=generator)
        return survivors + births


def check_family(value: Any, name: str) -> ExponentialFamily:
    if not isinstance(value, ExponentialFamily):
        raise TypeError(
            f"{name} must be an exponential family (GaussianFixedVar, Bernoulli, Poisson), "
            f"got {describe(value)}"
        )
    return value
