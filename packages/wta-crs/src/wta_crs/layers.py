"""``WTALinear``: an ``nn.Linear`` whose backward pass needs only k of the n input rows.

In training (``module.training`` and grad enabled, weight trainable) the forward pass picks, for
the flattened input ``X`` (n, d_in), a WTA-CRS sample of ``k = min(n, max(min_k, ⌊ratio·n⌋))``
rows with ``p_i ∝ ‖x_i‖`` (times the cached output-gradient norm of the same example and token
when a :class:`GradNormCache` is attached and active) and saves only those rows, their indices
and their scales. The output, ``∇X = ∇Y W`` and ``∇b`` are exact; ``∇W`` is the unbiased WTA-CRS
estimate ``Σ_i s_i g_i x_iᵀ`` over the kept rows. In eval mode or under ``no_grad`` it is
``F.linear``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_float, check_generator, check_int, check_tensor, describe
from ._validation import check_module, check_ratio, check_regex

__all__ = [
    "GradNormCache",
    "WTALinear",
    "convert_linear_layers",
    "saved_activation_bytes",
    "select_rows",
]

_EPS_REL = 1e-3  # stale norms are floored at this fraction of their mean (keeps every p_i > 0)


def _check_num_deterministic_fraction(value: Any) -> str | float:
    if isinstance(value, str):
        if value != "adaptive":
            raise ValueError(
                f"num_deterministic must be 'adaptive' or a float in [0, 1), got {value!r}"
            )
        return value
    return check_float(value, "num_deterministic", minimum=0.0, maximum=1.0, max_inclusive=False)


def budget(n: int, ratio: float, min_k: int) -> int:
    """``k = min(n, max(min_k, ⌊ratio·n⌋))`` (the paper's rule)."""
    return min(n, max(min_k, math.floor(ratio * n + 1e-9)))


@torch.no_grad()
def select_rows(
    weights: torch.Tensor,
    k: int,
    *,
    num_deterministic: str | float = "adaptive",
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """WTA-CRS row selection: ``(rows, scales)`` with ``Σ_i scales_i g_{rows_i} x_{rows_i}ᵀ``
    unbiased for ``Σ_i g_i x_iᵀ`` whenever ``weights_i > 0`` wherever ``g_i x_iᵀ != 0``.

    ``weights`` (n,) are non-negative sampling weights (``p = weights / Σ weights``); the top
    ``c`` rows are kept with scale 1 (``c`` adaptive as :func:`wta_crs.choose_num_deterministic`,
    or ``⌊fraction·k⌋``) and ``k - c`` i.i.d. draws from the rest add
    ``(1 - P_C) / ((k - c) p_j)`` each. At most ``k`` distinct rows are returned, sorted.
    """
    check_tensor(weights, "weights", ndim=1)
    n = weights.shape[0]
    k = check_int(k, "k", minimum=1, maximum=n)
    num_deterministic = _check_num_deterministic_fraction(num_deterministic)
    generator = check_generator(generator)
    w = weights.float()
    if bool((w < 0).any()):
        raise ValueError("weights must be non-negative")
    total = w.sum()
    if not total > 0:  # all rows zero: the exact sum is 0, keep nothing
        empty = torch.zeros(0, dtype=torch.long, device=w.device)
        return empty, torch.zeros(0, dtype=torch.float32, device=w.device)
    p = w / total
    c_max = min(k - 1, n)
    if num_deterministic == "adaptive":
        top = torch.topk(p, c_max).values if c_max else p[:0]
        mass_left = (1.0 - torch.cat([p.new_zeros(1), torch.cumsum(top, 0)])).clamp_min(0.0)
        score = mass_left / (k - torch.arange(c_max + 1, device=p.device, dtype=p.dtype))
        c = int(torch.argmin(score))
    else:
        c = min(math.floor(num_deterministic * k), c_max)
    scale = torch.zeros(n, dtype=torch.float32, device=p.device)
    if c:
        winners = torch.topk(p, c).indices
        scale[winners] = 1.0
        rest = p.clone()
        rest[winners] = 0.0
    else:
        rest = p
    mass = rest.sum()
    m = k - c
    if mass > 0:
        draws = torch.multinomial(rest, m, replacement=True, generator=generator)
        counts = torch.bincount(draws, minlength=n).float()
        hit = counts > 0
        scale[hit] += counts[hit] * mass / (m * rest[hit])
    rows = torch.nonzero(scale, as_tuple=True)[0]
    return rows, scale[rows]


class GradNormCache:
    """Per-token output-gradient norms from earlier steps, keyed by (layer, example id, token).

    The paper's probabilities ``p_i ∝ ‖x_i‖·‖g_i^{old}‖``: the gradient of this step does not
    exist when rows are chosen (forward), so the norm seen for the same training example at its
    previous visit is used (stored as ``dtype``, bfloat16 by default, on CPU). Training loops
    name the examples of a batch (its rows, in order)::

        cache = GradNormCache()
        convert_linear_layers(model, ratio=0.3, grad_cache=cache)
        with cache.examples(batch["idx"]):
            loss = model(**inputs).loss
            loss.backward()

    Stale norms change only the variance, never the bias (rows keep a positive probability).
    Examples not seen before fall back to ``p_i ∝ ‖x_i‖``.
    """

    def __init__(self, *, dtype: torch.dtype = torch.bfloat16) -> None:
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype, got {describe(dtype)}")
        self.dtype = dtype
        self._store: dict[tuple[str, int], torch.Tensor] = {}
        self._ids: tuple[int, ...] | None = None

    def __len__(self) -> int:
        return len(self._store)

    @property
    def active_ids(self) -> tuple[int, ...] | None:
        """The example ids of the batch in flight (``None`` outside :meth:`examples`)."""
        return self._ids

    @contextmanager
    def examples(self, ids: Any) -> Iterator[GradNormCache]:
        """Within the block, batch row ``b`` is training example ``ids[b]``."""
        if isinstance(ids, torch.Tensor):
            check_tensor(ids, "ids", ndim=1, dtype="integer")
            ids = ids.tolist()
        else:
            from ._checks import check_array

            ids = check_array(ids, "ids", ndim=1, dtype="int").tolist()
        if len(set(ids)) != len(ids):
            raise ValueError("ids must be distinct (one id per example in the batch)")
        previous, self._ids = self._ids, tuple(int(i) for i in ids)
        try:
            yield self
        finally:
            self._ids = previous

    def lookup(self, layer: str, batch: int, tokens: int) -> torch.Tensor | None:
        """Stored norms (batch, tokens) as float32, missing examples filled with the mean of the
        others; ``None`` when no example of the active batch has a stored row of that length."""
        ids = self._ids
        if ids is None or len(ids) != batch:
            return None
        rows = [self._store.get((layer, i)) for i in ids]
        rows = [r if r is not None and r.shape[0] == tokens else None for r in rows]
        known = [r.float() for r in rows if r is not None]
        if not known:
            return None
        fill = torch.stack(known).mean()
        return torch.stack([r.float() if r is not None else fill.expand(tokens) for r in rows])

    def update(self, layer: str, norms: torch.Tensor) -> None:
        """Store ``norms`` (batch, tokens) for the active examples."""
        ids = self._ids
        if ids is None or norms.ndim != 2 or norms.shape[0] != len(ids):
            return
        cpu = norms.detach().to("cpu", self.dtype)
        for b, i in enumerate(ids):
            self._store[(layer, i)] = cpu[b].clone()


class _WTALinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, layer):
        out = F.linear(x, weight, bias)
        d_in = x.shape[-1]
        ctx.x_shape = x.shape
        ctx.cache_state = None
        x2 = x.reshape(-1, d_in)
        n = x2.shape[0]
        if not ctx.needs_input_grad[1]:
            ctx.save_for_backward(None, None, None, weight)
            return out
        k = budget(n, layer.ratio, layer.min_k)
        cache = layer.grad_cache
        if cache is not None and cache.active_ids is not None and x.ndim == 3:
            ctx.cache_state = (cache, layer.cache_key, cache.active_ids)
        if k == n:
            ctx.save_for_backward(x, None, None, weight)
            return out
        with torch.no_grad():
            weights = torch.linalg.vector_norm(x2.float(), dim=1)
            if ctx.cache_state is not None:
                old = cache.lookup(layer.cache_key, x.shape[0], x.shape[1])
                if old is not None:
                    old = old.to(weights.device).reshape(-1)
                    weights = weights * (old + _EPS_REL * old.mean())
            rows, scales = layer.select(weights, k)
            kept = x2.index_select(0, rows)
        ctx.save_for_backward(kept, rows, scales, weight)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        kept, rows, scales, weight = ctx.saved_tensors
        d_out = grad_out.shape[-1]
        g2 = grad_out.reshape(-1, d_out)
        grad_x = grad_w = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_x = (g2 @ weight).reshape(ctx.x_shape)
        if ctx.needs_input_grad[1]:
            if rows is None:
                grad_w = g2.t() @ kept.reshape(-1, kept.shape[-1])
            else:
                sel = g2.index_select(0, rows) * scales.to(g2.dtype)[:, None]
                grad_w = sel.t() @ kept
        if ctx.needs_input_grad[2]:
            grad_b = g2.sum(0)
        if ctx.cache_state is not None:
            cache, key, ids = ctx.cache_state
            with torch.no_grad():
                norms = torch.linalg.vector_norm(grad_out.float(), dim=-1)
            previous, cache._ids = cache._ids, ids
            try:
                cache.update(key, norms)
            finally:
                cache._ids = previous
        return grad_x, grad_w, grad_b, None


class WTALinear(nn.Linear):
    """``nn.Linear`` with an exact forward and ``∇X``/``∇b`` and a WTA-CRS estimate of ``∇W``.

    Parameters
    ----------
    in_features, out_features, bias
        As ``nn.Linear``.
    ratio
        Kept fraction of the n = batch x tokens input rows, in (0, 1]; ``k = min(n, max(min_k,
        ⌊ratio·n⌋))`` rows are saved for backward. ``1.0`` is exact backprop.
    min_k
        Smallest budget (>= 1).
    generator
        ``torch.Generator`` for the row draws (``None``: torch's global generator).
    num_deterministic
        ``"adaptive"`` (the paper's rule) or a fraction in [0, 1) of the budget kept exactly.
    device, dtype
        As ``nn.Linear``.

    Attributes ``grad_cache`` (a :class:`GradNormCache` or ``None``) and ``cache_key`` (its
    layer name) switch on the paper's stale-gradient probabilities.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        *,
        ratio: float = 0.3,
        min_k: int = 10,
        generator: torch.Generator | None = None,
        num_deterministic: str | float = "adaptive",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        in_features = check_int(in_features, "in_features", minimum=1)
        out_features = check_int(out_features, "out_features", minimum=1)
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be True or False, got {describe(bias)}")
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.ratio = check_ratio(ratio)
        self.min_k = check_int(min_k, "min_k", minimum=1)
        self.generator = check_generator(generator)
        self.num_deterministic = _check_num_deterministic_fraction(num_deterministic)
        self.grad_cache: GradNormCache | None = None
        self.cache_key = f"layer{id(self)}"

    @classmethod
    def from_linear(cls, linear: nn.Linear, **kw: Any) -> WTALinear:
        """A ``WTALinear`` sharing ``linear``'s weight and bias Parameters (no copy).

        ``kw``: ``ratio``, ``min_k``, ``generator``, ``num_deterministic``, ``grad_cache``,
        ``cache_key``.
        """
        if not isinstance(linear, nn.Linear):
            raise TypeError(f"linear must be a torch.nn.Linear, got {describe(linear)}")
        grad_cache = kw.pop("grad_cache", None)
        cache_key = kw.pop("cache_key", None)
        if grad_cache is not None and not isinstance(grad_cache, GradNormCache):
            raise TypeError(
                f"grad_cache must be a GradNormCache or None, got {describe(grad_cache)}"
            )
        if cache_key is not None and not isinstance(cache_key, str):
            raise TypeError(f"cache_key must be a str or None, got {describe(cache_key)}")
        w = linear.weight
        new = cls(
            linear.in_features,
            linear.out_features,
            bias=linear.bias is not None,
            device="meta",
            dtype=w.dtype,
            **kw,
        )
        new.weight = w
        new.bias = linear.bias
        new.train(linear.training)
        new.grad_cache = grad_cache
        if cache_key is not None:
            new.cache_key = cache_key
        return new

    def select(self, weights: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The rows kept for backward and their scales (override for other samplers)."""
        return select_rows(
            weights, k, num_deterministic=self.num_deterministic, generator=self.generator
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled() and self.weight.requires_grad):
            return F.linear(input, self.weight, self.bias)
        if self.ratio >= 1.0 and self.grad_cache is None:
            return F.linear(input, self.weight, self.bias)
        return _WTALinearFn.apply(input, self.weight, self.bias, self)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, ratio={self.ratio}, min_k={self.min_k}"


def convert_linear_layers(
    model: nn.Module,
    *,
    ratio: float = 0.3,
    include: Any = None,
    exclude: Any = "lm_head",
    **kw: Any,
) -> nn.Module:
    """Replace every ``nn.Linear`` of ``model`` (in place) by a :class:`WTALinear` sharing its
    Parameters; returns ``model``.

    ``include`` / ``exclude`` are regular expressions searched in the module's qualified name
    (``include=None``: every linear layer; ``exclude=None``: none excluded). ``kw`` go to
    :meth:`WTALinear.from_linear` (``min_k``, ``generator``, ``num_deterministic``,
    ``grad_cache``); each layer's ``cache_key`` is its qualified name. GPT-2's ``Conv1D`` is not
    an ``nn.Linear`` and is left as it is.
    """
    check_module(model, "model")
    ratio = check_ratio(ratio)
    inc = check_regex(include, "include", none_ok=True)
    exc = check_regex(exclude, "exclude", none_ok=True)
    targets = []
    for name, module in model.named_modules():
        if not name or not isinstance(module, nn.Linear) or isinstance(module, WTALinear):
            continue
        if inc is not None and not inc.search(name):
            continue
        if exc is not None and exc.search(name):
            continue
        targets.append(name)
    for name in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        old = getattr(parent, child)
        setattr(parent, child, WTALinear.from_linear(old, ratio=ratio, cache_key=name, **kw))
    return model


def _storage_key(t: torch.Tensor) -> tuple[str, int] | None:
    try:
        st = t.untyped_storage()
    except (RuntimeError, NotImplementedError):  # pragma: no cover - exotic tensors
        return None
    return (str(t.device), st.data_ptr())


def saved_activation_bytes(model: nn.Module, batch: Any) -> int:
    """Bytes of the distinct tensor storages autograd saves for backward in ``model(batch)``,
    parameters and buffers aside (``torch.autograd.graph.saved_tensors_hooks``).

    ``batch``: a tensor (``model(batch)``), a mapping (``model(**batch)``) or a tuple/list
    (``model(*batch)``). The model's mode is used as it is (call ``model.train()`` first to
    measure training memory). Nothing is kept for a backward pass.
    """
    check_module(model, "model")
    if not isinstance(batch, torch.Tensor | Mapping | tuple | list):
        raise TypeError(
            f"batch must be a tensor, a mapping or a tuple of model inputs, got {describe(batch)}"
        )
    params = {
        _storage_key(t) for t in [*model.parameters(), *model.buffers()] if t.device.type != "meta"
    }
    seen: dict[tuple[str, int], int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        key = _storage_key(t)
        if key is not None and key not in params and key not in seen:
            seen[key] = t.untyped_storage().nbytes()
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if isinstance(batch, torch.Tensor):
            out = model(batch)
        elif isinstance(batch, Mapping):
            out = model(**batch)
        else:
            out = model(*batch)
    del out
    return int(sum(seen.values()))
