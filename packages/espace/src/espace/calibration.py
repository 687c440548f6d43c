"""Calibration statistics: forward (and, for NL-MSE, backward) hooks on GEMM inputs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_bool, check_int, check_option, check_tensor, describe
from ._validation import check_module, is_linear, linear_parts

__all__ = ["OBJECTIVES", "ActivationStats", "calibrate", "default_targets"]

OBJECTIVES = ("mse", "go", "nl")


def _rows(x: torch.Tensor, normalize: bool) -> torch.Tensor:
    rows = x.detach().reshape(-1, x.shape[-1]).to(torch.float64)
    if normalize:
        rows = rows / rows.norm(dim=1, keepdim=True).clamp_min(torch.finfo(torch.float64).tiny)
    return rows


class ActivationStats:
    """Running token means of ``x xᵀ`` and ``g gᵀ`` (float64, no mean subtraction).

    ``update(x)`` / ``update_grad(g)`` take (..., dim) tensors (every leading index a token);
    with ``normalize=True`` each token is scaled to unit L2 norm first (zero tokens stay zero).
    """

    def __init__(self, dim: int, *, normalize: bool = False):
        self.dim = check_int(dim, "dim", minimum=1)
        self.normalize = check_bool(normalize, "normalize")
        self._xx = torch.zeros(self.dim, self.dim, dtype=torch.float64)
        self._gg = torch.zeros(self.dim, self.dim, dtype=torch.float64)
        self.count = 0
        self.grad_count = 0

    def _check(self, x: Any, name: str) -> torch.Tensor:
        check_tensor(x, name, ndim=None)
        if x.ndim < 1 or x.shape[-1] != self.dim:
            raise ValueError(f"{name} must have shape (..., {self.dim}), got {tuple(x.shape)}")
        return x

    def update(self, x: torch.Tensor) -> ActivationStats:
        rows = _rows(self._check(x, "x"), self.normalize).cpu()
        self._xx += rows.T @ rows
        self.count += rows.shape[0]
        return self

    def update_grad(self, g: torch.Tensor) -> ActivationStats:
        rows = _rows(self._check(g, "g"), self.normalize).cpu()
        self._gg += rows.T @ rows
        self.grad_count += rows.shape[0]
        return self

    def autocorr(self) -> torch.Tensor:
        """``C_X = E[x xᵀ]`` over the tokens seen (K, K), float64."""
        if self.count == 0:
            raise ValueError("no activations seen yet: call update(x) first")
        return self._xx / self.count

    def grad_autocorr(self) -> torch.Tensor:
        """``C_G = E[g gᵀ]`` over the gradient tokens seen (K, K), float64."""
        if self.grad_count == 0:
            raise ValueError("no gradients seen yet: call update_grad(g) first")
        return self._gg / self.grad_count


def _lm_head_names(model: nn.Module) -> set[str]:
    heads = set()
    get = getattr(model, "get_output_embeddings", None)
    head = None
    if callable(get):
        try:
            head = get()
        except (NotImplementedError, AttributeError):
            head = None
    for name, module in model.named_modules():
        if (head is not None and module is head) or name == "lm_head" or name.endswith(".lm_head"):
            heads.add(name)
    return heads


def default_targets(model: nn.Module) -> list[str]:
    """Every ``nn.Linear`` (and Hugging Face ``Conv1D``) of ``model`` but the LM head."""
    model = check_module(model, "model")
    heads = _lm_head_names(model)
    return [n for n, m in model.named_modules() if is_linear(m) and n and n not in heads]


def _resolve_targets(model: nn.Module, targets: Any) -> list[str]:
    if targets is None:
        names = default_targets(model)
        if not names:
            raise ValueError("model has no nn.Linear layer besides its LM head (targets=None)")
        return names
    modules = dict(model.named_modules())
    if isinstance(targets, str | re.Pattern):
        pattern = re.compile(targets) if isinstance(targets, str) else targets
        names = [n for n, m in modules.items() if n and is_linear(m) and pattern.search(n)]
        if not names:
            raise ValueError(f"targets {pattern.pattern!r} matches no linear layer of model")
        return names
    if not isinstance(targets, list | tuple | set | frozenset):
        raise TypeError(
            f"targets must be None, a regex string or a list of module names, "
            f"got {describe(targets)}"
        )
    names = list(dict.fromkeys(targets))
    if not names:
        raise ValueError("targets must name at least one layer, got an empty list")
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"targets must hold module names (str), got {describe(n)}")
        if n not in modules:
            raise ValueError(f"targets names {n!r}, which is not a module of model")
        if not is_linear(modules[n]):
            raise ValueError(
                f"targets names {n!r}, a {type(modules[n]).__name__}, not a linear layer"
            )
    return names


def _like_ids(value: Any, name: str, ids: torch.Tensor, dtype: str) -> torch.Tensor:
    """A per-token tensor (attention mask, labels) of ``input_ids``' shape."""
    value = check_tensor(value, name, ndim=(1, 2), dtype=dtype)
    value = value.reshape(1, -1) if value.ndim == 1 else value
    if tuple(value.shape) != tuple(ids.shape):
        raise ValueError(
            f"{name} must have input_ids' shape {tuple(ids.shape)}, got {tuple(value.shape)}"
        )
    return value


def _batch_parts(batch: Any, index: int, device: torch.device):
    """``(input_ids (B, T), attention_mask or None, labels or None)`` of one batch."""
    label = f"batches[{index}]"
    if isinstance(batch, dict):
        if "input_ids" not in batch:
            raise ValueError(f"{label} must have an 'input_ids' entry, got keys {sorted(batch)}")
        ids, mask, labels = batch["input_ids"], batch.get("attention_mask"), batch.get("labels")
    else:
        ids, mask, labels = batch, None, None
    ids = check_tensor(
        ids,
        label if not isinstance(batch, dict) else f"{label}['input_ids']",
        ndim=(1, 2),
        dtype="integer",
    )
    if ids.ndim == 1:
        ids = ids.unsqueeze(0)
    if mask is not None:
        mask = _like_ids(mask, f"{label}['attention_mask']", ids, "any").to(device)
    if labels is not None:
        labels = _like_ids(labels, f"{label}['labels']", ids, "integer").to(device)
    return ids.to(device), mask, labels


def _token_mask(x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1])
    if mask is not None and tuple(x.shape[:-1]) == tuple(mask.shape):
        rows = rows[mask.reshape(-1).to(torch.bool)]
    return rows


def _lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    shift_logits = logits[:, :-1].reshape(-1, logits.shape[-1]).float()
    shift_labels = labels[:, 1:].reshape(-1)
    return F.cross_entropy(shift_logits, shift_labels, ignore_index=-100)


def calibrate(
    model: nn.Module,
    batches: Iterable,
    *,
    targets: Any = None,
    objective: str = "mse",
    normalize: bool = False,
    num_batches: int | None = None,
) -> dict[str, torch.Tensor]:
    """Calibration matrices ``{name: (K, K)}`` of the inputs of the ``targets`` linear layers.

    ``batches``: ``input_ids`` tensors (B, T) / (T,) or dicts with ``input_ids`` and optional
    ``attention_mask`` (tokens with mask 0 are left out of every mean) and ``labels`` (-100
    ignored; default ``input_ids`` with padding -100). ``targets``: None (every ``nn.Linear`` /
    ``Conv1D`` but the LM head), a regex (``re.search`` on module names) or a list of names.

    ``objective``: ``"mse"`` ``C_X`` = token mean of ``x xᵀ`` (x scaled to unit norm first if
    ``normalize``); ``"go"`` ``C_X C_W + C_W C_X`` with ``C_W = Wᵀ W / N``; ``"nl"``
    ``C_X C_G + C_G C_X`` per batch (``C_G`` the token mean of ``g gᵀ``, g = ∂(LM loss)/∂x,
    normalised too if ``normalize``), averaged over batches. Results are float64 on the CPU.
    The model runs in eval mode (restored afterwards); parameters' ``.grad`` are not touched.
    """
    model = check_module(model, "model")
    objective = check_option(objective, "objective", OBJECTIVES)
    normalize = check_bool(normalize, "normalize")
    if num_batches is not None:
        num_batches = check_int(num_batches, "num_batches", minimum=1)
    if isinstance(batches, torch.Tensor | dict | str | bytes) or not isinstance(batches, Iterable):
        raise TypeError(
            f"batches must be an iterable of input_ids tensors or dicts, got {describe(batches)}"
        )
    names = _resolve_targets(model, targets)
    modules = dict(model.named_modules())
    param = next(model.parameters(), None)
    device = param.device if param is not None else torch.device("cpu")
    dims = {n: int(linear_parts(modules[n])[0].shape[1]) for n in names}
    totals = {n: torch.zeros(dims[n], dims[n], dtype=torch.float64) for n in names}
    counts = dict.fromkeys(names, 0)
    state: dict[str, Any] = {"mask": None}
    captured: dict[str, list[torch.Tensor]] = {n: [] for n in names}

    def make_pre_hook(name):
        def hook(module, args):
            x = args[0]
            if objective == "nl":
                # a tensor of this layer's own, so that the gradient is the one flowing through
                # this GEMM only (q/k/v projections share their input tensor)
                x = x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True)
                args = (x, *args[1:])
                captured[name].append(x)
                return args
            rows = _rows(_token_mask(x, state["mask"]), normalize).cpu()
            totals[name] += rows.T @ rows
            counts[name] += rows.shape[0]
            return None

        return hook

    handles = [modules[n].register_forward_pre_hook(make_pre_hook(n)) for n in names]
    was_training = model.training
    model.eval()
    seen = 0
    try:
        for i, batch in enumerate(batches):
            if num_batches is not None and seen >= num_batches:
                break
            ids, mask, labels = _batch_parts(batch, i, device)
            state["mask"] = mask
            if objective != "nl":
                with torch.no_grad():
                    model(input_ids=ids, attention_mask=mask)
            else:
                if labels is None:
                    labels = ids.masked_fill(mask == 0, -100) if mask is not None else ids
                for n in names:
                    captured[n].clear()
                with torch.enable_grad():
                    out = model(input_ids=ids, attention_mask=mask)
                    logits = out.logits if hasattr(out, "logits") else out[0]
                    loss = _lm_loss(logits, labels)
                    if not loss.requires_grad:
                        raise ValueError("the LM loss does not depend on the target inputs")
                    flat = [x for n in names for x in captured[n]]
                    grads = torch.autograd.grad(loss, flat, allow_unused=True)
                k = 0
                for n in names:
                    cx = torch.zeros(dims[n], dims[n], dtype=torch.float64)
                    cg = torch.zeros_like(cx)
                    nx = ng = 0
                    for x in captured[n]:
                        g = grads[k]
                        k += 1
                        rx = _rows(_token_mask(x, mask), normalize).cpu()
                        cx += rx.T @ rx
                        nx += rx.shape[0]
                        if g is not None:
                            rg = _rows(_token_mask(g, mask), normalize).cpu()
                            cg += rg.T @ rg
                            ng += rg.shape[0]
                    captured[n].clear()
                    if nx == 0:
                        continue
                    cx /= nx
                    cg /= max(ng, 1)
                    totals[n] += cx @ cg + cg @ cx
                    counts[n] += 1
            seen += 1
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
        for n in names:
            captured[n].clear()
    if seen == 0:
        raise ValueError("batches must hold at least one batch, got none")
    out: dict[str, torch.Tensor] = {}
    for n in names:
        if counts[n] == 0:
            raise ValueError(f"layer {n!r} saw no (unmasked) token during calibration")
        C = totals[n] / counts[n]
        if objective == "go":
            W = linear_parts(modules[n])[0].detach().to(device="cpu", dtype=torch.float64)
            CW = W.T @ W / W.shape[0]
            C = C @ CW + CW @ C
        out[n] = C
    return out
