"""Training (MSE, Adam, cosine schedule, early stopping) and batched prediction."""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ._checks import (
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_option,
    describe,
)
from ._validation import as_tensor

__all__ = ["FitResult", "fit", "predict"]

SCHEDULES = ("cosine", "constant", "halving")


@dataclass(frozen=True)
class FitResult:
    """What :func:`fit` did: per-epoch losses, the epoch whose weights were kept, the time."""

    train_loss: tuple[float, ...]
    val_loss: tuple[float, ...]
    best_epoch: int
    epochs_run: int
    stopped_early: bool
    seconds: float


def _check_model(model) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    return model


def _param(model: nn.Module) -> torch.Tensor:
    p = next(iter(model.parameters()), None)
    return p if p is not None else torch.zeros(())


def _unpack(data, name: str, model: nn.Module):
    if not isinstance(data, tuple | list) or len(data) not in (2, 3):
        raise TypeError(f"{name} must be a tuple (X, Y) or (X, Y, X_mark), got {describe(data)}")
    ref = _param(model)
    X = as_tensor(data[0], f"{name}[0]", ndim=3, dtype=ref.dtype, device=ref.device)
    Y = as_tensor(data[1], f"{name}[1]", ndim=3, dtype=ref.dtype, device=ref.device)
    M = None
    if len(data) == 3 and data[2] is not None:
        M = as_tensor(data[2], f"{name}[2]", ndim=3, dtype=ref.dtype, device=ref.device)
        if M.shape[:2] != X.shape[:2]:
            raise ValueError(
                f"{name}[2] must have shape [{X.shape[0]}, {X.shape[1]}, F], got {tuple(M.shape)}"
            )
    if Y.shape[0] != X.shape[0] or Y.shape[2] != X.shape[2]:
        raise ValueError(
            f"{name}[1] must have shape [{X.shape[0]}, H, {X.shape[2]}], got {tuple(Y.shape)}"
        )
    return X, Y, M


def _evaluate(model, X, Y, M, batch_size: int) -> float:
    total = 0.0
    with torch.no_grad():
        for s in range(0, len(X), batch_size):
            out = model(X[s : s + batch_size], None if M is None else M[s : s + batch_size])
            total += float(((out - Y[s : s + batch_size]) ** 2).sum())
    return total / Y.numel()


def fit(
    model: nn.Module,
    train,
    val=None,
    *,
    epochs: int = 10,
    lr: float = 3e-4,
    batch_size: int = 32,
    schedule: str = "cosine",
    patience: int | None = 3,
    time_limit: float | None = None,
    generator: torch.Generator | None = None,
    verbose: bool = False,
) -> FitResult:
    """Train ``model`` in place with MSE loss and Adam (the authors' recipe).

    ``train`` and ``val`` are ``(X [N, L, C], Y [N, H, C])`` or ``(X, Y, X_mark)`` (arrays or
    tensors, e.g. from :func:`softs_ts.data.sliding_windows`). ``schedule="cosine"`` sets the
    learning rate after epoch ``e`` to ``lr/2 (1 + cos(pi e / epochs))`` as the authors'
    ``lradj=cosine``; ``"halving"`` is their ``type1``. With ``val`` the weights of the best
    validation epoch are restored and training stops after ``patience`` epochs without
    improvement (``None``: never). ``time_limit`` (seconds) stops after the epoch that crosses
    it. ``generator`` drives shuffling and STAR's stochastic pooling.
    """
    model = _check_model(model)
    epochs = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    schedule = check_option(schedule, "schedule", SCHEDULES)
    if patience is not None:
        patience = check_int(patience, "patience", minimum=1)
    if time_limit is not None:
        time_limit = check_float(time_limit, "time_limit", minimum=0.0, min_inclusive=False)
    generator = check_generator(generator)
    verbose = check_bool(verbose, "verbose")
    X, Y, M = _unpack(train, "train", model)
    V = _unpack(val, "val", model) if val is not None else None
    if V is not None and (V[0].shape[1:] != X.shape[1:] or V[1].shape[1:] != Y.shape[1:]):
        raise ValueError(
            f"val windows must have the shapes of train {tuple(X.shape[1:])}/"
            f"{tuple(Y.shape[1:])}, got {tuple(V[0].shape[1:])}/{tuple(V[1].shape[1:])}"
        )
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    cpu_gen = generator if generator is None or generator.device.type == "cpu" else None
    train_losses: list[float] = []
    val_losses: list[float] = []
    best, best_epoch, bad, stopped = math.inf, 0, 0, False
    best_state = None
    t0 = time.perf_counter()
    epoch = 0
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(X), generator=cpu_gen).to(X.device)
        total = 0.0
        for s in range(0, len(X), batch_size):
            idx = order[s : s + batch_size]
            opt.zero_grad(set_to_none=True)
            kwargs = {"generator": generator} if generator is not None else {}
            out = model(X[idx], None if M is None else M[idx], **kwargs)
            if out.shape != Y[idx].shape:
                raise ValueError(
                    f"model must map train[0] windows {tuple(X[idx].shape)} to the shape of "
                    f"train[1] {tuple(Y[idx].shape)}, got output {tuple(out.shape)}"
                )
            loss = torch.mean((out - Y[idx]) ** 2)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        train_losses.append(total / len(X))
        model.eval()
        if V is not None:
            v = _evaluate(model, *V, max(batch_size, 256))
            val_losses.append(v)
            if v < best:
                best, best_epoch, bad = v, epoch, 0
                best_state = copy.deepcopy(model.state_dict())
            else:
                bad += 1
        else:
            best_epoch = epoch
        if verbose:
            vtxt = f" val {val_losses[-1]:.5f}" if val_losses else ""
            print(f"epoch {epoch}: train {train_losses[-1]:.5f}{vtxt}")
        if schedule == "cosine":
            new = lr / 2 * (1 + math.cos(epoch / epochs * math.pi))
        elif schedule == "halving":
            new = lr * 0.5**epoch
        else:
            new = lr
        for g in opt.param_groups:
            g["lr"] = new
        if patience is not None and V is not None and bad >= patience:
            stopped = epoch < epochs
            break
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            stopped = epoch < epochs
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return FitResult(
        train_loss=tuple(train_losses),
        val_loss=tuple(val_losses),
        best_epoch=best_epoch,
        epochs_run=epoch,
        stopped_early=stopped,
        seconds=time.perf_counter() - t0,
    )


def predict(model: nn.Module, X, x_mark=None, *, batch_size: int = 256) -> np.ndarray:
    """Forecasts ``[N, H, C]`` (numpy) of ``model`` in eval mode for windows ``X [N, L, C]``."""
    model = _check_model(model)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    ref = _param(model)
    Xt = as_tensor(X, "X", ndim=3, dtype=ref.dtype, device=ref.device)
    Mt = None
    if x_mark is not None:
        Mt = as_tensor(x_mark, "x_mark", ndim=3, dtype=ref.dtype, device=ref.device)
        if Mt.shape[:2] != Xt.shape[:2]:
            raise ValueError(
                f"x_mark must have shape [{Xt.shape[0]}, {Xt.shape[1]}, F], got {tuple(Mt.shape)}"
            )
    was_training = model.training
    model.eval()
    outs = []
    with torch.no_grad():
        for s in range(0, len(Xt), batch_size):
            outs.append(
                model(Xt[s : s + batch_size], None if Mt is None else Mt[s : s + batch_size])
            )
    model.train(was_training)
    return torch.cat(outs).cpu().numpy()
