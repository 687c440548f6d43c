"""Neural sampling (inference), local learning and generation in an HEE model.

Every layer's latent neurons follow Langevin dynamics on the energy E = -log p(x_0:L),

    x_l <- x_l - (dt/tau) dE/dx_l + sqrt(2 dt/tau) xi,
    -dE/dx_l = g'(x_l) * (e_{l-1} W[l-1]) + grad_{x_l} log p(x_l | eta_l),
    e_{l-1} = T(x_{l-1}) - A'(eta_{l-1})        (the error neurons),

where A'(eta_{l-1}) is not computed analytically but estimated by a group of fast neurons
(interneurons, time constant tau_fast << tau) sampling p(. | eta_{l-1}): the mean of T over their
``fast_substeps`` steps within each slow step. With ``interneurons=False`` the exact ``grad_A`` is
used instead (a reference). Adaptation acts as momentum:
v <- (1 - alpha) v - (dt/tau) dE/dx + sqrt(2 alpha dt/tau) xi, x <- x + v (underdamped Langevin
with step sqrt(dt/tau) and friction alpha / sqrt(dt/tau); alpha = 1 is first-order Langevin).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ._checks import (
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_option,
    describe,
)
from ._validation import as_tensor, check_layers
from .model import HEE

__all__ = ["GENERATION_MODES", "InferenceResult", "LearnResult", "generate", "infer", "learn"]

GENERATION_MODES = ("marginal", "joint")


@dataclass(frozen=True)
class InferenceResult:
    """What :func:`infer` returns.

    Attributes
    ----------
    samples
        One tensor per latent layer 1..L, ``samples[l-1]`` of shape ``[n_steps, B, d_l]``: the
        state after every step.
    final
        The last state of every layer ``[x_0, x_1, ..., x_L]``.
    errors
        The error signals ``e_l = T(x_l) - A'_hat(eta_l)`` of layers 0..L-1 at the last step.
    fast
        The fast neurons' last state, one ``[B, d_l]`` tensor per layer 0..L-1 (they start at an
        exact draw from p(. | eta) of the initial state); empty with ``interneurons=False``.
    """

    samples: list[torch.Tensor]
    final: list[torch.Tensor]
    errors: list[torch.Tensor]
    fast: list[torch.Tensor]


@dataclass(frozen=True)
class LearnResult:
    """What :func:`learn` returns: the (updated in place) ``model`` and the mean energy
    E(x_0, latents) at the end of each batch's inference, averaged per epoch (``energy``,
    shape ``[epochs]``)."""

    model: HEE
    energy: torch.Tensor


def _check_model(model: Any) -> HEE:
    if not isinstance(model, HEE):
        raise TypeError(f"model must be an HEE model, got {describe(model)}")
    return model


def _check_momentum(momentum: Any) -> float | None:
    if momentum is None:
        return None
    return check_float(momentum, "momentum", minimum=0.0, maximum=1.0, min_inclusive=False)


def _check_data(model: HEE, x0: Any, name: str) -> torch.Tensor:
    x = as_tensor(x0, name, ndim=2, dtype=model.dtype, device=model.device)
    if x.shape[1] != model.layer_sizes[0]:
        raise ValueError(
            f"{name} must have {model.layer_sizes[0]} columns (layer 0), got shape {tuple(x.shape)}"
        )
    model.families[0]._support(x, name)
    return x


class _Dynamics:
    """The shared state and step of inference, learning and joint generation."""

    def __init__(self, model, xs, *, dt, tau, tau_fast, fast_substeps, interneurons, momentum,
                 generator, free_data=False):  # fmt: skip
        self.m = model
        self.xs = xs
        self.eps = dt / tau
        self.h_fast = dt / (tau_fast * fast_substeps)
        self.substeps = fast_substeps
        self.interneurons = interneurons
        self.alpha = momentum
        self.gen = generator
        self.free_data = free_data
        etas = self.etas()
        self.fast = (
            [f._sample(eta, generator) for f, eta in zip(model.families, etas)]
            if interneurons
            else []
        )
        n_moving = len(xs) if free_data else len(xs) - 1
        self.vel = [torch.zeros_like(x) for x in xs[len(xs) - n_moving :]] if momentum else None

    def etas(self):
        return [self.m._eta(layer, self.xs[layer + 1]) for layer in range(self.m.n_layers)]

    def _noise(self, x):
        return torch.randn(x.shape, generator=self.gen, dtype=x.dtype, device=x.device)

    def step(self):
        """One slow step; returns the error signals and g(x_l) of the state before the step."""
        m, xs, gen = self.m, self.xs, self.gen
        etas = self.etas()
        errors = []
        for layer, fam in enumerate(m.families):
            if self.interneurons:
                acc = torch.zeros_like(etas[layer])
                for _ in range(self.substeps):
                    self.fast[layer] = fam._fast_step(
                        self.fast[layer], etas[layer], self.h_fast, gen
                    )
                    acc = acc + fam._T(self.fast[layer])
                a_hat = acc / self.substeps
            else:
                a_hat = fam._grad_A(etas[layer])
            errors.append(fam._T(xs[layer]) - a_hat)
        gs = [None] + [m._g(x) for x in xs[1:]]
        forces = []
        first = 0 if self.free_data else 1
        for k in range(first, m.n_layers + 1):
            if k == 0:
                forces.append(None)  # the data layer moves by its own family's dynamics below
                continue
            f = m._g_prime(xs[k]) * (errors[k - 1] @ m.W[k - 1])
            if k < m.n_layers:
                f = f + m.families[k]._score(xs[k], etas[k])
            else:
                f = f + m._prior_score(xs[k])
            forces.append(f)
        eps = self.eps
        new = list(xs)
        for i, k in enumerate(range(first, m.n_layers + 1)):
            if k == 0:
                fam0 = m.families[0]
                if not fam0.continuous:
                    new[0] = fam0._fast_step(xs[0], etas[0], eps, gen)
                    continue
                f = fam0._score(xs[0], etas[0])
            else:
                f = forces[i]
            if self.alpha is None:
                new[k] = xs[k] + eps * f + math.sqrt(2 * eps) * self._noise(xs[k])
            else:
                a = self.alpha
                v = (1 - a) * self.vel[i] + eps * f + math.sqrt(2 * a * eps) * self._noise(xs[k])
                self.vel[i] = v
                new[k] = xs[k] + v
        self.xs = new
        return errors, gs


def _common(dt, tau, tau_fast, fast_substeps, interneurons, momentum, generator):
    return dict(
        dt=check_float(dt, "dt", minimum=0.0, min_inclusive=False),
        tau=check_float(tau, "tau", minimum=0.0, min_inclusive=False),
        tau_fast=check_float(tau_fast, "tau_fast", minimum=0.0, min_inclusive=False),
        fast_substeps=check_int(fast_substeps, "fast_substeps", minimum=1),
        interneurons=check_bool(interneurons, "interneurons"),
        momentum=_check_momentum(momentum),
        generator=check_generator(generator),
    )


def infer(
    model: HEE,
    x0: Any,
    *,
    n_steps: int,
    dt: float = 0.01,
    tau: float = 1.0,
    tau_fast: float = 0.1,
    fast_substeps: int = 5,
    interneurons: bool = True,
    momentum: float | None = None,
    init: list | None = None,
    generator: torch.Generator | None = None,
) -> InferenceResult:
    """Sample the posterior p(x_1:L | x_0) by neural (Langevin) dynamics with x_0 clamped.

    Parameters
    ----------
    model
        An :class:`HEE` model.
    x0
        Observations ``[B, d_0]`` (tensor or array), clamped.
    n_steps
        Number of slow steps; every state is recorded in ``samples``.
    dt, tau
        Step and time constant of the latent neurons (the step is dt / tau).
    tau_fast, fast_substeps
        Time constant of the fast neurons and their steps per slow step (each of length
        ``dt / (tau_fast * fast_substeps)`` in their own time).
    interneurons
        Estimate A'(eta) with the fast neurons (True) or use the exact ``grad_A`` (False).
    momentum
        None (first-order Langevin) or the adaptation rate alpha in (0, 1].
    init
        Initial latents, a list of L tensors ``[B, d_l]`` (or a full state ``[x0, x1, ..., xL]``,
        whose x0 is ignored; or one tensor when L = 1); default zeros.
    generator
        torch.Generator for all noise.
    """
    model = _check_model(model)
    x = _check_data(model, x0, "x0")
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    kw = _common(dt, tau, tau_fast, fast_substeps, interneurons, momentum, generator)
    B = x.shape[0]
    if init is None:
        latents = [torch.zeros(B, d, dtype=model.dtype, device=model.device)
                   for d in model.layer_sizes[1:]]  # fmt: skip
    else:
        if isinstance(init, torch.Tensor | np.ndarray) and model.n_layers == 1:
            init = [init]  # one latent layer: a single tensor is accepted
        elif isinstance(init, list | tuple) and len(init) == model.n_layers + 1:
            init = list(init)[1:]  # a full state [x0, x1, ..., xL]: x0 is clamped, ignored
        latents = check_layers(init, "init", model.layer_sizes[1:], batch=B, like=model.W[0])
        latents = [t.clone() for t in latents]
    dyn = _Dynamics(model, [x, *latents], **kw)
    samples = [torch.empty(n_steps, B, d, dtype=model.dtype, device=model.device)
               for d in model.layer_sizes[1:]]  # fmt: skip
    errors = None
    for t in range(n_steps):
        errors, _ = dyn.step()
        for k in range(model.n_layers):
            samples[k][t] = dyn.xs[k + 1]
    return InferenceResult(samples=samples, final=dyn.xs, errors=errors, fast=dyn.fast)


def learn(
    model: HEE,
    data: Any,
    *,
    epochs: int,
    lr: float,
    batch_size: int = 100,
    n_steps: int = 50,
    dt: float = 0.05,
    interneurons: bool = True,
    generator: torch.Generator | None = None,
    tau: float = 1.0,
    tau_fast: float = 0.1,
    fast_substeps: int = 5,
    momentum: float | None = None,
    shuffle: bool = True,
) -> LearnResult:
    """Fit ``model`` to ``data`` with the local learning rule, concurrent with inference.

    For every mini-batch the latents start from zero and run ``n_steps`` of :func:`infer`'s
    dynamics (x_0 clamped to the batch); on every step after the first ``n_steps // 3`` each layer
    is updated in place with its own error signal: ``W[l] += lr * mean_B e_l g(x_{l+1})^T`` and
    ``b[l] += lr * mean_B e_l``. There is no negative phase: the fast neurons' estimate of
    A'(eta) inside e_l plays its part. Returns a :class:`LearnResult`.
    """
    model = _check_model(model)
    x = _check_data(model, data, "data")
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    shuffle = check_bool(shuffle, "shuffle")
    kw = _common(dt, tau, tau_fast, fast_substeps, interneurons, momentum, generator)
    gen = kw["generator"]
    n = x.shape[0]
    start = n_steps // 3
    history = []
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
        energies = []
        for lo in range(0, n, batch_size):
            batch = x[order[lo : lo + batch_size].to(x.device)]
            B = batch.shape[0]
            latents = [torch.zeros(B, d, dtype=model.dtype, device=model.device)
                       for d in model.layer_sizes[1:]]  # fmt: skip
            dyn = _Dynamics(model, [batch, *latents], **kw)
            for t in range(n_steps):
                errors, gs = dyn.step()
                if t >= start:
                    for layer in range(model.n_layers):
                        e = errors[layer]
                        model.W[layer] += (lr / B) * (e.T @ gs[layer + 1])
                        model.b[layer] += lr * e.mean(0)
            energies.append(float(model._energy(dyn.xs).mean()))
        history.append(sum(energies) / len(energies))
    return LearnResult(model=model, energy=torch.tensor(history, dtype=torch.float64))


def generate(
    model: HEE,
    n: int,
    *,
    mode: str = "marginal",
    n_steps: int = 1000,
    dt: float = 0.01,
    generator: torch.Generator | None = None,
    tau: float = 1.0,
    tau_fast: float = 0.1,
    fast_substeps: int = 5,
    interneurons: bool = True,
) -> list[torch.Tensor]:
    """Draw ``n`` observations and their latents, ``[x_0, x_1, ..., x_L]`` of ``[n, d_l]``.

    ``mode="marginal"``: ancestral sampling, x_L ~ p(x_L), then x_{l-1} ~ p(. | eta_{l-1}(x_l))
    drawn exactly (the fast samplers' invariant law); ``n_steps``, ``dt`` and the neuron
    options are not used. ``mode="joint"``: all layers, x_0 included, start at zero and run
    ``n_steps`` of the neural dynamics of the joint p(x_0:L) (x_0 by its family's Langevin or jump
    dynamics, A'(eta) from the fast neurons unless ``interneurons=False``).
    """
    model = _check_model(model)
    n = check_int(n, "n", minimum=1)
    mode = check_option(mode, "mode", GENERATION_MODES)
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    kw = _common(dt, tau, tau_fast, fast_substeps, interneurons, None, generator)
    gen = kw["generator"]
    if mode == "marginal":
        xs = [model._sample_prior(n, gen)]
        for layer in reversed(range(model.n_layers)):
            eta = model._eta(layer, xs[0])
            xs.insert(0, model.families[layer]._sample(eta, gen))
        return xs
    xs = [torch.zeros(n, d, dtype=model.dtype, device=model.device) for d in model.layer_sizes]
    dyn = _Dynamics(model, xs, free_data=True, **kw)
    for _ in range(n_steps):
        dyn.step()
    return dyn.xs
