"""Generators: SpecExec (draft tree, one target pass per tree) and its baselines.

SpecExec: Massively Parallel Speculative Decoding for Interactive LLM Inference on Consumer
Devices (NeurIPS 2024) - https://arxiv.org/abs/2406.02532. Implements Alg. 1 (grow a best-first
tree with the draft, validate it in one target forward, keep the accepted path and one extra
target token, prune both KV caches to it, repeat), and the baselines of Sec. 5: autoregressive
decoding and chain speculative decoding (a single draft of length gamma with the rejection rule
of Leviathan et al. 2023 / Chen et al. 2023).

All three return ``(tokens, stats)`` and sample exactly from the target's warped distribution
(temperature, top-p); ``temperature=0`` reproduces the target's greedy decoding token for token.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng, check_tensor
from .models import make_session
from .sampling import _warp_probs, check_sampling_args, draw, row_to_numpy, sample_index
from .tree import ROOT, BuildStats, DraftTree, build_tree, check_tree_options, validate_tree


def _as_prompt(input_ids) -> list[int]:
    """The prompt as a list of ints from (T,) or (1, T) token ids (list, numpy or torch)."""
    if type(input_ids).__module__.startswith("torch") and hasattr(input_ids, "detach"):
        check_tensor(input_ids, "input_ids", ndim=(1, 2), dtype="integer")
        input_ids = input_ids.detach().cpu().numpy()
    arr = check_array(input_ids, "input_ids", ndim=(1, 2), dtype="int")
    if arr.ndim == 2:
        if arr.shape[0] != 1:
            raise ValueError(f"input_ids must be (T,) or (1, T) (batch size 1), got {arr.shape}")
        arr = arr[0]
    if (arr < 0).any():
        raise ValueError(f"input_ids must be non-negative token ids, got {arr.min()}")
    return arr.astype(np.int64).tolist()


@dataclass(frozen=True)
class GenerationStats:
    """Statistics of one generation (the same fields, by the same names, as spectr-decode's).

    Fields shared with spectr-decode's ``GenerationStats``:
        new_tokens: tokens returned.
        target_calls: target forward passes (one per tree for SpecExec).
        draft_calls: draft forward passes (tree levels for SpecExec, ``gamma`` per pass for
            the chain, 0 for autoregressive decoding).
        emitted: tokens emitted by each target pass (accepted path + the extra target token),
            before truncation to ``max_new_tokens``.
        target_time_s, draft_time_s, wall_time_s: seconds.

    SpecExec's own:
        draft_tokens: tokens the draft processed (tree nodes expanded).
        tree_size, tree_depth: mean nodes and mean depth of the verified trees.

    Derived: :attr:`tokens_per_call` (the paper's "generation rate": mean tokens emitted per
    target pass) and :attr:`tokens_per_second`.
    """

    new_tokens: int = 0
    target_calls: int = 0
    draft_calls: int = 0
    emitted: tuple[int, ...] = ()
    target_time_s: float = 0.0
    draft_time_s: float = 0.0
    wall_time_s: float = 0.0
    draft_tokens: int = 0
    tree_size: float = 0.0
    tree_depth: float = 0.0

    def __post_init__(self) -> None:
        for name in ("new_tokens", "target_calls", "draft_calls", "draft_tokens"):
            object.__setattr__(self, name, check_int(getattr(self, name), name, minimum=0))
        for name in ("target_time_s", "draft_time_s", "wall_time_s", "tree_size", "tree_depth"):
            object.__setattr__(self, name, check_float(getattr(self, name), name, minimum=0.0))
        emitted = check_array(list(self.emitted), "emitted", ndim=1, dtype="int", allow_empty=True)
        if emitted.size and emitted.min() < 1:
            raise ValueError(f"emitted must hold counts >= 1, got {emitted.min()}")
        if emitted.shape[0] != self.target_calls:
            raise ValueError(
                f"emitted has {emitted.shape[0]} entries but target_calls is {self.target_calls}"
            )
        object.__setattr__(self, "emitted", tuple(int(e) for e in emitted))

    @property
    def tokens_per_call(self) -> float:
        """Mean tokens emitted per target pass; 0 without passes."""
        return sum(self.emitted) / self.target_calls if self.target_calls else 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.new_tokens / self.wall_time_s if self.wall_time_s > 0 else float("nan")


def _stats(new_tokens, per_call, draft_calls, draft_tokens, sizes, depths, t_draft, t_target, wall):
    calls = len(per_call)
    return GenerationStats(
        new_tokens=new_tokens,
        target_calls=calls,
        draft_calls=draft_calls,
        emitted=tuple(per_call),
        target_time_s=t_target,
        draft_time_s=t_draft,
        wall_time_s=wall,
        draft_tokens=draft_tokens,
        tree_size=float(np.mean(sizes)) if calls else 0.0,
        tree_depth=float(np.mean(depths)) if calls else 0.0,
    )


def _check_common(max_new_tokens, temperature, top_p, rng, eos_token_id):
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=0)
    temperature, top_p = check_sampling_args(temperature, top_p)
    rng = check_rng(rng)
    if eos_token_id is not None:
        eos_token_id = check_int(eos_token_id, "eos_token_id", minimum=0)
    return max_new_tokens, temperature, top_p, rng, eos_token_id


def _finish(out: list[int], max_new_tokens: int, eos_token_id):
    out = out[:max_new_tokens]
    if eos_token_id is not None and eos_token_id in out:
        out = out[: out.index(eos_token_id) + 1]
    return out


def _check_vocab(target_v: int, draft_v: int | None = None):
    if draft_v is not None and draft_v != target_v:
        raise ValueError(
            f"target and draft vocabularies differ ({target_v} vs {draft_v}); "
            "they must share one tokenizer"
        )


def _check_models(tgt, dft=None) -> None:
    """Before any pass: equal vocabularies and prompt ids inside them (a larger draft vocabulary
    would otherwise propose ids the target cannot embed)."""
    v = tgt.vocab_size()
    if dft is not None:
        _check_vocab(v, dft.vocab_size())
    if max(tgt.seq) >= v:
        raise ValueError(
            f"input_ids contains token id {max(tgt.seq)}, outside the vocabulary of {v} tokens"
        )


def specexec_generate(
    target,
    draft,
    input_ids,
    max_new_tokens,
    *,
    budget=128,
    temperature=1.0,
    top_p=1.0,
    rng=None,
    max_depth=32,
    max_expand=128,
    branch_width=16,
    decay=1.0,
    min_logprob=-math.inf,
    eos_token_id=None,
    draft_temperature=1.0,
):
    """Generate with SpecExec: best-first draft trees of ``budget`` tokens, one target pass each.

    Args:
        target: the model to sample from: a Hugging Face causal LM (batch size 1) or a callable
            ``lm(prefixes: int[B, T]) -> float[B, V]`` of next-token log-probs (or logits).
        draft: the draft model, same kind of object and vocabulary.
        input_ids: (T,) or (1, T) prompt token ids (list, numpy or torch).
        max_new_tokens: number of tokens to generate, >= 0 (fewer only if ``eos_token_id``
            appears).
        budget: draft tree size K (Sec. 3.1; the paper sweeps 16 ... 2048).
        temperature: target sampling temperature: exactly 0 = greedy (output = the target's
            greedy decoding), otherwise > 0.
        top_p: target nucleus mass in (0, 1].
        rng: ``None``, an int seed or a ``numpy.random.Generator``: draws the target samples.
        max_depth, max_expand, branch_width, decay, min_logprob: tree construction, see
            :func:`specexec.build_tree` (reference code: 32, 128, 16-32, 0.95, none).
        eos_token_id: stop after this token (default: never stop early).
        draft_temperature: the tree ranks nodes by log-probs of ``draft_logits /
            draft_temperature`` (1 = the paper). Below 1 favours deep arg-max chains, which
            suits greedy or low-temperature targets with an unconfident draft. Speed only: the
            output distribution does not depend on it.

    Sliding-window models (Mistral, Gemma2/3 local layers, Qwen2) are supported: the window is
    applied by position in the tree mask.

    Returns:
        ``(tokens, stats)``: the new tokens only as ``int64[n]`` numpy (``n = max_new_tokens``
        unless ``eos_token_id`` stopped it; as spectr-decode), and a frozen
        :class:`GenerationStats`: ``new_tokens``, ``target_calls``, ``draft_calls``,
        ``emitted`` (tokens per target pass), ``tokens_per_call`` (their mean, the paper's
        "generation rate"), ``draft_tokens``, ``tree_size`` / ``tree_depth`` (means),
        ``target_time_s``, ``draft_time_s``, ``wall_time_s``.

    >>> from specexec import MarkovLM
    >>> lm = MarkovLM.random(vocab_size=5, rng=0)
    >>> tokens, stats = specexec_generate(lm, lm, [0], 8, budget=4, temperature=0)
    >>> tokens.shape, stats.target_calls < 8
    ((8,), True)
    """
    max_new_tokens, temperature, top_p, rng, eos_token_id = _check_common(
        max_new_tokens, temperature, top_p, rng, eos_token_id
    )
    budget = check_int(budget, "budget", minimum=1)
    max_depth, max_expand, branch_width, decay, min_logprob = check_tree_options(
        max_depth, max_expand, branch_width, decay, min_logprob
    )
    draft_temperature = check_float(
        draft_temperature, "draft_temperature", minimum=0.0, min_inclusive=False
    )
    prompt = _as_prompt(input_ids)
    t_start = time.perf_counter()
    tgt = make_session(target, prompt, "target")
    dft = make_session(draft, prompt, "draft")
    _check_models(tgt, dft)
    if draft_temperature == 1.0:
        draft_fn = dft.score
    else:

        def draft_fn(tree, node_ids):
            return dft.score(tree, node_ids) / draft_temperature

    out: list[int] = []
    bstats = BuildStats()
    per_call: list[int] = []
    sizes: list[int] = []
    depths: list[int] = []
    t_draft = t_target = 0.0
    vocab_checked = False
    while len(out) < max_new_tokens:
        t0 = time.perf_counter()
        tree = build_tree(
            draft_fn,
            np.asarray(tgt.seq),
            budget,
            max_depth=max_depth,
            max_expand=max_expand,
            branch_width=branch_width,
            decay=decay,
            min_logprob=min_logprob,
            stats=bstats,
        )
        t1 = time.perf_counter()
        logits = tgt.score(tree, np.arange(-1, len(tree)))  # (N+1, V)
        if not vocab_checked:
            _check_vocab(int(logits.shape[-1]), bstats.vocab_size)
            vocab_checked = True
        acc_tokens, extra, acc_ids = validate_tree(
            tree, logits, temperature=temperature, top_p=top_p, rng=rng
        )
        t2 = time.perf_counter()
        new = [int(t) for t in acc_tokens] + [int(extra)]
        tgt.commit(new, acc_ids)
        dft.commit(new, acc_ids)
        t_draft += t1 - t0
        t_target += t2 - t1
        out.extend(new)
        per_call.append(len(new))
        sizes.append(len(tree))
        depths.append(tree.depth)
        if eos_token_id is not None and eos_token_id in new:
            break
    out = _finish(out, max_new_tokens, eos_token_id)
    stats = _stats(
        len(out),
        per_call,
        bstats.draft_calls,
        bstats.draft_tokens,
        sizes,
        depths,
        t_draft,
        t_target,
        time.perf_counter() - t_start,
    )
    return np.asarray(out, dtype=np.int64), stats


def _chain_tree(tokens) -> DraftTree:
    n = len(tokens)
    return DraftTree.from_parents(tokens=tokens, parents=np.arange(n) - 1)


def chain_speculative_generate(
    target,
    draft,
    input_ids,
    max_new_tokens,
    *,
    gamma=4,
    temperature=1.0,
    top_p=1.0,
    rng=None,
    eos_token_id=None,
):
    """Chain speculative decoding (one sampled draft of ``gamma`` tokens per target pass).

    The draft samples ``gamma`` tokens from its warped distribution q; the target scores them in
    one pass and accepts each with probability min(1, p/q), resamples a rejected one from the
    normalised residual max(p - q, 0), and adds one target token when all are accepted
    (Leviathan et al. 2023, Chen et al. 2023). Exact for the target's warped distribution;
    ``temperature=0`` gives the target's greedy decoding. Arguments and ``stats`` as
    :func:`specexec_generate` (``tree_size`` = ``tree_depth`` = gamma).
    """
    max_new_tokens, temperature, top_p, rng, eos_token_id = _check_common(
        max_new_tokens, temperature, top_p, rng, eos_token_id
    )
    gamma = check_int(gamma, "gamma", minimum=1)
    prompt = _as_prompt(input_ids)
    t_start = time.perf_counter()
    tgt = make_session(target, prompt, "target")
    dft = make_session(draft, prompt, "draft")
    _check_models(tgt, dft)
    out: list[int] = []
    per_call: list[int] = []
    draft_calls = 0
    t_draft = t_target = 0.0
    while len(out) < max_new_tokens:
        t0 = time.perf_counter()
        toks: list[int] = []
        qs: list[np.ndarray] = []
        for j in range(gamma):
            tree = _chain_tree(toks)
            row = dft.score(tree, [ROOT if j == 0 else j - 1])[0]
            draft_calls += 1
            q = _warp_probs(_checked_row(row, "draft"), temperature, top_p)
            qs.append(q)
            toks.append(sample_index(q, rng) if temperature > 0 else int(np.argmax(q)))
        tree = _chain_tree(toks)
        t1 = time.perf_counter()
        logits = tgt.score(tree, np.arange(-1, gamma))  # (gamma + 1, V)
        _check_vocab(int(logits.shape[-1]), int(qs[0].shape[0]))
        new: list[int] = []
        for j in range(gamma):
            p = _warp_probs(_checked_row(logits[j], "target"), temperature, top_p)
            q, x = qs[j], toks[j]
            if temperature == 0:
                ok = int(np.argmax(p)) == x
            else:
                ok = rng.random() * q[x] < p[x]  # accept with prob min(1, p/q)
            if not ok:
                if temperature == 0:
                    new.append(int(np.argmax(p)))
                else:
                    resid = np.maximum(p - q, 0.0)
                    new.append(sample_index(resid if resid.sum() > 0 else p, rng))
                break
            new.append(x)
        else:
            new.append(draw(logits[gamma], temperature, top_p, rng))
        t2 = time.perf_counter()
        n_acc = len(new) - 1
        tgt.commit(new, list(range(n_acc)))
        dft.commit(new, list(range(n_acc)))
        t_draft += t1 - t0
        t_target += t2 - t1
        out.extend(new)
        per_call.append(len(new))
        if eos_token_id is not None and eos_token_id in new:
            break
    out = _finish(out, max_new_tokens, eos_token_id)
    stats = _stats(
        len(out),
        per_call,
        draft_calls,
        draft_calls,
        [gamma] * len(per_call),
        [gamma] * len(per_call),
        t_draft,
        t_target,
        time.perf_counter() - t_start,
    )
    return np.asarray(out, dtype=np.int64), stats


def _checked_row(row, name: str) -> np.ndarray:
    """One (V,) row of model logits as float64, refusing NaN / +inf / all -inf."""
    x = row_to_numpy(row)
    m = x.max()
    if np.isnan(m) or m == np.inf:
        raise ValueError(f"{name} returned NaN or +inf logits")
    if m == -np.inf:
        raise ValueError(f"{name} returned logits that give every token probability 0")
    return x


def autoregressive_generate(
    target, input_ids, max_new_tokens, *, temperature=1.0, top_p=1.0, rng=None, eos_token_id=None
):
    """Plain decoding: one target forward (KV-cached) per token. Same sampling rule, arguments and
    ``stats`` fields as :func:`specexec_generate` (``tokens_per_call`` = 1, no draft)."""
    max_new_tokens, temperature, top_p, rng, eos_token_id = _check_common(
        max_new_tokens, temperature, top_p, rng, eos_token_id
    )
    prompt = _as_prompt(input_ids)
    t_start = time.perf_counter()
    tgt = make_session(target, prompt, "target")
    _check_models(tgt)
    empty = DraftTree.empty()
    out: list[int] = []
    while len(out) < max_new_tokens:
        logits = tgt.score(empty, [ROOT])
        y = draw(logits[0], temperature, top_p, rng)
        tgt.commit([y])
        out.append(y)
        if eos_token_id is not None and y == eos_token_id:
            break
    wall = time.perf_counter() - t_start
    stats = _stats(len(out), [1] * len(out), 0, 0, [0] * len(out), [0] * len(out), 0.0, wall, wall)
    return np.asarray(out, dtype=np.int64), stats
