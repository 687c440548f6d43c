"""EquiTune, EquiZero and λ-EquiTune: equivariant wrappers around a pretrained model.

For a model ``M`` and a finite group ``G`` acting on inputs (``group.act``) and on outputs
(``output_action(y, g)``; ``None`` = trivially, i.e. an invariant task such as classification):

- ``EquiTune``: ``M_G(x) = 1/|G| Σ_g a(M(g x), g⁻¹)`` (group averaging).
- ``EquiZero``: per sample ``g* = argmin_g proxy(M(g x))``, output ``a(M(g* x), g*⁻¹)``; while
  autograd records (and ``straight_through=True``) the backward pass is EquiTune's (straight-through
  estimator: value of EquiZero, gradient of EquiTune).
- ``LambdaEquiTune``: ``Σ_g λ(g x) a(M(g x), g⁻¹) / Σ_g λ(g x)``, ``λ = positivity(weight_net(features(g x)))``.

All three evaluate the ``|G|`` transformed copies in one call of ``M``, stacked along the batch
dimension (element-major: rows ``i·B .. (i+1)·B - 1`` hold ``group.elements[i]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_bool, check_callable, check_option, check_tensor, describe
from .groups import check_group

__all__ = ["EquiTune", "EquiZero", "LambdaEquiTune", "entropy_proxy", "max_prob_proxy"]


def _class_probs(y: torch.Tensor, name: str) -> tuple[torch.Tensor, torch.Tensor]:
    if y.ndim < 2 or y.shape[1] < 1:
        raise ValueError(
            f"{name} needs class scores on dimension 1 (shape [N, C, ...]), got shape {tuple(y.shape)}"
        )
    logp = F.log_softmax(y.float(), dim=1)
    return logp.exp(), logp


def entropy_proxy(y: torch.Tensor) -> torch.Tensor:
    """Entropy of ``softmax(y)`` over dimension 1 (nats), averaged over any further dimensions: ``[N]``."""
    check_tensor(y, "y", ndim=range(2, 9))
    p, logp = _class_probs(y, "entropy proxy")
    ent = -(p * logp).sum(dim=1)
    return ent.reshape(ent.shape[0], -1).mean(dim=1)


def max_prob_proxy(y: torch.Tensor) -> torch.Tensor:
    """``−max softmax(y)`` over dimension 1, averaged over any further dimensions: ``[N]``."""
    check_tensor(y, "y", ndim=range(2, 9))
    p, _ = _class_probs(y, "max_prob proxy")
    mp = -p.max(dim=1).values
    return mp.reshape(mp.shape[0], -1).mean(dim=1)


_PROXIES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "entropy": entropy_proxy,
    "max_prob": max_prob_proxy,
}


def _resolve_action(output_action: Any, name: str = "output_action"):
    """None (invariant), a group (its ``act``) or a callable ``a(y, g)``."""
    if output_action is None:
        return None
    if hasattr(output_action, "act") and hasattr(output_action, "elements"):
        return output_action.act
    if callable(output_action) and not isinstance(output_action, nn.Module):
        return output_action
    raise TypeError(
        f"{name} must be None, a group or a callable a(y, g), got {describe(output_action)}"
    )


def _check_model(model: Any, name: str = "model") -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {describe(model)}")
    return model


class _GroupWrapper(nn.Module):
    def __init__(self, model: nn.Module, group: Any, *, output_action: Any = None) -> None:
        super().__init__()
        self.model = _check_model(model)
        self.group = check_group(group)
        self.output_action = output_action
        self._action = _resolve_action(output_action)
        self._elements = tuple(self.group.elements)
        self._inverses = tuple(self.group.inverse(g) for g in self._elements)

    @property
    def group_size(self) -> int:
        return len(self._elements)

    def _stack(self, x: Any) -> torch.Tensor:
        check_tensor(x, "x", dtype="any", ndim=range(1, 16))
        return torch.cat([self.group.act(x, g) for g in self._elements], dim=0)

    def _split(self, y: Any, batch: int, what: str) -> torch.Tensor:
        n = self.group_size * batch
        if not isinstance(y, torch.Tensor):
            raise TypeError(f"{what} must return a torch.Tensor, got {describe(y)}")
        if y.ndim < 1 or y.shape[0] != n:
            raise ValueError(
                f"{what} must return one row per transformed input ({n} = |G| {self.group_size} x "
                f"batch {batch}), got shape {tuple(y.shape)}"
            )
        return y.reshape(self.group_size, batch, *y.shape[1:])

    def _back(self, ys: torch.Tensor) -> torch.Tensor:
        """``a(y_g, g⁻¹)`` for each element: ``[|G|, B, ...]``."""
        if self._action is None:
            return ys
        return torch.stack([self._action(ys[i], gi) for i, gi in enumerate(self._inverses)], dim=0)

    def _outputs(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(stacked inputs [|G|B, ...], raw outputs [|G|, B, ...], aligned outputs [|G|, B, ...])."""
        xs = self._stack(x)
        raw = self._split(self.model(xs), x.shape[0], "model")
        return xs, raw, self._back(raw)

    def extra_repr(self) -> str:
        return f"group={self.group!r}, output_action={self.output_action!r}"


class EquiTune(_GroupWrapper):
    """Group averaging: ``forward(x) = mean_g a(M(g x), g⁻¹)``.

    ``model``: the (pretrained) ``nn.Module``, called once on the ``|G|·B`` transformed inputs.
    ``group``: e.g. ``groups.Rot90()``. ``output_action``: ``None`` (invariant outputs), a group
    acting on the outputs (e.g. ``Rot90()`` for dense maps) or a callable ``a(y, g)``.
    """

    def __init__(self, model: nn.Module, group: Any, *, output_action: Any = None) -> None:
        super().__init__(model, group, output_action=output_action)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, ys = self._outputs(x)
        return ys.mean(dim=0)


class EquiZero(_GroupWrapper):
    """Per-sample selection: ``g* = argmin_g proxy(M(g x))``, ``forward(x) = a(M(g* x), g*⁻¹)``.

    ``proxy``: ``"entropy"`` (of ``softmax`` over dim 1), ``"max_prob"`` (``−max softmax``) or a
    callable mapping model outputs ``[N, ...]`` to ``[N]`` scores (lower = better); it must be
    invariant to the output action. Ties go to the first element in ``group.elements``.
    ``straight_through``: while autograd records, the output carries EquiTune's gradient
    (forward value unchanged, exactly); ``False`` back-propagates through the selected copy only.
    """

    def __init__(
        self,
        model: nn.Module,
        group: Any,
        *,
        proxy: str | Callable[[torch.Tensor], torch.Tensor] = "entropy",
        output_action: Any = None,
        straight_through: bool = True,
    ) -> None:
        super().__init__(model, group, output_action=output_action)
        if isinstance(proxy, str):
            check_option(proxy, "proxy", tuple(_PROXIES))
            self._proxy = _PROXIES[proxy]
        elif callable(proxy):
            self._proxy = proxy
        else:
            raise TypeError(
                f"proxy must be 'entropy', 'max_prob' or a callable, got {describe(proxy)}"
            )
        self.proxy = proxy
        self.straight_through = check_bool(straight_through, "straight_through")

    def _scores(self, raw: torch.Tensor) -> torch.Tensor:
        g, b = raw.shape[:2]
        with torch.no_grad():
            s = self._proxy(raw.reshape(g * b, *raw.shape[2:]).detach())
        if not isinstance(s, torch.Tensor):
            raise TypeError(f"proxy must return a torch.Tensor, got {describe(s)}")
        if s.numel() != g * b or (s.ndim > 1 and s.shape[0] != g * b):
            raise ValueError(
                f"proxy must return one score per output row ({g * b}), got shape {tuple(s.shape)}"
            )
        s = s.reshape(g, b)
        if s.is_floating_point() and not bool(torch.isfinite(s).all()):
            raise ValueError("proxy returned NaN or infinite scores")
        return s

    def _pick(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, raw, ys = self._outputs(x)
        idx = self._scores(raw).argmin(dim=0)
        return idx, ys

    def select(self, x: torch.Tensor) -> torch.Tensor:
        """Index into ``group.elements`` of ``g*`` for every sample: a ``LongTensor [B]``."""
        with torch.no_grad():
            idx, _ = self._pick(x)
        return idx

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idx, ys = self._pick(x)
        chosen = ys[idx, torch.arange(ys.shape[1], device=ys.device)]
        if self.straight_through and torch.is_grad_enabled():
            mean = ys.mean(dim=0)
            # value: exactly `chosen`; gradient: EquiTune's (the mean over the group).
            return chosen.detach() + (mean - mean.detach())
        return chosen

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, proxy={self.proxy!r}, straight_through={self.straight_through}"


class LambdaEquiTune(_GroupWrapper):
    """λ-EquiTune: ``forward(x) = Σ_g λ_g(x) a(M(g x), g⁻¹)`` with ``Σ_g λ_g(x) = 1``.

    ``weight_net`` (``nn.Module``) maps ``features(g x)`` to one score per row (``[N]`` or
    ``[N, 1]``); ``features``: ``None`` = the model's own outputs on ``g x`` (one model call serves
    both), or a callable / ``nn.Module`` on the stacked inputs (e.g. a backbone's penultimate
    features). ``positivity``: ``"softplus"`` (λ = softplus(score), divided by its sum over G) or
    ``"softmax"`` (softmax of the scores over G). A constant ``weight_net`` gives EquiTune.
    """

    def __init__(
        self,
        model: nn.Module,
        group: Any,
        weight_net: nn.Module,
        *,
        features: Callable[[torch.Tensor], torch.Tensor] | None = None,
        positivity: str = "softplus",
        output_action: Any = None,
    ) -> None:
        super().__init__(model, group, output_action=output_action)
        self.weight_net = _check_model(weight_net, "weight_net")
        if features is not None:
            check_callable(features, "features")
        self.features = features
        self.positivity = check_option(positivity, "positivity", ("softplus", "softmax"))

    def _weights(self, xs: torch.Tensor, raw: torch.Tensor) -> torch.Tensor:
        g, b = raw.shape[:2]
        if self.features is None:
            feats = raw.reshape(g * b, *raw.shape[2:])
        else:
            feats = self.features(xs)
            if not isinstance(feats, torch.Tensor):
                raise TypeError(f"features must return a torch.Tensor, got {describe(feats)}")
        s = self.weight_net(feats)
        if not isinstance(s, torch.Tensor):
            raise TypeError(f"weight_net must return a torch.Tensor, got {describe(s)}")
        if s.shape not in ((g * b,), (g * b, 1)):
            raise ValueError(
                f"weight_net must return shape [{g * b}] or [{g * b}, 1] (one score per "
                f"transformed input), got shape {tuple(s.shape)}"
            )
        s = s.reshape(g, b)
        if s.is_floating_point() and not bool(torch.isfinite(s).all()):
            raise ValueError("weight_net returned NaN or infinite scores")
        if self.positivity == "softmax":
            return torch.softmax(s, dim=0)
        # log softplus(s), stable where softplus underflows (softplus(s) ~ exp(s) for s << 0),
        # then normalised over G in log space: no 0/0.
        safe = s.clamp_min(-30.0)
        log_lam = torch.where(s < -30.0, s, torch.log(F.softplus(safe)))
        return torch.softmax(log_lam, dim=0)

    def group_weights(self, x: torch.Tensor) -> torch.Tensor:
        """The normalised λ weights ``[B, |G|]`` (rows sum to one; column i = ``group.elements[i]``)."""
        xs, raw, _ = self._outputs(x)
        return self._weights(xs, raw).transpose(0, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xs, raw, ys = self._outputs(x)
        w = self._weights(xs, raw).to(ys.dtype)
        w = w.reshape(*w.shape, *([1] * (ys.ndim - 2)))
        return (w * ys).sum(dim=0)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, positivity={self.positivity!r}"
