"""The Cappy scorer: a 1-label sequence classifier that scores (instruction, response) pairs."""

from __future__ import annotations

import copy
import os
from typing import Any, NamedTuple

import numpy as np
import torch

from ._checks import check_int, describe
from ._validation import check_model, check_text, check_texts, check_tokenizer

__all__ = ["CappyScorer", "Selection"]


class Selection(NamedTuple):
    """The result of :meth:`CappyScorer.select`: the best candidate and every candidate's score."""

    best: str
    scores: np.ndarray

    @property
    def best_index(self) -> int:
        """Index of ``best`` among the candidates (the first of tied maxima)."""
        return int(np.argmax(self.scores))


def _num_labels(model: Any) -> int | None:
    config = getattr(model, "config", None)
    return getattr(config, "num_labels", None) if config is not None else None


def _model_device(model: torch.nn.Module) -> torch.device:
    for p in model.parameters():
        return p.device
    return torch.device("cpu")


class CappyScorer:
    """Cappy (Tan et al., NeurIPS 2023): ``score(instruction, response)`` is ``logits[:, 0]`` of a
    1-label sequence classifier in eval mode on ``tokenizer(instruction, response,
    truncation=True, max_length=max_length)`` (no sigmoid); higher means more correct.

    ``model`` is any Hugging Face ``PreTrainedModel`` with one output (RoBERTa in the paper;
    BERT-like and decoder classifiers such as Llama, GPT-2, Qwen2 work the same way) and
    ``tokenizer`` its tokenizer, which must encode text pairs.
    """

    def __init__(self, model: Any, tokenizer: Any, *, max_length: int = 512) -> None:
        self.model = check_model(model, "model")
        self.tokenizer = check_tokenizer(tokenizer, "tokenizer")
        self.max_length = check_int(max_length, "max_length", minimum=1)
        n = _num_labels(model)
        if n is not None and n != 1:
            raise ValueError(
                f"model must be a 1-label classifier (config.num_labels == 1), got num_labels={n}"
            )

    def __repr__(self) -> str:
        return (
            f"CappyScorer(model={type(self.model).__name__}, "
            f"tokenizer={type(self.tokenizer).__name__}, max_length={self.max_length})"
        )

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_config(cls, config: Any, tokenizer: Any, *, max_length: int = 512) -> CappyScorer:
        """A randomly initialised scorer of ``config``'s architecture (a copy of ``config`` with
        ``num_labels=1``, ``problem_type="regression"`` and, where it has none, the tokenizer's
        pad token id), built with ``AutoModelForSequenceClassification.from_config``."""
        from transformers import AutoModelForSequenceClassification, PretrainedConfig

        if not isinstance(config, PretrainedConfig):
            raise TypeError(
                f"config must be a transformers PretrainedConfig, got {describe(config)}"
            )
        check_tokenizer(tokenizer, "tokenizer")
        check_int(max_length, "max_length", minimum=1)
        config = copy.deepcopy(config)
        config.num_labels = 1
        config.problem_type = "regression"
        pad = getattr(tokenizer, "pad_token_id", None)
        text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
        if getattr(text_config, "pad_token_id", None) is None and pad is not None:
            text_config.pad_token_id = pad
            config.pad_token_id = pad
        vocab = getattr(text_config, "vocab_size", None)
        if vocab is not None and hasattr(tokenizer, "__len__") and len(tokenizer) > vocab:
            raise ValueError(
                f"tokenizer has {len(tokenizer)} tokens but config.vocab_size is {vocab}; "
                "they must fit"
            )
        model = AutoModelForSequenceClassification.from_config(config)
        model.eval()
        return cls(model, tokenizer, max_length=max_length)

    @classmethod
    def from_pretrained(
        cls,
        path: str | os.PathLike,
        *,
        max_length: int = 512,
        tokenizer: Any = None,
        **model_kwargs: Any,
    ) -> CappyScorer:
        """Load a saved scorer (a directory written by :meth:`save_pretrained`, or a Hub id such
        as ``btan2/cappy-large``) with ``AutoModelForSequenceClassification`` and
        ``AutoTokenizer`` (or the ``tokenizer`` given); ``model_kwargs`` go to the model's
        ``from_pretrained``."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or os.PathLike, got {describe(path)}")
        check_int(max_length, "max_length", minimum=1)
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForSequenceClassification.from_pretrained(path, **model_kwargs)
        model.eval()
        return cls(model, tokenizer, max_length=max_length)

    def save_pretrained(self, path: str | os.PathLike) -> None:
        """Write the model and the tokenizer to the directory ``path`` (for :meth:`from_pretrained`)."""
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or os.PathLike, got {describe(path)}")
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)

    # ---------------------------------------------------------------- encoding
    def _can_pad(self) -> bool:
        """Whether padded batches give the same scores as one pair at a time: the tokenizer has
        a pad token and the model pools with the same one (decoder classifiers pool the last
        non-pad token of ``config.pad_token_id``)."""
        pad = getattr(self.tokenizer, "pad_token_id", None)
        if pad is None:
            return False
        config = getattr(self.model, "config", None)
        if config is None:
            return True
        text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
        return getattr(text_config, "pad_token_id", None) == pad

    def _encode(self, instructions: list[str], responses: list[str]) -> list[dict[str, list[int]]]:
        """``tokenizer(instruction, response, truncation=True, max_length=...)`` of each pair on
        its own (a batched call would encode an empty response differently)."""
        rows = []
        for instruction, response in zip(instructions, responses):
            enc = self.tokenizer(instruction, response, truncation=True, max_length=self.max_length)
            if "input_ids" not in enc:
                raise TypeError("tokenizer must return 'input_ids' for a text pair")
            rows.append(
                {
                    k: [int(t) for t in enc[k]]
                    for k in ("input_ids", "attention_mask", "token_type_ids")
                    if k in enc
                }
            )
        return rows

    def _batch(self, rows: list[dict[str, list[int]]]) -> dict[str, torch.Tensor]:
        """Right-pad ``rows`` into tensors on the model's device."""
        width = max(len(r["input_ids"]) for r in rows)
        pad = getattr(self.tokenizer, "pad_token_id", None) or 0
        type_pad = getattr(self.tokenizer, "pad_token_type_id", 0) or 0
        out: dict[str, list[list[int]]] = {"input_ids": [], "attention_mask": []}
        has_types = "token_type_ids" in rows[0]
        if has_types:
            out["token_type_ids"] = []
        for r in rows:
            n = len(r["input_ids"])
            fill = width - n
            out["input_ids"].append(r["input_ids"] + [pad] * fill)
            mask = r.get("attention_mask", [1] * n)
            out["attention_mask"].append(list(mask) + [0] * fill)
            if has_types:
                out["token_type_ids"].append(r["token_type_ids"] + [type_pad] * fill)
        device = _model_device(self.model)
        return {k: torch.tensor(v, dtype=torch.long, device=device) for k, v in out.items()}

    def _logits(self, rows: list[dict[str, list[int]]]) -> torch.Tensor:
        """``logits[:, 0]`` of the rows (one forward per row where padding is not safe)."""
        groups = [rows] if self._can_pad() else [[r] for r in rows]
        parts = []
        for group in groups:
            logits = self.model(**self._batch(group)).logits
            if logits.ndim != 2 or logits.shape[-1] != 1:
                raise ValueError(
                    f"model must output logits of shape (batch, 1), got {tuple(logits.shape)}"
                )
            parts.append(logits[:, 0].float())
        return torch.cat(parts)

    # ---------------------------------------------------------------- scoring
    def score(self, instructions: Any, responses: Any, *, batch_size: int = 32) -> np.ndarray:
        """Scores of the pairs ``(instructions[i], responses[i])``: a float64 array of shape
        ``(n,)``, computed in eval mode without gradients (the model's mode is restored)."""
        instructions = check_texts(instructions, "instructions")
        responses = check_texts(responses, "responses")
        if len(responses) != len(instructions):
            raise ValueError(
                f"responses has {len(responses)} items but instructions has "
                f"{len(instructions)}; they must match"
            )
        batch_size = check_int(batch_size, "batch_size", minimum=1)
        rows = self._encode(instructions, responses)
        order = np.argsort([len(r["input_ids"]) for r in rows], kind="stable")
        out = np.empty(len(rows), dtype=np.float64)
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                for start in range(0, len(rows), batch_size):
                    idx = order[start : start + batch_size]
                    out[idx] = self._logits([rows[i] for i in idx]).cpu().double().numpy()
        finally:
            self.model.train(was_training)
        return out

    def select(self, instruction: Any, candidates: Any, *, batch_size: int = 32) -> Selection:
        """The candidate with the highest score for ``instruction`` (the first of ties) and the
        scores of all candidates: ``Selection(best, scores)``, which unpacks as a pair."""
        instruction = check_text(instruction, "instruction")
        candidates = check_texts(candidates, "candidates")
        scores = self.score([instruction] * len(candidates), candidates, batch_size=batch_size)
        return Selection(candidates[int(np.argmax(scores))], scores)

    def classify(self, instruction: Any, choices: Any, *, batch_size: int = 32) -> int:
        """Index of the answer choice with the highest score (Cappy's zero-shot classification)."""
        instruction = check_text(instruction, "instruction")
        choices = check_texts(choices, "choices")
        scores = self.score([instruction] * len(choices), choices, batch_size=batch_size)
        return int(np.argmax(scores))
