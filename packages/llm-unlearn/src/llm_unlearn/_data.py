"""Q&A pairs -> padded causal-LM batches with the prompt masked, and random-mismatch draws."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from ._checks import check_int, check_option, check_rng, describe

DEFAULT_TEMPLATE = "### Question: {q}\n ### Answer: {a}"
IGNORE_INDEX = -100

__all__ = ["DEFAULT_TEMPLATE", "IGNORE_INDEX", "encode_qa", "render_prompt", "sample_mismatch"]


def check_template(template: Any, name: str = "template") -> tuple[str, str]:
    """``template`` split at its single ``{a}``: (head, tail); ``{q}`` must appear in it."""
    if not isinstance(template, str):
        raise TypeError(f"{name} must be a str with {{q}} and {{a}}, got {describe(template)}")
    n_a = template.count("{a}")
    if n_a != 1:
        raise ValueError(f"{name} must contain '{{a}}' exactly once, got {n_a} in {template!r}")
    if "{q}" not in template:
        raise ValueError(f"{name} must contain '{{q}}', got {template!r}")
    head, tail = template.split("{a}")
    return head, tail


def _check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value


def check_texts(values: Any, name: str) -> list[str]:
    """A non-empty sequence of str (a lone str is refused: it is one text, not a list)."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a sequence of str, got {describe(values)}")
    values = list(values)
    if not values:
        raise ValueError(f"{name} must not be empty, got 0 items")
    for i, v in enumerate(values):
        _check_text(v, f"{name}[{i}]")
    return values


def check_pairs(pairs: Any, name: str = "pairs") -> list[tuple[str, str]]:
    """A non-empty sequence of (question, answer) string pairs."""
    if isinstance(pairs, str | bytes | Mapping) or not isinstance(pairs, Sequence):
        raise TypeError(
            f"{name} must be a sequence of (question, answer) pairs, got {describe(pairs)}"
        )
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str | bytes) or not isinstance(pair, Sequence):
            raise TypeError(f"{name}[{i}] must be a (question, answer) pair, got {describe(pair)}")
        if len(pair) != 2:
            raise ValueError(f"{name}[{i}] must have 2 items (question, answer), got {len(pair)}")
        out.append(
            (_check_text(pair[0], f"{name}[{i}][0]"), _check_text(pair[1], f"{name}[{i}][1]"))
        )
    if not out:
        raise ValueError(f"{name} must not be empty, got 0 pairs")
    return out


def _token_ids(tokenizer: Any, text: str) -> list[int]:
    enc = tokenizer(text)
    ids = enc["input_ids"] if isinstance(enc, Mapping) or hasattr(enc, "keys") else enc
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
    if ids and isinstance(ids[0], list):  # a batch of one
        ids = ids[0]
    return [int(i) for i in ids]


def check_tokenizer(tokenizer: Any, name: str = "tokenizer") -> int:
    """A callable tokenizer (text -> {"input_ids": [...]}) with a pad (or else an EOS) token id."""
    if not callable(tokenizer):
        raise TypeError(f"{name} must be a callable tokenizer, got {describe(tokenizer)}")
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is None:
        pad = getattr(tokenizer, "eos_token_id", None)
    if pad is None:
        raise ValueError(f"{name} has neither a pad_token_id nor an eos_token_id to pad with")
    return int(pad)


def render_prompt(question: str, *, template: str = DEFAULT_TEMPLATE) -> str:
    """The prompt part of ``template`` for ``question`` (everything before ``{a}``)."""
    head, _ = check_template(template)
    return head.replace("{q}", _check_text(question, "question"))


def encode_qa(
    pairs,
    tokenizer,
    *,
    template: str = DEFAULT_TEMPLATE,
    max_length: int | None = None,
    padding_side: str = "right",
) -> dict[str, torch.Tensor]:
    """Tokenise (question, answer) pairs into a padded batch whose labels cover the answer only.

    Each pair is rendered with ``template`` (``{q}``, ``{a}``) and tokenised as one text. The
    prompt (the template up to ``{a}`` with the question filled in) is tokenised alone; its
    tokens get label ``-100``, as does padding. Where a tokenizer merges the last prompt token
    with the first answer token, only the tokens the two tokenisations share are masked, so the
    answer is never masked. ``max_length`` truncates on the right (a pair whose answer would be
    cut away entirely is refused); padding (``tokenizer.pad_token_id``, else its EOS id) goes on
    ``padding_side``, to the longest row.

    Returns ``{"input_ids", "attention_mask", "labels"}``, int64 tensors of shape (B, T).
    """
    pairs = check_pairs(pairs)
    pad_id = check_tokenizer(tokenizer)
    head, tail = check_template(template)
    if max_length is not None:
        max_length = check_int(max_length, "max_length", minimum=2)
    padding_side = check_option(padding_side, "padding_side", ("right", "left"))
    rows: list[tuple[list[int], list[int]]] = []
    for i, (q, a) in enumerate(pairs):
        prompt = head.replace("{q}", q)
        full = _token_ids(tokenizer, prompt + a + tail.replace("{q}", q))
        prompt_ids = _token_ids(tokenizer, prompt)
        n_mask = 0
        for x, y in zip(prompt_ids, full, strict=False):
            if x != y:
                break
            n_mask += 1
        if max_length is not None:
            full = full[:max_length]
        if n_mask >= len(full):
            where = f" within max_length={max_length}" if max_length is not None else ""
            name = "max_length" if max_length is not None and n_mask < max_length else "pairs"
            raise ValueError(
                f"{name}: pair {i} has no answer token{where} (prompt {n_mask} tokens, "
                f"text {len(full)} tokens)"
            )
        labels = [IGNORE_INDEX] * n_mask + full[n_mask:]
        rows.append((full, labels))
    width = max(len(ids) for ids, _ in rows)
    ids_t = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask_t = torch.zeros((len(rows), width), dtype=torch.long)
    labels_t = torch.full((len(rows), width), IGNORE_INDEX, dtype=torch.long)
    for r, (ids, labels) in enumerate(rows):
        n = len(ids)
        sl = slice(0, n) if padding_side == "right" else slice(width - n, width)
        ids_t[r, sl] = torch.tensor(ids, dtype=torch.long)
        mask_t[r, sl] = 1
        labels_t[r, sl] = torch.tensor(labels, dtype=torch.long)
    return {"input_ids": ids_t, "attention_mask": mask_t, "labels": labels_t}


def check_pool(answer_pool: Any, name: str = "answer_pool") -> list[str]:
    if isinstance(answer_pool, str | bytes) or not isinstance(answer_pool, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a sequence of answer strings, got {describe(answer_pool)}")
    if len(answer_pool) == 0:
        raise ValueError(f"{name} must not be empty: the random mismatch draws answers from it")
    return check_texts(answer_pool, name)


def sample_mismatch(questions, answer_pool, *, k: int = 5, rng=None) -> list[tuple[str, str]]:
    """Random-mismatch pairs: each question with ``k`` answers drawn from ``answer_pool``.

    The ``k`` answers of one question are distinct pool entries (drawn without replacement, so
    ``k <= len(answer_pool)``); each question gets its own draw. Returns the ``len(questions) *
    k`` pairs, question-major.
    """
    questions = check_texts(questions, "questions")
    pool = check_pool(answer_pool)
    k = check_int(k, "k", minimum=1)
    if k > len(pool):
        raise ValueError(f"k must be <= len(answer_pool) = {len(pool)} (distinct draws), got {k}")
    gen = check_rng(rng)
    out = []
    for q in questions:
        for j in gen.choice(len(pool), size=k, replace=False):
            out.append((q, pool[int(j)]))
    return out
