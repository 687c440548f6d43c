"""Small training loops for metanetworks that classify networks or regress a scalar of them
(the authors' optimiser settings: AdamW, weight decay 0.01, gradient-norm clipping at 10,
linear warm-up), and Kendall's tau, the metric of generalisation prediction. Inputs are
batched MLPs or CNNs (see :mod:`scalegmn.cnn`)."""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, check_tensor
from ._validation import as_float_tensor, check_mlp
from .cnn import check_cnn, is_cnn

__all__ = [
    "accuracy",
    "apply_edit",
    "fit_classifier",
    "fit_editor",
    "fit_regressor",
    "kendall_tau",
    "predict",
]


def _check_net(weights, biases):
    """Batched MLP or CNN parameters -> (weights, biases, number of networks)."""
    if is_cnn(weights):
        ws, bs, batched, _ = check_cnn(weights, biases)
    else:
        ws, bs, batched = check_mlp(weights, biases)
    if not batched:
        raise ValueError("weights must be batched ([B, d_l, d_{l-1}]), got unbatched tensors")
    return ws, bs, ws[0].shape[0]


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
    ws, bs, _ = _check_net(weights, biases)
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
    ws, bs, n = _check_net(weights, biases)
    labels = _check_labels(labels, n)
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
    """Train ``model`` (in place) with cross-entropy on a batch of networks (MLPs or CNNs)
    and their ``labels``. Extra keyword tensors with one row per network (e.g.
    ``sign_mask``) are passed to the model. Returns the mean training loss of every epoch."""
    model = _check_model(model)
    ws, bs, n = _check_net(weights, biases)
    labels = _check_labels(labels, n)
    opts = (epochs, batch_size, lr, weight_decay, warmup_steps, clip_grad, generator)
    return _fit(model, ws, bs, labels, nn.functional.cross_entropy, kwargs, *opts)


def fit_regressor(
    model,
    weights,
    biases,
    targets,
    *,
    epochs=50,
    batch_size=64,
    lr=1e-3,
    weight_decay=0.01,
    warmup_steps=50,
    clip_grad=10.0,
    sigmoid=True,
    generator=None,
    **kwargs,
) -> list[float]:
    """Train ``model`` (in place, ``out_dim=1``) to regress ``targets`` [B] (e.g. the test
    accuracy of each input network) with the mean squared error, on ``sigmoid(model(...))``
    when ``sigmoid`` (targets in [0, 1], as the authors' generalisation-prediction script
    does) or on the raw output. Returns the mean training loss of every epoch."""
    from ._checks import check_bool

    model = _check_model(model)
    ws, bs, n = _check_net(weights, biases)
    y = as_float_tensor(targets, "targets", ndim=1)
    if y.shape[0] != n:
        raise ValueError(f"targets has {y.shape[0]} entries but weights hold {n} networks")
    sigmoid = check_bool(sigmoid, "sigmoid")
    if sigmoid and bool(((y < 0) | (y > 1)).any()):
        raise ValueError(
            f"targets must lie in [0, 1] with sigmoid=True, got range [{float(y.min())}, "
            f"{float(y.max())}]"
        )

    def loss_fn(out, t):
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"model must return [B, 1] for regression, got {tuple(out.shape)}")
        p = torch.sigmoid(out[:, 0]) if sigmoid else out[:, 0]
        return nn.functional.mse_loss(p, t.to(p.dtype))

    opts = (epochs, batch_size, lr, weight_decay, warmup_steps, clip_grad, generator)
    return _fit(model, ws, bs, y, loss_fn, kwargs, *opts)


def _fit(model, ws, bs, targets, loss_fn, kwargs, *options):
    """The shared loop; ``options`` are (epochs, batch_size, lr, weight_decay, warmup_steps,
    clip_grad, generator) as the public functions take them."""
    epochs, batch_size, lr, weight_decay, warmup_steps, clip_grad, generator = options
    n = ws[0].shape[0]
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
    targets = targets.to(device)
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
                loss = loss_fn(out, targets[idx])
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                opt.step()
                sched.step()
                total += float(loss.detach()) * idx.shape[0]
            history.append(total / n)
    model.eval()
    return history


def kendall_tau(x, y) -> float:
    """Kendall's rank correlation tau-b of two equally long 1-D sequences (ties counted as in
    ``scipy.stats.kendalltau``): (concordant - discordant) / sqrt((n0 - t_x)(n0 - t_y)) over
    all pairs. NaN when either sequence is constant."""
    a = as_float_tensor(x, "x", ndim=1).double()
    b = as_float_tensor(y, "y", ndim=1).double()
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"x and y must have the same length, got {a.shape[0]} and {b.shape[0]}")
    if a.shape[0] < 2:
        raise ValueError(f"x must hold at least 2 values, got {a.shape[0]}")
    da = torch.sign(a.unsqueeze(0) - a.unsqueeze(1))
    db = torch.sign(b.unsqueeze(0) - b.unsqueeze(1))
    iu = torch.triu_indices(a.shape[0], a.shape[0], offset=1)
    da, db = da[iu[0], iu[1]], db[iu[0], iu[1]]
    num = float((da * db).sum())
    den = float(torch.sqrt((da != 0).sum().double() * (db != 0).sum().double()))
    return num / den if den > 0 else float("nan")


def _check_editor(model):
    from .model import ScaleGMNEquivariant

    if not isinstance(model, ScaleGMNEquivariant):
        raise TypeError(f"model must be a ScaleGMNEquivariant, got {type(model).__name__}")
    return model


def apply_edit(model, weights, biases, *, batch_size=256):
    """Residual weight-space editing, the authors' INR-editing update: returns
    ``(weights + dW, biases + db)`` with ``(dW, db) = model(weights, biases)`` for a
    :class:`~scalegmn.ScaleGMNEquivariant` ``model`` (eval mode, no gradients). Equivariance
    makes the edit commute with the input network's symmetries."""
    model = _check_editor(model)
    ws, bs, _ = _check_net(weights, biases)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    was = model.training
    model.eval()
    out_w, out_b = [[] for _ in ws], [[] for _ in bs]
    with torch.no_grad():
        for s in range(0, ws[0].shape[0], batch_size):
            w = [t[s : s + batch_size] for t in ws]
            b = [t[s : s + batch_size] for t in bs]
            dw, db = model(w, b)
            for l in range(len(ws)):
                out_w[l].append(w[l] + dw[l].to(w[l].dtype))
                out_b[l].append(b[l] + db[l].to(b[l].dtype))
    model.train(was)
    return [torch.cat(t) for t in out_w], [torch.cat(t) for t in out_b]


def fit_editor(
    model,
    weights,
    biases,
    x,
    targets,
    *,
    activation="sine",
    omega0=1.0,
    epochs=50,
    batch_size=32,
    lr=1e-3,
    weight_decay=0.01,
    warmup_steps=50,
    clip_grad=10.0,
    generator=None,
) -> list[float]:
    """Train an equivariant head for INR editing (in place): the edited MLP
    ``theta + model(theta)`` evaluated at the points ``x`` [P, d_0] (with ``activation`` and
    ``omega0`` as in :func:`scalegmn.forward_mlp`) should output ``targets`` [B, P, d_L], the
    transformed signal; the loss is their mean squared error (the authors' editing loss).
    Returns the mean training loss of every epoch."""
    from ._checks import check_option
    from .symmetry import ACTIVATIONS, _forward

    model = _check_editor(model)
    ws, bs, batched = check_mlp(weights, biases)
    if not batched:
        raise ValueError("weights must be batched ([B, d_l, d_{l-1}]), got unbatched tensors")
    n = ws[0].shape[0]
    check_option(activation, "activation", ACTIVATIONS)
    omega0 = check_float(omega0, "omega0", minimum=0.0, min_inclusive=False)
    x = as_float_tensor(x, "x", ndim=2)
    if x.shape[1] != ws[0].shape[-1]:
        raise ValueError(
            f"x must have {ws[0].shape[-1]} features (d_0 of weights), got shape {tuple(x.shape)}"
        )
    y = as_float_tensor(targets, "targets", ndim=3)
    want = (n, x.shape[0], ws[-1].shape[-2])
    if tuple(y.shape) != want:
        raise ValueError(f"targets must have shape {want}, got shape {tuple(y.shape)}")
    x = x.to(ws[0].dtype)
    y = y.to(ws[0].dtype)
    index = torch.arange(n)

    def loss_fn(out, idx):  # out: the model's (dW, db) for the networks idx
        dw, db = out
        w = [t[idx] + d for t, d in zip(ws, dw, strict=True)]
        b = [t[idx] + d for t, d in zip(bs, db, strict=True)]
        pred = _forward(w, b, x.expand(len(idx), *x.shape), activation, omega0)
        return ((pred - y[idx]) ** 2).mean()

    opts = (epochs, batch_size, lr, weight_decay, warmup_steps, clip_grad, generator)
    return _fit(model, ws, bs, index, loss_fn, {}, *opts)
