"""A LoRA scorer (peft, extra `peft`): scores are the wrapped model's, and train_scorer moves
only the adapter and the regression head, leaving the base weights bit for bit."""

import pytest
import torch
from cappy_scorer import CappyScorer, train_scorer

from papershelf_harness.testing import assert_close

peft = pytest.importorskip("peft")

PAIRS = [("the cat", "sat on the mat", 1.0), ("the cat", "no", 0.0), ("a dog", "ran", 0.7)]


def test_lora_scorer_trains_only_the_adapter(make_scorer):
    base = make_scorer(seed=7)
    config = peft.LoraConfig(
        task_type="SEQ_CLS", r=4, lora_alpha=8, target_modules=["query", "value"]
    )
    model = peft.get_peft_model(base.model, config)
    lora = CappyScorer(model, base.tokenizer, max_length=64)
    instr, resp = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    with torch.no_grad():  # LoRA's B starts at 0: the wrapped model scores as the base did
        ref = torch.stack(
            [
                model(**base.tokenizer(i, r, return_tensors="pt")).logits[0, 0]
                for i, r in zip(instr, resp)
            ]
        )
    assert_close(lora.score(instr, resp), ref.numpy(), rtol=1e-5, atol=1e-6)
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    trainable = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
    assert frozen and trainable
    train_scorer(lora, PAIRS * 4, lr=1e-2, batch_size=4, grad_accum=1)
    now = dict(model.named_parameters())
    assert all(torch.equal(now[n], v) for n, v in frozen.items())
    assert any(not torch.equal(now[n], v) for n, v in trainable.items() if "lora_B" in n)
