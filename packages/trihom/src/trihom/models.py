"""Tiny full-batch GCN / MLP node classifiers for the paper's correlation study (extra ``torch``).

``pip install "trihom[torch]"``. torch is imported when a function is called, never by
``import trihom``. Inputs are numpy arrays (or torch tensors, converted); the graph is made simple
and undirected like everywhere in trihom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_float, check_generator, check_int
from ._validation import check_features, check_fraction, check_graph, check_labels

__all__ = ["TrainResult", "train_gcn", "train_mlp"]


@dataclass(frozen=True)
class TrainResult:
    """Accuracy on the training nodes and on the held-out test nodes after the last epoch."""

    train_accuracy: float
    test_accuracy: float


def _numpy(value: Any) -> Any:
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return value


def _import_torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError('trihom.models needs torch: pip install "trihom[torch]"') from e
    return torch


def _train(
    graph_aware: bool,
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    hidden: int,
    epochs: int,
    lr: float,
    weight_decay: float,
    dropout: float,
    train_fraction: float,
    generator: Any,
) -> TrainResult:
    y = check_labels(_numpy(y))
    x = check_features(_numpy(X), y.size)
    g = check_graph(edge_index, y.size)
    hidden = check_int(hidden, "hidden", minimum=1)
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
    dropout = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
    train_fraction = check_fraction(train_fraction, "train_fraction")
    n_train = int(round(train_fraction * y.size))
    if n_train < 1 or n_train >= y.size:
        raise ValueError(
            f"train_fraction={train_fraction} leaves no training or no test node for {y.size} nodes"
        )
    generator = check_generator(generator, "generator")
    torch = _import_torch()
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    c = int(y.max()) + 1
    xt = torch.as_tensor(x, dtype=torch.float32)
    yt = torch.as_tensor(y)
    perm = torch.randperm(y.size, generator=generator)
    train_idx, test_idx = perm[:n_train], perm[n_train:]
    if graph_aware:
        deg = g.degree + 1.0
        dinv = 1.0 / np.sqrt(deg)
        rows = torch.as_tensor(np.concatenate([g.src, np.arange(y.size)]))
        cols = torch.as_tensor(np.concatenate([g.dst, np.arange(y.size)]))
        vals = torch.as_tensor(dinv[rows.numpy()] * dinv[cols.numpy()], dtype=torch.float32)

    def propagate(h):
        """A_hat h by message passing (an index_add; faster than torch's COO sparse mm)."""
        return torch.zeros_like(h).index_add_(0, rows, h[cols] * vals[:, None])

    def init(fan_in: int, fan_out: int):
        bound = float(np.sqrt(6.0 / (fan_in + fan_out)))
        w = (torch.rand(fan_in, fan_out, generator=generator) * 2 - 1) * bound
        return w.requires_grad_(), torch.zeros(fan_out, requires_grad=True)

    w1, b1 = init(x.shape[1], hidden)
    w2, b2 = init(hidden, c)
    params = [w1, b1, w2, b2]
    opt = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)

    def forward(train: bool):
        h = xt
        if train and dropout > 0:
            h = h * (torch.rand(h.shape, generator=generator) >= dropout) / (1 - dropout)
        h = h @ w1
        if graph_aware:
            h = propagate(h)
        h = torch.relu(h + b1)
        if train and dropout > 0:
            h = h * (torch.rand(h.shape, generator=generator) >= dropout) / (1 - dropout)
        h = h @ w2
        if graph_aware:
            h = propagate(h)
        return h + b2

    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(True)[train_idx], yt[train_idx])
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = forward(False).argmax(dim=1)
    return TrainResult(
        train_accuracy=float((pred[train_idx] == yt[train_idx]).float().mean()),
        test_accuracy=float((pred[test_idx] == yt[test_idx]).float().mean()),
    )


def train_gcn(
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    hidden: int = 64,
    epochs: int = 100,
    lr: float = 0.01,
    weight_decay: float = 5e-4,
    dropout: float = 0.5,
    train_fraction: float = 0.5,
    generator: Any = None,
) -> TrainResult:
    """Train a 2-layer GCN (Kipf & Welling, A_hat = D~^{-1/2}(A + I)D~^{-1/2}) full batch with
    Adam on a random ``train_fraction`` of the nodes; test on the rest. ``generator`` (a
    ``torch.Generator``, default seeded 0) drives the split, the init and dropout."""
    return _train(True, **locals())


def train_mlp(
    edge_index: Any,
    X: Any,
    y: Any,
    *,
    hidden: int = 64,
    epochs: int = 100,
    lr: float = 0.01,
    weight_decay: float = 5e-4,
    dropout: float = 0.5,
    train_fraction: float = 0.5,
    generator: Any = None,
) -> TrainResult:
    """The same 2-layer network without the graph (a graph-agnostic MLP); ``edge_index`` only
    fixes the node count check, so the two trainers share one signature."""
    return _train(False, **locals())
