"""``H2OCache``: H2O heavy-hitter eviction as a drop-in ``transformers`` cache.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048 - Alg. 1 applied at every forward
(prefill and each decode step), per layer and per KV head.

How the attention scores reach the cache without eager attention
----------------------------------------------------------------
``import h2o_cache`` registers an attention implementation named ``"h2o"`` in transformers'
``AttentionInterface`` (with the SDPA boolean mask). For a layer whose keys come from an
:class:`H2OCache`, it runs ``papershelf_kernels.attention.attention_colsum`` (Triton on CUDA, a
chunked torch path on CPU): the attention output and, in the same call, the column sums of the
probabilities, which the cache accumulates before evicting. Any other call (no cache, a
``DynamicCache``) goes to PyTorch SDPA, so a model left on ``"h2o"`` behaves as on ``"sdpa"``.
``H2OCache(model, ...)`` switches the model to ``"h2o"``; models that cannot be served this way
(no ``AttentionInterface``, sliding-window layers, logit soft-capping, attention sinks) are
switched to ``"eager"`` with a warning, and forward hooks read the returned probabilities.

Positions: ``get_seq_length()`` returns the number of tokens SEEN (like the sliding-window
layer), so position ids and RoPE keep counting absolute positions after eviction; cached keys
are kept as stored (already rotated at their true position, never re-rotated).

Padding (batch > 1): each layer records which kept entries are padding and masks them itself,
because transformers' mask assumes the cache holds a contiguous range of positions.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Sequence

import torch
from transformers.cache_utils import Cache, CacheLayerMixin

from papershelf_kernels.attention import attention_colsum

from .policy import H2OState

ATTN_NAME = "h2o"
SUPPORTED_TRANSFORMERS = ">=4.56"  # Cache/CacheLayerMixin layer API; tested on 5.24

# id(keys returned by a layer's update) -> weakref(layer), consumed by the attention function
_PENDING: dict[int, weakref.ref] = {}


class H2OLayer(CacheLayerMixin):
    """One attention layer's cache: kept keys/values plus an :class:`H2OState`."""

    is_sliding = False
    is_compileable = False
    is_croppable = False

    def __init__(self, state: H2OState, attention_backend: str = "auto"):
        super().__init__()
        self.keys = self.values = None
        self.is_initialized = False  # (not set by the 4.5x base class)
        self.state = state
        self.attention_backend = attention_backend
        self._returned_keys: torch.Tensor | None = None
        self._q_len = 0

    def lazy_initialization(
        self, key_states: torch.Tensor, value_states: torch.Tensor | None = None
    ) -> None:
        value_states = key_states if value_states is None else value_states
        self.device = key_states.device
        self.dtype = key_states.dtype
        self.keys = key_states[:, :, :0]
        self.values = value_states[:, :, :0]
        self.is_initialized = True

    @property
    def cumulative_length(self) -> int:
        return self.state.seen + (self._q_len if self._returned_keys is not None else 0)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        """Append the new keys/values and return the full set; eviction follows the attention."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        if self._returned_keys is not None:
            raise RuntimeError(
                "H2OCache: the previous forward of this layer produced no attention scores, so nothing "
                "could be evicted. Build the cache as H2OCache(model, ...) (it sets the model's attention "
                "to 'h2o', or to 'eager' with hooks), or load the model with attn_implementation='h2o' "
                "after `import h2o_cache`."
            )
        if key_states.shape[0] != self.keys.shape[0] and self.state.kept:
            raise ValueError(
                f"batch size changed from {self.keys.shape[0]} to {key_states.shape[0]}"
            )
        keys = torch.cat([self.keys, key_states], dim=-2)  # (B, Hkv, kept + q, D)
        values = torch.cat([self.values, value_states], dim=-2)
        self.keys, self.values = keys, values
        self._returned_keys = keys
        self._q_len = key_states.shape[-2]
        _PENDING[id(keys)] = weakref.ref(self)
        return keys, values

    def old_valid(self) -> torch.Tensor | None:
        """(B, Hkv, kept) bool validity of the entries cached before this step (None: all valid)."""
        # no `v.all()` check here: it would synchronise the device at every layer and step
        return self.state.valid if self.state.has_padding else None

    def receive_colsum(self, colsum: torch.Tensor, new_valid: torch.Tensor | None = None) -> None:
        """Accumulate (B, H, kept + q) column sums, then evict down to the budget."""
        _PENDING.pop(id(self._returned_keys), None)
        q = self._q_len
        self._returned_keys = None
        Hkv = self.keys.shape[1]
        self.state.update_colsum(colsum, Hkv, q_len=q, new_valid=new_valid)
        self.keys, self.values = self.state.gather(self.keys, self.values)

    def get_seq_length(self) -> int:
        """Tokens seen so far (not kept): positions continue as absolute positions."""
        return self.cumulative_length

    def get_mask_sizes(self, query_length, *args) -> tuple[int, int]:
        """(kv_length, kv_offset) for transformers' mask: kept + new, offset = seen - kept.

        ``query_length`` is an int in transformers 5.x and the ``cache_position`` tensor in 4.5x.
        """
        if isinstance(query_length, torch.Tensor):
            query_length = int(query_length.shape[-1])
        kept = self.state.kept
        return kept + query_length, self.state.seen - kept

    def get_max_length(self) -> int:
        b = self.state.budget
        return -1 if b is None else b

    def get_max_cache_shape(self) -> int:  # transformers 4.5x name of get_max_length
        return self.get_max_length()

    def kv_length(self) -> int:
        return 0 if self.keys is None else int(self.keys.shape[-2])

    def reset(self) -> None:
        self.keys = self.values = None
        self.is_initialized = False
        self._returned_keys = None
        self.state.reset()

    def crop(self, tokens_to_remove: int) -> None:
        raise NotImplementedError(
            "H2OCache cannot be cropped: evicted tokens are gone (no assisted decoding)"
        )

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise NotImplementedError(
            "H2OCache does not support beam search (per-row scores would need reordering)"
        )

    def batch_repeat_interleave(self, repeats: int) -> None:
        raise NotImplementedError(
            "H2OCache does not support expanding the batch (num_return_sequences > 1)"
        )

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        raise NotImplementedError("H2OCache does not support selecting batch rows")


def _model_problems(model) -> list[str]:
    """Why a model cannot run H2O through the fused 'h2o' attention (empty list = it can)."""
    problems = []
    cfg = (
        model.config.get_text_config(decoder=True)
        if hasattr(model.config, "get_text_config")
        else model.config
    )
    if hasattr(model, "_can_set_attn_implementation") and not model._can_set_attn_implementation():
        problems.append(f"{type(model).__name__} does not use transformers' AttentionInterface")
    for attr in ("attn_logit_softcapping", "sliding_window", "attention_chunk_size"):
        if getattr(cfg, attr, None):
            problems.append(
                f"config.{attr}={getattr(cfg, attr)!r} is not supported by the fused path"
            )
    types = getattr(cfg, "layer_types", None)
    if types and any(t != "full_attention" for t in types):
        problems.append(f"layer types {sorted(set(types))} (only full attention is supported)")
    return problems


def _attention_modules(model) -> list[torch.nn.Module]:
    mods = []
    for m in model.modules():
        if hasattr(m, "layer_idx") and type(m).__name__.endswith("Attention"):
            mods.append(m)
    return mods


class H2OCache(Cache):
    """A ``transformers`` cache that evicts with H2O after every forward, per layer and KV head.

    Usage: ``model.generate(input_ids, past_key_values=H2OCache(model, heavy=64, recent=64))``.
    After each step every layer holds at most ``heavy + recent`` entries per (batch row, KV
    head); during a step it holds the budget plus the new tokens, as in the paper.

    Args:
        model: the model the cache will serve. Its attention implementation is set to ``"h2o"``
            (fused attention + column sums; falls back to SDPA for other caches) or, when that
            cannot serve the model, to ``"eager"`` with a warning. ``None``: the model must
            already run with ``attn_implementation="h2o"``.
        heavy: heavy-hitter slots per layer and KV head.
        recent: recent-window slots per layer and KV head.
        ratio: (heavy_ratio, recent_ratio) of the prompt length instead of absolute sizes
            (the paper's default is (0.1, 0.1)).
        score_mode: "sum" (paper, default) or "mean" (kvpress-style normalisation).
        gqa_reduce: "sum" or "mean" over the query heads sharing a KV head.
        policy: "h2o", or the baselines "local" (recent window only) and "random".
        num_layers: number of layers (read from ``model.config`` when a model is given).
        attention: "auto" (fused "h2o" attention when the model allows it, else the eager
            fallback with a warning), "fused" (raise instead of falling back) or "eager".
        attention_backend: backend of ``attention_colsum`` ("auto", "triton", "torch", ...).
        seed: seed of the "random" policy.
    """

    def __init__(
        self,
        model=None,
        heavy: int | None = None,
        recent: int | None = None,
        *,
        ratio: Sequence[float] | None = None,
        score_mode: str = "sum",
        gqa_reduce: str = "sum",
        policy: str = "h2o",
        num_layers: int | None = None,
        attention: str = "auto",
        attention_backend: str = "auto",
        seed: int = 0,
    ):
        if attention not in ("auto", "fused", "eager"):
            raise ValueError(f"attention must be 'auto', 'fused' or 'eager', got {attention!r}")
        if isinstance(model, int) and not isinstance(model, bool):
            raise TypeError(
                "H2OCache(model, heavy, recent): the first argument is the model; pass budgets by name"
            )
        if model is not None and not hasattr(model, "config"):
            raise TypeError(
                f"model must be a transformers PreTrainedModel, got {type(model).__name__}"
            )
        # validate the budgets once, eagerly
        H2OState(
            heavy, recent, ratio=ratio, score_mode=score_mode, gqa_reduce=gqa_reduce, policy=policy
        )
        self._state_kwargs = dict(
            ratio=ratio, score_mode=score_mode, gqa_reduce=gqa_reduce, policy=policy
        )
        self.heavy, self.recent, self.seed = heavy, recent, seed
        self.attention_backend = attention_backend
        self.mode = ATTN_NAME
        self._hooks: list = []
        if model is not None:
            cfg = model.config.get_text_config(decoder=True)
            num_layers = cfg.num_hidden_layers if num_layers is None else num_layers
        if num_layers is not None:
            super().__init__(layers=[self._new_layer(i) for i in range(num_layers)])
        else:
            super().__init__(layer_class_to_replicate=self._replicate)
        if model is not None:
            self._attach(model, attention)

    def _new_layer(self, i: int) -> H2OLayer:
        st = H2OState(self.heavy, self.recent, seed=self.seed + i, **self._state_kwargs)
        return H2OLayer(st, self.attention_backend)

    def _replicate(self) -> H2OLayer:
        return self._new_layer(len(self.layers))

    def _attach(self, model, attention: str) -> None:
        problems = _model_problems(model)
        if attention != "eager" and not problems:
            if model.config._attn_implementation != ATTN_NAME:
                model.set_attn_implementation(ATTN_NAME)
            return
        if attention == "fused":
            raise NotImplementedError(
                "H2OCache: the fused 'h2o' attention cannot serve this model: "
                + "; ".join(problems)
            )
        if problems:
            warnings.warn(
                "H2OCache: this model cannot use the fused 'h2o' attention ("
                + "; ".join(problems)
                + "). Falling back to attn_implementation='eager' (slow, materialises the attention "
                "matrix); batch rows with padding are not masked correctly after eviction in this mode.",
                RuntimeWarning,
                stacklevel=3,
            )
        if model.config._attn_implementation != "eager":
            model.set_attn_implementation("eager")
        self.mode = "eager"
        ref = weakref.ref(self)
        for mod in _attention_modules(model):
            self._hooks.append(mod.register_forward_hook(_make_eager_hook(ref), with_kwargs=True))
        if not self._hooks:
            raise RuntimeError("H2OCache: found no attention modules (with a layer_idx) to hook")

    def kv_lengths(self) -> list[int]:
        """Number of kept entries per layer (per batch row and KV head; the same for all)."""
        return [layer.kv_length() if isinstance(layer, H2OLayer) else 0 for layer in self.layers]

    def kept_positions(self, layer_idx: int) -> torch.Tensor | None:
        """(B, Hkv, m) absolute positions of the entries kept by layer ``layer_idx``."""
        return self.layers[layer_idx].state.positions

    def memory_bytes(self) -> int:
        """Bytes held by the cached keys and values."""
        total = 0
        for layer in self.layers:
            if getattr(layer, "keys", None) is not None:
                total += layer.keys.numel() * layer.keys.element_size()
                total += layer.values.numel() * layer.values.element_size()
        return total

    def remove_hooks(self) -> None:
        """Remove the forward hooks installed by the eager fallback."""
        for h in self._hooks:
            h.remove()
        self._hooks.clear()

    def __del__(self):
        try:
            self.remove_hooks()
        except Exception:
            pass


def _make_eager_hook(cache_ref):
    def hook(module, args, kwargs, output):
        cache = kwargs.get("cache", kwargs.get("past_key_values", kwargs.get("past_key_value")))
        if cache is not cache_ref() or not isinstance(cache, H2OCache):
            return None
        layer = cache.layers[module.layer_idx]
        if layer._returned_keys is None:
            return None
        attn = output[1] if isinstance(output, tuple) and len(output) > 1 else None
        if attn is None:
            raise RuntimeError(
                "H2OCache (eager fallback): the attention module returned no attention weights"
            )
        layer.receive_colsum(attn.float().sum(dim=2))
        return None

    return hook


def _to_allowed(mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype == torch.bool:
        return mask
    return mask > torch.finfo(mask.dtype).min / 2


def h2o_attention_forward(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    **kwargs,
):
    """transformers attention function: fused attention + column sums for H2OCache layers."""
    ref = _PENDING.get(id(key))
    layer = ref() if ref is not None else None
    if layer is None or layer._returned_keys is not key:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs
        )
    for name in ("sliding_window", "softcap", "s_aux"):
        if kwargs.get(name) is not None:
            raise NotImplementedError(
                f"H2OCache: attention with {name} is not supported by the fused path"
            )
    if module.training and dropout > 0:
        raise NotImplementedError("H2OCache is for inference: attention dropout is not supported")
    B, H, q, _ = query.shape
    Hkv, n = key.shape[1], key.shape[2]
    kept = n - q
    old_valid = layer.old_valid()  # (B, Hkv, kept) or None
    new_valid = None
    if attention_mask is None and old_valid is None:
        out, colsum = attention_colsum(
            query, key, value, causal=True, scale=scaling, backend=layer.attention_backend
        )
    else:
        if attention_mask is not None:
            if attention_mask.ndim != 4 or attention_mask.shape[-1] < q:
                raise ValueError(
                    f"H2OCache: unexpected attention mask shape {tuple(attention_mask.shape)}"
                )
            new_part = _to_allowed(attention_mask[..., -q:]).expand(B, -1, q, q)  # (B, 1|H, q, q)
            if new_part.shape[1] != 1:
                new_part = new_part[:, :1]
            # a new token no row may attend to (left padding) is padding
            new_valid = new_part.any(dim=2)[:, 0]  # (B, q)
        else:
            new_part = (
                torch.ones(q, q, dtype=torch.bool, device=query.device)
                .tril()[None, None]
                .expand(B, 1, q, q)
            )
        old = (
            torch.ones(B, Hkv, kept, dtype=torch.bool, device=query.device)
            if old_valid is None
            else old_valid.to(query.device)
        )
        mask = torch.cat(
            [old[:, :, None, :].expand(B, Hkv, q, kept), new_part.expand(B, Hkv, q, q)], dim=-1
        )
        out, colsum = attention_colsum(
            query, key, value, attn_mask=mask, scale=scaling, backend=layer.attention_backend
        )
    layer.receive_colsum(colsum, new_valid=new_valid)
    return out.transpose(1, 2).contiguous(), None


def register() -> None:
    """Register the "h2o" attention (and its SDPA-style mask) with transformers; idempotent."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTN_NAME, h2o_attention_forward)
    AttentionMaskInterface.register(ATTN_NAME, sdpa_mask)
