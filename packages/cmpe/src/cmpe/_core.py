"""Consistency model posterior estimation (CMPE) and flow-matching posterior estimation (FMPE).

Consistency training follows Schmitt et al. (2024) and the improved consistency training recipe
of Song & Dhariwal (2023) that their code implements: Karras time grid, doubling discretisation
schedule N(k), lognormal choice of the grid interval, weighting 1/(t_{i+1} - t_i), pseudo-Huber
distance, teacher = student under stop-gradient (no EMA).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, check_option
from ._validation import as_tensor, as_time
from .summary import summarise

__all__ = [
    "ConsistencyPosterior",
    "FitHistory",
    "FlowMatchingPosterior",
    "ResidualMLP",
    "discretization_steps",
    "karras_grid",
]

P_MEAN = -1.1
P_STD = 2.0


def karras_grid(eps, t_max, n, *, rho=7.0):
    """The Karras et al. (2022) time grid of ``n`` points from ``eps`` to ``t_max`` (ascending):
    ``t_i = (eps^(1/rho) + (i-1)/(n-1) (t_max^(1/rho) - eps^(1/rho)))^rho``, i = 1..n.

    Returns a float64 numpy array of shape [n]; its first entry is ``eps`` and its last ``t_max``.
    """
    eps = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
    t_max = check_float(t_max, "t_max", minimum=0.0, min_inclusive=False)
    n = check_int(n, "n", minimum=2)
    rho = check_float(rho, "rho", minimum=0.0, min_inclusive=False)
    if t_max <= eps:
        raise ValueError(f"t_max must be larger than eps={eps}, got {t_max}")
    i = np.arange(n, dtype=np.float64)
    a, b = eps ** (1.0 / rho), t_max ** (1.0 / rho)
    grid = (a + i / (n - 1) * (b - a)) ** rho
    grid[0], grid[-1] = eps, t_max  # exact endpoints (the power can round)
    return grid


def discretization_steps(k, total_steps, *, s0, s1):
    """Number of grid points N(k) at optimiser step ``k`` of ``total_steps`` (improved CT):
    ``N(k) = min(s0 * 2^floor(k / K'), s1) + 1`` with ``K' = floor(K / (log2(s1/s0) + 1))``."""
    k = check_int(k, "k", minimum=0)
    total_steps = check_int(total_steps, "total_steps", minimum=1)
    s0 = check_int(s0, "s0", minimum=1)
    s1 = check_int(s1, "s1", minimum=1)
    if s1 < s0:
        raise ValueError(f"s1 must be at least s0={s0}, got {s1}")
    k_prime = max(math.floor(total_steps / (math.log2(s1 / s0) + 1.0)), 1)
    return int(min(s0 * 2 ** (k // k_prime), s1) + 1)


class ResidualMLP(nn.Module):
    """The paper's low-dimensional network: Dense(width)+ReLU, then ``n_blocks`` residual blocks
    (dense -> dropout -> + input -> ReLU), then a linear output; input concat(theta_t, x, t)."""

    def __init__(self, in_dim, out_dim, *, width=256, n_blocks=2, dropout=0.05):
        super().__init__()
        in_dim = check_int(in_dim, "in_dim", minimum=1)
        out_dim = check_int(out_dim, "out_dim", minimum=1)
        width = check_int(width, "width", minimum=1)
        n_blocks = check_int(n_blocks, "n_blocks", minimum=0)
        dropout = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.inp = nn.Linear(in_dim, width)
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(n_blocks))
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(width, out_dim)

    def forward(self, h):
        h = torch.relu(self.inp(h))
        for layer in self.blocks:
            h = torch.relu(self.drop(layer(h)) + h)
        return self.out(h)


@dataclass(frozen=True)
class FitHistory:
    """What ``fit`` did: the mean training loss per epoch, optimiser steps, wall seconds."""

    loss: tuple[float, ...]
    n_steps: int
    seconds: float


class _Posterior(nn.Module):
    """Shared plumbing: network on concat(theta, c, t) with c = x or summary_net(x), input checks,
    the AdamW training loop (the summary network is trained jointly)."""

    def __init__(self, theta_dim, cond_dim, *, width, n_blocks, dropout, summary_net):
        super().__init__()
        self.theta_dim = check_int(theta_dim, "theta_dim", minimum=1)
        self.cond_dim = check_int(cond_dim, "cond_dim", minimum=1)
        if summary_net is not None and not isinstance(summary_net, nn.Module):
            raise TypeError(
                f"summary_net must be a torch.nn.Module or None, got {type(summary_net).__name__}"
            )
        self.summary_net = summary_net
        self.net = ResidualMLP(
            self.theta_dim + self.cond_dim + 1,
            self.theta_dim,
            width=width,
            n_blocks=n_blocks,
            dropout=dropout,
        )
        self.eval()  # deterministic outside fit (fit switches to train mode and back)

    @property
    def _dtype(self):
        return self.net.out.weight.dtype

    @property
    def _device(self):
        return self.net.out.weight.device

    def _theta(self, theta, name="theta"):
        return as_tensor(theta, name, ndim=2, dtype=self._dtype, shape=(None, self.theta_dim)).to(
            self._device
        )

    def _data(self, x, name="x"):
        """x as a tensor: [B, cond_dim] without a summary network, [B, ...] with one."""
        if self.summary_net is None:
            return as_tensor(x, name, ndim=2, dtype=self._dtype, shape=(None, self.cond_dim)).to(
                self._device
            )
        return as_tensor(x, name, ndim=(2, 3, 4, 5, 6), dtype=self._dtype).to(self._device)

    def _condition(self, x, name="x"):
        """The condition c [B, cond_dim] of data tensor x (from :meth:`_data`)."""
        if self.summary_net is None:
            return x
        return summarise(self.summary_net, x, self.cond_dim, name)

    def _cond(self, x, name="x"):
        return self._condition(self._data(x, name), name)

    def _state_and_condition(self, theta_t, x):
        theta_t = self._theta(theta_t, "theta_t")
        x = self._cond(x)
        if theta_t.shape[0] != x.shape[0]:
            raise ValueError(
                f"x has {x.shape[0]} rows but theta_t has {theta_t.shape[0]}; they must match"
            )
        return theta_t, x

    def _network(self, theta_t, t, x):
        return self.net(torch.cat([theta_t, x, t[:, None]], dim=1))

    def _prepare(self, theta):  # hook: CMPE sets sigma2 from the training draws
        pass

    def _loss(self, theta, x, step, total, generator):
        raise NotImplementedError

    def fit(self, theta, x, *, epochs, batch_size=64, lr=5e-4, weight_decay=1e-5, generator=None):
        """Train on simulations (theta [M, theta_dim], x [M, cond_dim] or [M, ...] with a summary
        network) for ``epochs`` passes of shuffled mini-batches: ``torch.optim.AdamW`` with the
        learning rate decayed from ``lr`` to 0 by a cosine over the K = epochs * ceil(M /
        batch_size) steps (the authors' schedule). Returns a :class:`FitHistory`."""
        theta = self._theta(theta)
        x = self._data(x)
        if theta.shape[0] != x.shape[0]:
            raise ValueError(
                f"x has {x.shape[0]} rows but theta has {theta.shape[0]}; they must match"
            )
        epochs = check_int(epochs, "epochs", minimum=1)
        batch_size = check_int(batch_size, "batch_size", minimum=1)
        lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
        generator = check_generator(generator)
        self._prepare(theta)
        m = theta.shape[0]
        per_epoch = math.ceil(m / batch_size)
        total = epochs * per_epoch
        opt = torch.optim.AdamW(self.parameters(), lr=lr, weight_decay=weight_decay)
        # cosine decay of the learning rate to 0 over the K steps: BayesFlow 1.x's default
        # schedule, which the authors' training scripts use
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total)
        self.train()
        losses, step, start = [], 0, time.perf_counter()
        for _ in range(epochs):
            perm = torch.randperm(m, generator=generator, device="cpu").to(self._device)
            acc = 0.0
            for b in range(per_epoch):
                idx = perm[b * batch_size : (b + 1) * batch_size]
                loss = self._loss(theta[idx], self._condition(x[idx]), step, total, generator)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                sched.step()
                acc += float(loss.detach()) * idx.shape[0]
                step += 1
            losses.append(acc / m)
        self.eval()
        return FitHistory(tuple(losses), step, time.perf_counter() - start)

    def _randn(self, shape, generator):
        return torch.randn(shape, generator=generator, dtype=self._dtype, device="cpu").to(
            self._device
        )

    def _sample_inputs(self, x, n_samples, n_steps, generator):
        was_training = self.training
        self.eval()
        c = self._cond(x)  # the summary network runs once per data set, not per draw
        n_samples = check_int(n_samples, "n_samples", minimum=1)
        n_steps = check_int(n_steps, "n_steps", minimum=1)
        generator = check_generator(generator)
        return c, c.repeat_interleave(n_samples, dim=0), n_samples, n_steps, generator, was_training


class ConsistencyPosterior(_Posterior):
    """Consistency model posterior estimation (Schmitt et al., NeurIPS 2024).

    ``consistency(theta_t, t, x) = c_skip(t) theta_t + c_out(t) F(theta_t, t, x)`` with
    ``c_skip = sigma2 / ((t - eps)^2 + sigma2)``, ``c_out = sigma (t - eps) / sqrt(sigma2 + t^2)``
    (per dimension), the identity at ``t = eps``. ``sigma2=None`` uses the per-dimension
    variance of the ``theta`` given to :meth:`fit` (1 before fitting); a float or a
    [theta_dim] sequence fixes it. ``huber``: ``"elementwise"`` (the authors' code: pseudo-Huber per
    coordinate, averaged) or ``"vector"`` (Song & Dhariwal: on the Euclidean norm), c = 0.00054 sqrt(D).
    ``summary_net``: an ``nn.Module`` mapping the data x [B, ...] to the condition [B, cond_dim]
    (e.g. :class:`DeepSet` for i.i.d. observations), trained jointly by :meth:`fit`; without it x
    is the condition and must be [B, cond_dim].
    """

    def __init__(
        self,
        theta_dim,
        cond_dim,
        *,
        width=256,
        n_blocks=2,
        dropout=0.05,
        eps=1e-3,
        t_max=10.0,
        s0=10,
        s1=50,
        rho=7.0,
        sigma2=None,
        huber="elementwise",
        summary_net=None,
    ):
        super().__init__(
            theta_dim,
            cond_dim,
            width=width,
            n_blocks=n_blocks,
            dropout=dropout,
            summary_net=summary_net,
        )
        self.eps = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
        self.t_max = check_float(t_max, "t_max", minimum=0.0, min_inclusive=False)
        if self.t_max <= self.eps:
            raise ValueError(f"t_max must be larger than eps={self.eps}, got {t_max}")
        self.s0 = check_int(s0, "s0", minimum=1)
        self.s1 = check_int(s1, "s1", minimum=1)
        if self.s1 < self.s0:
            raise ValueError(f"s1 must be at least s0={self.s0}, got {s1}")
        self.rho = check_float(rho, "rho", minimum=0.0, min_inclusive=False)
        self.huber = check_option(huber, "huber", ("elementwise", "vector"))
        self.sigma2_from_data = sigma2 is None
        if sigma2 is None:
            s2 = torch.ones(self.theta_dim)
        else:
            if isinstance(sigma2, int | float | np.floating | np.integer) and not isinstance(
                sigma2, bool
            ):
                s2 = torch.full(
                    (self.theta_dim,),
                    check_float(sigma2, "sigma2", minimum=0.0, min_inclusive=False),
                )
            else:
                s2 = as_tensor(
                    sigma2, "sigma2", ndim=1, dtype=torch.float64, shape=(self.theta_dim,)
                )
                if bool((s2 <= 0).any()):
                    raise ValueError(f"sigma2 must be positive, got min {float(s2.min())}")
        self.register_buffer("sigma2", s2.to(torch.get_default_dtype()))
        self.c_huber = 0.00054 * math.sqrt(self.theta_dim)

    def _prepare(self, theta):
        if self.sigma2_from_data:
            if theta.shape[0] < 2:
                raise ValueError(
                    f"theta needs at least 2 rows to estimate sigma2, got {theta.shape[0]}"
                )
            var = theta.var(dim=0, unbiased=False)
            if bool((var <= 0).any()):
                raise ValueError(
                    "theta has a constant column: its variance (sigma2) is 0; pass sigma2"
                )
            self.sigma2.copy_(var.to(self.sigma2.dtype))

    def _coefficients(self, t):
        s2 = self.sigma2.to(t.dtype)[None, :]
        tt = t[:, None]
        c_skip = s2 / ((tt - self.eps) ** 2 + s2)
        c_out = torch.sqrt(s2) * (tt - self.eps) / torch.sqrt(s2 + tt**2)
        return c_skip, c_out

    def _f(self, theta_t, t, x):
        c_skip, c_out = self._coefficients(t)
        return c_skip * theta_t + c_out * self._network(theta_t, t, x)

    def consistency(self, theta_t, t, x):
        """f(theta_t, t, x) for theta_t [B, theta_dim], x [B, cond_dim], t a float or [B]."""
        theta_t, x = self._state_and_condition(theta_t, x)
        t = as_time(t, "t", batch=theta_t.shape[0], dtype=self._dtype).to(self._device)
        return self._f(theta_t, t, x)

    def _loss(self, theta, x, step, total, generator):
        n = discretization_steps(step, total, s0=self.s0, s1=self.s1)
        grid = torch.as_tensor(karras_grid(self.eps, self.t_max, n, rho=self.rho))
        log_t = torch.log(grid)
        erf = torch.special.erf((log_t - P_MEAN) / (math.sqrt(2.0) * P_STD))
        probs = (erf[1:] - erf[:-1]).clamp_min(0.0)
        i = torch.multinomial(probs, theta.shape[0], replacement=True, generator=generator)
        t1 = grid[i].to(self._dtype).to(self._device)
        t2 = grid[i + 1].to(self._dtype).to(self._device)
        z = self._randn(theta.shape, generator)
        with torch.no_grad():
            teacher = self._f(theta + t1[:, None] * z, t1, x)
        student = self._f(theta + t2[:, None] * z, t2, x)
        lam = 1.0 / (t2 - t1)
        diff = student - teacher
        c2 = self.c_huber**2
        if self.huber == "elementwise":
            d = torch.sqrt(diff**2 + c2) - self.c_huber
            return (lam[:, None] * d).mean()
        d = torch.sqrt((diff**2).sum(dim=1) + c2) - self.c_huber
        return (lam * d).mean()

    @torch.no_grad()
    def sample(self, x, n_samples, *, n_steps=10, generator=None):
        """Multistep consistency sampling: ``n_steps`` network evaluations per draw on the reversed
        Karras grid of ``n_steps + 1`` points (t_max first, eps left out). Returns
        [B, n_samples, theta_dim]."""
        x, xr, n_samples, n_steps, generator, was_training = self._sample_inputs(
            x, n_samples, n_steps, generator
        )
        taus = karras_grid(self.eps, self.t_max, n_steps + 1, rho=self.rho)[::-1]
        rows = xr.shape[0]
        theta = self._f(
            self.t_max * self._randn((rows, self.theta_dim), generator),
            torch.full((rows,), self.t_max, dtype=self._dtype, device=self._device),
            xr,
        )
        for tau in taus[1:n_steps]:
            noise = math.sqrt(max(tau**2 - self.eps**2, 0.0))
            theta_t = theta + noise * self._randn(theta.shape, generator)
            theta = self._f(
                theta_t, torch.full((rows,), tau, dtype=self._dtype, device=self._device), xr
            )
        self.train(was_training)
        return theta.reshape(x.shape[0], n_samples, self.theta_dim)


class FlowMatchingPosterior(_Posterior):
    """Flow-matching posterior estimation (FMPE, Dax et al. 2023), the paper's baseline, on the
    same network: theta_t = t theta + (1 - (1 - sigma_min) t) z, target velocity
    theta - (1 - sigma_min) z, t ~ U(0, 1); sampling integrates the ODE with ``n_steps`` Euler
    steps from t = 0 (noise) to 1. ``summary_net`` as in :class:`ConsistencyPosterior`."""

    def __init__(
        self,
        theta_dim,
        cond_dim,
        *,
        width=256,
        n_blocks=2,
        dropout=0.05,
        sigma_min=1e-4,
        summary_net=None,
    ):
        super().__init__(
            theta_dim,
            cond_dim,
            width=width,
            n_blocks=n_blocks,
            dropout=dropout,
            summary_net=summary_net,
        )
        self.sigma_min = check_float(
            sigma_min, "sigma_min", minimum=0.0, maximum=1.0, max_inclusive=False
        )

    def velocity(self, theta_t, t, x):
        """The learned velocity field v(theta_t, t, x); t a float in [0, 1] or [B]."""
        theta_t, x = self._state_and_condition(theta_t, x)
        if isinstance(t, int | float) and not isinstance(t, bool):
            t = torch.full((theta_t.shape[0],), check_float(t, "t", minimum=0.0, maximum=1.0))
        else:
            t = as_tensor(t, "t", ndim=1, dtype=self._dtype, shape=(theta_t.shape[0],))
        return self._network(theta_t, t.to(self._dtype).to(self._device), x)

    def _loss(self, theta, x, step, total, generator):
        t = torch.rand(theta.shape[0], generator=generator, dtype=self._dtype).to(self._device)
        z = self._randn(theta.shape, generator)
        theta_t = t[:, None] * theta + (1.0 - (1.0 - self.sigma_min) * t[:, None]) * z
        target = theta - (1.0 - self.sigma_min) * z
        return ((self._network(theta_t, t, x) - target) ** 2).mean()

    @torch.no_grad()
    def sample(self, x, n_samples, *, n_steps=1000, generator=None):
        """Euler integration with ``n_steps`` network evaluations per draw; [B, n_samples, theta_dim]."""
        x, xr, n_samples, n_steps, generator, was_training = self._sample_inputs(
            x, n_samples, n_steps, generator
        )
        rows = xr.shape[0]
        theta = self._randn((rows, self.theta_dim), generator)
        dt = 1.0 / n_steps
        for j in range(n_steps):
            t = torch.full((rows,), j * dt, dtype=self._dtype, device=self._device)
            theta = theta + dt * self._network(theta, t, xr)
        self.train(was_training)
        return theta.reshape(x.shape[0], n_samples, self.theta_dim)
