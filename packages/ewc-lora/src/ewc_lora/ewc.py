"""Elastic weight consolidation on LoRA deltas: the diagonal Fisher and the two EWC penalties.

With LoRA the update of an adapted weight is exactly ``theta - theta_0 = delta_weight()``, so the
EWC penalty ``lam * sum F * (theta - theta_0)**2`` over the adapted weights is
``lam * sum F * delta_weight()**2`` (:func:`ewc_lora_penalty`); :func:`ewc_full_penalty` is the
same formula on the whole (merged) model, the full fine-tuning baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_bool, check_callable, check_float, check_generator, describe
from .lora import LoRALinear, _check_model

__all__ = ["estimate_fisher_diag", "ewc_full_penalty", "ewc_lora_penalty", "lora_layers"]

_PEFT_PREFIX = "base_model.model."


def _is_peft_lora(module: nn.Module) -> bool:
    return (
        hasattr(module, "base_layer")
        and hasattr(module, "get_delta_weight")
        and isinstance(getattr(module, "lora_A", None), nn.ModuleDict)
    )


def _peft_delta(module: nn.Module) -> torch.Tensor | None:
    adapters = [a for a in getattr(module, "active_adapters", ()) if a in module.lora_A]
    if getattr(module, "merged", False) or not adapters:
        return None
    delta = None
    for adapter in adapters:
        d = module.get_delta_weight(adapter)
        delta = d if delta is None else delta + d
    return delta


def lora_layers(model: nn.Module) -> list[tuple[str, nn.Module]]:
    """``(un-adapted weight name, layer)`` for every LoRA layer of ``model``: this package's
    ``LoRALinear`` and peft's LoRA layers (the ``base_model.model.`` prefix of a peft model is
    dropped, so the names are those of the model before adaptation)."""
    model = _check_model(model)
    found = []
    for name, module in model.named_modules():
        if isinstance(module, LoRALinear) or _is_peft_lora(module):
            plain = name[len(_PEFT_PREFIX) :] if name.startswith(_PEFT_PREFIX) else name
            found.append((f"{plain}.weight" if plain else "weight", module))
    return found


def _delta(module: nn.Module) -> torch.Tensor | None:
    return module.delta_weight() if isinstance(module, LoRALinear) else _peft_delta(module)


def _base_weight(module: nn.Module) -> torch.Tensor:
    return module.base.weight if isinstance(module, LoRALinear) else module.base_layer.weight


def _check_mapping(value: Any, name: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of parameter name -> tensor, got {describe(value)}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    return value


def _entry(
    table: Mapping, name: str, key: str, shape: tuple[int, ...], *, fisher: bool
) -> torch.Tensor:
    if key not in table:
        raise ValueError(
            f"{name} has no entry {key!r} (keys are the un-adapted parameter names, e.g. "
            f"{list(table)[:3]})"
        )
    value = table[key]
    label = f"{name}[{key!r}]"
    if not isinstance(value, torch.Tensor):
        if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
            value = torch.from_numpy(value)
        else:
            raise TypeError(f"{label} must be a tensor, got {describe(value)}")
    if value.is_complex() or not (value.is_floating_point() or value.dtype.is_signed):
        raise TypeError(f"{label} must be a real tensor, got {describe(value)}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(
            f"{label} must have the weight's shape {tuple(shape)}, got {describe(value)}"
        )
    if value.is_floating_point() and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{label} must be finite, got NaN or infinite values")
    if fisher and value.numel() and bool((value < 0).any()):
        raise ValueError(f"{label} must be non-negative (a diagonal Fisher), got min {value.min()}")
    return value


def ewc_lora_penalty(model: nn.Module, fisher: Mapping, *, lam: float = 1.0) -> torch.Tensor:
    """``lam * sum over LoRA-adapted weights W of sum(F_W * delta_weight()**2)`` (a 0-d tensor
    with a gradient to the adapters).

    ``fisher`` is keyed by the *un-adapted* parameter names (``"model.layers.0.self_attn.q_proj
    .weight"``, as :func:`estimate_fisher_diag` of the pre-trained model returns them), each entry
    in the base weight's shape and layout; entries of other weights are ignored. Works on this
    package's ``LoRALinear`` and on peft LoRA models.
    """
    model = _check_model(model)
    fisher = _check_mapping(fisher, "fisher")
    lam = check_float(lam, "lam", minimum=0.0)
    layers = lora_layers(model)
    if not layers:
        raise ValueError(
            f"model has no LoRA layers (apply_lora or peft first): {type(model).__name__}"
        )
    total = None
    for key, module in layers:
        weight = _base_weight(module)
        f = _entry(fisher, "fisher", key, tuple(weight.shape), fisher=True)
        delta = _delta(module)
        if delta is None:
            continue
        term = (f.to(device=delta.device, dtype=delta.dtype) * delta.pow(2)).sum()
        total = term if total is None else total + term
    if total is None:
        total = torch.zeros((), device=_base_weight(layers[0][1]).device)
    return lam * total


def _effective_parameters(model: nn.Module) -> dict[str, torch.Tensor]:
    """The model's weights under their un-adapted names: a LoRA layer's weight is
    ``base + delta``; the adapters' own parameters are left out."""
    out: dict[str, torch.Tensor] = {}
    for key, module in lora_layers(model):
        prefix = key[: -len("weight")]  # "model.layers.0.q_proj." or "" (model is the layer)
        delta = _delta(module)
        weight = _base_weight(module)
        out[key] = weight if delta is None else weight + delta.to(weight.dtype)
        base = module.base if isinstance(module, LoRALinear) else module.base_layer
        if getattr(base, "bias", None) is not None:
            out[prefix + "bias"] = base.bias
    inside = [n for n, m in model.named_modules() if isinstance(m, LoRALinear) or _is_peft_lora(m)]
    for name, p in model.named_parameters():
        if any(s == "" or name.startswith(s + ".") for s in inside):
            continue
        plain = name[len(_PEFT_PREFIX) :] if name.startswith(_PEFT_PREFIX) else name
        out.setdefault(plain, p)
    return out


def ewc_full_penalty(
    model: nn.Module, fisher: Mapping, theta0: Mapping, *, lam: float = 1.0
) -> torch.Tensor:
    """``lam * sum over Fisher entries of sum(F * (theta - theta0)**2)``: EWC on the full weights.

    Every key of ``fisher`` must name a parameter of ``model`` and of ``theta0`` (for instance
    ``{n: p.detach().clone() for n, p in model.named_parameters()}`` taken before training). On a
    model with LoRA layers, a layer's weight is ``base + delta_weight()`` under its un-adapted
    name, so the result equals :func:`ewc_lora_penalty` when ``theta0`` holds the base weights.
    """
    model = _check_model(model)
    fisher = _check_mapping(fisher, "fisher")
    theta0 = _check_mapping(theta0, "theta0")
    lam = check_float(lam, "lam", minimum=0.0)
    params = _effective_parameters(model)
    total = None
    for key in fisher:
        if key not in params:
            raise ValueError(
                f"fisher entry {key!r} is not a parameter of model (parameters: {list(params)[:3]}...)"
            )
        theta = params[key]
        f = _entry(fisher, "fisher", key, tuple(theta.shape), fisher=True)
        t0 = _entry(theta0, "theta0", key, tuple(theta.shape), fisher=False)
        diff = theta - t0.to(device=theta.device, dtype=theta.dtype)
        term = (f.to(device=theta.device, dtype=theta.dtype) * diff.pow(2)).sum()
        total = term if total is None else total + term
    return lam * total


# --------------------------------------------------------------------------- Fisher estimation


def _vocab_size(model: nn.Module) -> int | None:
    """The input embedding's size (a Hugging Face model's, else the first ``nn.Embedding``)."""
    try:
        emb = model.get_input_embeddings()
    except (AttributeError, NotImplementedError):
        emb = next((m for m in model.modules() if isinstance(m, nn.Embedding)), None)
    return getattr(emb, "num_embeddings", None)


def _as_ids(value: Any, label: str, vocab: int | None) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        ids = value
    elif isinstance(value, np.ndarray | list | tuple):
        try:
            arr = np.asarray(value)
        except ValueError:  # ragged
            raise TypeError(
                f"{label} must be a flat sequence of token ids, got {describe(value)}"
            ) from None
        if arr.size == 0:
            raise ValueError(f"{label} must not be empty, got {describe(value)}")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{label} must hold integer token ids, got {describe(value)}")
        ids = torch.from_numpy(arr.astype(np.int64))
    else:
        raise TypeError(
            f"{label} must be a 1-D tensor of token ids (or a dict), got {describe(value)}"
        )
    if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        raise TypeError(f"{label} must hold integer token ids, got {describe(value)}")
    if ids.ndim == 2 and ids.shape[0] == 1:
        ids = ids[0]
    if ids.ndim != 1:
        raise ValueError(
            f"{label} must be one sequence (1-D, or a batch of one row), got shape "
            f"{tuple(ids.shape)} (the Fisher is a mean over items of squared per-item gradients)"
        )
    if ids.numel() < 2:
        raise ValueError(
            f"{label} needs at least 2 tokens for a next-token loss, got {ids.numel()}"
        )
    if bool((ids < 0).any()) or (vocab is not None and bool((ids >= vocab).any())):
        raise ValueError(
            f"{label} token ids must lie in [0, {vocab}), got {ids.min()}..{ids.max()}"
        )
    return ids.long()


def _item_tokens(item: Any, label: str, vocab: int | None) -> tuple[torch.Tensor, ...]:
    """``(input_ids, attention_mask, labels)`` of one item, all 1-D."""
    if isinstance(item, Mapping):
        if "input_ids" not in item:
            raise ValueError(f"{label} must have an 'input_ids' entry, got keys {list(item)}")
        ids = _as_ids(item["input_ids"], f"{label}['input_ids']", vocab)
        mask = item.get("attention_mask")
        mask = torch.ones_like(ids) if mask is None else torch.as_tensor(mask).reshape(-1).long()
        if mask.shape != ids.shape:
            raise ValueError(f"{label}['attention_mask'] must have the shape of input_ids")
        labels = item.get("labels")
        if labels is None:
            labels = ids.masked_fill(mask == 0, -100)
        else:
            labels = torch.as_tensor(labels).reshape(-1).long()
            if labels.shape != ids.shape:
                raise ValueError(f"{label}['labels'] must have the shape of input_ids")
    else:
        ids = _as_ids(item, label, vocab)
        mask = torch.ones_like(ids)
        labels = ids.clone()
    if not bool((labels[1:] != -100).any()):
        raise ValueError(f"{label} has no target token (all labels are -100)")
    return ids, mask, labels


def _logits(model: nn.Module, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    out = model(input_ids=ids[None], attention_mask=mask[None])
    logits = getattr(out, "logits", None)
    if logits is None:
        logits = out[0] if isinstance(out, tuple | list) else out
    return logits[0]


def _lm_loss(
    model: nn.Module, item: Any, label: str, *, empirical: bool, generator: Any
) -> torch.Tensor:
    device = next(model.parameters()).device
    ids, mask, labels = (t.to(device) for t in _item_tokens(item, label, _vocab_size(model)))
    logits = _logits(model, ids, mask)[:-1].float()
    target = labels[1:]
    if not empirical:  # the "true" Fisher: labels drawn from the model's own predictions
        with torch.no_grad():
            probs = torch.softmax(logits.detach(), dim=-1).cpu()
            drawn = torch.multinomial(probs, 1, generator=generator)[:, 0].to(device)
        target = torch.where(target == -100, target, drawn)
    return F.cross_entropy(logits, target, ignore_index=-100)


def estimate_fisher_diag(
    model: nn.Module,
    samples: Iterable[Any],
    *,
    loss_fn: Callable[[nn.Module, Any], torch.Tensor] | None = None,
    empirical: bool = True,
    generator: torch.Generator | None = None,
) -> dict[str, torch.Tensor]:
    """The diagonal Fisher ``F = mean over items of (d loss(item) / d theta)**2``.

    One entry (float32, or float64 for float64 parameters; the parameter's shape and device) per parameter of ``model`` that
    requires a gradient, under its ``named_parameters`` name. Each item of ``samples`` is one
    example: ``loss_fn(model, item)`` must return a scalar loss. The default loss is the mean
    next-token cross-entropy of a 1-D sequence of token ids (a tensor, list or array, or a
    dict with ``input_ids`` and optional ``attention_mask``/``labels``, -100 ignored).
    ``empirical=False`` (default loss only) draws each target token from the model's own
    predictive distribution (the "true" Fisher), with ``generator``. The model is in eval mode
    (no dropout) during the estimate, and its ``.grad`` fields are left untouched.
    """
    model = _check_model(model)
    if isinstance(samples, str | bytes) or not isinstance(samples, Iterable):
        raise TypeError(f"samples must be an iterable of items, got {describe(samples)}")
    if loss_fn is not None:
        check_callable(loss_fn, "loss_fn")
    empirical = check_bool(empirical, "empirical")
    generator = check_generator(generator)
    if not empirical and loss_fn is not None:
        raise ValueError(
            "empirical=False draws labels from the model, which needs the default LM loss "
            "(loss_fn=None)"
        )
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if not named:
        raise ValueError("model has no parameter that requires a gradient")
    params = [p for _, p in named]
    # float32 sums (float64 for a float64 model)
    total = [torch.zeros_like(p, dtype=torch.promote_types(p.dtype, torch.float32)) for p in params]
    was_training = model.training
    model.eval()
    n = 0
    try:
        for i, item in enumerate(samples):
            with torch.enable_grad():
                if loss_fn is None:
                    loss = _lm_loss(
                        model, item, f"samples[{i}]", empirical=empirical, generator=generator
                    )
                else:
                    loss = loss_fn(model, item)
                    if not isinstance(loss, torch.Tensor):
                        raise TypeError(f"loss_fn must return a tensor, got {describe(loss)}")
                    if loss.numel() != 1:
                        raise ValueError(
                            f"loss_fn must return a scalar loss, got shape {tuple(loss.shape)}"
                        )
                    loss = loss.reshape(())
                if not bool(torch.isfinite(loss)):
                    raise ValueError(f"loss of samples[{i}] is not finite ({float(loss)})")
                grads = torch.autograd.grad(loss, params, allow_unused=True)
            for acc, g in zip(total, grads, strict=True):
                if g is not None:
                    acc.add_(g.detach().to(acc.dtype).pow(2))
            n += 1
    finally:
        model.train(was_training)
    if n == 0:
        raise ValueError("samples must not be empty")
    return {name: acc / n for (name, _), acc in zip(named, total, strict=True)}
