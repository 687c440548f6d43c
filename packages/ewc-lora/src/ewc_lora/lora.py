"""A minimal LoRA (Hu et al. 2021) for ``nn.Linear`` and GPT-2's ``Conv1D``, no peft needed.

``LoRALinear(base)`` computes ``base(x) + scaling * dropout(x) @ A.T @ B.T`` with ``A`` (r, in),
``B`` (out, r) = 0 and ``scaling = alpha / r``, so the adapted weight is ``W + delta_weight()``
with ``delta_weight() = scaling * B @ A`` written in the base weight's own layout ((out, in) for
``nn.Linear``, (in, out) for ``Conv1D``). The base layer is frozen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, check_probability, describe

__all__ = ["LoRALinear", "apply_lora", "merge_lora"]


def _is_conv1d(module: Any) -> bool:
    """Hugging Face's ``Conv1D`` (GPT-2 family): a linear layer whose weight is (in, out)."""
    return (
        type(module).__name__ == "Conv1D"
        and isinstance(module, nn.Module)
        and isinstance(getattr(module, "weight", None), torch.Tensor)
        and module.weight.ndim == 2
        and hasattr(module, "nf")
    )


def _check_base(base: Any) -> bool:
    """Return ``fan_in_fan_out`` (True for Conv1D) or raise TypeError naming ``base``."""
    if isinstance(base, LoRALinear):
        raise TypeError("base must be an un-adapted nn.Linear or Conv1D, got a LoRALinear")
    if isinstance(base, nn.Linear):
        return False
    if _is_conv1d(base):
        return True
    raise TypeError(f"base must be a torch.nn.Linear or transformers Conv1D, got {describe(base)}")


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update ``(alpha / r) * B @ A``.

    ``A`` has shape (r, in_features) (Kaiming-uniform, as in peft), ``B`` (out_features, r) starts
    at zero, so the layer starts equal to ``base``. ``generator`` seeds ``A``'s initialisation.
    """

    def __init__(
        self,
        base: nn.Module,
        *,
        r: int = 8,
        alpha: float = 32,
        dropout: float = 0.1,
        generator: torch.Generator | None = None,
    ) -> None:
        fan_in_fan_out = _check_base(base)
        r = check_int(r, "r", minimum=1)
        alpha = check_float(alpha, "alpha", minimum=0.0, min_inclusive=False)
        dropout = check_probability(dropout, "dropout", allow_one=False)
        generator = check_generator(generator)
        super().__init__()
        weight = base.weight
        in_features, out_features = (
            (weight.shape[0], weight.shape[1])
            if fan_in_fan_out
            else (weight.shape[1], weight.shape[0])
        )
        self.base = base
        self.fan_in_fan_out = fan_in_fan_out
        self.in_features = int(in_features)
        self.out_features = int(out_features)
        self.r = r
        self.alpha = alpha
        self.scaling = alpha / r
        self.dropout = nn.Dropout(dropout)  # on the LoRA path only, as in peft
        for p in base.parameters():
            p.requires_grad_(False)
        dtype = weight.dtype if weight.is_floating_point() else torch.float32
        a = torch.empty(r, self.in_features, dtype=torch.float32)
        bound = 1.0 / math.sqrt(self.in_features)  # kaiming_uniform_(a=sqrt(5)) on (r, in)
        a.uniform_(-bound, bound, generator=generator)
        self.A = nn.Parameter(a.to(device=weight.device, dtype=dtype))
        self.B = nn.Parameter(torch.zeros(self.out_features, r, device=weight.device, dtype=dtype))

    @property
    def weight(self) -> torch.Tensor:
        """The frozen base weight (its own layout)."""
        return self.base.weight

    @property
    def bias(self) -> torch.Tensor | None:
        return getattr(self.base, "bias", None)

    def delta_weight(self) -> torch.Tensor:
        """``scaling * B @ A`` in the base weight's layout (transposed for Conv1D)."""
        delta = (self.B @ self.A) * self.scaling
        return delta.T if self.fan_in_fan_out else delta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)
        z = self.dropout(x.to(self.A.dtype)) @ self.A.T
        return out + (z @ self.B.T * self.scaling).to(out.dtype)

    def merged(self) -> nn.Module:
        """The base layer with ``delta_weight()`` added to its weight (in place), returned."""
        with torch.no_grad():
            self.base.weight.add_(self.delta_weight().to(self.base.weight.dtype))
        return self.base

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, r={self.r}, "
            f"alpha={self.alpha}, conv1d={self.fan_in_fan_out}"
        )


def _check_model(model: Any) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    return model


def _check_targets(target_modules: Any) -> tuple[str, ...] | re.Pattern:
    """peft's rule: a str is a regular expression matched against the full module name; a list of
    names matches a module whose name is one of them or ends with ``"." + name``."""
    if isinstance(target_modules, str):
        if not target_modules:
            raise ValueError("target_modules must not be empty, got ''")
        try:
            return re.compile(target_modules)
        except re.error as exc:
            raise ValueError(f"target_modules is not a valid regular expression: {exc}") from None
    if not isinstance(target_modules, Sequence) or not all(
        isinstance(t, str) for t in target_modules
    ):
        raise TypeError(
            f"target_modules must be a str or a sequence of str, got {describe(target_modules)}"
        )
    names = tuple(target_modules)
    if not names or any(not t for t in names):
        raise ValueError(f"target_modules must name at least one module, got {target_modules!r}")
    return names


def _matches(name: str, targets: tuple[str, ...] | re.Pattern) -> bool:
    if isinstance(targets, re.Pattern):
        return targets.fullmatch(name) is not None
    return any(name == t or name.endswith("." + t) for t in targets)


def _set_submodule(model: nn.Module, name: str, module: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    setattr(parent, child, module)


def apply_lora(
    model: nn.Module,
    *,
    target_modules: str | Sequence[str] = ("q_proj", "v_proj"),
    r: int = 8,
    alpha: float = 32,
    dropout: float = 0.1,
    generator: torch.Generator | None = None,
) -> nn.Module:
    """Replace every ``nn.Linear``/``Conv1D`` named by ``target_modules`` with a ``LoRALinear``
    (in place) and freeze every other parameter; returns ``model``.

    ``target_modules`` follows peft: a list of module names (a module matches when its qualified
    name equals an entry or ends with ``"." + entry``) or one regular expression (full match).
    A ValueError when nothing matches, when a matched module is not a linear layer or when it
    is adapted already.
    """
    model = _check_model(model)
    targets = _check_targets(target_modules)
    r = check_int(r, "r", minimum=1)
    check_float(alpha, "alpha", minimum=0.0, min_inclusive=False)
    check_probability(dropout, "dropout", allow_one=False)
    generator = check_generator(generator)
    inside_lora = tuple(n for n, m in model.named_modules() if isinstance(m, LoRALinear))
    found = []
    for name, module in model.named_modules():
        if not name or not _matches(name, targets):
            continue
        if any(name.startswith(p + ".") for p in inside_lora):
            continue  # the base layer of an existing adapter
        if isinstance(module, LoRALinear):
            raise ValueError(f"target_modules: {name!r} already has a LoRA adapter")
        if not (isinstance(module, nn.Linear) or _is_conv1d(module)):
            raise ValueError(
                f"target_modules: {name!r} is a {type(module).__name__}, not an nn.Linear or "
                "Conv1D (name the linear layers themselves)"
            )
        found.append(name)
    if not found:
        raise ValueError(
            f"target_modules {target_modules!r} matched no module of model "
            f"({type(model).__name__}); linear layers are named e.g. "
            f"{[n for n, m in model.named_modules() if isinstance(m, nn.Linear)][:4]}"
        )
    for p in model.parameters():
        p.requires_grad_(False)
    for name in found:
        base = model.get_submodule(name)
        _set_submodule(
            model, name, LoRALinear(base, r=r, alpha=alpha, dropout=dropout, generator=generator)
        )
    return model


def merge_lora(model: nn.Module) -> nn.Module:
    """Fold every ``LoRALinear`` into its base weight and put the base layer back (in place);
    returns ``model``, now without adapters (a peft model: its ``merge_and_unload()``)."""
    model = _check_model(model)
    names = [n for n, m in model.named_modules() if isinstance(m, LoRALinear)]
    if isinstance(model, LoRALinear):
        return model.merged()
    if not names:
        if hasattr(model, "merge_and_unload") and hasattr(model, "peft_config"):
            return model.merge_and_unload()
        raise ValueError(f"model has no LoRA adapters to merge ({type(model).__name__})")
    for name in names:
        if any(name.startswith(o + ".") for o in names if o != name):
            continue
        _set_submodule(model, name, model.get_submodule(name).merged())
    return model
