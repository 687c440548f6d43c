"""Training a ContextBank on cached image features (frozen encoders)."""

from __future__ import annotations

import math
import random as _random
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from ._bank import PERTURB_METHODS, ContextBank
from ._checks import (
    check_bool,
    check_callable,
    check_float,
    check_generator,
    check_int,
    check_tensor,
)
from ._loss import catex_loss
from ._optim import Adam
from ._synth import OutlierSynthesizer


@dataclass(frozen=True)
class FitHistory:
    """Per-epoch mean loss and number of synthesised outliers used."""

    loss: tuple[float, ...]
    n_outliers: tuple[int, ...]


def fit_contexts(
    bank: ContextBank,
    encoder: Callable,
    feats: torch.Tensor,
    labels: torch.Tensor,
    *,
    epochs: int = 20,
    lr: float = 2e-3,
    batch_size: int = 128,
    spurious: bool = True,
    synthesizer: OutlierSynthesizer | None = None,
    start_epoch: int = 2,
    logit_scale: float = 100.0,
    weights: tuple[float, float, float, float, float] = (2.0, 0.5, 1.0, 1.0, 0.1),
    generator: torch.Generator | None = None,
) -> FitHistory:
    """Train ``bank``'s contexts in place on cached image features ``feats`` [n, d] with class
    indices ``labels`` [n] (Adam, cosine schedule). ``spurious=False`` trains the perceptual
    context alone with CE (CoOp; the MCM baseline). With ``spurious=True`` the loss is
    :func:`catex_loss`; outliers come from ``synthesizer`` (fed every batch) from
    ``start_epoch`` on, guided by the anchors (T, perturbed T) of a random perturbation."""
    if not isinstance(bank, ContextBank):
        raise TypeError(f"bank must be a ContextBank, got {type(bank).__name__}")
    check_callable(encoder, "encoder")
    check_tensor(feats, "feats", ndim=2)
    check_tensor(labels, "labels", ndim=1, dtype="integer")
    if labels.shape[0] != feats.shape[0]:
        raise ValueError(
            f"labels has {labels.shape[0]} entries but feats has {feats.shape[0]} rows"
        )
    C = bank.n_classes
    if int(labels.min()) < 0 or int(labels.max()) >= C:
        raise ValueError(f"labels must be in [0, {C - 1}]")
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    spurious = check_bool(spurious, "spurious")
    start_epoch = check_int(start_epoch, "start_epoch", minimum=0)
    if synthesizer is not None and not isinstance(synthesizer, OutlierSynthesizer):
        raise TypeError("synthesizer must be None or an OutlierSynthesizer")
    generator = check_generator(generator, "generator")
    seed = int(torch.randint(0, 2**31, (1,), generator=generator))
    pick = _random.Random(seed)
    params = [bank.ctx, bank.spurious_ctx] if spurious else [bank.ctx]
    opt = Adam(params, lr=lr)
    x = F.normalize(feats.detach(), dim=1)
    n = len(labels)
    steps_per_epoch = math.ceil(n / batch_size)
    total, step = epochs * steps_per_epoch, 0
    losses, counts = [], []
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=generator)
        ep_loss, ep_out = 0.0, 0
        for b in range(steps_per_epoch):
            idx = perm[b * batch_size : (b + 1) * batch_size]
            xb, yb = x[idx], labels[idx]
            opt.lr = lr * 0.5 * (1 + math.cos(math.pi * step / total))
            T, T_sp = bank.text_features(encoder)
            if not spurious:
                loss = F.cross_entropy(logit_scale * xb @ T.T, yb)
            else:
                outs = ol = None
                if synthesizer is not None:
                    synthesizer.update(xb, yb)
                    if epoch >= start_epoch and synthesizer.ready():
                        with torch.no_grad():
                            pert = bank.perturb(pick.choice(PERTURB_METHODS), generator=generator)
                            T_p, _ = pert.text_features(encoder)
                        outs, ol = synthesizer.sample((T.detach(), T_p))
                        ep_out += len(ol)
                        if not len(ol):
                            outs = ol = None
                loss = catex_loss(
                    xb,
                    yb,
                    T,
                    T_sp,
                    outliers=outs,
                    outlier_labels=ol,
                    logit_scale=logit_scale,
                    weights=weights,
                )
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            ep_loss += float(loss.detach()) / steps_per_epoch
        losses.append(ep_loss)
        counts.append(ep_out)
    return FitHistory(tuple(losses), tuple(counts))
