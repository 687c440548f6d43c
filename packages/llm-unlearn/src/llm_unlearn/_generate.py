"""Greedy answers to templated questions, for evaluating what a model says after unlearning."""

from __future__ import annotations

import torch

from ._checks import check_int
from ._data import DEFAULT_TEMPLATE, _token_ids, check_template, check_texts, check_tokenizer
from ._losses import check_model, logits_of

__all__ = ["generate_answers"]


@torch.no_grad()
def generate_answers(
    model,
    tokenizer,
    questions,
    *,
    template: str = DEFAULT_TEMPLATE,
    max_new_tokens: int = 32,
) -> list[str]:
    """Greedy continuation of each question's prompt (the template up to ``{a}``), decoded.

    Prompts are left-padded into one batch (position ids count real tokens, see
    :func:`answer_nll`); a row stops at the tokenizer's EOS id. Plain full-sequence forward
    passes (no KV cache), so any model that returns logits works; meant for evaluation-sized
    batches.
    """
    model = check_model(model)
    pad_id = check_tokenizer(tokenizer)
    questions = check_texts(questions, "questions")
    head, _ = check_template(template)
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
    eos = getattr(tokenizer, "eos_token_id", None)
    prompts = [_token_ids(tokenizer, head.replace("{q}", q)) for q in questions]
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, p in enumerate(prompts):
        ids[r, width - len(p) :] = torch.tensor(p, dtype=torch.long)
        mask[r, width - len(p) :] = 1
    done = torch.zeros(len(prompts), dtype=torch.bool)
    new: list[list[int]] = [[] for _ in prompts]
    for _ in range(max_new_tokens):
        logits = logits_of(model, {"input_ids": ids, "attention_mask": mask})
        nxt = logits[:, -1].argmax(-1).cpu()
        for r in range(len(prompts)):
            if not done[r]:
                if eos is not None and int(nxt[r]) == int(eos):
                    done[r] = True
                else:
                    new[r].append(int(nxt[r]))
        if bool(done.all()):
            break
        ids = torch.cat([ids, torch.where(done, pad_id, nxt)[:, None]], 1)
        mask = torch.cat([mask, (~done).long()[:, None]], 1)
    return [tokenizer.decode(t, skip_special_tokens=True) for t in new]
