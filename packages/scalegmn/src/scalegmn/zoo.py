"""Zoos of small trained MLPs: the CPU stand-in for INR datasets and CNN zoos.

All networks of a zoo are trained at once (batched matrix products, full-batch Adam), so a zoo
of hundreds of networks builds in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._checks import check_float, check_generator, check_int, check_option
from ._validation import check_layer_dims
from .symmetry import ACTIVATIONS, _forward

__all__ = ["FUNCTION_CLASSES", "Zoo", "function_zoo", "grid", "target_functions"]

FUNCTION_CLASSES = ("wave", "bump", "saddle", "step")


@dataclass(frozen=True)
class Zoo:
    """Trained networks: ``weights[l]`` [N, d_l, d_{l-1}], ``biases[l]`` [N, d_l], integer
    ``labels`` [N] (function class), final training ``loss`` [N] (MSE on the grid)."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    labels: torch.Tensor
    loss: torch.Tensor
    layer_dims: tuple[int, ...]
    activation: str
    omega0: float

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, index) -> Zoo:
        """The networks at ``index`` (a slice, index tensor or bool mask)."""
        return Zoo(
            [w[index] for w in self.weights],
            [b[index] for b in self.biases],
            self.labels[index],
            self.loss[index],
            self.layer_dims,
            self.activation,
            self.omega0,
        )


def grid(n_side: int = 16) -> torch.Tensor:
    """[n_side^2, 2] points of a regular grid on [-1, 1]^2."""
    n_side = check_int(n_side, "n_side", minimum=2)
    t = torch.linspace(-1.0, 1.0, n_side)
    return torch.cartesian_prod(t, t)


def target_functions(labels, x, *, generator=None) -> torch.Tensor:
    """Random member of each function class (``labels`` [N] into FUNCTION_CLASSES) at points
    ``x`` [P, 2] -> [N, P]: wave sin(a u.x + c), Gaussian bump, rotated saddle x1 x2, smooth
    step tanh(k (u.x - t))."""
    generator = check_generator(generator)
    n = labels.shape[0]

    def u(*shape, lo=0.0, hi=1.0):
        return lo + (hi - lo) * torch.rand(*shape, generator=generator)

    ang = u(n, 1, hi=2 * math.pi)
    dirs = torch.cat([torch.cos(ang), torch.sin(ang)], dim=1)  # [N, 2]
    proj = dirs @ x.T  # [N, P]
    center = u(n, 2, lo=-0.5, hi=0.5)
    wave = torch.sin(u(n, 1, lo=2.0, hi=4.0) * proj + u(n, 1, hi=2 * math.pi))
    r2 = ((x.unsqueeze(0) - center.unsqueeze(1)) ** 2).sum(-1)
    bump = 2.0 * torch.exp(-r2 / u(n, 1, lo=0.1, hi=0.3)) - 1.0
    ortho = torch.stack([-dirs[:, 1], dirs[:, 0]], dim=1) @ x.T
    saddle = u(n, 1, lo=1.5, hi=2.5) * proj * ortho
    step = torch.tanh(u(n, 1, lo=3.0, hi=8.0) * (proj - u(n, 1, lo=-0.4, hi=0.4)))
    all_f = torch.stack([wave, bump, saddle, step])  # [C, N, P]
    return all_f[labels, torch.arange(n)]


def function_zoo(
    n_networks,
    *,
    layer_dims=(2, 16, 16, 1),
    activation="tanh",
    num_classes=4,
    steps=400,
    lr=0.01,
    omega0=1.0,
    n_side=16,
    generator=None,
) -> Zoo:
    """Fit ``n_networks`` MLPs (``activation`` on hidden layers) to random 2-D functions of
    ``num_classes`` classes (balanced labels; see :func:`target_functions`) with full-batch Adam
    on an ``n_side`` x ``n_side`` grid. Returns a :class:`Zoo`; ``labels`` are the classes."""
    n = check_int(n_networks, "n_networks", minimum=1)
    dims = check_layer_dims(layer_dims)
    if dims[0] != 2:
        raise ValueError(f"layer_dims must start with 2 inputs (2-D functions), got {list(dims)}")
    if dims[-1] != 1:
        raise ValueError(f"layer_dims must end with 1 output, got {list(dims)}")
    check_option(activation, "activation", ACTIVATIONS)
    C = check_int(num_classes, "num_classes", minimum=1, maximum=len(FUNCTION_CLASSES))
    steps = check_int(steps, "steps", minimum=0)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    omega0 = check_float(omega0, "omega0", minimum=0.0, min_inclusive=False)
    generator = check_generator(generator)
    x = grid(n_side)
    labels = torch.arange(n) % C
    labels = labels[torch.randperm(n, generator=generator)]
    y = target_functions(labels, x, generator=generator)  # [N, P]
    ws, bs = [], []
    for l in range(1, len(dims)):
        bound = 1.0 / math.sqrt(dims[l - 1])
        if activation == "sine" and l > 1:
            bound = math.sqrt(6.0 / dims[l - 1]) / omega0  # SIREN initialisation
        w = (2 * torch.rand(n, dims[l], dims[l - 1], generator=generator) - 1) * bound
        b = (2 * torch.rand(n, dims[l], generator=generator) - 1) * bound
        ws.append(w.requires_grad_())
        bs.append(b.requires_grad_())
    opt = torch.optim.Adam(ws + bs, lr=lr)
    xb = x.expand(n, *x.shape)
    with torch.enable_grad():
        for _ in range(steps):
            opt.zero_grad()
            pred = _forward(ws, bs, xb, activation, omega0)[..., 0]
            loss = ((pred - y) ** 2).mean(dim=1).sum()
            loss.backward()
            opt.step()
    with torch.no_grad():
        pred = _forward(ws, bs, xb, activation, omega0)[..., 0]
        mse = ((pred - y) ** 2).mean(dim=1)
    return Zoo(
        [w.detach() for w in ws],
        [b.detach() for b in bs],
        labels,
        mse,
        dims,
        activation,
        omega0,
    )
