"""Embedding models of a hierarchy (PyTorch, the ``torch`` extra) and their training loop.

Every model maps node pairs to ``log_prob(u, v)`` = log P(u -> v) (u above v) and
``log_prob_matrix()`` [n, n] for evaluation over all ordered pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ._checks import check_float, check_generator, check_int, check_option
from .metrics import best_f1
from .sampling import PairSampler

__all__ = ["BoxEmbedding", "SimVec", "TrainHistory", "train"]

_EULER_GAMMA = 0.5772156649015329


def _as_index(x, name: str, n: int) -> torch.Tensor:
    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(x)
    if x.is_floating_point() or x.dtype == torch.bool or x.is_complex():
        raise TypeError(f"{name} must hold integer node indices, got dtype {x.dtype}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= n):
        raise ValueError(f"{name} must hold node indices in [0, {n}), got {int(x.max())}")
    return x.long()


def _check_init_side(value) -> tuple[float, float]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(f"init_side must be a pair (lo, hi), got {type(value).__name__} {value!r}")
    lo = check_float(value[0], "init_side", minimum=0.0, min_inclusive=False)
    hi = check_float(value[1], "init_side", maximum=1.0, max_inclusive=False)
    if lo > hi:
        raise ValueError(f"init_side must have lo <= hi, got {value!r}")
    return lo, hi


class _PairModel(nn.Module):
    num_nodes: int

    def forward(self, u, v) -> torch.Tensor:
        return self.log_prob(u, v)

    def _pair(self, u, v):
        u = _as_index(u, "u", self.num_nodes)
        v = _as_index(v, "v", self.num_nodes)
        if u.shape != v.shape:
            raise ValueError(f"v has shape {tuple(v.shape)} but u has {tuple(u.shape)}")
        return u, v

    @torch.no_grad()
    def log_prob_matrix(self) -> torch.Tensor:
        """log P(u -> v) for every ordered pair, [n, n] (row u, column v)."""
        n = self.num_nodes
        rows = []
        idx = torch.arange(n, device=self._device())
        for start in range(0, n, 256):
            u = idx[start : start + 256]
            uu = u[:, None].expand(-1, n)
            vv = idx[None, :].expand(u.numel(), -1)
            rows.append(self.log_prob(uu.reshape(-1), vv.reshape(-1)).reshape(u.numel(), n))
        return torch.cat(rows)

    def _device(self):
        return next(self.parameters()).device


class SimVec(_PairModel):
    """SIM-VEC: P(u -> v) = sigmoid(<s_u, t_v> + b), a source and a target vector per node.
    No transitivity bias: it can only fit the entries it is shown."""

    def __init__(self, num_nodes, dim, *, init_scale=0.1, generator=None):
        super().__init__()
        self.num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
        self.dim = check_int(dim, "dim", minimum=1)
        scale = check_float(init_scale, "init_scale", minimum=0.0)
        gen = check_generator(generator)
        self.source = nn.Parameter(torch.randn(self.num_nodes, self.dim, generator=gen) * scale)
        self.target = nn.Parameter(torch.randn(self.num_nodes, self.dim, generator=gen) * scale)
        self.bias = nn.Parameter(torch.zeros(()))

    def log_prob(self, u, v) -> torch.Tensor:
        u, v = self._pair(u, v)
        return F.logsigmoid((self.source[u] * self.target[v]).sum(-1) + self.bias)


class BoxEmbedding(_PairModel):
    """GT-BOX: node u is a box [z_u, Z_u] in R^dim; P(u -> v) = Vol(B_u ∩ B_v) / Vol(B_v).

    Gumbel intersection with temperature ``intersection_temp`` (beta): the corners of the
    intersection are beta * logsumexp(z / beta) and -beta * logsumexp(-Z / beta); volumes are
    softplus-smoothed with temperature ``volume_temp``: Vol = prod_d T softplus((Z - z - 2 gamma
    beta) / T), gamma the Euler constant (Dasgupta et al. 2020, as in the paper's GT-BOX).
    Containment is transitive, the inductive bias that lets boxes infer the omitted entries.
    """

    def __init__(
        self,
        num_nodes,
        dim,
        *,
        volume_temp=0.1,
        intersection_temp=0.01,
        init_side=(0.1, 0.5),
        generator=None,
    ):
        super().__init__()
        self.num_nodes = check_int(num_nodes, "num_nodes", minimum=1)
        self.dim = check_int(dim, "dim", minimum=1)
        self.volume_temp = check_float(volume_temp, "volume_temp", minimum=0.0, min_inclusive=False)
        self.intersection_temp = check_float(
            intersection_temp, "intersection_temp", minimum=0.0, min_inclusive=False
        )
        gen = check_generator(generator)
        n, d = self.num_nodes, self.dim
        lo, hi = _check_init_side(init_side)
        side = lo + (hi - lo) * torch.rand(n, d, generator=gen)
        z = torch.rand(n, d, generator=gen) * (1.0 - side)
        self.min_corner = nn.Parameter(z)
        self.log_side = nn.Parameter(torch.log(side))

    def boxes(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(z, Z): the min and max corners, [n, dim] each (Z = z + exp(log_side) > z)."""
        z = self.min_corner
        return z, z + torch.exp(self.log_side)

    @torch.no_grad()
    def set_boxes(self, z, big) -> None:
        """Set the corners (tensors or arrays [n, dim] with z < big everywhere)."""
        z = torch.as_tensor(z, dtype=self.min_corner.dtype)
        big = torch.as_tensor(big, dtype=self.min_corner.dtype)
        if z.shape != self.min_corner.shape or big.shape != self.min_corner.shape:
            raise ValueError(f"z and big must have shape {tuple(self.min_corner.shape)}")
        if not bool((z < big).all()):
            raise ValueError("big must be > z in every dimension")
        self.min_corner.copy_(z)
        self.log_side.copy_(torch.log(big - z))

    def _log_volume(self, z, big):
        t, beta = self.volume_temp, self.intersection_temp
        side = F.softplus(big - z - 2 * _EULER_GAMMA * beta, beta=1.0 / t)
        return torch.log(side.clamp_min(1e-38)).sum(-1)

    def log_prob(self, u, v) -> torch.Tensor:
        u, v = self._pair(u, v)
        z, big = self.boxes()
        beta = self.intersection_temp
        zu, zv, bu, bv = z[u], z[v], big[u], big[v]
        zi = beta * torch.logaddexp(zu / beta, zv / beta)
        bi = -beta * torch.logaddexp(-bu / beta, -bv / beta)
        out = self._log_volume(zi, bi) - self._log_volume(zv, bv)
        return out.clamp_max(0.0)


@dataclass(frozen=True)
class TrainHistory:
    """F1 (best threshold, all ordered pairs) after ``examples`` training examples; ``loss`` is
    the mean BCE of the batches since the previous evaluation (NaN at 0 examples)."""

    examples: np.ndarray
    f1: np.ndarray
    loss: np.ndarray

    @property
    def final_f1(self) -> float:
        return float(self.f1[-1])


def _log1mexp(x: torch.Tensor) -> torch.Tensor:
    """log(1 - exp(x)) for x <= 0, stable."""
    x = x.clamp_max(-1e-7)
    return torch.where(x > -math.log(2), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))


def train(model, sampler, *, steps=1000, lr=0.01, eval_every=100, optimizer="adam") -> TrainHistory:
    """Train ``model`` (any module with ``log_prob(u, v)`` and ``log_prob_matrix()``) by binary
    cross-entropy on ``sampler``'s batches for ``steps`` steps; evaluate the best-threshold F1
    over all ordered pairs against ``sampler.adj`` (the full hierarchy) at 0 examples, every
    ``eval_every`` steps and at the end. Returns a :class:`TrainHistory`."""
    if not isinstance(model, nn.Module) or not hasattr(model, "log_prob"):
        raise TypeError(
            f"model must be a torch module with log_prob(u, v), got {type(model).__name__}"
        )
    if not isinstance(sampler, PairSampler):
        raise TypeError(f"sampler must be a PairSampler, got {type(sampler).__name__}")
    if sampler.num_nodes != model.num_nodes:
        raise ValueError(
            f"sampler has {sampler.num_nodes} nodes but model has {model.num_nodes}; they must match"
        )
    steps = check_int(steps, "steps", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    eval_every = check_int(eval_every, "eval_every", minimum=1)
    optimizer = check_option(optimizer, "optimizer", ("adam", "sgd"))
    opt_cls = torch.optim.Adam if optimizer == "adam" else torch.optim.SGD
    opt = opt_cls(model.parameters(), lr=lr)
    device = model._device() if hasattr(model, "_device") else torch.device("cpu")

    def evaluate() -> float:
        model.eval()
        scores = model.log_prob_matrix().double().cpu().numpy()
        model.train()
        return best_f1(np.maximum(scores, -1e300), sampler.adj)

    examples, f1s, losses = [0], [evaluate()], [math.nan]
    seen, running, count = 0, 0.0, 0
    for step in range(1, steps + 1):
        u, v, y = sampler.sample()
        u = torch.from_numpy(u).to(device)
        v = torch.from_numpy(v).to(device)
        y = torch.from_numpy(y).to(device=device, dtype=torch.float32)
        logp = model.log_prob(u, v)
        loss = -(y * logp + (1 - y) * _log1mexp(logp)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += int(y.numel())
        running += float(loss.detach())
        count += 1
        if step % eval_every == 0 or step == steps:
            examples.append(seen)
            f1s.append(evaluate())
            losses.append(running / count)
            running, count = 0.0, 0
    return TrainHistory(np.asarray(examples), np.asarray(f1s), np.asarray(losses))
