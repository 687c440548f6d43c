"""A reference full-batch trainer (Adam, gradient clipping, optional dynamic rescaling) that logs
accuracies and per-layer relative-gradient norms (the paper's heat-maps)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ._checks import check_float, check_int, check_tensor
from ._validation import check_edge_index, check_features
from .rescale import DynamicRescaler, relative_gradient_norms

__all__ = ["TrainResult", "train_node_classifier"]


@dataclass(frozen=True)
class TrainResult:
    """Per-epoch ``loss``, ``train_acc``, ``val_acc``, ``test_acc`` (accuracy after the epoch's
    forward pass, before its step) and ``rel_grad`` (per layer); ``diverged`` if the loss became
    non-finite (training stopped there)."""

    loss: list[float]
    train_acc: list[float]
    val_acc: list[float]
    test_acc: list[float]
    rel_grad: list[list[float]]
    diverged: bool

    def epochs_to(self, train_acc: float) -> int | None:
        """First epoch whose training accuracy is >= ``train_acc`` (None if never)."""
        train_acc = check_float(train_acc, "train_acc", minimum=0.0, maximum=1.0)
        for i, acc in enumerate(self.train_acc):
            if acc >= train_acc:
                return i
        return None


def _acc(pred, y, mask):
    return float((pred[mask] == y[mask]).float().mean()) if bool(mask.any()) else float("nan")


def train_node_classifier(
    model: nn.Module,
    x: torch.Tensor,
    edge_index: torch.Tensor,
    y: torch.Tensor,
    masks: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    *,
    epochs: int = 200,
    lr: float = 0.01,
    clip: float | None = 3.0,
    rescaler: DynamicRescaler | None = None,
    log_rel_grad: bool = False,
) -> TrainResult:
    """Full-batch cross-entropy training with Adam; ``masks`` = (train, val, test) bool [N].
    Order per epoch (the authors'): ``rescaler.before_forward``, forward, backward,
    ``rescaler.after_backward``, gradient clipping to max-norm ``clip``, Adam step."""
    check_features(x, "x")
    n = x.shape[0]
    check_edge_index(edge_index, "edge_index", num_nodes=n)
    check_tensor(y, "y", ndim=1, dtype="integer", shape=(n,))
    if not isinstance(masks, tuple | list) or len(masks) != 3:
        raise TypeError("masks must be a tuple (train, val, test) of bool tensors")
    for m in masks:
        check_tensor(m, "masks", dtype="bool", shape=(n,))
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    if clip is not None:
        clip = check_float(clip, "clip", minimum=0.0, min_inclusive=False)
    if rescaler is not None and not isinstance(rescaler, DynamicRescaler):
        raise TypeError(
            f"rescaler must be a DynamicRescaler or None, got {type(rescaler).__name__}"
        )
    tr, va, te = masks
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    hist = {k: [] for k in ("loss", "train_acc", "val_acc", "test_acc", "rel_grad")}
    diverged = False
    for epoch in range(epochs):
        model.train()
        if rescaler is not None:
            rescaler.before_forward(epoch)
        opt.zero_grad()
        out = model(x, edge_index)
        loss = nn.functional.cross_entropy(out[tr], y[tr])
        if not torch.isfinite(loss):
            diverged = True
            break
        pred = out.detach().argmax(1)
        hist["loss"].append(float(loss.detach()))
        hist["train_acc"].append(_acc(pred, y, tr))
        hist["val_acc"].append(_acc(pred, y, va))
        hist["test_acc"].append(_acc(pred, y, te))
        loss.backward()
        if rescaler is not None:
            rescaler.after_backward(epoch)
        if log_rel_grad:
            hist["rel_grad"].append(relative_gradient_norms(model))
        if clip is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
    return TrainResult(**hist, diverged=diverged)
