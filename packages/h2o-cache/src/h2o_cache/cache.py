"""``H2OCache``: H2O heavy-hitter eviction as a drop-in ``transformers`` cache.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048 - Alg. 1 applied at every forward
(prefill and each decode step), per layer and per KV head.

How the attention scores reach the cache
----------------------------------------
``import h2o_cache`` registers an attention implementation named ``"h2o"`` in transformers'
``AttentionInterface`` (with the SDPA boolean mask). For a layer whose keys come from an
:class:`H2OCache` it builds the mask of the kept entries itself (padding, and sliding windows by
the kept tokens' absolute positions: transformers' mask assumes a contiguous range of positions)
and computes the attention output and the per-key probability mass in one go:

* ``mode="fused"``: ``papershelf_kernels.attention.attention_colsum`` (Triton on CUDA, a chunked
  torch path on CPU), without materialising the attention matrix;
* ``mode="eager"`` (``attention="eager"``, or per call when the layer uses logit soft-capping or
  attention sinks, or when ``output_attentions=True`` asks for the weights): an exact
  materialised softmax in float32, whose probabilities are also returned as the weights.

Any other call (no cache, a ``DynamicCache``) goes to PyTorch SDPA (or to the same exact eager
computation for soft-capping, sinks and ``output_attentions``), so a model left on ``"h2o"``
behaves as on ``"sdpa"``. ``H2OCache(model, ...)`` switches the model to ``"h2o"``;
:meth:`H2OCache.detach` (or leaving ``with H2OCache(model, ...) as cache:``) switches it back.

Models whose attention does not go through the AttentionInterface (Falcon, Bloom) run their own
eager attention (``mode="hooks"``): forward hooks on the attention modules replace the mask of
the kept entries (and Bloom's alibi bias, recomputed at the kept positions), ask for the weights,
and hand them to the layer the module just updated (tied to the cache update itself, not to the
name under which the model passes the cache).

Positions: ``get_seq_length()`` returns the number of tokens SEEN (like the sliding-window
layer), so position ids and RoPE keep counting absolute positions after eviction; cached keys
are kept as stored (already rotated at their true position, never re-rotated).
"""

from __future__ import annotations

import inspect
import sys
import warnings
import weakref
from collections.abc import Sequence

import torch
from transformers.cache_utils import Cache, CacheLayerMixin

from papershelf_kernels.attention import attention_colsum

from ._checks import check_generator, check_int, check_option, describe
from ._validation import check_budgets, check_model
from .policy import H2OState

ATTN_NAME = "h2o"
#: the transformers versions the test suite runs (the Cache/CacheLayerMixin layer API of 5.x)
SUPPORTED_TRANSFORMERS = ">=5.24,<6"
ATTENTION_MODES = ("auto", "fused", "eager")
BACKENDS = ("auto", "triton", "torch", "reference")

# id(keys returned by a layer's update) -> weakref(layer), consumed by the attention function
_PENDING: dict[int, weakref.ref] = {}
# model -> [attention implementation before the first attached cache, number of attached caches]
_ATTACHED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class H2OLayer(CacheLayerMixin):
    """One attention layer's cache: kept keys/values plus an :class:`H2OState`.

    Args:
        state: the layer's policy state.
        attention_backend: backend of ``attention_colsum`` ("auto", "triton", "torch", ...).
        eager: compute the attention as an exact materialised softmax instead of the fused op.
    """

    is_sliding = False
    is_compileable = False
    is_croppable = False

    def __init__(self, state: H2OState, attention_backend: str = "auto", *, eager: bool = False):
        if not isinstance(state, H2OState):
            raise TypeError(f"state must be an H2OState, got {describe(state)}")
        super().__init__()
        self.keys = self.values = None
        self.is_initialized = False
        self.state = state
        self.attention_backend = check_option(attention_backend, "attention_backend", BACKENDS)
        self.eager = bool(eager)
        self._returned_keys: torch.Tensor | None = None
        self._q_len = 0
        self._step_new_valid: torch.Tensor | None = None  # set by the hooks' pre-hook

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
                "H2OCache: the previous forward of this layer produced no attention scores, so "
                "nothing could be evicted: the model's attention did not run through h2o_cache "
                "(was the cache detached, or the model's attn_implementation changed after "
                "H2OCache(model, ...)?). Build the cache as H2OCache(model, ...) right before "
                "using it, or run the model with attn_implementation='h2o' (registered by "
                "`import h2o_cache`) when the cache is built without a model."
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

    def allowed_mask(
        self,
        batch: int,
        q_len: int,
        device,
        attention_mask: torch.Tensor | None = None,
        sliding_window: int | None = None,
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """The keys each new query row may attend, before this step's update.

        Returns ``(allowed, new_valid)``: ``allowed`` (B, Hkv|1, q, kept + q) bool, or None for
        plain causal attention over everything kept; ``new_valid`` (B, q) bool (False for padding
        among the new tokens) or None when there is no mask. The kept part is built from the
        layer's own bookkeeping (validity, absolute positions for a sliding window); the part of
        the new tokens comes from transformers' mask (its last q columns are position-aligned).
        """
        st = self.state
        kept, q = st.kept, q_len
        new_valid = None
        new_part = None
        if attention_mask is not None:
            if attention_mask.ndim != 4 or attention_mask.shape[-1] < q:
                raise ValueError(
                    f"H2OCache: unexpected attention mask shape {tuple(attention_mask.shape)}"
                )
            new_part = _to_allowed(attention_mask[..., -q:])[:, :1].expand(batch, 1, q, q)
            # a new token no row may attend to (left padding) is padding
            new_valid = new_part.any(dim=2)[:, 0]  # (B, q)
        if new_part is None and not st.has_padding and sliding_window is None:
            return None, None
        i = torch.arange(q, device=device)
        if new_part is None:
            new_part = (i[None, :] <= i[:, None])[None, None].expand(batch, 1, q, q)
        if sliding_window is not None:
            w = int(sliding_window)
            new_part = new_part & (i[None, :] > i[:, None] - w)[None, None]
        if kept == 0:
            return new_part, new_valid
        if st.has_padding:
            old = st.valid.to(device)[:, :, None, :]  # (B, Hkv, 1, kept)
        else:
            old = torch.ones(batch, 1, 1, kept, dtype=torch.bool, device=device)
        if sliding_window is not None:
            qpos = st.seen + i  # absolute positions of the new query rows
            inside = (
                st.positions.to(device)[:, :, None, :]
                > (qpos - int(sliding_window))[None, None, :, None]
            )  # (B, Hkv, q, kept)
            old = old & inside
        hk = old.shape[1]
        mask = torch.cat([old.expand(batch, hk, q, kept), new_part.expand(batch, hk, q, q)], -1)
        return mask, new_valid

    def receive_colsum(self, colsum: torch.Tensor, new_valid: torch.Tensor | None = None) -> None:
        """Accumulate (B, H, kept + q) column sums (padding rows left out), then evict."""
        self._consume()
        self.state.update_colsum(
            colsum, n_kv_heads=self.keys.shape[1], q_len=self._q_len, new_valid=new_valid
        )
        self.keys, self.values = self.state.gather(self.keys, self.values)

    def receive_probs(self, probs: torch.Tensor, new_valid: torch.Tensor | None = None) -> None:
        """Accumulate (B, H, q, kept + q) probabilities (padding rows are dropped), then evict."""
        self._consume()
        self.state.update(probs, n_kv_heads=self.keys.shape[1], new_valid=new_valid)
        self.keys, self.values = self.state.gather(self.keys, self.values)

    def _consume(self) -> None:
        _PENDING.pop(id(self._returned_keys), None)
        self._returned_keys = None
        self._step_new_valid = None

    def get_seq_length(self) -> int:
        """Tokens seen so far (not kept): positions continue as absolute positions."""
        return self.cumulative_length

    def get_mask_sizes(self, query_length, *args) -> tuple[int, int]:
        """(kv_length, kv_offset) for transformers' mask: kept + new, offset = seen - kept."""
        if isinstance(query_length, torch.Tensor):
            query_length = int(query_length.shape[-1])
        kept = self.state.kept
        return kept + query_length, self.state.seen - kept

    def get_max_length(self) -> int:
        b = self.state.budget
        return -1 if b is None else b

    def get_max_cache_shape(self) -> int:
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


def _text_config(model):
    cfg = model.config
    return cfg.get_text_config(decoder=True) if hasattr(cfg, "get_text_config") else cfg


def _uses_attention_interface(model) -> bool:
    if hasattr(model, "_can_set_attn_implementation"):
        return bool(model._can_set_attn_implementation())
    return False


def _unsupported(model, hooks: bool) -> list[str]:
    """Why H2OCache cannot serve the model at all (empty list = it can)."""
    cfg = _text_config(model)
    problems = []
    if getattr(cfg, "attention_chunk_size", None):
        problems.append(
            f"chunked attention (config.attention_chunk_size={cfg.attention_chunk_size})"
        )
    types = getattr(cfg, "layer_types", None) or []
    odd = sorted({t for t in types if t not in ("full_attention", "sliding_attention")})
    if odd:
        problems.append(f"layer types {odd} (only full and sliding-window attention)")
    if hooks:
        if getattr(cfg, "alibi", False):
            problems.append(
                "alibi in a model that builds the bias from the contiguous sequence length "
                "(config.alibi=True)"
            )
        if getattr(cfg, "sliding_window", None) or "sliding_attention" in types:
            problems.append("sliding-window attention outside transformers' AttentionInterface")
        impl = getattr(model.config, "_attn_implementation", "eager")
        if impl not in ("eager", "sdpa"):
            problems.append(
                f"attn_implementation={impl!r} (load the model with attn_implementation='eager')"
            )
    return problems


def _needs_eager(model) -> list[str]:
    """Why the fused kernel cannot compute this model's attention (exact eager is used)."""
    cfg = _text_config(model)
    reasons = []
    if getattr(cfg, "attn_logit_softcapping", None):
        reasons.append(
            f"logit soft-capping (config.attn_logit_softcapping={cfg.attn_logit_softcapping})"
        )
    if type(cfg).__name__ == "GptOssConfig":
        reasons.append("attention sinks")
    return reasons


def _attention_modules(model) -> list[torch.nn.Module]:
    mods = []
    for m in model.modules():
        if getattr(m, "layer_idx", None) is not None and type(m).__name__.endswith("Attention"):
            mods.append(m)
    return mods


class H2OCache(Cache):
    """A ``transformers`` cache that evicts with H2O after every forward, per layer and KV head.

    Usage::

        with H2OCache(model, heavy=64, recent=64) as cache:
            out = model.generate(input_ids, cache=cache)

    After each step every layer holds at most ``heavy + recent`` entries per (batch row, KV
    head); during a step it holds the budget plus the new tokens, as in the paper. Leaving the
    ``with`` block (or :meth:`detach`) restores the model's attention implementation.

    Args:
        model: the model the cache will serve (its attention implementation is set to ``"h2o"``,
            see the module docstring). ``None``: the model must already run with
            ``attn_implementation="h2o"`` and ``num_layers`` may be given.
        heavy: heavy-hitter slots per layer and KV head.
        recent: recent-window slots per layer and KV head.
        ratio: (heavy_ratio, recent_ratio) of the prompt length instead of absolute sizes
            (the paper's default is (0.1, 0.1)); per batch row with left padding.
        score_mode: "sum" (paper, default) or "mean" (kvpress-style normalisation).
        gqa_reduce: "sum" or "mean" over the query heads sharing a KV head.
        policy: "h2o", or the baselines "local" (recent window only) and "random".
        num_layers: number of layers (read from ``model.config`` when a model is given).
        attention: "auto" (fused when the layer allows it, else exact eager), "fused" (raise
            when the fused op cannot serve the model) or "eager" (always materialise).
        attention_backend: backend of ``attention_colsum`` ("auto", "triton", "torch",
            "reference").
        generator: torch.Generator of the "random" policy (shared by all layers); None: layer i
            uses a private generator seeded with i (deterministic).

    Attributes:
        mode: "fused", "eager" or "hooks" (the model's own eager attention read by forward
            hooks, for models outside the AttentionInterface such as Falcon and Bloom).
    """

    def __init__(
        self,
        model=None,
        *,
        heavy: int | None = None,
        recent: int | None = None,
        ratio: Sequence[float] | None = None,
        score_mode: str = "sum",
        gqa_reduce: str = "sum",
        policy: str = "h2o",
        num_layers: int | None = None,
        attention: str = "auto",
        attention_backend: str = "auto",
        generator: torch.Generator | None = None,
    ):
        if model is not None:
            check_model(model)
        attention = check_option(attention, "attention", ATTENTION_MODES)
        self.attention_backend = check_option(attention_backend, "attention_backend", BACKENDS)
        check_budgets(heavy, recent, ratio)
        if num_layers is not None:
            num_layers = check_int(num_layers, "num_layers", minimum=1)
        self.generator = check_generator(generator)
        # validate the remaining options once, eagerly
        H2OState(heavy=heavy, recent=recent, ratio=ratio, score_mode=score_mode,
                 gqa_reduce=gqa_reduce, policy=policy)  # fmt: skip
        self._state_kwargs = dict(
            heavy=heavy, recent=recent, ratio=ratio, score_mode=score_mode,
            gqa_reduce=gqa_reduce, policy=policy,
        )  # fmt: skip
        self.heavy, self.recent = heavy, recent
        self.mode = "fused" if attention != "eager" else "eager"
        self._hooks: list = []
        self._hook_updates: list[int] = []
        self._model_ref = None
        if model is not None:
            cfg = _text_config(model)
            num_layers = cfg.num_hidden_layers if num_layers is None else num_layers
        if num_layers is not None:
            super().__init__(layers=[self._new_layer(i) for i in range(num_layers)])
        else:
            super().__init__(layer_class_to_replicate=self._replicate)
        if model is not None:
            self._attach(model, attention)

    def _new_layer(self, i: int) -> H2OLayer:
        gen = self.generator if self.generator is not None else torch.Generator().manual_seed(i)
        st = H2OState(generator=gen, **self._state_kwargs)
        return H2OLayer(st, self.attention_backend, eager=self.mode == "eager")

    def _replicate(self) -> H2OLayer:
        return self._new_layer(len(self.layers))

    # -- attaching to a model ------------------------------------------------------------------

    def _attach(self, model, attention: str) -> None:
        hooks = not _uses_attention_interface(model)
        problems = _unsupported(model, hooks)
        if problems:
            raise NotImplementedError(
                f"H2OCache cannot serve {type(model).__name__}: " + "; ".join(problems)
            )
        if hooks:
            if attention == "fused":
                raise NotImplementedError(
                    f"H2OCache: the fused 'h2o' attention cannot serve {type(model).__name__}: it "
                    "does not use transformers' AttentionInterface (use attention='auto')"
                )
            self._attach_hooks(model)
            return
        eager_reasons = _needs_eager(model)
        if eager_reasons and attention == "fused":
            raise NotImplementedError(
                "H2OCache: the fused 'h2o' attention cannot serve this model: "
                + "; ".join(eager_reasons)
                + " (use attention='auto' for the exact eager computation)"
            )
        if eager_reasons:
            self.mode = "eager"
            for layer in self.layers:
                layer.eager = True
        prev = model.config._attn_implementation
        if prev != ATTN_NAME:
            # (also when another attached cache exists but the model was switched away since)
            model.set_attn_implementation(ATTN_NAME)
        if model.config._attn_implementation != ATTN_NAME:
            raise RuntimeError(
                f"H2OCache: model.set_attn_implementation({ATTN_NAME!r}) did not take effect "
                f"(the model still runs {model.config._attn_implementation!r})"
            )
        entry = _ATTACHED.get(model)
        if entry is None:
            entry = _ATTACHED[model] = [prev, 0]
        elif prev != ATTN_NAME:
            entry[0] = prev
        entry[1] += 1
        self._model_ref = weakref.ref(model)

    def _attach_hooks(self, model) -> None:
        mods = _attention_modules(model)
        if not mods:
            raise NotImplementedError(
                f"H2OCache: found no attention modules (with a layer_idx) in {type(model).__name__}"
            )
        impl = model.config._attn_implementation
        force = []
        for mod in mods:
            params = inspect.signature(mod.forward).parameters
            if impl != "eager" and "output_attentions" not in params:
                raise NotImplementedError(
                    f"H2OCache: {type(mod).__name__} runs attn_implementation={impl!r} and cannot "
                    "be asked for its attention weights; load the model with "
                    "attn_implementation='eager'"
                )
            force.append("output_attentions" in params)
        warnings.warn(
            f"H2OCache: {type(model).__name__} does not use transformers' AttentionInterface; "
            "the attention probabilities are read from its own eager attention through forward "
            "hooks (slow: the attention matrix is materialised)",
            RuntimeWarning,
            stacklevel=4,
        )
        self.mode = "hooks"
        ref = weakref.ref(self)
        for mod, f in zip(mods, force):
            self._hooks.append(
                mod.register_forward_pre_hook(_make_pre_hook(ref, f), with_kwargs=True)
            )
            self._hooks.append(mod.register_forward_hook(_make_post_hook(ref), with_kwargs=True))
        self._model_ref = weakref.ref(model)

    def detach(self) -> None:
        """Remove the hooks and restore the model's attention implementation (when no other
        attached cache still needs it). The cache keeps its contents; idempotent."""
        for h in self._hooks:
            h.remove()
        self._hooks.clear()
        model = self._model_ref() if self._model_ref is not None else None
        self._model_ref = None
        entry = _ATTACHED.get(model) if model is not None else None
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del _ATTACHED[model]
                if model.config._attn_implementation == ATTN_NAME and entry[0] != ATTN_NAME:
                    model.set_attn_implementation(entry[0])

    def remove_hooks(self) -> None:
        """Alias of :meth:`detach` (the 0.1 name)."""
        self.detach()

    def __enter__(self) -> H2OCache:
        return self

    def __exit__(self, *exc) -> None:
        self.detach()

    def __del__(self):
        try:
            self.detach()
        except Exception:
            pass

    # -- cache API -----------------------------------------------------------------------------

    def update(self, key_states, value_states, layer_idx: int, *args, **kwargs):
        keys, values = super().update(key_states, value_states, layer_idx, *args, **kwargs)
        if self._hooks:
            self._hook_updates.append(layer_idx)
        return keys, values

    def kv_lengths(self) -> list[int]:
        """Number of kept entries per layer (per batch row and KV head; the same for all)."""
        return [layer.kv_length() if isinstance(layer, H2OLayer) else 0 for layer in self.layers]

    def kept_positions(self, layer_idx: int) -> torch.Tensor | None:
        """(B, Hkv, m) absolute positions of the entries kept by layer ``layer_idx`` (-1 marks a
        masked filler of a batch row with a smaller ratio budget)."""
        layer_idx = check_int(layer_idx, "layer_idx", minimum=0, maximum=len(self.layers) - 1)
        return self.layers[layer_idx].state.positions

    def memory_bytes(self) -> int:
        """Bytes held by the cached keys and values."""
        total = 0
        for layer in self.layers:
            if getattr(layer, "keys", None) is not None:
                total += layer.keys.numel() * layer.keys.element_size()
                total += layer.values.numel() * layer.values.element_size()
        return total


def _find_cache(cache, args, kwargs) -> bool:
    return any(v is cache for v in kwargs.values()) or any(v is cache for v in args)


def _num_heads(module) -> int:
    for name in ("num_heads", "num_attention_heads", "n_head"):
        if isinstance(getattr(module, name, None), int):
            return getattr(module, name)
    return int(module.config.num_attention_heads)


def _make_pre_hook(cache_ref, force_weights: bool):
    def pre_hook(module, args, kwargs):
        cache = cache_ref()
        if cache is None or not _find_cache(cache, args, kwargs):
            return None
        cache._hook_updates = []
        layer = cache.layers[module.layer_idx]
        hidden = args[0] if args else kwargs.get("hidden_states")
        B, q = hidden.shape[0], hidden.shape[1]
        H = _num_heads(module)
        if force_weights:
            kwargs["output_attentions"] = True
        mask = kwargs.get("attention_mask")
        if mask is not None and not isinstance(mask, torch.Tensor):
            raise NotImplementedError(
                f"H2OCache: {type(module).__name__} got an attention mask of type "
                f"{type(mask).__name__}"
            )
        allowed, new_valid = layer.allowed_mask(
            B, q, hidden.device, mask if mask is not None and mask.ndim == 4 else None
        )
        layer._step_new_valid = new_valid
        if "attention_mask" in kwargs or allowed is not None:
            if allowed is None:
                n = layer.state.kept + q
                i = torch.arange(q, device=hidden.device)
                j = torch.arange(n, device=hidden.device)
                allowed = (j[None, :] <= i[:, None] + n - q)[None, None].expand(B, 1, q, n)
            G = H // allowed.shape[1] if allowed.shape[1] > 1 else 1
            a = allowed.repeat_interleave(G, dim=1) if G > 1 else allowed
            dtype = mask.dtype if mask is not None and mask.is_floating_point() else hidden.dtype
            kwargs["attention_mask"] = torch.zeros(a.shape, dtype=dtype, device=hidden.device)
            kwargs["attention_mask"].masked_fill_(~a, torch.finfo(dtype).min)
        alibi = kwargs.get("alibi")
        if isinstance(alibi, torch.Tensor):
            kwargs["alibi"] = _alibi_at_kept_positions(module, layer, alibi, B, H, q)
        return args, kwargs

    return pre_hook


def _alibi_at_kept_positions(module, layer, alibi, B: int, H: int, q: int) -> torch.Tensor:
    """Bloom-style alibi (B*H, 1, n): slope_h * absolute position of each kept + new key (the
    model builds it for contiguous positions 0..n-1, which eviction breaks)."""
    slopes_fn = getattr(sys.modules.get(type(module).__module__), "_get_alibi_slopes", None)
    if slopes_fn is None or alibi.ndim != 3 or alibi.shape[0] != B * H:
        raise NotImplementedError(
            f"H2OCache: alibi of shape {tuple(alibi.shape)} in {type(module).__name__} is not "
            "supported (only Bloom-style (batch * heads, 1, keys) biases)"
        )
    st = layer.state
    dev = alibi.device
    new = torch.arange(st.seen, st.seen + q, device=dev).expand(B, H, q)
    if st.kept:
        kept = st.positions.to(dev)
        kept = kept.repeat_interleave(H // kept.shape[1], dim=1)
        pos = torch.cat([kept, new], -1)
    else:
        pos = new
    slopes = slopes_fn(H, dev).float()
    return (slopes[None, :, None] * pos.float()).reshape(B * H, 1, -1).to(alibi.dtype)


def _make_post_hook(cache_ref):
    def post_hook(module, args, kwargs, output):
        cache = cache_ref()
        if cache is None or not cache._hook_updates:
            return None
        updated, cache._hook_updates = cache._hook_updates, []
        weights = output[1] if isinstance(output, tuple) and len(output) > 1 else None
        if not isinstance(weights, torch.Tensor) or weights.ndim != 4:
            for li in updated:
                cache.layers[li]._consume()
            raise RuntimeError(
                f"H2OCache: {type(module).__name__} returned no attention weights, so nothing "
                "can be evicted; load the model with attn_implementation='eager'"
            )
        for li in updated:
            layer = cache.layers[li]
            layer.receive_probs(weights, new_valid=layer._step_new_valid)
        return None

    return post_hook


def _to_allowed(mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype == torch.bool:
        return mask
    return mask > torch.finfo(mask.dtype).min / 2


def _eager_attention(query, key, value, allowed, scaling, softcap=None, sinks=None):
    """Exact attention with materialised float32 probabilities.

    ``allowed`` (B|1, 1|Hkv|H, q, n) bool or None (bottom-right aligned causal). Returns
    ``(out (B, H, q, Dv) in value's dtype, probs (B, H, q, n) float32)``; fully masked rows
    (padding) get zero probabilities.
    """
    B, H, q, D = query.shape
    Hkv, n = key.shape[1], key.shape[2]
    G = H // Hkv
    k = key.float().repeat_interleave(G, dim=1) if G > 1 else key.float()
    v = value.float().repeat_interleave(G, dim=1) if G > 1 else value.float()
    scale = D**-0.5 if scaling is None else scaling
    s = torch.matmul(query.float(), k.transpose(-1, -2)) * scale
    if softcap is not None:
        s = torch.tanh(s / softcap) * softcap
    if allowed is None:
        i = torch.arange(q, device=query.device)
        j = torch.arange(n, device=query.device)
        allowed = (j[None, :] <= i[:, None] + n - q)[None, None]
    elif allowed.shape[1] not in (1, H):
        allowed = allowed.repeat_interleave(H // allowed.shape[1], dim=1)
    s = s.masked_fill(~allowed, float("-inf"))
    if sinks is not None:
        sk = sinks.float().reshape(1, H, 1, 1).expand(B, H, q, 1)
        p = torch.softmax(torch.cat([s, sk], dim=-1), dim=-1)[..., :-1]
    else:
        p = torch.softmax(s, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)
    out = torch.matmul(p, v).to(value.dtype)
    return out, p


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
    """transformers attention function: attention + per-key probability mass for H2OCache
    layers (fused or exact eager); SDPA (or exact eager where SDPA cannot) for everything else."""
    ref = _PENDING.get(id(key))
    layer = ref() if ref is not None else None
    softcap = kwargs.get("softcap")
    sinks = kwargs.get("s_aux")
    want_weights = bool(kwargs.get("output_attentions")) or bool(
        getattr(getattr(module, "config", None), "output_attentions", False)
    )
    if layer is None or layer._returned_keys is not key:
        if softcap is None and sinks is None and not want_weights:
            from transformers.integrations.sdpa_attention import sdpa_attention_forward

            return sdpa_attention_forward(
                module, query, key, value, attention_mask, scaling=scaling, dropout=dropout,
                **kwargs,
            )  # fmt: skip
        allowed = (
            None if attention_mask is None else _to_allowed(attention_mask)[..., : key.shape[2]]
        )
        out, p = _eager_attention(query, key, value, allowed, scaling, softcap, sinks)
        return out.transpose(1, 2).contiguous(), p.to(query.dtype)
    if module.training and dropout > 0:
        raise NotImplementedError("H2OCache is for inference: attention dropout is not supported")
    B, _, q, _ = query.shape
    allowed, new_valid = layer.allowed_mask(
        B, q, query.device, attention_mask, kwargs.get("sliding_window")
    )
    if layer.eager or softcap is not None or sinks is not None or want_weights:
        out, p = _eager_attention(query, key, value, allowed, scaling, softcap, sinks)
        layer.receive_probs(p, new_valid=new_valid)
        return out.transpose(1, 2).contiguous(), (p.to(query.dtype) if want_weights else None)
    if allowed is None:
        out, colsum = attention_colsum(
            query, key, value, causal=True, scale=scaling, backend=layer.attention_backend
        )
    else:
        out, colsum = attention_colsum(
            query, key, value, attn_mask=allowed, scale=scaling, backend=layer.attention_backend
        )
    layer.receive_colsum(colsum, new_valid=new_valid)
    return out.transpose(1, 2).contiguous(), None


def register() -> None:
    """Register the "h2o" attention (and its SDPA-style mask) with transformers; idempotent."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTN_NAME, h2o_attention_forward)
    AttentionMaskInterface.register(ATTN_NAME, sdpa_mask)
