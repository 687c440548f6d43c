"""The HEE generative model: a directed hierarchy of exponential-family conditionals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from ._checks import check_generator, check_int, check_option, describe
from ._validation import as_tensor, check_layers
from .families import ExponentialFamily, check_family

__all__ = ["HEE", "NONLINEARITIES", "TOP_PRIORS"]

NONLINEARITIES = ("identity", "tanh", "relu")
TOP_PRIORS = ("gaussian", "laplace")


def _g(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "identity":
        return x
    if name == "tanh":
        return torch.tanh(x)
    return torch.relu(x)


def _g_prime(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "identity":
        return torch.ones_like(x)
    if name == "tanh":
        return 1 - torch.tanh(x) ** 2
    return (x > 0).to(x.dtype)


class HEE:
    """Hierarchical exponential-family energy-based model p(x_0:L) = p(x_L) prod p(x_{l-1}|x_l).

    Parameters
    ----------
    layer_sizes
        ``[d_0, d_1, ..., d_L]``: the data layer first, the top latent layer last (L >= 1).
    families
        The conditional family of each non-top layer ``0 .. L-1`` (a list of L families, or one
        family used for all). Latent layers ``1 .. L-1`` must be continuous (their neurons run
        Langevin dynamics); the data layer may be discrete (``Bernoulli``, ``Poisson``).
    nonlinearity
        g in eta_{l-1} = g(x_l) W[l-1]^T + b[l-1]: ``"identity"``, ``"tanh"`` or ``"relu"``.
    top_prior
        p(x_L): ``"gaussian"`` N(0, I) or ``"laplace"`` Laplace(0, 1) (sparse).
    generator
        torch.Generator for the initial weights (W ~ N(0, init_scale^2 / d_l), b = 0).
    dtype
        Floating dtype of the weights and of all dynamics (default float64).
    init_scale
        Standard deviation of the initial weights times sqrt(d_l).

    Attributes
    ----------
    W : list of tensors, ``W[l-1]`` of shape ``[d_{l-1}, d_l]``
    b : list of tensors, ``b[l-1]`` of shape ``[d_{l-1}]``
    """

    def __init__(
        self,
        layer_sizes: Sequence[int],
        *,
        families: Any,
        nonlinearity: str = "identity",
        top_prior: str = "gaussian",
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float64,
        init_scale: float = 0.1,
    ):
        if isinstance(layer_sizes, str | bytes) or not isinstance(layer_sizes, Sequence):
            raise TypeError(f"layer_sizes must be a list of ints, got {describe(layer_sizes)}")
        sizes = [check_int(d, f"layer_sizes[{i}]", minimum=1) for i, d in enumerate(layer_sizes)]
        if len(sizes) < 2:
            raise ValueError(
                f"layer_sizes must list at least 2 layers (data and one latent), got {sizes}"
            )
        n_layers = len(sizes) - 1
        if isinstance(families, ExponentialFamily):
            families = [families] * n_layers
        if not isinstance(families, list | tuple):
            raise TypeError(f"families must be a list of families, got {describe(families)}")
        if len(families) != n_layers:
            raise ValueError(
                f"families must hold {n_layers} families (one per layer below the top), "
                f"got {len(families)}"
            )
        fams = [check_family(f, f"families[{i}]") for i, f in enumerate(families)]
        for i, f in enumerate(fams[1:], start=1):
            if not f.continuous:
                raise ValueError(
                    f"families[{i}] must be continuous (latent layers run Langevin dynamics), "
                    f"got {f!r}"
                )
        self.nonlinearity = check_option(nonlinearity, "nonlinearity", NONLINEARITIES)
        self.top_prior = check_option(top_prior, "top_prior", TOP_PRIORS)
        generator = check_generator(generator)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype, got {describe(dtype)}")
        from ._checks import check_float

        init_scale = check_float(init_scale, "init_scale", minimum=0.0)
        self.layer_sizes = sizes
        self.families = fams
        self.dtype = dtype
        self.W = [
            init_scale
            / math.sqrt(sizes[i + 1])
            * torch.randn(sizes[i], sizes[i + 1], generator=generator, dtype=dtype)
            for i in range(n_layers)
        ]
        self.b = [torch.zeros(sizes[i], dtype=dtype) for i in range(n_layers)]

    # ------------------------------------------------------------------ structure
    @property
    def n_layers(self) -> int:
        """L, the number of latent layers."""
        return len(self.layer_sizes) - 1

    @property
    def device(self) -> torch.device:
        return self.W[0].device

    def __repr__(self) -> str:
        return (
            f"HEE(layer_sizes={self.layer_sizes}, families={self.families}, "
            f"nonlinearity={self.nonlinearity!r}, top_prior={self.top_prior!r})"
        )

    def clone(self) -> HEE:
        """A deep copy (weights cloned)."""
        new = object.__new__(HEE)
        new.__dict__.update(self.__dict__)
        new.W = [w.clone() for w in self.W]
        new.b = [b.clone() for b in self.b]
        return new

    # ------------------------------------------------------------------ pieces (unchecked)
    def _eta(self, layer: int, x_above: torch.Tensor) -> torch.Tensor:
        return _g(self.nonlinearity, x_above) @ self.W[layer].T + self.b[layer]

    def _log_prior(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1]
        if self.top_prior == "gaussian":
            return -0.5 * (x * x).sum(-1) - 0.5 * d * math.log(2 * math.pi)
        return -x.abs().sum(-1) - d * math.log(2.0)

    def _prior_score(self, x: torch.Tensor) -> torch.Tensor:
        return -x if self.top_prior == "gaussian" else -torch.sign(x)

    def _sample_prior(self, n: int, generator) -> torch.Tensor:
        shape = (n, self.layer_sizes[-1])
        if self.top_prior == "gaussian":
            return torch.randn(shape, generator=generator, dtype=self.dtype, device=self.device)
        u = torch.rand(shape, generator=generator, dtype=self.dtype, device=self.device)
        e = -torch.log1p(-u)  # Exp(1)
        s = torch.rand(shape, generator=generator, dtype=self.dtype, device=self.device) < 0.5
        return torch.where(s, e, -e)

    def _energy(self, xs: list[torch.Tensor]) -> torch.Tensor:
        e = -self._log_prior(xs[-1])
        for layer, fam in enumerate(self.families):
            e = e - fam._log_prob(xs[layer], self._eta(layer, xs[layer + 1]))
        return e

    def _g(self, x):
        return _g(self.nonlinearity, x)

    def _g_prime(self, x):
        return _g_prime(self.nonlinearity, x)

    # ------------------------------------------------------------------ public, validated
    def natural_param(self, x_above: Any, layer: int) -> torch.Tensor:
        """eta_layer = g(x_{layer+1}) W[layer]^T + b[layer], shape ``[B, d_layer]``."""
        layer = check_int(layer, "layer", minimum=0, maximum=self.n_layers - 1)
        x = as_tensor(x_above, "x_above", ndim=2, dtype=self.dtype, device=self.device)
        if x.shape[1] != self.layer_sizes[layer + 1]:
            raise ValueError(
                f"x_above must have {self.layer_sizes[layer + 1]} columns (layer {layer + 1}), "
                f"got shape {tuple(x.shape)}"
            )
        return self._eta(layer, x)

    def energy(self, xs: Any) -> torch.Tensor:
        """E(x_0:L) = -log p(x_0:L), shape ``[B]``, for ``xs = [x_0, ..., x_L]`` of ``[B, d_l]``."""
        xs = check_layers(xs, "xs", self.layer_sizes, like=self.W[0])
        for layer, fam in enumerate(self.families):
            fam._support(xs[layer], f"xs[{layer}]")
        return self._energy(xs)

    def log_prob(self, xs: Any) -> torch.Tensor:
        """log p(x_0:L) = -energy(xs), shape ``[B]``."""
        return -self.energy(xs)
