"""A small training loop for metanetworks that classify MLPs (the authors' optimiser settings:
AdamW, weight decay 0.01, gradient-norm clipping at 10, linear warm-up)."""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, check_tensor
from ._validation import check_mlp

__all__ = ["accuracy", "fit_classifier", "predict"]


def _check_model(model):
    if not isinstance(model, nn.Module):
        from ._checks import describe

        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    return model


def _check_labels(labels, n):
    check_tensor(labels, "labels", ndim=1, dtype="integer")
    if labels.shape[0] != n:
        raise ValueError(f"labels has {labels.shape[0]} entries but weights hold {n} networks")
    if bool((labels < 0).any()):
        raise ValueError(f"labels must be >= 0, got {int(labels.min())}")
    return labels.long()


def predict(model, weights, biases, *, batch_size=256, **kwargs) -> torch.Tensor:
    """Model outputs [B, out] in eval mode, in batches of ``batch_size`` networks."""
    model = _check_model(model)
    ws, bs, batched = check_mlp(weights, biases)
    if not batched:
        raise ValueError("weights must be batched ([B, d_l, d_{l-1}]), got unbatched tensors")
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    was = model.training
    model.eval()
    out = []
    with torch.no_grad():
        for s in range(0, ws[0].shape[0], batch_size):
            sub = {k: v[s : s + batch_size] for k, v in kwargs.items()}
            out.append(
                model(
                    [w[s : s + batch_size] for w in ws], [b[s : s + batch_size] for b in bs], **sub
                )
            )
    model.train(was)
    return torch.cat(out)


def accuracy(model, weights, biases, labels, *, batch_size=256, **kwargs) -> float:
    """Fraction of networks whose argmax prediction equals ``labels``."""
    ws, bs, _ = check_mlp(weights, biases)
    labels = _check_labels(labels, ws[0].shape[0])
    pred = predict(model, ws, bs, batch_size=batch_size, **kwargs).argmax(dim=-1)
    return float((pred.cpu() == labels.cpu()).double().mean())


def fit_classifier(
    model,
    weights,
    biases,
    labels,
    *,
    epochs=50,
    batch_size=64,
    lr=1e-3,
    weight_decay=0.01,
    warmup_steps=50,
    clip_grad=10.0,
    generator=None,
    **kwargs,
) -> list[float]:
    """Train ``model`` (in place) with cross-entropy on a batch of MLPs and their ``labels``.
    Extra keyword tensors with one row per network (e.g. ``sign_mask``) are passed to the
    model. Returns the mean training loss of every epoch."""
    model = _check_model(model)
    ws, bs, batched = check_mlp(weights, biases)
    if not batched:
        raise ValueError("weights must be batched ([B, d_l, d_{l-1}]), got unbatched tensors")
    n = ws[0].shape[0]
    labels = _check_labels(labels, n)
    epochs = check_int(epochs, "epochs", minimum=0)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
    warmup_steps = check_int(warmup_steps, "warmup_steps", minimum=0)
    clip_grad = check_float(clip_grad, "clip_grad", minimum=0.0, min_inclusive=False)
    generator = check_generator(generator)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup_steps) if warmup_steps else 1.0
    )
    device = next(model.parameters()).device
    labels = labels.to(device)
    history = []
    model.train()
    with torch.enable_grad():
        for _ in range(epochs):
            order = torch.randperm(n, generator=generator).to(device)
            total = 0.0
            for s in range(0, n, batch_size):
                idx = order[s : s + batch_size]
                sub = {k: v[idx] for k, v in kwargs.items()}
                out = model([w[idx] for w in ws], [b[idx] for b in bs], **sub)
                loss = nn.functional.cross_entropy(out, labels[idx])
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                opt.step()
                sched.step()
                total += float(loss.detach()) * idx.shape[0]
            history.append(total / n)
    model.eval()
    return history
