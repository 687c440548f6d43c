"""The LLM side: candidates from several decoders, the self-score baseline, and the ROUGE-L
comparison of selection rules (Cappy, self-score, random, first, oracle)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ._checks import check_array, check_generator, check_int, check_option, check_rng, describe
from ._validation import check_model, check_text, check_texts, check_tokenizer
from .data import _check_example, rouge_l
from .scorer import CappyScorer, _model_device

__all__ = [
    "DEFAULT_DECODINGS",
    "SelectionReport",
    "evaluate_selection",
    "generate_candidates",
    "self_score",
]

#: The paper's candidate decoders (name -> (number of samples, ``generate`` keyword arguments)):
#: beam search with 4 beams once, then 4 samples each of plain sampling, temperature 0.9,
#: top-k 40 and top-p 0.95: 17 candidates per instruction.
DEFAULT_DECODINGS: dict[str, tuple[int, dict[str, Any]]] = {
    "beam4": (1, {"num_beams": 4, "do_sample": False}),
    "sampling": (4, {"do_sample": True, "top_k": 0}),
    "temp0.9": (4, {"do_sample": True, "temperature": 0.9, "top_k": 0}),
    "topk40": (4, {"do_sample": True, "top_k": 40}),
    "topp0.95": (4, {"do_sample": True, "top_p": 0.95, "top_k": 0}),
}


def _ids(tokenizer: Any, text: str, **kwargs: Any) -> list[int]:
    ids = tokenizer(text, **kwargs)["input_ids"]
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
    if ids and isinstance(ids[0], list):  # a batch of one
        ids = ids[0]
    return [int(i) for i in ids]


def _is_encoder_decoder(llm: Any) -> bool:
    return bool(getattr(getattr(llm, "config", None), "is_encoder_decoder", False))


def self_score(
    llm: Any,
    tokenizer: Any,
    instruction: Any,
    candidates: Any,
    *,
    reduce: str = "sum",
    batch_size: int = 16,
) -> np.ndarray:
    """The LLM's own log-likelihood of each candidate: the self-scoring baseline.

    The prompt is ``tokenizer(instruction)`` (with the tokenizer's special tokens), each
    candidate ``tokenizer(c, add_special_tokens=False)``; the score is the sum (``reduce="sum"``)
    or the mean per token (``"mean"``) of ``log p(token | prompt, earlier tokens)``. A causal LM
    reads prompt + candidate; an encoder-decoder (T5) encodes the prompt and scores the
    candidate as decoder labels. Returns a float64 array of shape ``(len(candidates),)``.
    """
    llm = check_model(llm, "llm")
    tokenizer = check_tokenizer(tokenizer, "tokenizer")
    instruction = check_text(instruction, "instruction")
    candidates = check_texts(candidates, "candidates")
    reduce = check_option(reduce, "reduce", ("sum", "mean"))
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    prompt = _ids(tokenizer, instruction)
    conts = [_ids(tokenizer, c, add_special_tokens=False) for c in candidates]
    for i, c in enumerate(conts):
        if not c:
            raise ValueError(
                f"candidates[{i}] has no tokens ({candidates[i]!r}); it cannot be scored"
            )
    seq2seq = _is_encoder_decoder(llm)
    if not prompt and not seq2seq:
        raise ValueError(
            f"instruction has no tokens ({instruction!r}): a causal LM needs a prompt to score after"
        )
    device = _model_device(llm)
    out = np.empty(len(conts), dtype=np.float64)
    was_training = llm.training
    llm.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(conts), batch_size):
                chunk = conts[start : start + batch_size]
                width = max(map(len, chunk))
                if seq2seq:
                    enc = torch.tensor([prompt] * len(chunk), device=device)
                    labels = torch.tensor(
                        [c + [-100] * (width - len(c)) for c in chunk], device=device
                    )
                    logits = llm(
                        input_ids=enc, attention_mask=torch.ones_like(enc), labels=labels
                    ).logits
                    targets = labels
                else:
                    p = len(prompt)
                    seqs = [prompt + c + [0] * (width - len(c)) for c in chunk]
                    mask = [[1] * (p + len(c)) + [0] * (width - len(c)) for c in chunk]
                    ids = torch.tensor(seqs, device=device)
                    logits = llm(
                        input_ids=ids, attention_mask=torch.tensor(mask, device=device)
                    ).logits[:, p - 1 : p - 1 + width]
                    targets = torch.tensor(
                        [c + [-100] * (width - len(c)) for c in chunk], device=device
                    )
                logp = torch.log_softmax(logits.float(), dim=-1)
                valid = targets != -100
                tok = logp.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
                total = (tok * valid).sum(-1).double()
                if reduce == "mean":
                    total = total / valid.sum(-1)
                out[start : start + len(chunk)] = total.cpu().numpy()
    finally:
        llm.train(was_training)
    return out


def generate_candidates(
    llm: Any,
    tokenizer: Any,
    instruction: Any,
    *,
    decodings: Mapping[str, tuple[int, Mapping[str, Any]]] | None = None,
    max_new_tokens: int = 64,
    min_new_tokens: int = 3,
    generator: Any = None,
) -> list[str]:
    """Candidate responses of a Hugging Face LLM with the paper's decoders
    (:data:`DEFAULT_DECODINGS`: 17 candidates) or ``decodings``; for a causal LM the prompt is
    cut off. Sampling is seeded from ``generator`` (torch's global RNG is left untouched).

    Any other generator works with the rest of the package: Cappy only needs the strings.
    """
    llm = check_model(llm, "llm")
    tokenizer = check_tokenizer(tokenizer, "tokenizer")
    instruction = check_text(instruction, "instruction")
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
    min_new_tokens = check_int(min_new_tokens, "min_new_tokens", minimum=0, maximum=max_new_tokens)
    generator = check_generator(generator, "generator")
    decodings = DEFAULT_DECODINGS if decodings is None else decodings
    if not isinstance(decodings, Mapping):
        raise TypeError(
            f"decodings must be a dict name -> (count, kwargs), got {describe(decodings)}"
        )
    if not decodings:
        raise ValueError("decodings must not be empty")
    for key, spec in decodings.items():
        if not (isinstance(spec, Sequence) and len(spec) == 2 and isinstance(spec[1], Mapping)):
            raise TypeError(f"decodings[{key!r}] must be (count, kwargs), got {describe(spec)}")
        check_int(spec[0], f"decodings[{key!r}] count", minimum=1)
    prompt = _ids(tokenizer, instruction)
    device = _model_device(llm)
    ids = torch.tensor([prompt], device=device)
    seed = None if generator is None else int(torch.randint(0, 2**62, (1,), generator=generator))
    pad = getattr(tokenizer, "pad_token_id", None)
    eos = getattr(tokenizer, "eos_token_id", None)
    out: list[str] = []
    was_training = llm.training
    llm.eval()
    try:
        with torch.random.fork_rng(devices=[device.index or 0] if device.type == "cuda" else []):
            if seed is not None:
                torch.manual_seed(seed)
            for count, kwargs in decodings.values():
                for _ in range(count):
                    with torch.no_grad():
                        seqs = llm.generate(
                            input_ids=ids,
                            attention_mask=torch.ones_like(ids),
                            max_new_tokens=max_new_tokens,
                            min_new_tokens=min_new_tokens,
                            pad_token_id=pad if pad is not None else eos,
                            **dict(kwargs),
                        )
                    new = seqs[0] if _is_encoder_decoder(llm) else seqs[0, len(prompt) :]
                    out.append(tokenizer.decode(new.tolist(), skip_special_tokens=True))
    finally:
        llm.train(was_training)
    return out


@dataclass(frozen=True)
class SelectionReport:
    """Mean ROUGE-L (0-1) of each selection rule over the examples; ``self_score`` is ``None``
    when no self-scores were given. ``n`` is the number of examples."""

    cappy: float
    random: float
    first: float
    oracle: float
    self_score: float | None
    n: int


def evaluate_selection(
    scorer: Any,
    examples: Any,
    *,
    self_scores: Any = None,
    rng: Any = None,
    stem: bool = True,
) -> SelectionReport:
    """ROUGE-L of the candidate picked by Cappy (highest score), a uniformly random candidate,
    the first candidate (beam search in :data:`DEFAULT_DECODINGS` order), the oracle (best
    candidate) and, with ``self_scores`` (one array per example, e.g. from :func:`self_score`),
    the self-scoring pick. ``examples`` as in :func:`build_training_pairs`, each with at least
    one candidate."""
    if not isinstance(scorer, CappyScorer):
        raise TypeError(f"scorer must be a CappyScorer, got {describe(scorer)}")
    if isinstance(examples, Mapping | str | bytes) or not isinstance(examples, Sequence):
        raise TypeError(f"examples must be a list of dicts, got {describe(examples)}")
    if len(examples) == 0:
        raise ValueError("examples must not be empty, got an empty list")
    parsed = [_check_example(ex, i) for i, ex in enumerate(examples)]
    for i, (_, _, cands) in enumerate(parsed):
        if not cands:
            raise ValueError(f"examples[{i}]['candidates'] must not be empty")
    if self_scores is not None:
        if isinstance(self_scores, str | bytes) or not isinstance(self_scores, Sequence):
            raise TypeError(f"self_scores must be a list of arrays, got {describe(self_scores)}")
        if len(self_scores) != len(parsed):
            raise ValueError(
                f"self_scores has {len(self_scores)} items but examples has {len(parsed)}; "
                "they must match"
            )
    gen = check_rng(rng, "rng")
    sums = dict(cappy=0.0, random=0.0, first=0.0, oracle=0.0, self_score=0.0)
    for i, (instruction, refs, cands) in enumerate(parsed):
        r = np.array([rouge_l(c, refs, stem=stem) for c in cands])
        best, _ = scorer.select(instruction, cands)
        sums["cappy"] += rouge_l(best, refs, stem=stem)
        sums["random"] += float(r[int(gen.integers(len(cands)))])
        sums["first"] += float(r[0])
        sums["oracle"] += float(r.max())
        if self_scores is not None:
            s = check_array(self_scores[i], f"self_scores[{i}]", ndim=1, shape=(len(cands),))
            sums["self_score"] += float(r[int(np.argmax(s))])
    n = len(parsed)
    return SelectionReport(
        cappy=sums["cappy"] / n,
        random=sums["random"] / n,
        first=sums["first"] / n,
        oracle=sums["oracle"] / n,
        self_score=sums["self_score"] / n if self_scores is not None else None,
        n=n,
    )
