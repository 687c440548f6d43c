"""A Hugging Face causal-LM back-end for :class:`laclip.LLMRewriter` (extra ``hf``:
``pip install "laclip[hf]"``). Imports nothing from transformers itself: any model with HF's
``generate`` and a tokenizer with ``__call__``/``decode`` work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._checks import check_float, check_int, describe
from .rewrite import _check_texts

__all__ = ["HFGenerate"]


class HFGenerate:
    """``generate(prompts) -> completions`` with ``model.generate`` sampling, the paper's
    settings by default (LLaMA-7B: temperature 0.9, top-p 0.95, at most 77 new tokens, prompts
    cut to their last ``max_prompt_tokens = 400`` tokens, which keeps the caption to rewrite).

    Prompts are run one at a time (no padding to get wrong); completions hold only the new
    tokens, decoded with ``skip_special_tokens=True``. Sampling uses torch's global RNG
    (``torch.manual_seed`` for reproducible rewrites), as HF ``generate`` does.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        temperature: float = 0.9,
        top_p: float = 0.95,
        max_new_tokens: int = 77,
        max_prompt_tokens: int = 400,
    ) -> None:
        if not callable(getattr(model, "generate", None)):
            raise TypeError(f"model must have a generate method (HF), got {describe(model)}")
        if not (callable(tokenizer) and callable(getattr(tokenizer, "decode", None))):
            raise TypeError(f"tokenizer must be an HF tokenizer, got {describe(tokenizer)}")
        self.model, self.tokenizer = model, tokenizer
        self.temperature = check_float(temperature, "temperature", minimum=0, min_inclusive=False)
        self.top_p = check_float(top_p, "top_p", minimum=0, maximum=1, min_inclusive=False)
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
        self.max_prompt_tokens = check_int(max_prompt_tokens, "max_prompt_tokens", minimum=1)

    def __call__(self, prompts: Sequence[str]) -> list[str]:
        prompts = _check_texts(prompts, "prompts", allow_empty=True)
        pad = getattr(self.tokenizer, "pad_token_id", None)
        if pad is None:
            pad = getattr(self.tokenizer, "eos_token_id", None)
        device = getattr(self.model, "device", None)
        out = []
        with torch.no_grad():
            for p in prompts:
                ids = self.tokenizer(p, return_tensors="pt")["input_ids"][
                    :, -self.max_prompt_tokens :
                ]
                if device is not None:
                    ids = ids.to(device)
                gen = self.model.generate(
                    ids,
                    attention_mask=torch.ones_like(ids),
                    do_sample=True,
                    temperature=self.temperature,
                    top_p=self.top_p,
                    max_new_tokens=self.max_new_tokens,
                    pad_token_id=pad,
                )
                out.append(self.tokenizer.decode(gen[0, ids.shape[1] :], skip_special_tokens=True))
        return out
