"""SpecTr decoding: k drafts of length L per iteration, validated by K-SEQ position by position.

SpecTr: Fast Speculative Decoding via Optimal Transport (Sun et al., NeurIPS 2023) -
https://arxiv.org/abs/2310.15141 , Sec. 5 (Algorithm "SpecTr"), with the baselines it compares
against: speculative decoding (Leviathan et al. 2023; Chen et al. 2023; = SpecTr with k = 1)
and autoregressive sampling.

One iteration: (a) sample k independent continuations of length L from the draft (one batched
draft forward per position); (b) score all of them with ONE batched target forward; (c) for
t = 1..L, the surviving drafts S share the accepted prefix, so their t-th tokens are i.i.d. from
the same p_t; run K-SEQ with k' = |S| on them; on acceptance of y keep every draft of S whose t-th
token is y, on rejection emit the residual sample and stop; if all L positions are accepted,
emit one more token from the target's q_{L+1}. The output is distributed exactly as sampling from
the (temperature / top-p warped) target.

Models are either Hugging Face causal LMs (``hf`` extra; key/value caches reused across
iterations, cropped to the accepted prefix) or plain callables
``lm(prefixes: int[B, T]) -> float[B, V]`` of next-token log-probabilities.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from .core import _kseq_select, _solve_rho

__all__ = [
    "SpecStats",
    "autoregressive_generate",
    "speculative_generate",
    "spectr_generate",
    "warp",
]


@dataclass
class SpecStats:
    """Statistics of one generation call.

    Attributes:
        new_tokens: tokens returned.
        target_calls: target forward passes (one per iteration for speculative methods).
        draft_calls: draft forward passes (L per iteration).
        iterations: draft-and-verify iterations.
        k, L: drafts per iteration and draft length (0 for autoregressive decoding).
        emitted: tokens emitted by each iteration (1..L+1), before truncation to max_new_tokens.
        reached: ``int[L]``, iterations in which position t was examined.
        accepted: ``int[L]``, iterations in which a draft token was accepted at position t.
        survivors: ``int[L]``, drafts still alive when position t was examined (summed over
            iterations; divide by ``reached`` for the mean K-SEQ width at t).
        wall_time, target_time, draft_time: seconds (the rest is selection and bookkeeping).
    """

    new_tokens: int = 0
    target_calls: int = 0
    draft_calls: int = 0
    iterations: int = 0
    k: int = 0
    L: int = 0
    emitted: list[int] = field(default_factory=list)
    reached: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    accepted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    survivors: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    wall_time: float = 0.0
    target_time: float = 0.0
    draft_time: float = 0.0

    @property
    def block_efficiency(self) -> float:
        """Mean tokens emitted per target call (the paper's block efficiency)."""
        if self.target_calls == 0:
            return 0.0
        total = sum(self.emitted) if self.emitted else self.new_tokens
        return total / self.target_calls

    @property
    def tokens_per_call(self) -> float:
        """Alias of :attr:`block_efficiency`."""
        return self.block_efficiency

    @property
    def per_position_acceptance(self) -> np.ndarray:
        """``float[L]``: P(a draft token is accepted at position t | position t was reached)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.reached > 0, self.accepted / np.maximum(self.reached, 1), np.nan)

    @property
    def tokens_per_second(self) -> float:
        return self.new_tokens / self.wall_time if self.wall_time > 0 else float("nan")


# --------------------------------------------------------------------------- warping


def warp(logprobs, temperature: float = 1.0, top_p: float = 1.0) -> np.ndarray:
    """Sampling distribution(s) from next-token log-probs: temperature then nucleus (top-p).

    ``temperature = 0`` gives the one-hot argmax (greedy). Top-p keeps the smallest set of most
    probable tokens whose mass reaches ``top_p`` and renormalises. Applied identically to draft
    and target, so the exactness guarantee is with respect to the warped target.

    Args:
        logprobs: ``float[..., V]`` log-probabilities (or logits).

    Returns:
        ``float64[..., V]`` probabilities.

    >>> warp(np.log([[0.5, 0.3, 0.2]]), top_p=0.7).round(3).tolist()
    [[0.625, 0.375, 0.0]]
    """
    x = np.asarray(logprobs, dtype=np.float64)
    if temperature == 0:
        out = np.zeros_like(x)
        np.put_along_axis(out, x.argmax(-1)[..., None], 1.0, axis=-1)
        return out
    z = x / temperature
    z = z - z.max(-1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(-1, keepdims=True)
    if top_p < 1.0:
        order = np.argsort(-probs, axis=-1, kind="stable")
        sorted_p = np.take_along_axis(probs, order, -1)
        before = np.cumsum(sorted_p, -1) - sorted_p  # mass strictly before each sorted token
        keep_sorted = before < top_p
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, -1)
        probs = np.where(keep, probs, 0.0)
        probs /= probs.sum(-1, keepdims=True)
    return probs


def _sample_rows(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of ``probs`` (``float[B, V]``) by inverse CDF: ``int64[B]``."""
    cdf = np.cumsum(probs, -1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    idx = (cdf <= u[:, None]).sum(-1)
    # guard against landing on a zero-probability token through rounding at the top end
    idx = np.minimum(idx, probs.shape[1] - 1)
    bad = probs[np.arange(len(idx)), idx] <= 0
    if bad.any():
        for r in np.flatnonzero(bad):
            idx[r] = int(np.flatnonzero(probs[r] > 0)[-1])
    return idx.astype(np.int64)


# --------------------------------------------------------------------------- model backends


class _CallableLM:
    """Backend for ``lm(prefixes: int[B, T]) -> float[B, V]``; the "cache" is the token history."""

    def __init__(self, fn, name: str):
        self.fn, self.name = fn, name
        self.rows = np.zeros((1, 0), dtype=np.int64)
        self.vocab_size = None

    @property
    def cached_len(self) -> int:
        return self.rows.shape[1]

    def forward(self, tokens: np.ndarray, start: int) -> np.ndarray:
        """Log-probs after each of ``tokens`` (``int[B, m]``, positions start..): ``float[B, m, V]``."""
        B, m = tokens.shape
        assert start == self.cached_len
        rows = np.repeat(self.rows, B, axis=0) if self.rows.shape[0] == 1 and B > 1 else self.rows
        full = np.concatenate([rows, tokens], axis=1)
        outs = []
        for j in range(m):
            lp = np.asarray(self.fn(full[:, : start + j + 1]), dtype=np.float64)
            if lp.ndim != 2 or lp.shape[0] != B:
                raise ValueError(
                    f"{self.name} must return float[B, V] log-probs, got shape {lp.shape}"
                )
            outs.append(lp)
        self.rows = full
        out = np.stack(outs, axis=1)
        self.vocab_size = out.shape[-1]
        return out

    def keep(self, row: int, length: int) -> None:
        self.rows = self.rows[row : row + 1, :length]

    def probe_vocab(self, prompt: np.ndarray) -> int:
        """Vocabulary size: ``fn.vocab_size`` if it is an int, else one probe call on zeros."""
        v = getattr(self.fn, "vocab_size", None)
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return int(v)
        # token 0 lies in every vocabulary; the prompt's own ids may not (checked by the caller)
        lp = np.asarray(self.fn(np.zeros((1, prompt.size), dtype=np.int64)))
        if lp.ndim != 2 or lp.shape[0] != 1:
            raise ValueError(f"{self.name} must return float[B, V] log-probs, got shape {lp.shape}")
        return int(lp.shape[-1])


class _HFLM:
    """Backend for a Hugging Face causal LM with a DynamicCache reused across iterations."""

    def __init__(self, model, name: str):
        import torch

        self.torch = torch
        self.model, self.name = model, name
        self.device = next(model.parameters()).device
        self.cache = None
        self.cached_len = 0
        self.n_rows = 1
        self.vocab_size = None
        # transformers >= 5.x names the argument/output `cache`; earlier `past_key_values`
        import inspect

        params = inspect.signature(model.forward).parameters
        self.cache_kw = "cache" if "cache" in params else "past_key_values"

    def forward(self, tokens: np.ndarray, start: int) -> np.ndarray:
        torch = self.torch
        B = tokens.shape[0]
        assert start == self.cached_len
        if self.cache is not None and self.n_rows == 1 and B > 1:
            self.cache.batch_repeat_interleave(B)
        ids = torch.as_tensor(tokens, dtype=torch.long, device=self.device)
        with torch.no_grad():
            kw = {self.cache_kw: self.cache} if self.cache is not None else {}
            out = self.model(input_ids=ids, use_cache=True, **kw)
        cache = out.get("cache", None)
        self.cache = out.get("past_key_values", None) if cache is None else cache
        self.cached_len = start + tokens.shape[1]
        self.n_rows = B
        lp = torch.log_softmax(out.logits.float(), dim=-1).double().cpu().numpy()
        self.vocab_size = lp.shape[-1]
        return lp

    def probe_vocab(self, prompt: np.ndarray) -> int:
        """Rows of the output (LM head) layer, i.e. the width of the logits."""
        head = (
            self.model.get_output_embeddings()
            if hasattr(self.model, "get_output_embeddings")
            else None
        )
        w = getattr(head, "weight", None)
        if w is not None and getattr(w, "ndim", 0) == 2:
            return int(w.shape[0])
        return int(self.model.config.vocab_size)

    def keep(self, row: int, length: int) -> None:
        if self.cache is None:
            return
        if self.n_rows > 1:
            self.cache.batch_select_indices(self.torch.tensor([row], device=self.device))
            self.n_rows = 1
        if length < self.cached_len:
            # a negative argument removes that many tokens: accepted by every transformers version
            self.cache.crop(length - self.cached_len)
            self.cached_len = length


def _is_hf(model) -> bool:
    return hasattr(model, "config") and hasattr(model, "forward") and hasattr(model, "parameters")


def _backend(model, name: str):
    if _is_hf(model):
        return _HFLM(model, name)
    if callable(model):
        return _CallableLM(model, name)
    raise TypeError(
        f"{name} must be a Hugging Face causal LM or a callable lm(prefixes) -> log-probs"
    )


# --------------------------------------------------------------------------- argument checks


def _as_prompt(input_ids) -> np.ndarray:
    if hasattr(input_ids, "detach"):  # torch tensor
        input_ids = input_ids.detach().cpu().numpy()
    x = np.asarray(input_ids)
    if x.ndim == 2:
        if x.shape[0] != 1:
            raise ValueError(
                f"input_ids must hold one sequence (shape [T] or [1, T]), got shape {x.shape}"
            )
        x = x[0]
    if x.ndim != 1:
        raise ValueError(f"input_ids must have shape [T] or [1, T], got shape {x.shape}")
    if x.size == 0:
        raise ValueError("input_ids must not be empty (give at least a BOS token)")
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"input_ids must be integers, got dtype {x.dtype}")
    if x.min() < 0:
        raise ValueError("input_ids must be non-negative token ids")
    return x.astype(np.int64)


def _check_common(max_new_tokens, temperature, top_p) -> None:
    if (
        isinstance(max_new_tokens, bool)
        or not isinstance(max_new_tokens, (int, np.integer))
        or max_new_tokens < 0
    ):
        raise ValueError(f"max_new_tokens must be a non-negative int, got {max_new_tokens!r}")
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, numbers.Real)
        or not math.isfinite(temperature)
        or temperature < 0
    ):
        raise ValueError(f"temperature must be a finite float >= 0, got {temperature!r}")
    if isinstance(top_p, bool) or not isinstance(top_p, numbers.Real) or not (0.0 < top_p <= 1.0):
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")


def _check_pos_int(v, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(v)


def _check_vocabs(prompt: np.ndarray, **backends) -> None:
    """Before any forward: prompt ids inside every vocabulary, and equal vocabularies.

    Done up front because an out-of-range id would otherwise reach the model itself (an
    opaque IndexError on CPU, a device-side assert on GPU).
    """
    sizes = {name: b.probe_vocab(prompt) for name, b in backends.items()}
    for name, v in sizes.items():
        if prompt.max() >= v:
            raise ValueError(
                f"input_ids contain token {prompt.max()} outside {name}'s vocabulary of {v}"
            )
    if len(set(sizes.values())) > 1:
        desc = " vs ".join(f"{n} {v}" for n, v in sizes.items())
        raise ValueError(f"target and draft vocabularies differ: {desc}")


def _check_vocab(lp: np.ndarray, prompt: np.ndarray, name: str) -> None:
    if prompt.max() >= lp.shape[-1]:
        raise ValueError(
            f"input_ids contain token {prompt.max()} outside {name}'s vocabulary of {lp.shape[-1]}"
        )
    if not np.all(np.isfinite(lp) | (lp == -np.inf)):
        raise ValueError(f"{name} returned NaN log-probabilities")


# --------------------------------------------------------------------------- generation


def autoregressive_generate(
    target,
    input_ids,
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_p: float = 1.0,
    seed=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, SpecStats]:
    """Baseline: sample one token per target call (key/value cache reused on HF models).

    Returns:
        ``(tokens, stats)``: the new tokens ``int64[n]`` (``n = max_new_tokens`` unless
        ``eos_token_id`` stopped it) and a :class:`SpecStats` with ``target_calls = n``.
    """
    prompt = _as_prompt(input_ids)
    _check_common(max_new_tokens, temperature, top_p)
    rng = np.random.default_rng(seed)
    tgt = _backend(target, "target")
    if max_new_tokens > 0:
        _check_vocabs(prompt, target=tgt)
    stats = SpecStats()
    seq = list(prompt)
    t0 = time.perf_counter()
    new: list[int] = []
    while len(new) < max_new_tokens:
        ts = time.perf_counter()
        lp = tgt.forward(np.asarray([seq[tgt.cached_len :]], dtype=np.int64), tgt.cached_len)[:, -1]
        stats.target_time += time.perf_counter() - ts
        if stats.target_calls == 0:
            _check_vocab(lp, prompt, "target")
        stats.target_calls += 1
        tok = int(_sample_rows(warp(lp, temperature, top_p), rng)[0])
        seq.append(tok)
        new.append(tok)
        stats.emitted.append(1)
        stats.iterations += 1
        if eos_token_id is not None and tok == eos_token_id:
            break
    stats.new_tokens = len(new)
    stats.wall_time = time.perf_counter() - t0
    return np.asarray(new, dtype=np.int64), stats


def spectr_generate(
    target,
    draft,
    input_ids,
    max_new_tokens: int,
    *,
    k: int = 4,
    L: int = 4,
    temperature: float = 1.0,
    top_p: float = 1.0,
    seed=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, SpecStats]:
    """Sample ``max_new_tokens`` tokens from ``target`` with SpecTr (k drafts of length L).

    The output is distributed exactly as autoregressive sampling from the target with the same
    ``temperature`` / ``top_p``; ``temperature = 0`` reproduces the target's greedy decoding
    token for token (then one draft suffices and ``k`` is not used: identical greedy drafts
    would add nothing).

    Args:
        target: Hugging Face causal LM, or a callable ``lm(prefixes: int[B, T]) -> float[B, V]``
            returning next-token log-probabilities. Vocabulary sizes are checked before
            decoding: from the LM head of HF models, from a callable's ``vocab_size``
            attribute, or else from one extra call on a prefix of zeros.
        draft: the same kind of model over the same vocabulary.
        input_ids: prompt, ``int[T]`` or ``int[1, T]`` (numpy, list or torch tensor), T >= 1.
        max_new_tokens: number of tokens to generate.
        k: drafts per iteration (K-SEQ width); ``k = 1`` is speculative decoding.
        L: draft length per iteration (the paper's gamma).
        temperature: sampling temperature (0 = greedy).
        top_p: nucleus sampling mass, applied to draft and target alike.
        seed: seed or ``numpy.random.Generator`` for all randomness.
        eos_token_id: stop after emitting this token.

    Returns:
        ``(tokens, stats)``: new tokens ``int64[n]`` and :class:`SpecStats` (block efficiency,
        per-position acceptance, call counts, timings).

    >>> from spectr_decode import MarkovLM
    >>> tgt = MarkovLM([[0.7, 0.3], [0.4, 0.6]]); drf = MarkovLM([[0.6, 0.4], [0.5, 0.5]])
    >>> toks, st = spectr_generate(tgt, drf, [0], 20, k=2, L=3, seed=0)
    >>> toks.shape, st.new_tokens, st.target_calls <= 20
    ((20,), 20, True)
    """
    prompt = _as_prompt(input_ids)
    _check_common(max_new_tokens, temperature, top_p)
    k = _check_pos_int(k, "k")
    L = _check_pos_int(L, "L")
    rng = np.random.default_rng(seed)
    tgt, drf = _backend(target, "target"), _backend(draft, "draft")
    if max_new_tokens > 0:
        _check_vocabs(prompt, target=tgt, draft=drf)
    k_draw = 1 if temperature == 0 else k
    stats = SpecStats(
        k=k,
        L=L,
        reached=np.zeros(L, np.int64),
        accepted=np.zeros(L, np.int64),
        survivors=np.zeros(L, np.int64),
    )
    seq = list(prompt)
    new: list[int] = []
    t0 = time.perf_counter()
    while len(new) < max_new_tokens:
        n = len(seq)
        # (a) draft k continuations of length L: p[r, t] is the law draft token t of row r came from
        ts = time.perf_counter()
        drafts = np.empty((k_draw, L), dtype=np.int64)
        lp = drf.forward(np.asarray([seq[drf.cached_len :]], dtype=np.int64), drf.cached_len)[:, -1]
        if stats.draft_calls == 0:
            _check_vocab(lp, prompt, "draft")
        stats.draft_calls += 1
        p1 = warp(lp, temperature, top_p)  # (1, V)
        p = np.empty((k_draw, L, p1.shape[-1]))
        p[:, 0] = p1
        drafts[:, 0] = _sample_rows(np.repeat(p1, k_draw, 0), rng)
        for j in range(1, L):
            lp = drf.forward(drafts[:, j - 1 : j], n + j - 1)[:, -1]  # (k, V)
            stats.draft_calls += 1
            p[:, j] = warp(lp, temperature, top_p)
            drafts[:, j] = _sample_rows(p[:, j], rng)
        stats.draft_time += time.perf_counter() - ts
        # (b) one batched target pass over all drafts: q[r, t] for t = 0..L
        ts = time.perf_counter()
        start = tgt.cached_len
        head = np.repeat(np.asarray([seq[start:]], dtype=np.int64), k_draw, 0)
        lq = tgt.forward(np.concatenate([head, drafts], 1), start)[:, -(L + 1) :]  # (k, L+1, V)
        stats.target_time += time.perf_counter() - ts
        if stats.target_calls == 0:
            _check_vocab(lq, prompt, "target")
            if lq.shape[-1] != p.shape[-1]:
                raise ValueError(
                    f"target and draft vocabularies differ: {lq.shape[-1]} vs {p.shape[-1]}"
                )
        stats.target_calls += 1
        q = warp(lq, temperature, top_p)
        # (c) position-by-position K-SEQ over the surviving drafts
        alive = np.arange(k_draw)
        out: list[int] = []
        for t in range(L):
            stats.reached[t] += 1
            r0 = int(alive[0])
            pt, qt = p[r0, t], q[r0, t]
            kk = len(alive)
            stats.survivors[t] += kk
            rho = _solve_rho(pt, qt, kk, 1e-12) if kk > 1 else 1.0
            tok, ok = _kseq_select(drafts[alive, t], pt, qt, kk, rho, rng)
            out.append(tok)
            if not ok:
                break
            stats.accepted[t] += 1
            alive = alive[drafts[alive, t] == tok]
        else:
            r0 = int(alive[0])
            out.append(int(_sample_rows(q[r0, L][None], rng)[0]))
        n_acc = len(out) - 1  # draft tokens accepted (all of row alive[0]'s first n_acc tokens)
        row = int(alive[0])
        tgt.keep(row, n + n_acc)
        drf.keep(row, min(n + n_acc, drf.cached_len))
        stats.iterations += 1
        stats.emitted.append(len(out))
        stop = False
        for tok in out:
            if len(new) >= max_new_tokens:
                break
            seq.append(tok)
            new.append(tok)
            if eos_token_id is not None and tok == eos_token_id:
                stop = True
                break
        if stop:
            break
    stats.new_tokens = len(new)
    stats.wall_time = time.perf_counter() - t0
    return np.asarray(new, dtype=np.int64), stats


def speculative_generate(
    target,
    draft,
    input_ids,
    max_new_tokens: int,
    *,
    L: int = 4,
    temperature: float = 1.0,
    top_p: float = 1.0,
    seed=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, SpecStats]:
    """Baseline: single-draft speculative sampling (Leviathan et al. 2023) = SpecTr with k = 1."""
    return spectr_generate(
        target,
        draft,
        input_ids,
        max_new_tokens,
        k=1,
        L=L,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        eos_token_id=eos_token_id,
    )
