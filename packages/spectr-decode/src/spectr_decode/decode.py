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

import time
from dataclasses import dataclass, field

import numpy as np

from ._checks import (
    check_array,
    check_float,
    check_int,
    check_probability,
    check_rng,
    check_tensor,
    describe,
)
from .core import _kseq_select, _solve_rho

__all__ = [
    "GenerationStats",
    "autoregressive_generate",
    "speculative_generate",
    "spectr_generate",
    "warp",
]


def _frozen_counts(value, name: str) -> np.ndarray:
    arr = check_array(value, name, ndim=1, dtype="int", allow_empty=True).astype(np.int64)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be non-negative counts, got minimum {arr.min()}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class GenerationStats:
    """Statistics of one generation call (the same fields, by the same names, as specexec's).

    Fields shared with specexec's ``GenerationStats``:
        new_tokens: tokens returned.
        target_calls: target forward passes (one per iteration for speculative methods).
        draft_calls: draft forward passes (L per iteration; 0 for autoregressive decoding).
        emitted: tokens emitted by each target call (1..L+1), before truncation to
            ``max_new_tokens``.
        target_time_s, draft_time_s, wall_time_s: seconds (the rest of the wall time is
            selection and bookkeeping).

    SpecTr's own:
        k, L: drafts per iteration and draft length (0 for autoregressive decoding).
        reached: ``int[L]``, iterations in which draft position t was examined.
        accepted: ``int[L]``, iterations in which a draft token was accepted at position t.
        survivors: ``int[L]``, drafts still alive when position t was examined (summed over
            iterations; divide by ``reached`` for the mean K-SEQ width at t).

    Derived: :attr:`tokens_per_call` (the paper's block efficiency), :attr:`tokens_per_second`,
    :attr:`per_position_acceptance`.
    """

    new_tokens: int = 0
    target_calls: int = 0
    draft_calls: int = 0
    emitted: tuple[int, ...] = ()
    target_time_s: float = 0.0
    draft_time_s: float = 0.0
    wall_time_s: float = 0.0
    k: int = 0
    L: int = 0
    reached: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    accepted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    survivors: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        for name in ("new_tokens", "target_calls", "draft_calls", "k", "L"):
            object.__setattr__(self, name, check_int(getattr(self, name), name, minimum=0))
        for name in ("target_time_s", "draft_time_s", "wall_time_s"):
            object.__setattr__(self, name, check_float(getattr(self, name), name, minimum=0.0))
        emitted = _frozen_counts(list(self.emitted), "emitted")
        object.__setattr__(self, "emitted", tuple(int(e) for e in emitted))
        for name in ("reached", "accepted", "survivors"):
            arr = _frozen_counts(getattr(self, name), name)
            if arr.shape[0] != self.L:
                raise ValueError(f"{name} must have L = {self.L} entries, got {arr.shape[0]}")
            object.__setattr__(self, name, arr)

    @property
    def tokens_per_call(self) -> float:
        """Mean tokens emitted per target call (the paper's block efficiency); 0 without calls."""
        if self.target_calls == 0:
            return 0.0
        return sum(self.emitted) / self.target_calls

    @property
    def per_position_acceptance(self) -> np.ndarray:
        """``float[L]``: P(a draft token is accepted at position t | position t was reached)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.reached > 0, self.accepted / np.maximum(self.reached, 1), np.nan)

    @property
    def tokens_per_second(self) -> float:
        return self.new_tokens / self.wall_time_s if self.wall_time_s > 0 else float("nan")


# --------------------------------------------------------------------------- warping


def check_sampling(temperature, top_p) -> tuple[float, float]:
    """``temperature`` >= 0 (exactly 0 = greedy) and ``top_p`` in (0, 1], as floats."""
    temperature = check_float(temperature, "temperature", minimum=0.0)
    top_p = check_probability(top_p, "top_p", allow_zero=False)
    return temperature, top_p


def warp(logprobs, *, temperature: float = 1.0, top_p: float = 1.0) -> np.ndarray:
    """Sampling distribution(s) from next-token log-probs: temperature then nucleus (top-p).

    ``temperature = 0`` gives the one-hot argmax (greedy); otherwise it must be > 0 (a negative
    temperature would invert the distribution: ``ValueError``). Top-p, in (0, 1], keeps the
    smallest set of most probable tokens whose mass reaches ``top_p`` and renormalises. Applied
    identically to draft and target, so the exactness guarantee is with respect to the warped
    target.

    Args:
        logprobs: ``float[..., V]`` log-probabilities (or logits); ``-inf`` marks impossible
            tokens, every row needs one finite entry.
        temperature: 0 (greedy) or > 0.
        top_p: nucleus mass in (0, 1].

    Returns:
        ``float64[..., V]`` probabilities.

    >>> warp(np.log([[0.5, 0.3, 0.2]]), top_p=0.7).round(3).tolist()
    [[0.625, 0.375, 0.0]]
    """
    temperature, top_p = check_sampling(temperature, top_p)
    x = check_array(logprobs, "logprobs", finite=False)
    if x.ndim == 0:
        raise ValueError("logprobs must have a vocabulary axis, got a scalar")
    if np.isnan(x).any() or (x == np.inf).any():
        raise ValueError("logprobs must not contain NaN or +inf (-inf marks impossible tokens)")
    if not np.isfinite(x).any(axis=-1).all():
        raise ValueError("logprobs has a row with every entry -inf (no possible token)")
    return _warp(x, temperature, top_p)


def _warp(x: np.ndarray, temperature: float, top_p: float) -> np.ndarray:
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
        # the history has one row when the drafts never went past their first token (L = 1)
        if self.rows.shape[0] > 1:
            self.rows = self.rows[row : row + 1]
        self.rows = self.rows[:, :length]

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
        from transformers import DynamicCache

        self.device = next(model.parameters()).device
        # Our own cache, built without the model's config, keeps every position in every layer:
        # the cache the model would create for a sliding-window config (Mistral, Gemma2/3, Qwen2)
        # drops positions older than the window, so it cannot be cropped back to the accepted
        # prefix. The model still applies its window, by position, when it builds the masks.
        self.cache = DynamicCache()
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
        if self.cached_len > 0 and self.n_rows == 1 and B > 1:
            self.cache.batch_repeat_interleave(B)
        ids = torch.as_tensor(tokens, dtype=torch.long, device=self.device)
        with torch.no_grad():
            out = self.model(input_ids=ids, use_cache=True, **{self.cache_kw: self.cache})
        cache = out.get("cache", None)
        cache = out.get("past_key_values", None) if cache is None else cache
        self.cache = self.cache if cache is None else cache
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
        f"{name} must be a Hugging Face causal LM or a callable lm(prefixes) -> log-probs, "
        f"got {describe(model)}"
    )


# --------------------------------------------------------------------------- argument checks


def _as_prompt(input_ids) -> np.ndarray:
    """The prompt as ``int64[T]`` from ``int[T]`` or ``int[1, T]`` (list, numpy or torch)."""
    if type(input_ids).__module__.startswith("torch") and hasattr(input_ids, "detach"):
        check_tensor(input_ids, "input_ids", ndim=(1, 2), dtype="integer")
        input_ids = input_ids.detach().cpu().numpy()
    x = check_array(input_ids, "input_ids", ndim=(1, 2), dtype="int")
    if x.ndim == 2:
        if x.shape[0] != 1:
            raise ValueError(
                f"input_ids must hold one sequence (shape [T] or [1, T]), got shape {x.shape}"
            )
        x = x[0]
    if x.min() < 0:
        raise ValueError(f"input_ids must be non-negative token ids, got {x.min()}")
    return x.astype(np.int64)


def _check_common(max_new_tokens, temperature, top_p, rng, eos_token_id):
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=0)
    temperature, top_p = check_sampling(temperature, top_p)
    rng = check_rng(rng)
    if eos_token_id is not None:
        eos_token_id = check_int(eos_token_id, "eos_token_id", minimum=0)
    return max_new_tokens, temperature, top_p, rng, eos_token_id


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
        raise ValueError(f"{name} returned NaN or +inf log-probabilities")
    if not np.isfinite(lp).any(axis=-1).all():
        raise ValueError(f"{name} returned a row of log-probabilities that are all -inf")


# --------------------------------------------------------------------------- generation


def autoregressive_generate(
    target,
    input_ids,
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_p: float = 1.0,
    rng=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, GenerationStats]:
    """Baseline: sample one token per target call (key/value cache reused on HF models).

    Arguments as :func:`spectr_generate`.

    Returns:
        ``(tokens, stats)``: the new tokens ``int64[n]`` (``n = max_new_tokens`` unless
        ``eos_token_id`` stopped it) and a :class:`GenerationStats` with ``target_calls = n``.
    """
    prompt = _as_prompt(input_ids)
    max_new_tokens, temperature, top_p, rng, eos_token_id = _check_common(
        max_new_tokens, temperature, top_p, rng, eos_token_id
    )
    tgt = _backend(target, "target")
    if max_new_tokens > 0:
        _check_vocabs(prompt, target=tgt)
    seq = list(prompt)
    t0 = time.perf_counter()
    t_target = 0.0
    new: list[int] = []
    while len(new) < max_new_tokens:
        ts = time.perf_counter()
        lp = tgt.forward(np.asarray([seq[tgt.cached_len :]], dtype=np.int64), tgt.cached_len)[:, -1]
        t_target += time.perf_counter() - ts
        _check_vocab(lp, prompt, "target")
        tok = int(_sample_rows(_warp(lp, temperature, top_p), rng)[0])
        seq.append(tok)
        new.append(tok)
        if eos_token_id is not None and tok == eos_token_id:
            break
    stats = GenerationStats(
        new_tokens=len(new),
        target_calls=len(new),
        emitted=(1,) * len(new),
        target_time_s=t_target,
        wall_time_s=time.perf_counter() - t0,
    )
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
    rng=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, GenerationStats]:
    """Sample ``max_new_tokens`` tokens from ``target`` with SpecTr (k drafts of length L).

    The output is distributed exactly as autoregressive sampling from the target with the same
    ``temperature`` / ``top_p``; ``temperature = 0`` reproduces the target's greedy decoding
    token for token (then one draft suffices and ``k`` is not used: identical greedy drafts
    would add nothing).

    Args:
        target: Hugging Face causal LM, or a callable ``lm(prefixes: int[B, T]) -> float[B, V]``
            returning next-token log-probabilities. Vocabulary sizes are checked before
            decoding: from the LM head of HF models, from a callable's ``vocab_size``
            attribute, or else from one extra call on a prefix of zeros. Sliding-window models
            (Mistral, Gemma2/3 local layers, Qwen2) are supported: the cache keeps every
            position and the model applies its window by position.
        draft: the same kind of model over the same vocabulary.
        input_ids: prompt, ``int[T]`` or ``int[1, T]`` (numpy, list or torch tensor), T >= 1.
        max_new_tokens: number of tokens to generate, >= 0.
        k: drafts per iteration (K-SEQ width), >= 1; ``k = 1`` is speculative decoding.
        L: draft length per iteration (the paper's gamma), >= 1.
        temperature: sampling temperature: exactly 0 = greedy, otherwise > 0.
        top_p: nucleus sampling mass in (0, 1], applied to draft and target alike.
        rng: ``None``, an int seed or a ``numpy.random.Generator``: all the randomness.
        eos_token_id: stop after emitting this token.

    Returns:
        ``(tokens, stats)``: new tokens ``int64[n]`` and :class:`GenerationStats` (tokens per
        call, per-position acceptance, call counts, timings).

    >>> from spectr_decode import MarkovLM
    >>> tgt = MarkovLM([[0.7, 0.3], [0.4, 0.6]]); drf = MarkovLM([[0.6, 0.4], [0.5, 0.5]])
    >>> toks, st = spectr_generate(tgt, drf, [0], 20, k=2, L=3, rng=0)
    >>> toks.shape, st.new_tokens, st.target_calls <= 20
    ((20,), 20, True)
    """
    prompt = _as_prompt(input_ids)
    max_new_tokens, temperature, top_p, rng, eos_token_id = _check_common(
        max_new_tokens, temperature, top_p, rng, eos_token_id
    )
    k = check_int(k, "k", minimum=1)
    L = check_int(L, "L", minimum=1)
    tgt, drf = _backend(target, "target"), _backend(draft, "draft")
    if max_new_tokens > 0:
        _check_vocabs(prompt, target=tgt, draft=drf)
    k_draw = 1 if temperature == 0 else k
    reached = np.zeros(L, np.int64)
    accepted = np.zeros(L, np.int64)
    survivors = np.zeros(L, np.int64)
    emitted: list[int] = []
    draft_calls = target_calls = 0
    t_draft = t_target = 0.0
    seq = list(prompt)
    new: list[int] = []
    t0 = time.perf_counter()
    while len(new) < max_new_tokens:
        n = len(seq)
        # (a) draft k continuations of length L: p[r, t] is the law draft token t of row r came from
        ts = time.perf_counter()
        drafts = np.empty((k_draw, L), dtype=np.int64)
        lp = drf.forward(np.asarray([seq[drf.cached_len :]], dtype=np.int64), drf.cached_len)[:, -1]
        _check_vocab(lp, prompt, "draft")
        draft_calls += 1
        p1 = _warp(lp, temperature, top_p)  # (1, V)
        p = np.empty((k_draw, L, p1.shape[-1]))
        p[:, 0] = p1
        drafts[:, 0] = _sample_rows(np.repeat(p1, k_draw, 0), rng)
        for j in range(1, L):
            lp = drf.forward(drafts[:, j - 1 : j], n + j - 1)[:, -1]  # (k, V)
            _check_vocab(lp, prompt, "draft")
            draft_calls += 1
            p[:, j] = _warp(lp, temperature, top_p)
            drafts[:, j] = _sample_rows(p[:, j], rng)
        t_draft += time.perf_counter() - ts
        # (b) one batched target pass over all drafts: q[r, t] for t = 0..L
        ts = time.perf_counter()
        start = tgt.cached_len
        head = np.repeat(np.asarray([seq[start:]], dtype=np.int64), k_draw, 0)
        lq = tgt.forward(np.concatenate([head, drafts], 1), start)[:, -(L + 1) :]  # (k, L+1, V)
        t_target += time.perf_counter() - ts
        _check_vocab(lq, prompt, "target")
        if lq.shape[-1] != p.shape[-1]:
            raise ValueError(
                f"target and draft vocabularies differ: {lq.shape[-1]} vs {p.shape[-1]}"
            )
        target_calls += 1
        q = _warp(lq, temperature, top_p)
        # (c) position-by-position K-SEQ over the surviving drafts
        alive = np.arange(k_draw)
        out: list[int] = []
        for t in range(L):
            reached[t] += 1
            r0 = int(alive[0])
            pt, qt = p[r0, t], q[r0, t]
            kk = len(alive)
            survivors[t] += kk
            rho = _solve_rho(pt, qt, kk, 1e-12) if kk > 1 else 1.0
            tok, ok = _kseq_select(drafts[alive, t], pt, qt, kk, rho, rng)
            out.append(tok)
            if not ok:
                break
            accepted[t] += 1
            alive = alive[drafts[alive, t] == tok]
        else:
            r0 = int(alive[0])
            out.append(int(_sample_rows(q[r0, L][None], rng)[0]))
        n_acc = len(out) - 1  # draft tokens accepted (all of row alive[0]'s first n_acc tokens)
        row = int(alive[0])
        tgt.keep(row, n + n_acc)
        drf.keep(row, min(n + n_acc, drf.cached_len))
        emitted.append(len(out))
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
    stats = GenerationStats(
        new_tokens=len(new),
        target_calls=target_calls,
        draft_calls=draft_calls,
        emitted=tuple(emitted),
        target_time_s=t_target,
        draft_time_s=t_draft,
        wall_time_s=time.perf_counter() - t0,
        k=k,
        L=L,
        reached=reached,
        accepted=accepted,
        survivors=survivors,
    )
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
    rng=None,
    eos_token_id: int | None = None,
) -> tuple[np.ndarray, GenerationStats]:
    """Baseline: single-draft speculative sampling (Leviathan et al. 2023) = SpecTr with k = 1.

    Arguments as :func:`spectr_generate`."""
    return spectr_generate(
        target,
        draft,
        input_ids,
        max_new_tokens,
        k=1,
        L=L,
        temperature=temperature,
        top_p=top_p,
        rng=rng,
        eos_token_id=eos_token_id,
    )
