"""Training with best-validation model selection (the paper's "final test" protocol)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_generator, check_int
from .graph import induced_subgraph, random_node_blocks
from .synthetic import NodeData

__all__ = ["FitResult", "accuracy", "evaluate", "fit"]


@dataclass(frozen=True)
class FitResult:
    """``test_acc`` is the test accuracy at the best-validation epoch (never the best test)."""

    best_val_acc: float
    test_acc: float
    best_epoch: int
    train_losses: tuple[float, ...]


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return float((logits.argmax(dim=-1) == y).float().mean()) if y.numel() else float("nan")


@torch.no_grad()
def evaluate(model: nn.Module, data: NodeData) -> dict[str, float]:
    """Full-graph inference in eval mode: accuracy on the train, val and test nodes."""
    model.eval()
    out = model(data.x, data.edge_index)
    return {
        name: accuracy(out[idx], data.y[idx])
        for name, idx in (("train", data.train_idx), ("val", data.val_idx), ("test", data.test_idx))
    }


def fit(
    model: nn.Module,
    data: NodeData,
    *,
    epochs: int = 200,
    lr: float = 0.01,
    weight_decay: float = 5e-4,
    trans_weight_decay: float | None = None,
    batch_size: int | None = None,
    generator=None,
) -> FitResult:
    """Adam on cross-entropy over the training nodes; full batch, or (``batch_size``) every epoch
    random node blocks with their induced subgraphs (the paper's mini-batching). Evaluates on
    the full graph every epoch and restores the best-validation weights at the end."""
    if not isinstance(data, NodeData):
        raise TypeError(f"data must be a NodeData, got {type(data).__name__}")
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
    if batch_size is not None:
        batch_size = check_int(batch_size, "batch_size", minimum=1)
    g = check_generator(generator)
    if hasattr(model, "param_groups"):
        twd = weight_decay if trans_weight_decay is None else trans_weight_decay
        params = model.param_groups(twd, weight_decay)
    else:
        params = [{"params": list(model.parameters()), "weight_decay": weight_decay}]
    opt = torch.optim.Adam(params, lr=lr)
    n = data.num_nodes
    is_train = torch.zeros(n, dtype=torch.bool)
    is_train[data.train_idx] = True
    best = (-1.0, float("nan"), -1)
    best_state = copy.deepcopy(model.state_dict())
    losses = []
    for epoch in range(epochs):
        model.train()
        blocks = (
            [torch.arange(n)]
            if batch_size is None
            else random_node_blocks(n, batch_size, generator=g)
        )
        total = 0.0
        for nodes in blocks:
            mask = is_train[nodes]
            if not bool(mask.any()):
                continue
            ei = (
                data.edge_index
                if batch_size is None
                else induced_subgraph(data.edge_index, nodes, num_nodes=n)
            )
            out = model(data.x[nodes], ei)
            loss = F.cross_entropy(out[mask], data.y[nodes][mask])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        losses.append(total / len(blocks))
        acc = evaluate(model, data)
        if acc["val"] > best[0]:
            best = (acc["val"], acc["test"], epoch)
            best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    return FitResult(best[0], best[1], best[2], tuple(losses))
