"""Training loops: ``fit_lambda`` (λ network only, backbone frozen) and ``finetune`` (everything)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_int, check_option, describe

__all__ = ["TrainResult", "finetune", "fit_lambda"]


@dataclass(frozen=True)
class TrainResult:
    """``losses``: the training loss at every step; ``steps``: how many steps ran."""

    losses: tuple[float, ...]
    steps: int


def _check_pair(batch: Any) -> None:
    if not (isinstance(batch, tuple | list) and len(batch) == 2):
        raise TypeError(f"loader must yield (x, y) pairs, got {describe(batch)}")


def _batches(loader: Any) -> Iterable:
    if not isinstance(loader, Iterable) or isinstance(loader, str | bytes | torch.Tensor):
        raise TypeError(f"loader must be an iterable of (x, y) batches, got {describe(loader)}")
    first = iter(loader)
    try:
        item = next(first)
    except StopIteration:
        raise ValueError("loader must yield at least one (x, y) batch, got none") from None
    _check_pair(item)
    return itertools.chain([item], first, itertools.chain.from_iterable(itertools.repeat(loader)))


def _run(
    wrapper: nn.Module,
    loader: Any,
    params: list[torch.Tensor],
    *,
    steps: int,
    lr: float,
    loss_fn: Callable | None,
    optimizer: str,
) -> TrainResult:
    steps = check_int(steps, "steps", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    check_option(optimizer, "optimizer", ("adam", "sgd"))
    if loss_fn is not None and not callable(loss_fn):
        raise TypeError(
            f"loss_fn must be None or a callable(output, target), got {describe(loss_fn)}"
        )
    loss_fn = loss_fn or F.cross_entropy
    batches = _batches(loader)
    if not params:
        raise ValueError("wrapper has no trainable parameters for this loop")
    opt = (
        torch.optim.Adam(params, lr=lr)
        if optimizer == "adam"
        else torch.optim.SGD(params, lr=lr, momentum=0.9)
    )
    was_training = wrapper.training
    wrapper.train()
    losses = []
    try:
        for _, batch in zip(range(steps), batches, strict=False):
            _check_pair(batch)
            x, y = batch
            opt.zero_grad()
            loss = loss_fn(wrapper(x), y)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    finally:
        wrapper.train(was_training)
    return TrainResult(losses=tuple(losses), steps=len(losses))


def fit_lambda(
    wrapper: nn.Module,
    loader: Any,
    *,
    steps: int = 100,
    lr: float = 1e-3,
    loss_fn: Callable | None = None,
    optimizer: str = "adam",
) -> TrainResult:
    """Train only ``wrapper.weight_net`` (a ``LambdaEquiTune``); the backbone (and a separate
    ``features`` module) stays frozen. ``loader`` yields ``(x, y)`` batches and is cycled;
    ``loss_fn(output, y)`` defaults to cross-entropy. Parameters' ``requires_grad`` is restored."""
    if not (
        isinstance(wrapper, nn.Module)
        and isinstance(getattr(wrapper, "weight_net", None), nn.Module)
    ):
        raise TypeError(
            f"wrapper must be a LambdaEquiTune (with a weight_net), got {describe(wrapper)}"
        )
    lam = list(wrapper.weight_net.parameters())
    lam_ids = {id(p) for p in lam}
    frozen = [p for p in wrapper.parameters() if id(p) not in lam_ids]
    saved = [p.requires_grad for p in frozen]
    for p in frozen:
        p.requires_grad_(False)
    try:
        return _run(
            wrapper,
            loader,
            [p for p in lam if p.requires_grad],
            steps=steps,
            lr=lr,
            loss_fn=loss_fn,
            optimizer=optimizer,
        )
    finally:
        for p, r in zip(frozen, saved, strict=True):
            p.requires_grad_(r)


def finetune(
    wrapper: nn.Module,
    loader: Any,
    *,
    steps: int = 100,
    lr: float = 1e-3,
    loss_fn: Callable | None = None,
    optimizer: str = "adam",
) -> TrainResult:
    """Train every trainable parameter of ``wrapper`` (backbone and, for λ-EquiTune, λ) on
    ``(x, y)`` batches from ``loader`` (cycled); ``loss_fn`` defaults to cross-entropy."""
    if not isinstance(wrapper, nn.Module):
        raise TypeError(f"wrapper must be a torch.nn.Module, got {describe(wrapper)}")
    params = [p for p in wrapper.parameters() if p.requires_grad]
    return _run(wrapper, loader, params, steps=steps, lr=lr, loss_fn=loss_fn, optimizer=optimizer)
