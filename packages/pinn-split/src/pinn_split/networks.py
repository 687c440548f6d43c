"""Power-ReLU networks with closed-form input derivatives, and the nested-autograd fallback."""

from __future__ import annotations

import math
from typing import Any

import torch

from ._checks import check_bool, check_generator, check_int, describe
from ._validation import as_points, check_alpha, check_net, module_dtype

__all__ = ["AutogradNet", "PowerReLU", "TwoLayerPowerNet", "autograd_derivative", "derivative"]


class PowerReLU(torch.nn.Module):
    """sigma_p(z) = max(z, 0)^p (p = 1 is the ReLU)."""

    def __init__(self, p: int) -> None:
        super().__init__()
        self.p = check_int(p, "p", minimum=1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return torch.relu(z) ** self.p

    def extra_repr(self) -> str:
        return f"p={self.p}"


def _check_dtype(dtype: Any) -> torch.dtype:
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype, got {describe(dtype)}")
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating dtype, got {dtype}")
    return dtype


class TwoLayerPowerNet(torch.nn.Module):
    """u(x) = m^-1/2 sum_r a_r max(w_r . x + b_r, 0)^p, the network the paper analyses.

    ``weight`` [m, d] and ``bias`` [m] are drawn from N(0, 1) and trained; ``a`` [m] is uniform
    on {-1, +1} and trained only with ``train_outer=True`` (else it is a buffer). With
    ``bias=False`` the bias is a zero buffer (``.bias`` is still [m]).
    """

    def __init__(
        self,
        d: int,
        m: int,
        p: int,
        *,
        bias: bool = True,
        train_outer: bool = False,
        dtype: torch.dtype = torch.float64,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.d = check_int(d, "d", minimum=1)
        self.m = check_int(m, "m", minimum=1)
        self.p = check_int(p, "p", minimum=1)
        self.has_bias = check_bool(bias, "bias")
        self.train_outer = check_bool(train_outer, "train_outer")
        dtype = _check_dtype(dtype)
        generator = check_generator(generator)
        w = torch.randn(self.m, self.d, generator=generator, dtype=dtype)
        b = torch.randn(self.m, generator=generator, dtype=dtype)
        a = torch.randint(0, 2, (self.m,), generator=generator).to(dtype) * 2 - 1
        self.weight = torch.nn.Parameter(w)
        if self.has_bias:
            self.bias = torch.nn.Parameter(b)
        else:
            self.register_buffer("bias", torch.zeros(self.m, dtype=dtype))
        if self.train_outer:
            self.a = torch.nn.Parameter(a)
        else:
            self.register_buffer("a", a)

    def extra_repr(self) -> str:
        return f"d={self.d}, m={self.m}, p={self.p}, bias={self.has_bias}, train_outer={self.train_outer}"

    def _x(self, x: Any) -> torch.Tensor:
        return as_points(x, "x", dim=self.d, dtype=self.weight.dtype)

    def forward(self, x: Any) -> torch.Tensor:
        """[n, d] -> [n]."""
        return self.derivative(x, (0,) * self.d)

    def derivative(self, x: Any, alpha: tuple[int, ...]) -> torch.Tensor:
        """d^alpha u(x), [n, d] -> [n], in closed form:
        m^-1/2 sum_r a_r p!/(p-|alpha|)! w_r^alpha sigma_{p-|alpha|}(w_r . x + b_r).

        ``alpha`` is a d-tuple of non-negative integers with |alpha| <= p - 1 (the derivative of
        order p of a ReLU^p is discontinuous). Differentiable in the parameters.
        """
        x = self._x(x)
        alpha = check_alpha(alpha, "alpha", dim=self.d)
        k = sum(alpha)
        if k > self.p - 1 and k > 0:
            raise ValueError(
                f"alpha must have order |alpha| <= p - 1 = {self.p - 1} for ReLU^{self.p}, "
                f"got {alpha} (order {k})"
            )
        return self._closed_form(x, [alpha])[alpha]

    def _closed_form(self, x: torch.Tensor, alphas) -> dict:
        """{alpha: d^alpha u(x)} for checked inputs, sharing the pre-activations."""
        relu = torch.relu(x @ self.weight.T + self.bias)  # [n, m]
        powers: dict[int, torch.Tensor] = {}
        out = {}
        for alpha in alphas:
            k = sum(alpha)
            if k not in powers:
                powers[k] = relu ** (self.p - k) if self.p - k != 1 else relu
            scale = math.factorial(self.p) // math.factorial(self.p - k) / math.sqrt(self.m)
            coef = self.a
            for i, ai in enumerate(alpha):
                if ai:
                    coef = coef * self.weight[:, i] ** ai
            out[alpha] = scale * (powers[k] @ coef)
        return out


class AutogradNet(torch.nn.Module):
    """The same network seen as a generic one: its derivatives go through nested autograd (for
    comparisons of cost and accuracy against the closed form)."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.inner = check_net(net, "net")
        if not isinstance(net, torch.nn.Module):
            raise TypeError(f"net must be a torch.nn.Module, got {describe(net)}")
        self.d = _net_dim(net)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)


def autograd_derivative(net: Any, x: Any, alpha: tuple[int, ...]) -> torch.Tensor:
    """d^alpha net(x) by nested automatic differentiation (the reference, and the fallback for
    networks without a closed form). ``net`` maps [n, d] -> [n]; the result keeps the graph."""
    net = check_net(net, "net")
    d = _net_dim(net)
    if d is None:  # a plain function: its input dimension is that of x
        d = x.shape[1] if getattr(x, "ndim", None) == 2 else None
    x = as_points(x, "x", dim=d, dtype=module_dtype(net))
    alpha = check_alpha(alpha, "alpha", dim=d)
    return _autograd_cache(net, x, {alpha})[alpha]


def derivative(net: Any, x: Any, alpha: tuple[int, ...]) -> torch.Tensor:
    """d^alpha net(x): the closed form when ``net`` has one (``net.derivative``), else nested
    autograd."""
    net = check_net(net, "net")
    if isinstance(net, TwoLayerPowerNet):
        return net.derivative(x, alpha)
    return autograd_derivative(net, x, alpha)


def _net_dim(net: Any) -> int | None:
    """The input dimension a network declares (``.d`` or its first nn.Linear), else None."""
    d = getattr(net, "d", None)
    if isinstance(d, int):
        return d
    for mod in net.modules() if isinstance(net, torch.nn.Module) else ():
        if isinstance(mod, torch.nn.Linear):
            return mod.in_features
    return None


def _autograd_cache(net, x: torch.Tensor, alphas) -> dict:
    """Every requested derivative of ``net`` at ``x`` by repeated torch.autograd.grad, each
    partial derivative computed once (a multi-index is reached from its parent by one grad)."""
    x = x.detach().requires_grad_(True)
    d = x.shape[1]
    u = net(x)
    if u.ndim == 2 and u.shape[1] == 1:
        u = u[:, 0]
    cache: dict[tuple[int, ...], torch.Tensor] = {(0,) * d: u}

    def get(alpha):
        if alpha in cache:
            return cache[alpha]
        i = max(j for j in range(d) if alpha[j] > 0)
        parent = tuple(a - (j == i) for j, a in enumerate(alpha))
        up = get(parent)
        if not up.requires_grad:
            out = torch.zeros_like(up)
        else:
            (g,) = torch.autograd.grad(up.sum(), x, create_graph=True, allow_unused=True)
            out = torch.zeros_like(up) if g is None else g[:, i]
        cache[alpha] = out
        return out

    for a in alphas:
        get(a)
    return cache


def _derivatives(net, x: torch.Tensor, alphas) -> dict:
    """{alpha: d^alpha net(x)} for a set of multi-indices, closed form where available."""
    alphas = set(alphas)
    if isinstance(net, TwoLayerPowerNet):
        bad = [a for a in alphas if sum(a) > max(net.p - 1, 0)]
        if bad:
            raise ValueError(
                f"alpha must have order |alpha| <= p - 1 = {net.p - 1} for ReLU^{net.p}, got {bad[0]}"
            )
        return net._closed_form(x.to(net.weight.dtype), sorted(alphas))
    return _autograd_cache(net, x, alphas)
