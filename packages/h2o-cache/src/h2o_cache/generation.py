"""Decoding and teacher-forced evaluation with H2O eviction.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048 - Sec. 5.1 (accuracy with 20 % heavy
hitters vs the full cache and the "local" recent-only window).

- :func:`h2o_generate`: an explicit decode loop with explicit position ids (robust across
  transformers versions), greedy or sampled.
- :func:`h2o_token_nll` / :func:`h2o_perplexity`: teacher-forced evaluation with REAL eviction:
  the prompt is scored with full causal attention and compressed, then the continuation is fed
  one token at a time through the evicting cache.
- :func:`h2o_mask_mode`: the same evaluation in one forward pass per layer, with a mask built
  row by row from the masked softmax (row t sees the set kept after rows < t). An independent
  implementation used to check real eviction (they agree to float rounding).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Sequence
from typing import NamedTuple

import torch
import torch.nn.functional as F

from ._checks import check_bool, check_float, check_generator, check_int, check_option
from ._validation import check_attention_mask, check_budgets, check_ids, check_model
from .cache import ATTENTION_MODES, H2OCache, _uses_attention_interface
from .policy import GQA_REDUCE, SCORE_MODES, H2OState

POLICIES = ("h2o", "local", "random", "full")


class Generation(NamedTuple):
    """What :func:`h2o_generate` returns with ``return_cache=True``."""

    ids: torch.Tensor  # (B, L + new) prompt and generated ids
    cache: object  # the H2OCache (detached from the model), or the DynamicCache of policy "full"


class MaskModeResult(NamedTuple):
    """What :func:`h2o_mask_mode` returns with ``return_masks=True``."""

    nll: torch.Tensor  # (B, L - prefill_len) per-token NLL
    masks: list  # per layer: (B, Hkv, L, L) bool, the keys each row may attend


def _cache_kw(model) -> str:
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _check_common(model, policy, score_mode, gqa_reduce, heavy, recent, ratio):
    check_model(model)
    check_option(policy, "policy", POLICIES)
    check_option(score_mode, "score_mode", SCORE_MODES)
    check_option(gqa_reduce, "gqa_reduce", GQA_REDUCE)
    if policy != "full":
        check_budgets(heavy, recent, ratio)


@torch.no_grad()
def h2o_generate(
    model,
    input_ids: torch.Tensor,
    *,
    max_new_tokens: int,
    heavy: int | None = None,
    recent: int | None = None,
    ratio: Sequence[float] | None = None,
    attention_mask: torch.Tensor | None = None,
    score_mode: str = "sum",
    gqa_reduce: str = "sum",
    policy: str = "h2o",
    attention: str = "auto",
    do_sample: bool = False,
    temperature: float = 1.0,
    eos_token_id: int | None = None,
    generator: torch.Generator | None = None,
    return_cache: bool = False,
):
    """Generate with an H2O-evicting cache in an explicit decode loop.

    Args:
        model: a transformers causal LM (its attention implementation is restored afterwards).
        input_ids: (B, L) prompt ids (left-padded when B > 1, with ``attention_mask``).
        max_new_tokens: tokens to generate.
        heavy, recent: budget per layer and KV head (or ``ratio`` of the prompt length).
        attention_mask: (B, L) 1 for tokens, 0 for (left) padding.
        score_mode, gqa_reduce, policy, attention: see :class:`H2OCache`; policy "full" uses no
            eviction.
        do_sample, temperature, generator: sampling instead of greedy decoding.
        eos_token_id: rows that produced it keep emitting it.
        return_cache: return a :class:`Generation` (ids and the cache) instead of the ids.

    Returns:
        (B, L + max_new_tokens) ids, or a :class:`Generation` with ``return_cache``.
    """
    _check_common(model, policy, score_mode, gqa_reduce, heavy, recent, ratio)
    input_ids = check_ids(input_ids, "input_ids")
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=0)
    check_option(attention, "attention", ATTENTION_MODES)
    do_sample = check_bool(do_sample, "do_sample")
    temperature = check_float(temperature, "temperature", minimum=0.0, min_inclusive=False)
    if eos_token_id is not None:
        eos_token_id = check_int(eos_token_id, "eos_token_id", minimum=0)
    generator = check_generator(generator)
    return_cache = check_bool(return_cache, "return_cache")
    dev = input_ids.device
    B, L = input_ids.shape
    if attention_mask is None:
        attention_mask = torch.ones(B, L, dtype=torch.long, device=dev)
    else:
        attention_mask = check_attention_mask(attention_mask, "attention_mask", (B, L)).to(dev)
    if policy == "full":
        from transformers import DynamicCache

        cache = DynamicCache(config=model.config)
        ctx = contextlib.nullcontext(cache)
    else:
        ctx = H2OCache(
            model,
            heavy=heavy,
            recent=recent,
            ratio=ratio,
            score_mode=score_mode,
            gqa_reduce=gqa_reduce,
            policy=policy,
            attention=attention,
        )
    kw = _cache_kw(model)
    pos = (attention_mask.cumsum(-1) - 1).clamp_min(0)
    out_ids = input_ids
    step_ids, step_pos = input_ids, pos
    done = torch.zeros(B, dtype=torch.bool, device=dev)
    with ctx as cache:
        for _ in range(max_new_tokens):
            logits = (
                model(
                    input_ids=step_ids,
                    attention_mask=attention_mask,
                    position_ids=step_pos,
                    use_cache=True,
                    **{kw: cache},
                )
                .logits[:, -1]
                .float()
            )
            if do_sample:
                probs = torch.softmax(logits / temperature, dim=-1)
                nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
            else:
                nxt = logits.argmax(-1)
            if eos_token_id is not None:
                nxt = torch.where(done, torch.full_like(nxt, eos_token_id), nxt)
                done = done | (nxt == eos_token_id)
            out_ids = torch.cat([out_ids, nxt[:, None]], dim=1)
            attention_mask = torch.cat(
                [attention_mask, torch.ones(B, 1, dtype=torch.long, device=dev)], dim=1
            )
            step_ids, step_pos = nxt[:, None], step_pos[:, -1:] + 1
            if eos_token_id is not None and bool(done.all()):
                break
    return Generation(out_ids, cache) if return_cache else out_ids


def _check_eval_args(model, ids, prefill_len, policy, score_mode, gqa_reduce, heavy, recent, ratio):
    _check_common(model, policy, score_mode, gqa_reduce, heavy, recent, ratio)
    ids = check_ids(ids, "ids")
    if ids.shape[1] < 2:
        raise ValueError(f"ids needs at least 2 tokens (a prompt and a target), got {ids.shape[1]}")
    prefill_len = check_int(prefill_len, "prefill_len", minimum=1, maximum=ids.shape[1] - 1)
    return ids, prefill_len


@torch.no_grad()
def h2o_token_nll(
    model,
    ids: torch.Tensor,
    *,
    prefill_len: int,
    heavy: int | None = None,
    recent: int | None = None,
    policy: str = "h2o",
    ratio: Sequence[float] | None = None,
    score_mode: str = "sum",
    gqa_reduce: str = "sum",
    attention: str = "auto",
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Per-token negative log-likelihood of ``ids[:, prefill_len:]`` under real eviction.

    The prompt ``ids[:, :prefill_len]`` is run in one forward (full causal attention, scored, then
    compressed); the rest is fed one token at a time through the evicting cache. ``policy``:
    "h2o" | "local" (recent window of heavy + recent) | "random" (random heavy + recent) |
    "full" (no eviction; one forward). The model's attention implementation is restored after.

    Returns:
        (B, L - prefill_len) float32 NLL in nats.
    """
    ids, prefill_len = _check_eval_args(
        model, ids, prefill_len, policy, score_mode, gqa_reduce, heavy, recent, ratio
    )
    check_option(attention, "attention", ATTENTION_MODES)
    B, L = ids.shape
    targets = ids[:, prefill_len:]
    if policy == "full":
        logits = model(input_ids=ids, use_cache=False).logits[:, prefill_len - 1 : -1].float()
        return F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    kw = _cache_kw(model)
    pos = torch.arange(L, device=ids.device)[None].expand(B, L)
    with H2OCache(
        model,
        heavy=heavy,
        recent=recent,
        ratio=ratio,
        score_mode=score_mode,
        gqa_reduce=gqa_reduce,
        policy=policy,
        attention=attention,
        generator=generator,
    ) as cache:
        out = model(
            input_ids=ids[:, :prefill_len],
            position_ids=pos[:, :prefill_len],
            use_cache=True,
            **{kw: cache},
        )
        logits = [out.logits[:, -1].float()]
        for t in range(prefill_len, L - 1):
            out = model(
                input_ids=ids[:, t : t + 1],
                position_ids=pos[:, t : t + 1],
                use_cache=True,
                **{kw: cache},
            )
            logits.append(out.logits[:, -1].float())
    logits = torch.stack(logits, dim=2)  # (B, V, L - prefill_len)
    return F.cross_entropy(logits, targets, reduction="none")


def h2o_perplexity(
    model,
    ids: torch.Tensor,
    *,
    prefill_len: int,
    heavy: int | None = None,
    recent: int | None = None,
    policy: str = "h2o",
    ratio: Sequence[float] | None = None,
    score_mode: str = "sum",
    gqa_reduce: str = "sum",
    attention: str = "auto",
    generator: torch.Generator | None = None,
) -> float:
    """Teacher-forced perplexity of ``ids[:, prefill_len:]`` with real eviction (see
    :func:`h2o_token_nll`): ``exp(mean NLL)`` over all batch rows and continuation tokens."""
    nll = h2o_token_nll(
        model, ids, prefill_len=prefill_len, heavy=heavy, recent=recent, policy=policy,
        ratio=ratio, score_mode=score_mode, gqa_reduce=gqa_reduce, attention=attention,
        generator=generator,
    )  # fmt: skip
    return float(torch.exp(nll.double().mean()))


# ---------------------------------------------------------------------------------------------
# mask mode: one forward per layer, mask built row by row
# ---------------------------------------------------------------------------------------------

MASK_ATTN_NAME = "h2o_mask"
_MASK_CTX: dict = {}


def _sequential_keep_masks(
    s: torch.Tensor,
    n_kv: int,
    P: int,
    st: H2OState,
    *,
    window: int | None = None,
    sinks: torch.Tensor | None = None,
) -> torch.Tensor:
    """Allowed-key mask (B, Hkv, L, L) for scores ``s`` (B, H, L, L), rows >= P evicting.

    Works on a boolean "kept" set over absolute positions (no gathering), unlike the cache. A
    sliding ``window`` restricts what each row attends (keys at positions > t - window), not
    what is kept; ``sinks`` (H,) are extra softmax logits (attention sinks) that take mass from
    the keys.
    """
    B, H, L, _ = s.shape
    G = H // n_kv
    dev = s.device
    st.resolve(P)
    heavy, recent = (0, st.heavy + st.recent) if st.policy == "local" else (st.heavy, st.recent)
    budget = st.heavy + st.recent

    def reduce(p):  # (B, H, L) -> (B, Hkv, L)
        p = p.view(B, n_kv, G, L)
        return p.sum(2) if st.gqa_reduce == "sum" else p.mean(2)

    def masked_softmax(rows_s, allowed):  # rows_s (B, H, r, L), allowed (B, Hkv, r, L)
        a = allowed.repeat_interleave(G, dim=1)
        x = rows_s.masked_fill(~a, float("-inf"))
        if sinks is None:
            return torch.softmax(x, dim=-1)
        sk = sinks.float().reshape(1, H, 1, 1).expand(B, H, x.shape[2], 1)
        return torch.softmax(torch.cat([x, sk], dim=-1), dim=-1)[..., :-1]

    pos = torch.arange(L, device=dev)
    band = torch.ones(L, L, dtype=torch.bool, device=dev).tril()
    if window is not None:
        band = band & (pos[None, :] > pos[:, None] - window)
    allowed = torch.zeros(B, n_kv, L, L, dtype=torch.bool, device=dev)
    allowed[:, :, :P, :P] = band[:P, :P]
    p = masked_softmax(s[:, :, :P], allowed[:, :, :P])
    score = reduce(p.sum(2))
    count = (P - pos).clamp_min(0).float().expand(B, n_kv, L).clone() * (pos < P)
    keep = (pos < P).expand(B, n_kv, L).clone()
    priority = torch.rand(B, n_kv, L, generator=torch.Generator().manual_seed(0)).to(dev)

    def evict(keep, t):
        if int(keep[0, 0].sum()) <= budget:
            return keep
        rank = score / count.clamp_min(1.0) if st.score_mode == "mean" else score
        if st.policy == "random":
            rank = priority
        cand = keep & (pos <= t - recent)
        r = rank.masked_fill(~cand, float("-inf"))
        new = ((pos > t - recent) & (pos <= t)).expand(B, n_kv, L).clone()
        if heavy:
            top = torch.sort(r, dim=-1, descending=True, stable=True).indices[..., :heavy]
            new = new.scatter(-1, top, True)
        return new

    keep = evict(keep, P - 1)
    for t in range(P, L):
        row = keep.clone()
        row[..., t] = True
        allowed[:, :, t] = row & band[t]
        p = masked_softmax(s[:, :, t : t + 1], allowed[:, :, t : t + 1])[:, :, 0]  # (B, H, L)
        score = score + reduce(p)
        count = count + row.float()
        keep = evict(row, t)
    return allowed


def _mask_mode_attention(
    module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs
):
    ctx = _MASK_CTX
    B, H, L, D = query.shape
    n_kv = key.shape[1]
    G = H // n_kv
    scaling = D**-0.5 if scaling is None else scaling
    kk = key.float().repeat_interleave(G, dim=1)
    vv = value.float().repeat_interleave(G, dim=1)
    s = torch.matmul(query.float(), kk.transpose(-1, -2)) * scaling  # (B, H, L, L)
    softcap = kwargs.get("softcap")
    if softcap is not None:
        s = torch.tanh(s / softcap) * softcap
    window = kwargs.get("sliding_window")
    sinks = kwargs.get("s_aux")
    st = H2OState(**ctx["state_kwargs"])
    allowed = _sequential_keep_masks(
        s, n_kv, ctx["prefill_len"], st, window=None if window is None else int(window), sinks=sinks
    )
    ctx["masks"].append(allowed)
    x = s.masked_fill(~allowed.repeat_interleave(G, dim=1), float("-inf"))
    if sinks is None:
        p = torch.softmax(x, dim=-1)
    else:
        sk = sinks.float().reshape(1, H, 1, 1).expand(B, H, L, 1)
        p = torch.softmax(torch.cat([x, sk], dim=-1), dim=-1)[..., :-1]
    out = torch.matmul(p, vv).to(query.dtype)
    return out.transpose(1, 2).contiguous(), p


@contextlib.contextmanager
def _attn_implementation(model, name):
    prev = model.config._attn_implementation
    model.set_attn_implementation(name)
    try:
        if model.config._attn_implementation != name:
            raise NotImplementedError(
                f"h2o_mask_mode: model.set_attn_implementation({name!r}) did not take effect on "
                f"{type(model).__name__}; mask mode needs transformers' AttentionInterface"
            )
        yield
    finally:
        model.set_attn_implementation(prev)


@torch.no_grad()
def h2o_mask_mode(
    model,
    ids: torch.Tensor,
    *,
    prefill_len: int,
    heavy: int | None = None,
    recent: int | None = None,
    policy: str = "h2o",
    ratio: Sequence[float] | None = None,
    score_mode: str = "sum",
    gqa_reduce: str = "sum",
    return_masks: bool = False,
):
    """Per-token NLL as :func:`h2o_token_nll`, from ONE forward with sequentially built masks.

    In every layer the score matrix is computed once (with the layer's soft-capping, sliding
    window and attention sinks); row t (t >= prefill_len) may attend to the set kept after rows
    < t, scored with the *masked* softmax of those rows, plus itself. This reproduces real
    eviction exactly (up to float rounding) for the "h2o" and "local" policies ("random" uses
    its own priorities, so it matches only in distribution). Needs a model that uses
    transformers' AttentionInterface (not Falcon or Bloom).

    Returns:
        (B, L - prefill_len) NLL, or with ``return_masks`` a :class:`MaskModeResult` with the
        per-layer allowed-key masks (B, Hkv, L, L).
    """
    ids, prefill_len = _check_eval_args(
        model, ids, prefill_len, policy, score_mode, gqa_reduce, heavy, recent, ratio
    )
    return_masks = check_bool(return_masks, "return_masks")
    if policy == "full":
        raise ValueError(
            "policy='full' does not evict; use h2o_token_nll(..., policy='full') for the full cache"
        )
    if not _uses_attention_interface(model):
        raise NotImplementedError(
            f"h2o_mask_mode needs transformers' AttentionInterface, which {type(model).__name__} "
            "does not use; use h2o_token_nll"
        )
    state_kwargs = dict(heavy=heavy, recent=recent, ratio=ratio, score_mode=score_mode,
                        gqa_reduce=gqa_reduce, policy=policy)  # fmt: skip
    H2OState(**state_kwargs)  # validate
    _register_mask_mode()
    _MASK_CTX.clear()
    _MASK_CTX.update(prefill_len=prefill_len, masks=[], state_kwargs=state_kwargs)
    try:
        with _attn_implementation(model, MASK_ATTN_NAME):
            logits = model(input_ids=ids, use_cache=False).logits[:, prefill_len - 1 : -1].float()
        masks = _MASK_CTX["masks"]
    finally:
        _MASK_CTX.clear()
    nll = F.cross_entropy(logits.transpose(1, 2), ids[:, prefill_len:], reduction="none")
    return MaskModeResult(nll, masks) if return_masks else nll


def _register_mask_mode() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(MASK_ATTN_NAME, _mask_mode_attention)
    AttentionMaskInterface.register(MASK_ATTN_NAME, sdpa_mask)
