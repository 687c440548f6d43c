"""An independent mask-based reference for H2O real eviction on any transformers model.

The model runs with a FULL ``DynamicCache`` under its own eager attention; in every layer and KV
head the positions H2O has evicted are masked out (an additive -inf on top of the model's own
mask: causal, sliding window, padding). The kept sets are rebuilt here from the probabilities the
model's eager attention returns (``output_attentions=True``), with plain per-position bookkeeping
(no gathering, no slot indices), so a bug in the cache's masks, positions, alibi, soft-capping or
score accumulation shows up as a logit difference.
"""

from __future__ import annotations

import inspect

import torch
from transformers import DynamicCache


def attention_modules(model) -> list[torch.nn.Module]:
    return [
        m
        for m in model.modules()
        if type(m).__name__.endswith("Attention") and getattr(m, "layer_idx", None) is not None
    ]


def _evict(kept, score, heavy, recent, last):
    """kept (Hkv, N) bool, score (Hkv, N) float64; positions <= last exist. In place."""
    for h in range(kept.shape[0]):
        pos = torch.nonzero(kept[h]).flatten().tolist()
        if len(pos) <= heavy + recent:
            continue
        rec = [p for p in pos if p > last - recent]
        old = [p for p in pos if p <= last - recent]
        top = sorted(old, key=lambda p: (-float(score[h, p]), p))[:heavy]
        kept[h] = False
        kept[h, rec + top] = True


@torch.no_grad()
def reference_logits(model, ids, prefill_len, heavy, recent):
    """(B, L - prefill_len, V) logits of positions prefill_len-1 .. L-2 (batch rows without
    padding), and the final kept sets per layer: a list of (B, Hkv, L) bool."""
    B, L = ids.shape
    cache_kw = _cache_kw(model)
    mods = sorted(attention_modules(model), key=lambda m: m.layer_idx)
    n_layers = len(mods)
    state: dict = {}

    def pre(module, args, kwargs):
        li = module.layer_idx
        allowed = state["allowed"][li]  # (B, Hkv, q, kv)
        mask = kwargs.get("attention_mask")
        q, kv = allowed.shape[-2:]
        H = state["heads"]
        a = allowed.repeat_interleave(H // allowed.shape[1], dim=1)
        if mask is None:
            base = torch.zeros(B, H, q, kv)
        elif mask.dtype == torch.bool:
            base = torch.zeros(mask.shape).masked_fill(~mask, torch.finfo(torch.float32).min)
            base = base[..., :kv].expand(B, H, q, kv).clone()
        else:
            base = mask[..., :kv].float().expand(B, H, q, kv).clone()
        base = base.masked_fill(~a, torch.finfo(torch.float32).min)
        kwargs["attention_mask"] = base.to(
            mask.dtype if mask is not None and mask.is_floating_point() else torch.float32
        )
        return args, kwargs

    handles = [m.register_forward_pre_hook(pre, with_kwargs=True) for m in mods]
    try:
        cache = DynamicCache()  # no config: no sliding-window truncation, every layer keeps all
        kept = score = None
        logits = []
        steps = [(0, prefill_len)] + [(t, t + 1) for t in range(prefill_len, L - 1)]
        for s, e in steps:
            q = e - s
            if kept is None:
                # the number of KV heads and query heads, from a probe of the first layer
                state["heads"] = _num_heads(model)
                hkv = _num_kv_heads(model)
                kept = [torch.zeros(B, hkv, L, dtype=torch.bool) for _ in range(n_layers)]
                score = [torch.zeros(B, hkv, L, dtype=torch.float64) for _ in range(n_layers)]
            allowed = []
            for li in range(n_layers):
                new = torch.zeros(q, L, dtype=torch.bool)
                for i in range(q):
                    new[i, s : s + i + 1] = True
                al = kept[li][:, :, None, :] | new[None, None]
                allowed.append(al[..., :e])
            state["allowed"] = allowed
            out = model(
                input_ids=ids[:, s:e],
                position_ids=torch.arange(s, e)[None].expand(B, q),
                use_cache=True,
                output_attentions=True,
                **{cache_kw: cache},
            )
            logits.append(out.logits[:, -1].float())
            for li, att in enumerate(out.attentions):
                hkv = kept[li].shape[1]
                col = att.double().sum(2).view(B, hkv, -1, e).sum(2)  # (B, Hkv, e)
                score[li][..., :e] += col
                kept[li][..., s:e] = True
                for b in range(B):
                    _evict(kept[li][b], score[li][b], heavy, recent, e - 1)
        return torch.stack(logits, 1), kept
    finally:
        for h in handles:
            h.remove()


def _cache_kw(model) -> str:
    """transformers 5.x renamed `past_key_values` to `cache` (the old name is deprecated)."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _text_config(model):
    cfg = model.config
    return cfg.get_text_config(decoder=True) if hasattr(cfg, "get_text_config") else cfg


def _num_heads(model) -> int:
    cfg = _text_config(model)
    for name in ("num_attention_heads", "n_head"):
        if getattr(cfg, name, None):
            return int(getattr(cfg, name))
    raise ValueError("unknown number of heads")


def _num_kv_heads(model) -> int:
    cfg = _text_config(model)
    if type(cfg).__name__ == "FalconConfig":
        if cfg.new_decoder_architecture:
            return cfg.num_kv_heads
        return 1 if cfg.multi_query else cfg.num_attention_heads
    if type(cfg).__name__ == "GPTBigCodeConfig":
        return 1 if cfg.multi_query else cfg.n_head
    return int(getattr(cfg, "num_key_value_heads", None) or _num_heads(model))


@torch.no_grad()
def h2o_logits(model, ids, prefill_len, heavy, recent, **cache_kwargs):
    """The same logits from real eviction with ``H2OCache`` (token by token after the prompt)."""
    from h2o_cache import H2OCache

    B, L = ids.shape
    cache = H2OCache(model, heavy=heavy, recent=recent, **cache_kwargs)
    pos = torch.arange(L)[None].expand(B, L)
    logits = []
    steps = [(0, prefill_len)] + [(t, t + 1) for t in range(prefill_len, L - 1)]
    for s, e in steps:
        out = model(input_ids=ids[:, s:e], position_ids=pos[:, s:e], **{_cache_kw(model): cache})
        logits.append(out.logits[:, -1].float())
    return torch.stack(logits, 1), cache
