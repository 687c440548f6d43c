"""Summary networks for set-valued data (i.i.d. observations), trained jointly with a posterior."""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_int, check_option, check_tensor
from ._validation import as_tensor

__all__ = ["DeepSet"]


def _mlp(in_dim, width, out_dim, n_layers):
    layers, d = [], in_dim
    for _ in range(n_layers - 1):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    layers.append(nn.Linear(d, out_dim))
    return nn.Sequential(*layers)


class DeepSet(nn.Module):
    """Permutation-invariant summary network (Zaheer et al., 2017):
    ``rho(pool_j phi(x_j))`` for a set ``x`` [B, n, input_dim] of ``n`` exchangeable
    observations, returning [B, summary_dim].

    ``phi`` (per element) and ``rho`` (after pooling) are ReLU MLPs of ``n_layers`` linear
    layers of ``width`` units (``phi`` ends in a ReLU, so pooled features are non-negative
    activations); ``pooling`` is ``"mean"`` (default: invariant to the set size as well) or
    ``"sum"``. Pass it as ``summary_net=`` to :class:`ConsistencyPosterior` or
    :class:`FlowMatchingPosterior` (with ``cond_dim=summary_dim``) to train it end to end, or as
    sbi's ``embedding_net``.
    """

    def __init__(self, input_dim, summary_dim, *, width=64, n_layers=2, pooling="mean"):
        super().__init__()
        self.input_dim = check_int(input_dim, "input_dim", minimum=1)
        self.summary_dim = check_int(summary_dim, "summary_dim", minimum=1)
        width = check_int(width, "width", minimum=1)
        n_layers = check_int(n_layers, "n_layers", minimum=1)
        self.pooling = check_option(pooling, "pooling", ("mean", "sum"))
        self.phi = nn.Sequential(_mlp(self.input_dim, width, width, n_layers), nn.ReLU())
        self.rho = _mlp(width, width, self.summary_dim, n_layers)

    def forward(self, x):
        """x [B, n, input_dim] -> [B, summary_dim]. A tensor is used as it is (gradients flow);
        a numpy array or nested list is converted to the module's dtype."""
        shape = (None, None, self.input_dim)
        if isinstance(x, torch.Tensor):
            check_tensor(x, "x", ndim=3, shape=shape)
        else:
            dtype = self.rho[-1].weight.dtype
            x = as_tensor(x, "x", ndim=3, dtype=dtype, shape=shape).to(self.rho[-1].weight.device)
        h = self.phi(x)
        pooled = h.mean(dim=1) if self.pooling == "mean" else h.sum(dim=1)
        return self.rho(pooled)


def summarise(summary_net, x: torch.Tensor, cond_dim: int, name: str = "x") -> torch.Tensor:
    """Apply ``summary_net`` and check that it returns [B, cond_dim]."""
    out = summary_net(x)
    if not isinstance(out, torch.Tensor) or out.shape != (x.shape[0], cond_dim):
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(
            f"summary_net must map {name} [{x.shape[0]}, ...] to [{x.shape[0]}, {cond_dim}] "
            f"(cond_dim), got {got}"
        )
    return out
