"""Zoos of small trained networks: the CPU stand-ins for INR datasets and CNN zoos.

:func:`function_zoo` fits MLPs to 2-D functions (labels: the function class, the INR
classification setting); :func:`cnn_zoo` trains small CNNs on an image task with varied
hyperparameters and records their test accuracy (the Small CNN Zoo setting of generalisation
prediction). All networks of a zoo are trained at once (batched matrix products and grouped
convolutions), so a zoo of hundreds of networks builds in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._checks import check_float, check_generator, check_int, check_option, check_tensor
from ._validation import as_float_tensor, check_layer_dims
from .cnn import CNN_ACTIVATIONS, _forward_grouped
from .symmetry import ACTIVATIONS, _forward

__all__ = [
    "FUNCTION_CLASSES",
    "CNNZoo",
    "Zoo",
    "cnn_zoo",
    "digits",
    "function_zoo",
    "grid",
    "target_functions",
]

FUNCTION_CLASSES = ("wave", "bump", "saddle", "step")


@dataclass(frozen=True)
class Zoo:
    """Trained networks: ``weights[l]`` [N, d_l, d_{l-1}], ``biases[l]`` [N, d_l], integer
    ``labels`` [N] (function class), final training ``loss`` [N] (MSE on the grid)."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    labels: torch.Tensor
    loss: torch.Tensor
    layer_dims: tuple[int, ...]
    activation: str
    omega0: float

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, index) -> Zoo:
        """The networks at ``index`` (a slice, index tensor or bool mask)."""
        return Zoo(
            [w[index] for w in self.weights],
            [b[index] for b in self.biases],
            self.labels[index],
            self.loss[index],
            self.layer_dims,
            self.activation,
            self.omega0,
        )


def grid(n_side: int = 16) -> torch.Tensor:
    """[n_side^2, 2] points of a regular grid on [-1, 1]^2."""
    n_side = check_int(n_side, "n_side", minimum=2)
    t = torch.linspace(-1.0, 1.0, n_side)
    return torch.cartesian_prod(t, t)


def target_functions(labels, x, *, generator=None) -> torch.Tensor:
    """Random member of each function class (``labels`` [N] into FUNCTION_CLASSES) at points
    ``x`` [P, 2] -> [N, P]: wave sin(a u.x + c), Gaussian bump, rotated saddle x1 x2, smooth
    step tanh(k (u.x - t))."""
    generator = check_generator(generator)
    n = labels.shape[0]

    def u(*shape, lo=0.0, hi=1.0):
        return lo + (hi - lo) * torch.rand(*shape, generator=generator)

    ang = u(n, 1, hi=2 * math.pi)
    dirs = torch.cat([torch.cos(ang), torch.sin(ang)], dim=1)  # [N, 2]
    proj = dirs @ x.T  # [N, P]
    center = u(n, 2, lo=-0.5, hi=0.5)
    wave = torch.sin(u(n, 1, lo=2.0, hi=4.0) * proj + u(n, 1, hi=2 * math.pi))
    r2 = ((x.unsqueeze(0) - center.unsqueeze(1)) ** 2).sum(-1)
    bump = 2.0 * torch.exp(-r2 / u(n, 1, lo=0.1, hi=0.3)) - 1.0
    ortho = torch.stack([-dirs[:, 1], dirs[:, 0]], dim=1) @ x.T
    saddle = u(n, 1, lo=1.5, hi=2.5) * proj * ortho
    step = torch.tanh(u(n, 1, lo=3.0, hi=8.0) * (proj - u(n, 1, lo=-0.4, hi=0.4)))
    all_f = torch.stack([wave, bump, saddle, step])  # [C, N, P]
    return all_f[labels, torch.arange(n)]


def function_zoo(
    n_networks,
    *,
    layer_dims=(2, 16, 16, 1),
    activation="tanh",
    num_classes=4,
    steps=400,
    lr=0.01,
    omega0=1.0,
    n_side=16,
    generator=None,
) -> Zoo:
    """Fit ``n_networks`` MLPs (``activation`` on hidden layers) to random 2-D functions of
    ``num_classes`` classes (balanced labels; see :func:`target_functions`) with full-batch Adam
    on an ``n_side`` x ``n_side`` grid. Returns a :class:`Zoo`; ``labels`` are the classes."""
    n = check_int(n_networks, "n_networks", minimum=1)
    dims = check_layer_dims(layer_dims)
    if dims[0] != 2:
        raise ValueError(f"layer_dims must start with 2 inputs (2-D functions), got {list(dims)}")
    if dims[-1] != 1:
        raise ValueError(f"layer_dims must end with 1 output, got {list(dims)}")
    check_option(activation, "activation", ACTIVATIONS)
    C = check_int(num_classes, "num_classes", minimum=1, maximum=len(FUNCTION_CLASSES))
    steps = check_int(steps, "steps", minimum=0)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    omega0 = check_float(omega0, "omega0", minimum=0.0, min_inclusive=False)
    generator = check_generator(generator)
    x = grid(n_side)
    labels = torch.arange(n) % C
    labels = labels[torch.randperm(n, generator=generator)]
    y = target_functions(labels, x, generator=generator)  # [N, P]
    ws, bs = [], []
    for l in range(1, len(dims)):
        bound = 1.0 / math.sqrt(dims[l - 1])
        if activation == "sine" and l > 1:
            bound = math.sqrt(6.0 / dims[l - 1]) / omega0  # SIREN initialisation
        w = (2 * torch.rand(n, dims[l], dims[l - 1], generator=generator) - 1) * bound
        b = (2 * torch.rand(n, dims[l], generator=generator) - 1) * bound
        ws.append(w.requires_grad_())
        bs.append(b.requires_grad_())
    opt = torch.optim.Adam(ws + bs, lr=lr)
    xb = x.expand(n, *x.shape)
    with torch.enable_grad():
        for _ in range(steps):
            opt.zero_grad()
            pred = _forward(ws, bs, xb, activation, omega0)[..., 0]
            loss = ((pred - y) ** 2).mean(dim=1).sum()
            loss.backward()
            opt.step()
    with torch.no_grad():
        pred = _forward(ws, bs, xb, activation, omega0)[..., 0]
        mse = ((pred - y) ** 2).mean(dim=1)
    return Zoo(
        [w.detach() for w in ws],
        [b.detach() for b in bs],
        labels,
        mse,
        dims,
        activation,
        omega0,
    )


# ---------------------------------------------------------------------------------------- CNNs


@dataclass(frozen=True)
class CNNZoo:
    """Trained CNNs: ``weights`` (conv kernels [N, c_l, c_{l-1}, k, k], then linear layers
    [N, d_l, d_{l-1}]), ``biases``, the target ``test_accuracy`` [N] (on the held-out images),
    ``train_accuracy`` [N], and each network's hyperparameters: ``lr``, ``weight_decay``,
    ``init_scale`` (float [N]) and ``steps`` (int [N])."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    test_accuracy: torch.Tensor
    train_accuracy: torch.Tensor
    lr: torch.Tensor
    weight_decay: torch.Tensor
    init_scale: torch.Tensor
    steps: torch.Tensor
    layer_dims: tuple[int, ...]
    kernel_size: int
    stride: int
    activation: str

    def __len__(self) -> int:
        return int(self.test_accuracy.shape[0])

    def subset(self, index) -> CNNZoo:
        """The networks at ``index`` (a slice, index tensor or bool mask)."""
        return CNNZoo(
            [w[index] for w in self.weights],
            [b[index] for b in self.biases],
            self.test_accuracy[index],
            self.train_accuracy[index],
            self.lr[index],
            self.weight_decay[index],
            self.init_scale[index],
            self.steps[index],
            self.layer_dims,
            self.kernel_size,
            self.stride,
            self.activation,
        )


def digits(*, test_fraction=0.4, generator=None):
    """scikit-learn's bundled 8 x 8 handwritten digits (1,797 images, 10 classes; no download;
    needs the ``digits`` extra) as ``(images, labels, test_images, test_labels)``: images
    float32 [N, 1, 8, 8] in [0, 1], labels int64 [N], split at random by ``test_fraction``."""
    test_fraction = check_float(
        test_fraction,
        "test_fraction",
        minimum=0.0,
        maximum=1.0,
        min_inclusive=False,
        max_inclusive=False,
    )
    generator = check_generator(generator)
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "scalegmn.zoo.digits needs scikit-learn: pip install 'scalegmn[digits]'"
        ) from err
    data = load_digits()
    x = torch.as_tensor(data.images, dtype=torch.float32).unsqueeze(1) / 16.0
    y = torch.as_tensor(data.target, dtype=torch.int64)
    order = torch.randperm(x.shape[0], generator=generator)
    n_test = max(1, int(round(test_fraction * x.shape[0])))
    te, tr = order[:n_test], order[n_test:]
    return x[tr], y[tr], x[te], y[te]


def _range(value, name, *, positive=True):
    """A (low, high) pair, or one number for a fixed value."""
    if isinstance(value, tuple | list):
        if len(value) != 2:
            raise ValueError(f"{name} must be a number or a pair (low, high), got {value!r}")
        lo, hi = (
            check_float(v, f"{name}[{i}]", minimum=0.0, min_inclusive=not positive)
            for i, v in enumerate(value)
        )
        if lo > hi:
            raise ValueError(f"{name} must have low <= high, got {value!r}")
        return lo, hi
    v = check_float(value, name, minimum=0.0, min_inclusive=not positive)
    return v, v


def _log_uniform(n, lo, hi, generator):
    if lo == hi:
        return torch.full((n,), lo, dtype=torch.float64)
    if lo == 0.0:
        return lo + (hi - lo) * torch.rand(n, generator=generator, dtype=torch.float64)
    u = torch.rand(n, generator=generator, dtype=torch.float64)
    return torch.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def _check_images(images, labels, name, label_name):
    x = as_float_tensor(images, name, ndim=4).to(torch.float32)
    y = check_tensor(labels, label_name, ndim=1, dtype="integer")
    if y.shape[0] != x.shape[0]:
        raise ValueError(
            f"{label_name} has {y.shape[0]} entries but {name} holds {x.shape[0]} images"
        )
    if bool((y < 0).any()):
        raise ValueError(f"{label_name} must be >= 0, got {int(y.min())}")
    return x, y.long()


def cnn_zoo(
    n_networks,
    images,
    labels,
    test_images,
    test_labels,
    *,
    channels=(8, 8),
    kernel_size=3,
    stride=2,
    activation="relu",
    lr=(0.05, 0.5),
    weight_decay=(1e-5, 1e-2),
    init_scale=(0.5, 2.0),
    steps=(20, 150),
    batch_size=32,
    generator=None,
) -> CNNZoo:
    """Train ``n_networks`` small CNNs at once on ``images`` [N, c_0, H, W] / ``labels`` [N]
    and record their accuracy on ``test_images`` / ``test_labels`` (the target of
    generalisation prediction).

    Each CNN has conv layers with ``channels`` (``kernel_size`` x ``kernel_size``, ``stride``
    (padding as in :func:`scalegmn.forward_cnn`), ``activation``), global average pooling and one linear layer to the
    number of classes (``max(labels) + 1``), the architecture :func:`scalegmn.forward_cnn`
    evaluates. Networks differ in their seed (initialisation and minibatch order) and in
    hyperparameters drawn per network from the given (low, high) ranges (a number fixes one):
    ``lr`` and ``weight_decay`` log-uniform (SGD with momentum 0.9), ``init_scale`` (a factor
    on the default uniform initialisation) log-uniform, and the number of SGD ``steps``
    uniform on the integers (each network keeps its parameters after its own last step).
    """
    n = check_int(n_networks, "n_networks", minimum=1)
    x, y = _check_images(images, labels, "images", "labels")
    xt, yt = _check_images(test_images, test_labels, "test_images", "test_labels")
    if xt.shape[1:] != x.shape[1:]:
        raise ValueError(
            f"test_images must have the image shape {tuple(x.shape[1:])} of images, got shape "
            f"{tuple(xt.shape)}"
        )
    if not isinstance(channels, tuple | list):
        raise TypeError(f"channels must be a tuple of ints (one per conv layer), got {channels!r}")
    if not channels:
        raise ValueError("channels must hold at least one conv layer, got an empty tuple")
    chans = tuple(check_int(c, f"channels[{i}]", minimum=1) for i, c in enumerate(channels))
    k = check_int(kernel_size, "kernel_size", minimum=1)
    stride = check_int(stride, "stride", minimum=1)
    check_option(activation, "activation", CNN_ACTIVATIONS)
    lr = _range(lr, "lr")
    wd = _range(weight_decay, "weight_decay", positive=False)
    scale = _range(init_scale, "init_scale")
    if isinstance(steps, tuple | list):
        if len(steps) != 2:
            raise ValueError(f"steps must be an int or a pair (low, high), got {steps!r}")
        s_lo, s_hi = (check_int(v, f"steps[{i}]", minimum=1) for i, v in enumerate(steps))
        if s_lo > s_hi:
            raise ValueError(f"steps must have low <= high, got {steps!r}")
    else:
        s_lo = s_hi = check_int(steps, "steps", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    generator = check_generator(generator)
    n_classes = int(max(int(y.max()), int(yt.max()))) + 1
    dims = (x.shape[1], *chans, n_classes)
    act = torch.relu if activation == "relu" else torch.tanh

    lrs = _log_uniform(n, *lr, generator)
    wds = _log_uniform(n, *wd, generator)
    scales = _log_uniform(n, *scale, generator)
    n_steps = torch.randint(s_lo, s_hi + 1, (n,), generator=generator)
    ws, bs = [], []
    for l in range(1, len(dims)):
        conv = l < len(dims) - 1
        fan_in = dims[l - 1] * (k * k if conv else 1)
        bound = scales.view(n, *([1] * (4 if conv else 2))).float() / math.sqrt(fan_in)
        shape = (n, dims[l], dims[l - 1], k, k) if conv else (n, dims[l], dims[l - 1])
        ws.append(((2 * torch.rand(shape, generator=generator) - 1) * bound).requires_grad_())
        b_bound = bound.reshape(n, 1)
        bs.append(
            ((2 * torch.rand(n, dims[l], generator=generator) - 1) * b_bound).requires_grad_()
        )
    params = ws + bs
    keep = [p.detach().clone() for p in params]
    opt = torch.optim.SGD(params, lr=1.0, momentum=0.9)
    lr_f, wd_f = lrs.float(), wds.float()
    N = x.shape[0]
    with torch.enable_grad():
        for t in range(1, s_hi + 1):
            idx = torch.randint(0, N, (n, min(batch_size, N)), generator=generator)
            out = _forward_grouped(ws, bs, x[idx], act, stride)  # [n, batch, classes]
            loss = torch.nn.functional.cross_entropy(
                out.reshape(-1, n_classes), y[idx].reshape(-1), reduction="none"
            )
            opt.zero_grad()
            loss.reshape(n, -1).mean(dim=1).sum().backward()
            with torch.no_grad():  # per-network weight decay and learning rate
                for p in params:
                    shape = (n, *([1] * (p.ndim - 1)))
                    p.grad.add_(p * wd_f.view(shape)).mul_(lr_f.view(shape))
            opt.step()
            done = n_steps == t
            if bool(done.any()):
                with torch.no_grad():
                    for kp, p in zip(keep, params, strict=True):
                        kp[done] = p[done]
    kw, kb = keep[: len(ws)], keep[len(ws) :]
    with torch.no_grad():
        test_acc = _accuracy(kw, kb, xt, yt, act, stride)
        train_acc = _accuracy(kw, kb, x, y, act, stride)
    return CNNZoo(
        kw, kb, test_acc, train_acc, lrs, wds, scales, n_steps, dims, k, stride, activation
    )


def _accuracy(ws, bs, x, y, act, stride, chunk=512):
    hits = torch.zeros(ws[0].shape[0], dtype=torch.float64)
    for s in range(0, x.shape[0], chunk):
        pred = _forward_grouped(ws, bs, x[s : s + chunk], act, stride).argmax(dim=-1)
        hits += (pred == y[s : s + chunk]).sum(dim=1)
    return hits / x.shape[0]
