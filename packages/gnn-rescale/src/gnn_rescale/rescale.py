"""Rescale invariance of GATv2 networks, balancing, conserved quantities and layer focusing.

For a hidden neuron ``i`` of layer ``l`` and ``lam > 0``::

    W_l[i, :] *= lam,   a_l[i] /= lam,   W_{l+1}[:, i] /= lam

leaves the network function unchanged; the gradients of the rescaled model are then
``grad W_l[i, :] / lam``, ``grad a_l[i] * lam``, ``grad W_{l+1}[:, i] * lam``. Layers are indexed
from 0 (``model.layers[l]``); hidden layers are ``0 .. L-2``.

Models: :class:`gnn_rescale.GATv2Net`, or any ``torch.nn.Module`` whose rescalable layers are
PyG ``GATv2Conv`` modules with ``heads=1``, ``share_weights=True``, ``bias=False``, no residual and
no edge features, applied in registration order with a positively homogeneous activation
between them (verify with :func:`check_rescale_invariance`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, check_option
from ._validation import as_scale_vector, check_edge_index, check_features

__all__ = [
    "DynamicRescaler",
    "InvarianceReport",
    "balance_relative_gradients_",
    "balance_weight_norms_",
    "check_rescale_invariance",
    "conserved_quantity",
    "focus_layer_",
    "imbalance",
    "neuron_rescale_",
    "relative_gradient_balance",
    "relative_gradient_norms",
    "weight_params",
]


def weight_params(model: nn.Module) -> list[tuple[nn.Parameter, torch.Tensor, torch.Tensor]]:
    """Per layer ``(W, a_param, a_view)``: ``W`` [d_out, d_in], ``a_view`` a [d_out] view of the
    attention parameter (PyG stores it as [1, 1, d_out])."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    layers = getattr(model, "layers", None)
    out = []
    if layers is not None and all(hasattr(m, "W") and hasattr(m, "a") for m in layers):
        for m in layers:
            out.append((m.W, m.a, m.a))
        if out:
            return out
    for m in model.modules():
        if not type(m).__module__.startswith("torch_geometric"):
            continue
        if type(m).__name__ == "GATv2Conv":
            _check_pyg_conv(m)
            out.append((m.lin_l.weight, m.att, m.att.view(-1)))
        elif type(m).__name__ == "GATConv":
            raise ValueError("model holds a PyG GATConv: only GATv2 layers are supported")
    if not out:
        raise ValueError(
            "model has no GATv2 layers (a gnn_rescale.GATv2Net or PyG GATv2Conv modules)"
        )
    return out


def _check_pyg_conv(m: nn.Module) -> None:
    problems = []
    if getattr(m, "heads", 1) != 1:
        problems.append(f"heads={m.heads} (need 1)")
    if not getattr(m, "share_weights", False):
        problems.append("share_weights=False (need True)")
    if getattr(m, "bias", None) is not None:
        problems.append("a bias (need bias=False)")
    if getattr(m, "res", None) is not None:
        problems.append("a residual connection (need residual=False)")
    if getattr(m, "lin_l", None) is not None and m.lin_l.bias is not None:
        problems.append("a bias in lin_l (need bias=False)")
    if getattr(m, "lin_edge", None) is not None:
        problems.append("edge features (need edge_dim=None)")
    if problems:
        raise ValueError("model's GATv2Conv breaks the rescale invariance: " + ", ".join(problems))


def _hidden_layer(model: nn.Module, l: int, n_layers: int) -> int:
    return check_int(l, "l", minimum=0, maximum=n_layers - 2)


def _rescale(params, l: int, lam: torch.Tensor, grads: bool) -> None:
    W, _, a = params[l]
    W2 = params[l + 1][0]
    with torch.no_grad():
        W.mul_(lam.unsqueeze(1))
        a.div_(lam)
        W2.div_(lam.unsqueeze(0))
        if grads:
            if W.grad is not None:
                W.grad.div_(lam.unsqueeze(1))
            ga = params[l][1].grad
            if ga is not None:
                ga.view(-1).mul_(lam)
            if W2.grad is not None:
                W2.grad.mul_(lam.unsqueeze(0))


def neuron_rescale_(model: nn.Module, l: int, lam, *, grads: bool = True) -> nn.Module:
    """Rescale the neurons of hidden layer ``l`` in place by ``lam`` (a positive scalar or one
    factor per neuron, [dims[l+1]]); with ``grads`` the ``.grad`` fields (where set) are rescaled
    inversely, so they equal the gradients of the rescaled model. Returns ``model``."""
    params = weight_params(model)
    if len(params) < 2:
        raise ValueError("model has a single layer: it has no hidden neurons to rescale")
    l = _hidden_layer(model, l, len(params))
    if not isinstance(grads, bool):
        raise TypeError(f"grads must be True or False, got {type(grads).__name__}")
    W = params[l][0]
    if params[l + 1][0].shape[1] != W.shape[0]:
        raise ValueError(
            f"layer {l} has {W.shape[0]} outputs but layer {l + 1} has "
            f"{params[l + 1][0].shape[1]} inputs"
        )
    lam = as_scale_vector(lam, "lam", size=W.shape[0], like=W.detach())
    _rescale(params, l, lam, grads)
    return model


def _check_clamp(clamp) -> tuple[float, float]:
    if isinstance(clamp, str | bytes) or not isinstance(clamp, Sequence) or len(clamp) != 2:
        raise TypeError(f"clamp must be a pair (low, high), got {clamp!r}")
    lo = check_float(clamp[0], "clamp", minimum=0.0, min_inclusive=False)
    hi = check_float(clamp[1], "clamp", minimum=0.0, min_inclusive=False)
    if lo > hi:
        raise ValueError(f"clamp must have low <= high, got {tuple(clamp)}")
    return lo, hi


def _sq_in_out(params, l):
    W, _, a = params[l]
    W2 = params[l + 1][0]
    return (W.detach() ** 2).sum(1), a.detach() ** 2, (W2.detach() ** 2).sum(0)


def balance_weight_norms_(
    model: nn.Module, *, n_iter: int = 10, clamp: tuple[float, float] = (1e-5, 2.0)
) -> nn.Module:
    """DR_W: ``n_iter`` sweeps over the hidden layers in order; neuron i of layer l gets
    ``lam = ((||W_{l+1}[:, i]||^2 + a_l[i]^2) / ||W_l[i, :]||^2) ** (1/4)`` (NaN -> 1, then clamped
    to ``clamp``), so that ``||W_l[i,:]||^2 = ||W_{l+1}[:,i]||^2 + a_l[i]^2`` afterwards. Set
    ``.grad`` fields are rescaled too (they stay the gradients of the rescaled model)."""
    n_iter = check_int(n_iter, "n_iter", minimum=0)
    lo, hi = _check_clamp(clamp)
    params = weight_params(model)
    for _ in range(n_iter):
        for l in range(len(params) - 1):
            w_in, a2, w_out = _sq_in_out(params, l)
            lam = ((w_out + a2) / w_in) ** 0.25
            lam = torch.nan_to_num(lam, nan=1.0).clamp(lo, hi)
            _rescale(params, l, lam, True)
    return model


def _rel_sq(p: torch.Tensor, g: torch.Tensor, dim: int | None) -> torch.Tensor:
    """Sum of squared relative gradients (g / p)^2, entries with p == 0 left out."""
    p, g = p.detach(), g.detach()
    r = torch.where(p != 0, g / torch.where(p != 0, p, torch.ones_like(p)), torch.zeros_like(p))
    r = r**2
    return r if dim is None else r.sum(dim)


def _rel_in_out(params, l):
    W, a_par, a = params[l]
    W2 = params[l + 1][0]
    r_in = _rel_sq(W, W.grad, 1)
    r_out = _rel_sq(W2, W2.grad, 0) + _rel_sq(a, a_par.grad.view(-1), None)
    return r_in, r_out


def _need_grads(params) -> None:
    for l, (W, a_par, _) in enumerate(params):
        if W.grad is None or a_par.grad is None:
            raise ValueError(
                f"model has no gradients in layer {l}: call loss.backward() before "
                "balance_relative_gradients_"
            )


def balance_relative_gradients_(
    model: nn.Module, *, n_iter: int = 10, clamp: tuple[float, float] = (1e-5, 2.0)
) -> nn.Module:
    """DR_RG (the paper's Eq. 4), after ``loss.backward()``: per hidden neuron
    ``R_in = sum_j (dL/dW_l[i,j] / W_l[i,j])^2``,
    ``R_out = sum_k (dL/dW_{l+1}[k,i] / W_{l+1}[k,i])^2 + (dL/da_l[i] / a_l[i])^2`` and
    ``lam = (R_in / R_out) ** (1/8)`` (NaN -> 1, clamped), which equalises them; weights and
    gradients are rescaled together. Entries whose weight is exactly 0 have no relative gradient
    and are left out of the sums (the authors' script would turn them into inf)."""
    n_iter = check_int(n_iter, "n_iter", minimum=0)
    lo, hi = _check_clamp(clamp)
    params = weight_params(model)
    _need_grads(params)
    for _ in range(n_iter):
        for l in range(len(params) - 1):
            r_in, r_out = _rel_in_out(params, l)
            lam = (r_in / r_out) ** 0.125
            lam = torch.nan_to_num(lam, nan=1.0).clamp(lo, hi)
            _rescale(params, l, lam, True)
    return model


def conserved_quantity(model: nn.Module) -> list[torch.Tensor]:
    """Per hidden layer l, ``||W_l[i,:]||^2 - a_l[i]^2 - ||W_{l+1}[:,i]||^2`` for every neuron i
    (a detached [dims[l+1]] tensor): conserved by gradient flow."""
    params = weight_params(model)
    out = []
    for l in range(len(params) - 1):
        w_in, a2, w_out = _sq_in_out(params, l)
        out.append(w_in - a2 - w_out)
    return out


def imbalance(model: nn.Module) -> float:
    """The largest relative weight-norm imbalance ``|c_i| / ||W_l[i,:]||^2`` over hidden neurons
    (0 when balanced)."""
    params = weight_params(model)
    worst = 0.0
    for l in range(len(params) - 1):
        w_in, a2, w_out = _sq_in_out(params, l)
        worst = max(worst, float(((w_in - a2 - w_out).abs() / w_in).max()))
    return worst


def relative_gradient_balance(model: nn.Module) -> list[torch.Tensor]:
    """Per hidden layer, ``R_in / R_out`` for every neuron (1 in relative-gradient balance)."""
    params = weight_params(model)
    _need_grads(params)
    out = []
    for l in range(len(params) - 1):
        r_in, r_out = _rel_in_out(params, l)
        out.append(r_in / r_out)
    return out


def relative_gradient_norms(model: nn.Module) -> list[float]:
    """Per layer, the Frobenius norm of the elementwise relative gradient grad/param over
    ``W_l`` and ``a_l`` (the paper's heat-maps; zero weights left out)."""
    params = weight_params(model)
    _need_grads(params)
    out = []
    for W, a_par, _ in params:
        s = _rel_sq(W, W.grad, None).sum() + _rel_sq(a_par, a_par.grad, None).sum()
        out.append(float(s.sqrt()))
    return out


def focus_layer_(
    model: nn.Module, layer: int, factor: float, *, compensate: bool = True
) -> nn.Module:
    """Make ``layer`` learn faster: its weight ``W_layer`` is multiplied by ``factor``, which
    multiplies its relative gradients by about ``factor ** -2``.

    With ``compensate`` (default) the change goes through the rescale invariance and the network
    function is unchanged: a hidden layer gets ``neuron_rescale_(model, layer, factor)`` (its
    attention vector and the next layer's input weights are divided by ``factor``), the last layer
    ``neuron_rescale_(model, layer - 1, 1 / factor)``. Without it only ``W_layer`` is scaled."""
    params = weight_params(model)
    layer = check_int(layer, "layer", minimum=0, maximum=len(params) - 1)
    factor = check_float(factor, "factor", minimum=0.0, min_inclusive=False)
    if not isinstance(compensate, bool):
        raise TypeError(f"compensate must be True or False, got {type(compensate).__name__}")
    if not compensate:
        with torch.no_grad():
            params[layer][0].mul_(factor)
        return model
    if len(params) < 2:
        raise ValueError("a single-layer model has no invariance to compensate through")
    W = params[layer][0]
    if layer < len(params) - 1:
        _rescale(params, layer, torch.full((W.shape[0],), factor, dtype=W.dtype), True)
    else:
        d = params[layer - 1][0].shape[0]
        _rescale(params, layer - 1, torch.full((d,), 1.0 / factor, dtype=W.dtype), True)
    return model


class DynamicRescaler:
    """Rebalance a model every ``every`` epochs inside any training loop.

    ``criterion``: ``"rg"`` (relative gradients, after backward), ``"w"`` (weight norms, before
    the forward pass) or ``"both"`` (DR_C). Call ``before_forward(epoch)`` before the forward pass
    and ``after_backward(epoch)`` after ``loss.backward()`` (before clipping and the optimiser
    step). ``start`` delays the first rebalance (the paper's grokking runs start at epoch 1000).
    """

    def __init__(
        self,
        model: nn.Module,
        *,
        criterion: str = "rg",
        every: int = 10,
        n_iter: int = 10,
        clamp: tuple[float, float] = (1e-5, 2.0),
        start: int = 0,
    ) -> None:
        weight_params(model)
        self.model = model
        self.criterion = check_option(criterion, "criterion", ("rg", "w", "both"))
        self.every = check_int(every, "every", minimum=1)
        self.n_iter = check_int(n_iter, "n_iter", minimum=0)
        self.clamp = _check_clamp(clamp)
        self.start = check_int(start, "start", minimum=0)
        self.n_rebalanced = 0

    def _due(self, epoch: int) -> bool:
        epoch = check_int(epoch, "epoch", minimum=0)
        return epoch >= self.start and (epoch - self.start) % self.every == 0

    def before_forward(self, epoch: int) -> bool:
        """Weight-norm balancing (criteria "w" and "both") when due; returns whether it ran."""
        if self._due(epoch) and self.criterion in ("w", "both"):
            balance_weight_norms_(self.model, n_iter=self.n_iter, clamp=self.clamp)
            self.n_rebalanced += 1
            return True
        return False

    def after_backward(self, epoch: int) -> bool:
        """Relative-gradient balancing (criteria "rg" and "both") when due; returns whether it ran."""
        if self._due(epoch) and self.criterion in ("rg", "both"):
            balance_relative_gradients_(self.model, n_iter=self.n_iter, clamp=self.clamp)
            self.n_rebalanced += 1
            return True
        return False


@dataclass(frozen=True)
class InvarianceReport:
    """Result of :func:`check_rescale_invariance`: the largest relative change of the output
    (``output_error``) and of the gradients against the predicted transform (``grad_error``)
    after rescaling every hidden neuron by a random factor in [low, high]."""

    output_error: float
    grad_error: float
    n_neurons: int
    invariant: bool


def check_rescale_invariance(
    model: nn.Module,
    x: torch.Tensor,
    edge_index: torch.Tensor,
    *,
    low: float = 0.1,
    high: float = 10.0,
    tol: float = 1e-9,
    generator: torch.Generator | None = None,
) -> InvarianceReport:
    """Does ``model(x, edge_index)`` have the rescale invariance? A float64 copy is rescaled at
    every hidden neuron by factors drawn log-uniformly from [low, high]; the outputs must agree and
    the gradients of ``sum(out**2)`` must transform inversely, both within ``tol`` (relative).
    The model itself is not changed."""
    low = check_float(low, "low", minimum=0.0, min_inclusive=False)
    high = check_float(high, "high", minimum=low)
    tol = check_float(tol, "tol", minimum=0.0)
    generator = check_generator(generator)
    check_features(x, "x")
    check_edge_index(edge_index, "edge_index", num_nodes=x.shape[0])
    ref = copy.deepcopy(model).double()
    params = weight_params(ref)
    if len(params) < 2:
        raise ValueError("model has a single layer: it has no hidden neurons to rescale")
    x = x.detach().double()

    def run(m):
        m.zero_grad(set_to_none=True)
        out = m(x, edge_index)
        (out**2).sum().backward()
        return out.detach()

    out0 = run(ref)
    test = copy.deepcopy(ref)
    tparams = weight_params(test)
    lams = []
    n = 0
    for l in range(len(tparams) - 1):
        d = tparams[l][0].shape[0]
        u = torch.rand(d, generator=generator, dtype=torch.float64)
        lam = torch.exp(torch.log(torch.tensor(low)) + u * (torch.log(torch.tensor(high / low))))
        lams.append(lam)
        n += d
    for l, lam in enumerate(lams):  # rescale weights and the reference's gradients
        _rescale(tparams, l, lam, False)
        _rescale(params, l, lam, True)
    out1 = run(test)
    scale = out0.abs().max().clamp_min(1e-300)
    out_err = float((out1 - out0).abs().max() / scale)
    g_err = 0.0
    for (W, ap, _), (Wt, apt, _) in zip(params, tparams, strict=True):
        for g, gt in ((W.grad, Wt.grad), (ap.grad, apt.grad)):
            s = g.abs().max().clamp_min(1e-300)
            g_err = max(g_err, float((gt - g).abs().max() / s))
    return InvarianceReport(out_err, g_err, n, out_err <= tol and g_err <= tol)
