"""Symmetries of MLP parameters: the input network's function, hidden-neuron permutations,
per-neuron scalings (sign for odd activations, positive for ReLU) and the phase symmetry of
sine networks (SIRENs).

An MLP is ``weights`` (W_l of shape [d_l, d_{l-1}], or batched [B, d_l, d_{l-1}]) and
``biases`` (b_l of shape [d_l] or [B, d_l]); layer l computes ``act(W_l h + b_l)`` for hidden
layers and ``W_L h + b_L`` for the output layer.
"""

from __future__ import annotations

import math

import torch

from ._checks import check_float, check_generator, check_option, describe
from ._validation import as_float_tensor, check_mlp

__all__ = [
    "ACTIVATIONS",
    "apply_permutation",
    "apply_scaling",
    "canonicalize_sign",
    "canonicalize_sine_phase",
    "forward_mlp",
    "random_permutation",
    "random_scaling",
]

ACTIVATIONS = ("tanh", "relu", "sine")


def forward_mlp(weights, biases, x, *, activation="tanh", omega0=1.0):
    """Evaluate the MLP at ``x``.

    ``x`` is [N, d_0] (for a batch of B networks it is shared, or [B, N, d_0] per network).
    Hidden layers apply ``activation`` ("tanh", "relu" or "sine": ``sin(omega0 * (W h + b))``);
    the output layer is linear. Returns [N, d_L], or [B, N, d_L] for batched weights.
    """
    ws, bs, batched = check_mlp(weights, biases)
    check_option(activation, "activation", ACTIVATIONS)
    omega0 = check_float(omega0, "omega0", minimum=0.0, min_inclusive=False)
    x = as_float_tensor(x, "x", ndim=(2, 3) if batched else 2)
    d0 = ws[0].shape[-1]
    if x.shape[-1] != d0:
        raise ValueError(f"x must have {d0} features (d_0 of weights), got shape {tuple(x.shape)}")
    if x.ndim == 3 and x.shape[0] != ws[0].shape[0]:
        raise ValueError(
            f"x has {x.shape[0]} networks but weights have {ws[0].shape[0]}, "
            f"got shape {tuple(x.shape)}"
        )
    h = x.to(device=ws[0].device, dtype=ws[0].dtype)
    if batched and h.ndim == 2:
        h = h.expand(ws[0].shape[0], *h.shape)
    return _forward(ws, bs, h, activation, omega0)


def _forward(ws, bs, h, activation, omega0):
    """forward_mlp without input checks (inner training loops)."""
    last = len(ws) - 1
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        h = h @ w.transpose(-1, -2) + b.unsqueeze(-2)
        if i < last:
            if activation == "tanh":
                h = torch.tanh(h)
            elif activation == "relu":
                h = torch.relu(h)
            else:
                h = torch.sin(omega0 * h)
    return h


def _hidden_shapes(ws):
    return [tuple(w.shape[:-1]) for w in ws[:-1]]


def _check_factors(values, name, ws, *, dtype):
    """One tensor per hidden layer with the hidden layer's shape ([d_l] or [B, d_l])."""
    shapes = _hidden_shapes(ws)
    if isinstance(values, torch.Tensor) or not isinstance(values, list | tuple):
        raise TypeError(
            f"{name} must be a list of tensors (one per hidden layer), got {describe(values)}"
        )
    if len(values) != len(shapes):
        raise ValueError(
            f"{name} must hold one tensor per hidden layer ({len(shapes)}), got {len(values)}"
        )
    out = []
    for i, (v, s) in enumerate(zip(values, shapes, strict=True)):
        if dtype == "index":
            if not isinstance(v, torch.Tensor):
                v = torch.as_tensor(v)
            if v.is_floating_point() or v.dtype == torch.bool:
                raise TypeError(f"{name}[{i}] must be an integer tensor, got {describe(v)}")
            if tuple(v.shape) != s:
                raise ValueError(f"{name}[{i}] must have shape {s}, got shape {tuple(v.shape)}")
            srt = torch.sort(v.long(), dim=-1).values
            ref = torch.arange(s[-1], device=v.device).expand(s)
            if not torch.equal(srt, ref):
                raise ValueError(f"{name}[{i}] must be a permutation of 0..{s[-1] - 1}")
            out.append(v.long().to(ws[0].device))
        else:
            v = as_float_tensor(v, f"{name}[{i}]", ndim=len(s))
            if tuple(v.shape) != s:
                raise ValueError(f"{name}[{i}] must have shape {s}, got shape {tuple(v.shape)}")
            if bool((v == 0).any()):
                raise ValueError(f"{name}[{i}] must hold non-zero scales, got a 0")
            out.append(v.to(device=ws[0].device, dtype=ws[0].dtype))
    return out


def _scale(ws, bs, q):
    """W_l -> diag(q_l) W_l diag(q_{l-1})^-1, b_l -> q_l b_l (q = 1 on input/output)."""
    new_w, new_b = [], []
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        w = w.clone()
        b = b.clone()
        if i < len(q):
            w = w * q[i].unsqueeze(-1)
            b = b * q[i]
        if i > 0:
            w = w / q[i - 1].unsqueeze(-2)
        new_w.append(w)
        new_b.append(b)
    return new_w, new_b


def _permute(ws, bs, perms):
    """New neuron k of hidden layer l is old neuron perms[l][k]."""
    new_w, new_b = [], []
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        if i < len(perms):
            p = perms[i]
            w = torch.gather(w, -2, p.unsqueeze(-1).expand_as(w))
            b = torch.gather(b, -1, p)
        if i > 0:
            p = perms[i - 1]
            w = torch.gather(w, -1, p.unsqueeze(-2).expand_as(w))
        new_w.append(w.clone())
        new_b.append(b.clone())
    return new_w, new_b


def apply_scaling(weights, biases, q):
    """Scale hidden neuron i of every hidden layer by ``q[l][i]``:
    W_ij -> q_i W_ij / q_j and b_i -> q_i b_i (input and output neurons keep q = 1).
    ``q`` holds one non-zero tensor per hidden layer, [d_l] (or [B, d_l] for a batch)."""
    ws, bs, _ = check_mlp(weights, biases)
    q = _check_factors(q, "q", ws, dtype="float")
    return _scale(ws, bs, q)


def apply_permutation(weights, biases, perms):
    """Reorder hidden neurons: new neuron k of hidden layer l is old neuron ``perms[l][k]``
    (rows of W_l and b_l, columns of W_{l+1}). ``perms`` holds one index tensor per hidden layer."""
    ws, bs, _ = check_mlp(weights, biases)
    perms = _check_factors(perms, "perms", ws, dtype="index")
    return _permute(ws, bs, perms)


def random_scaling(weights, biases, *, kind="sign", low=0.1, high=10.0, generator=None):
    """Apply random per-hidden-neuron scalings that leave the network's function unchanged.

    ``kind="sign"``: q in {-1, +1} uniformly (odd activations: tanh, sine); ``low``/``high`` are
    not used. ``kind="positive"``: q log-uniform in [low, high] (ReLU: positive homogeneity).
    Returns ``(weights, biases, q)`` with q one tensor per hidden layer ([d_l] or [B, d_l]).
    """
    ws, bs, _ = check_mlp(weights, biases)
    check_option(kind, "kind", ("sign", "positive"))
    low = check_float(low, "low", minimum=0.0, min_inclusive=False)
    high = check_float(high, "high", minimum=0.0, min_inclusive=False)
    if high < low:
        raise ValueError(f"high must be >= low ({low}), got {high}")
    generator = check_generator(generator)
    q = []
    for s in _hidden_shapes(ws):
        u = torch.rand(s, generator=generator, dtype=torch.float64)
        if kind == "sign":
            v = torch.where(u < 0.5, -1.0, 1.0)
        else:
            v = torch.exp(math.log(low) + u * (math.log(high) - math.log(low)))
        q.append(v.to(device=ws[0].device, dtype=ws[0].dtype))
    new_w, new_b = _scale(ws, bs, q)
    return new_w, new_b, q


def random_permutation(weights, biases, *, generator=None):
    """Randomly permute the neurons of every hidden layer (same function).
    Returns ``(weights, biases, perms)``; see :func:`apply_permutation` for the convention."""
    ws, bs, batched = check_mlp(weights, biases)
    generator = check_generator(generator)
    perms = []
    for s in _hidden_shapes(ws):
        if batched:
            p = torch.argsort(torch.rand(s, generator=generator), dim=-1)
        else:
            p = torch.randperm(s[-1], generator=generator)
        perms.append(p.to(ws[0].device))
    new_w, new_b = _permute(ws, bs, perms)
    return new_w, new_b, perms


def canonicalize_sign(weights, biases):
    """Flip hidden neurons with negative bias (row of W_l, b_l and column of W_{l+1}), so all
    hidden biases are >= 0: one representative per sign-flip class for odd activations (tanh)."""
    ws, bs, _ = check_mlp(weights, biases)
    q = [torch.where(b < 0, -1.0, 1.0).to(b.dtype) for b in bs[:-1]]
    return _scale(ws, bs, q)


def canonicalize_sine_phase(weights, biases, *, omega0=1.0):
    """Canonical parameters of a sine network (``sin(omega0 (W h + b))`` on hidden layers).

    For each hidden neuron with phase phi = omega0 * b: a sign flip (row, bias and outgoing
    column negated) makes phi >= 0; phi is reduced modulo pi, each shift by pi negating the
    outgoing column (sin(z - pi) = -sin z); a phase in (pi/2, pi) is reflected to pi - phi with
    the incoming row negated (sin(pi - z) = sin z). The function is unchanged, every hidden
    phase lies in [0, pi/2], and networks that differ by these symmetries (and by 2 pi shifts)
    map to the same parameters (away from the measure-zero boundaries phi = 0, pi/2).
    Returns ``(weights, biases)``.
    """
    ws, bs, _ = check_mlp(weights, biases)
    omega0 = check_float(omega0, "omega0", minimum=0.0, min_inclusive=False)
    ws = [w.clone() for w in ws]
    bs = [b.clone() for b in bs]
    for i in range(len(ws) - 1):
        phi = omega0 * bs[i]
        s1 = torch.where(phi < 0, -1.0, 1.0).to(phi.dtype)
        phi = phi.abs()
        k = torch.floor(phi / math.pi)
        phi = phi - k * math.pi
        # guard float round-off at the upper end of [0, pi)
        wrap = phi >= math.pi
        phi = torch.where(wrap, phi - math.pi, phi)
        k = k + wrap.to(k.dtype)
        s_out = s1 * torch.where(torch.remainder(k, 2) == 1, -1.0, 1.0).to(phi.dtype)
        refl = phi > math.pi / 2
        phi = torch.where(refl, math.pi - phi, phi)
        s_in = s1 * torch.where(refl, -1.0, 1.0).to(phi.dtype)
        ws[i] = ws[i] * s_in.unsqueeze(-1)
        bs[i] = phi / omega0
        ws[i + 1] = ws[i + 1] * s_out.unsqueeze(-2)
    return ws, bs
