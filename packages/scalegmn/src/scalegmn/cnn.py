"""Convolutional networks as inputs (the paper's CNN setting, e.g. the Small CNN Zoo).

A CNN is ``weights``: conv kernels [c_l, c_{l-1}, k_h, k_w] (batched [B, c_l, c_{l-1}, k_h,
k_w]) followed by linear layers [d_l, d_{l-1}] (batched [B, d_l, d_{l-1}]), and ``biases``
[c_l] / [B, c_l]. Conv layers run with a common stride (default 1: "same" zero padding; stride
s > 1: zero padding k // 2 on each side, as in the Small CNN Zoo's strided convs), then the
activation;
after the last conv layer the feature maps are averaged over space (global average pooling),
then the linear layers (activation between them, the last one linear).

In the neuron graph each channel is a node and each (output channel, input channel) pair an
edge whose feature is the flattened kernel, zero-padded (centred) to a common size; a linear
weight is a 1 x 1 kernel padded the same way. Channels carry the same symmetries as hidden
neurons: permutations, and scalings c_i -> q_i c_i (sign for odd activations, q > 0 for ReLU;
zero padding and average pooling commute with both), W_ij -> q_i W_ij / q_j.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ._checks import check_int, check_option, describe
from ._validation import as_float_tensor

__all__ = [
    "check_cnn",
    "cnn_apply_permutation",
    "cnn_apply_scaling",
    "cnn_edge_features",
    "forward_cnn",
    "is_cnn",
]

CNN_ACTIVATIONS = ("relu", "tanh")


def is_cnn(weights) -> bool:
    """True when the first weight is a conv kernel (4-D, or 5-D batched)."""
    return (
        isinstance(weights, list | tuple)
        and len(weights) > 0
        and isinstance(weights[0], torch.Tensor)
        and weights[0].ndim in (4, 5)
    )


def check_cnn(weights, biases):
    """Validate a CNN. Returns (weights, biases, batched, layer_dims) with one floating dtype,
    where layer_dims are the channel / neuron counts (c_0, ..., d_L)."""
    for name, v in (("weights", weights), ("biases", biases)):
        if isinstance(v, torch.Tensor) or not isinstance(v, list | tuple):
            raise TypeError(f"{name} must be a list of tensors (one per layer), got {describe(v)}")
        if len(v) == 0:
            raise ValueError(f"{name} must hold at least one layer, got an empty list")
    if len(biases) != len(weights):
        raise ValueError(
            f"biases must hold one tensor per layer: {len(weights)} weights, got {len(biases)}"
        )
    w0 = as_float_tensor(weights[0], "weights[0]", ndim=(4, 5))
    batched = w0.ndim == 5
    lead = tuple(w0.shape[:1]) if batched else ()
    ws, seen_linear = [], False
    for i, w in enumerate(weights):
        w = as_float_tensor(w, f"weights[{i}]", ndim=(2, 3, 4, 5))
        conv = w.ndim - len(lead) == 4
        if w.ndim - len(lead) not in (2, 4):
            raise ValueError(
                f"weights[{i}] must be a conv kernel ({4 + len(lead)}-D) or a linear weight "
                f"({2 + len(lead)}-D) like weights[0], got shape {tuple(w.shape)}"
            )
        if conv and seen_linear:
            raise ValueError(f"weights[{i}] is a conv kernel after a linear layer")
        seen_linear = seen_linear or not conv
        if tuple(w.shape[: len(lead)]) != lead:
            raise ValueError(
                f"weights[{i}] has batch size {w.shape[0]} but weights[0] has {lead[0]}"
            )
        if i > 0:
            prev = ws[-1].shape[len(lead)]
            if w.shape[len(lead) + 1] != prev:
                raise ValueError(
                    f"weights[{i}] has {w.shape[len(lead) + 1]} input channels but "
                    f"weights[{i - 1}] has {prev} outputs, got shape {tuple(w.shape)}"
                )
        ws.append(w)
    if not seen_linear:
        raise ValueError("weights must end with at least one linear layer (after the convs)")
    bs = []
    for i, (b, w) in enumerate(zip(biases, ws, strict=True)):
        b = as_float_tensor(b, f"biases[{i}]", ndim=len(lead) + 1)
        want = (*lead, w.shape[len(lead)])
        if tuple(b.shape) != want:
            raise ValueError(f"biases[{i}] must have shape {want}, got shape {tuple(b.shape)}")
        bs.append(b)
    dtype = ws[0].dtype
    for t in ws + bs:
        dtype = torch.promote_types(dtype, t.dtype)
    ws = [w.to(dtype=dtype, device=ws[0].device) for w in ws]
    bs = [b.to(dtype=dtype, device=ws[0].device) for b in bs]
    dims = (ws[0].shape[len(lead) + 1], *(w.shape[len(lead)] for w in ws))
    return ws, bs, batched, dims


def _kernel_size(value, name="kernel_size"):
    if isinstance(value, tuple | list):
        if len(value) != 2:
            raise ValueError(f"{name} must be an int or a pair (k_h, k_w), got {value!r}")
        return tuple(check_int(v, f"{name}[{i}]", minimum=1) for i, v in enumerate(value))
    k = check_int(value, name, minimum=1)
    return (k, k)


def cnn_edge_features(weights, biases, *, kernel_size=None):
    """Edge features of a CNN (or an MLP, as 1 x 1 kernels): per layer [B, d_l, d_{l-1},
    k_h * k_w], every kernel zero-padded centred to ``kernel_size`` (default: the largest
    kernel). Returns (edges, biases, batched, layer_dims, kernel_size)."""
    if is_cnn(weights):
        ws, bs, batched, dims = check_cnn(weights, biases)
    else:
        from ._validation import check_mlp

        ws, bs, batched = check_mlp(weights, biases)
        dims = (ws[0].shape[-1], *(w.shape[-2] for w in ws))
    if not batched:
        ws = [w.unsqueeze(0) for w in ws]
        bs = [b.unsqueeze(0) for b in bs]
    ws = [w if w.ndim == 5 else w[..., None, None] for w in ws]
    kmax = (max(w.shape[-2] for w in ws), max(w.shape[-1] for w in ws))
    ks = kmax if kernel_size is None else _kernel_size(kernel_size)
    edges = []
    for i, w in enumerate(ws):
        kh, kw = w.shape[-2:]
        if kh > ks[0] or kw > ks[1]:
            raise ValueError(f"weights[{i}] has a {kh} x {kw} kernel, larger than kernel_size {ks}")
        ph, pw = ks[0] - kh, ks[1] - kw
        w = F.pad(w, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2))
        edges.append(w.flatten(-2))
    return edges, bs, batched, dims, ks


def forward_cnn(weights, biases, x, *, activation="relu", stride=1):
    """Evaluate the CNN at images ``x`` [N, c_0, H, W] (shared by a batch of networks, or
    [B, N, c_0, H, W] per network). Every conv layer has ``stride`` (1: "same" padding; > 1:
    padding k // 2). Returns [N, d_L] or [B, N, d_L]."""
    ws, bs, batched, dims = check_cnn(weights, biases)
    check_option(activation, "activation", CNN_ACTIVATIONS)
    stride = check_int(stride, "stride", minimum=1)
    x = as_float_tensor(x, "x", ndim=(4, 5) if batched else 4)
    if x.shape[-3] != dims[0]:
        raise ValueError(
            f"x must have {dims[0]} channels (c_0 of weights), got shape {tuple(x.shape)}"
        )
    act = torch.relu if activation == "relu" else torch.tanh
    x = x.to(dtype=ws[0].dtype, device=ws[0].device)
    if not batched:
        return _forward_one(ws, bs, x, act, stride)
    B = ws[0].shape[0]
    if x.ndim == 5 and x.shape[0] != B:
        raise ValueError(
            f"x has {x.shape[0]} networks but weights have {B}, got shape {tuple(x.shape)}"
        )
    return _forward_grouped(ws, bs, x, act, stride)


def _padding(w, stride):
    return "same" if stride == 1 else (w.shape[-2] // 2, w.shape[-1] // 2)


def _forward_one(ws, bs, h, act, stride=1):
    last = len(ws) - 1
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        if w.ndim == 4:
            h = act(F.conv2d(h, w, b, stride=stride, padding=_padding(w, stride)))
            if i + 1 < len(ws) and ws[i + 1].ndim == 2:
                h = h.mean(dim=(-2, -1))
        else:
            h = h @ w.T + b
            if i < last:
                h = act(h)
    return h


def _forward_grouped(ws, bs, x, act, stride=1):
    """A batch of B CNNs at once (grouped convolutions): ``x`` [n, c_0, H, W] shared or
    [B, n, c_0, H, W] per network -> [B, n, d_L]. No input checks (training loops)."""
    B = ws[0].shape[0]
    if x.ndim == 4:
        x = x.unsqueeze(0).expand(B, *x.shape)
    n, H, W = x.shape[1], x.shape[-2], x.shape[-1]
    h = x.transpose(0, 1).reshape(n, -1, H, W)  # [n, B * c_0, H, W]
    last = len(ws) - 1
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        if w.ndim == 5:
            k = w.reshape(-1, *w.shape[2:])  # [B * c_l, c_{l-1}, k_h, k_w]
            pad = _padding(w, stride)
            h = act(F.conv2d(h, k, b.reshape(-1), stride=stride, padding=pad, groups=B))
            if ws[i + 1].ndim == 3:  # global average pooling before the linear layers
                h = h.mean(dim=(-2, -1)).reshape(n, B, -1).transpose(0, 1)  # [B, n, c_l]
        else:
            h = torch.baddbmm(b.unsqueeze(1), h, w.transpose(1, 2))
            if i < last:
                h = act(h)
    return h


def _hidden(ws, batched):
    lead = 1 if batched else 0
    return [tuple(w.shape[: lead + 1]) for w in ws[:-1]]


def cnn_apply_scaling(weights, biases, q):
    """Channel / neuron scaling: W_l[i, j] -> q_l[i] W_l[i, j] / q_{l-1}[j] (whole kernels),
    b_l -> q_l b_l, with one factor tensor per hidden layer ([c_l] or [B, c_l])."""
    from .symmetry import _check_factors

    ws, bs, batched, _ = check_cnn(weights, biases)
    shapes = _hidden(ws, batched)
    # _check_factors reads the hidden shapes from w.shape[:-1] of 2-D-like weights
    q = _check_factors(
        q, "q", [torch.empty(s + (1,), dtype=ws[0].dtype) for s in shapes] + [ws[-1]], dtype="f"
    )
    q = [v.to(dtype=ws[0].dtype) for v in q]
    lead = 1 if batched else 0
    out_w, out_b = [], []
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        extra = w.ndim - lead - 1
        if i < len(q):
            w = w * q[i].reshape(*q[i].shape, *([1] * extra))
            b = b * q[i]
        if i > 0:
            p = q[i - 1]
            w = w / p.reshape(*p.shape[:lead], 1, p.shape[-1], *([1] * (extra - 1)))
        out_w.append(w.clone())
        out_b.append(b.clone())
    return out_w, out_b


def cnn_apply_permutation(weights, biases, perms):
    """Channel / neuron permutation: new channel k of hidden layer l is old channel
    ``perms[l][k]`` (one index tensor per hidden layer, [c_l] or [B, c_l])."""
    from .symmetry import _check_factors

    ws, bs, batched, _ = check_cnn(weights, biases)
    shapes = _hidden(ws, batched)
    perms = _check_factors(
        perms,
        "perms",
        [torch.empty(s + (1,), dtype=ws[0].dtype) for s in shapes] + [ws[-1]],
        dtype="index",
    )
    lead = 1 if batched else 0
    out_w, out_b = [], []
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        extra = w.ndim - lead - 1
        if i < len(perms):
            p = perms[i].reshape(*perms[i].shape, *([1] * extra)).expand_as(w)
            w = torch.gather(w, lead, p)
            b = torch.gather(b, lead, perms[i])
        if i > 0:
            p = perms[i - 1]
            p = p.reshape(*p.shape[:lead], 1, p.shape[-1], *([1] * (extra - 1))).expand_as(w)
            w = torch.gather(w, lead + 1, p)
        out_w.append(w.clone())
        out_b.append(b.clone())
    return out_w, out_b
