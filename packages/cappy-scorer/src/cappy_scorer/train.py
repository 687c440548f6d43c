"""Fine-tuning a Cappy scorer on (instruction, response, label) pairs with an MSE loss."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._checks import check_float, check_generator, check_int, describe
from ._validation import check_label, check_text
from .scorer import CappyScorer, _model_device

__all__ = ["train_scorer"]


def _check_pairs(pairs: Any) -> list[tuple[str, str, float]]:
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence):
        raise TypeError(
            f"pairs must be a list of (instruction, response, label) tuples, got {describe(pairs)}"
        )
    if len(pairs) == 0:
        raise ValueError("pairs must not be empty, got an empty list")
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str | bytes) or not isinstance(pair, Sequence):
            raise TypeError(
                f"pairs[{i}] must be an (instruction, response, label) tuple, got {describe(pair)}"
            )
        if len(pair) != 3:
            raise ValueError(
                f"pairs[{i}] must have 3 items (instruction, response, label), got {len(pair)}"
            )
        out.append(
            (
                check_text(pair[0], f"pairs[{i}] instruction"),
                check_text(pair[1], f"pairs[{i}] response"),
                check_label(pair[2], f"pairs[{i}] label"),
            )
        )
    return out


def _linear_warmup(total: int, warmup_steps: int):
    """Multiplier of update ``k`` (0-based): linear warm-up to 1 over ``warmup_steps`` updates
    (never 0, so no update is wasted), then linear decay to ``1 / (total - warmup_steps)``."""

    def factor(k: int) -> float:
        if k < warmup_steps:
            return (k + 1) / (warmup_steps + 1)
        return max(total - k, 1) / max(total - warmup_steps, 1)

    return factor


def train_scorer(
    scorer: Any,
    pairs: Any,
    *,
    lr: float = 2e-5,
    epochs: int = 1,
    batch_size: int = 8,
    grad_accum: int = 16,
    warmup: float = 0.1,
    weight_decay: float = 0.0,
    generator: Any = None,
) -> np.ndarray:
    """Fit ``scorer`` in place by mean-squared error between ``logits[:, 0]`` and the labels.

    The paper's recipe: AdamW (``lr``, ``weight_decay``), a linear schedule with ``warmup`` (a
    fraction of all updates) of linear warm-up, micro-batches of ``batch_size`` pairs and one
    update every ``grad_accum`` micro-batches (the last update of an epoch takes what is left),
    ``epochs`` passes over ``pairs`` in an order shuffled by ``generator`` each epoch. Each
    update's gradient is that of the MSE over all its pairs. With a ``generator``, dropout is
    seeded from it too (torch's global RNG is left untouched); without one both use torch's
    global RNG. The model's train/eval mode is restored afterwards.

    Returns the MSE of each update (a float64 array, one entry per optimizer step).
    """
    if not isinstance(scorer, CappyScorer):
        raise TypeError(f"scorer must be a CappyScorer, got {describe(scorer)}")
    data = _check_pairs(pairs)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    epochs = check_int(epochs, "epochs", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    grad_accum = check_int(grad_accum, "grad_accum", minimum=1)
    warmup = check_float(warmup, "warmup", minimum=0.0, maximum=1.0)
    weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
    generator = check_generator(generator, "generator")

    model = scorer.model
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("scorer has no trainable parameters (requires_grad is False everywhere)")
    n = len(data)
    micro_per_epoch = math.ceil(n / batch_size)
    updates_per_epoch = math.ceil(micro_per_epoch / grad_accum)
    total = epochs * updates_per_epoch
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, _linear_warmup(total, int(warmup * total))
    )
    rows = scorer._encode([d[0] for d in data], [d[1] for d in data])
    labels = torch.tensor([d[2] for d in data], dtype=torch.float32)
    device = _model_device(model)

    if generator is not None:
        seed = int(torch.randint(0, 2**62, (1,), generator=generator))
        devices = [device.index or 0] if device.type == "cuda" else []
        rng_scope = torch.random.fork_rng(devices=devices)
    else:
        seed, rng_scope = None, contextlib.nullcontext()

    losses: list[float] = []
    was_training = model.training
    model.train()
    try:
        with rng_scope:
            if seed is not None:
                torch.manual_seed(seed)
            for _ in range(epochs):
                order = torch.randperm(n, generator=generator).tolist()
                micro = [order[i : i + batch_size] for i in range(0, n, batch_size)]
                for start in range(0, len(micro), grad_accum):
                    group = micro[start : start + grad_accum]
                    count = sum(len(m) for m in group)
                    optimizer.zero_grad(set_to_none=True)
                    total_se = 0.0
                    for idx in group:
                        pred = scorer._logits([rows[i] for i in idx])
                        err = pred - labels[idx].to(pred.device)
                        se = (err * err).sum()
                        (se / count).backward()
                        total_se += float(se.detach())
                    optimizer.step()
                    schedule.step()
                    losses.append(total_se / count)
    finally:
        optimizer.zero_grad(set_to_none=True)
        model.train(was_training)
    return np.asarray(losses, dtype=np.float64)
