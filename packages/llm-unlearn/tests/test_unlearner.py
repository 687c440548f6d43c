"""Unlearner against a hand-written loop over the public loss functions (torch AdamW, linear
decay), its stopping rules, the frozen reference copy, and LoRA through a real peft model."""

import copy
import dataclasses

import llm_unlearn as lu
import numpy as np
import pytest
import torch
from conftest import FORGET, NORMAL, POOL, make_model

from papershelf_harness.testing import assert_close

peft = pytest.importorskip("peft")


def test_step_reports_pre_update_terms_and_matches_a_manual_adamw_loop(byte_tok):
    model = make_model("gpt2")
    ref = copy.deepcopy(model)
    manual = copy.deepcopy(model)
    lr, max_steps, k = 1e-3, 10, 2
    u = lu.Unlearner(model, byte_tok, answer_pool=POOL, k=k, lr=lr, max_steps=max_steps, rng=5)
    opt = torch.optim.AdamW(manual.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - s / max_steps)
    gen = np.random.default_rng(5)
    for step in range(3):
        fgt, nor = FORGET[step : step + 2], NORMAL[step : step + 1] + NORMAL[:1]
        qs = [q for q, _ in fgt]
        terms = {
            "forget": lu.forget_loss(manual, lu.encode_qa(fgt, byte_tok)),
            "mismatch": lu.mismatch_loss(manual, byte_tok, qs, POOL, k=k, rng=gen),
            "kl": lu.kl_to_reference(manual, ref, lu.encode_qa(nor, byte_tok)),
        }
        loss = 0.5 * terms["forget"] + terms["mismatch"] + terms["kl"]
        got = u.step(fgt, nor)
        assert set(got) == {"forget", "mismatch", "kl", "loss"}
        for key, val in terms.items():
            assert got[key] == pytest.approx(float(val.detach()), rel=1e-5, abs=1e-7), key
        assert got["loss"] == pytest.approx(float(loss.detach()), rel=1e-5)
        if step == 0:
            assert got["kl"] == pytest.approx(0.0, abs=1e-6)  # the reference is the original
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    for p, q in zip(model.parameters(), manual.parameters(), strict=True):
        assert_close(p.detach(), q.detach(), rtol=1e-4, atol=1e-6)
    assert u.optimizer.param_groups[0]["lr"] == pytest.approx(lr * (1 - 3 / max_steps))
    assert u.n_steps == 3 and len(u.history) == 3
    # the reference is a frozen copy of the original, untouched by the updates
    assert all(not p.requires_grad for p in u.ref_model.parameters())
    for p, q in zip(u.ref_model.parameters(), ref.parameters(), strict=True):
        assert torch.equal(p, q)


def test_run_stops_at_max_forget_loss_or_max_steps(byte_tok):
    model = make_model("llama")
    nll0 = float(lu.answer_nll(model, lu.encode_qa(FORGET[:2], byte_tok)).mean().detach())
    u = lu.Unlearner(model, byte_tok, answer_pool=POOL, max_forget_loss=nll0 / 2, rng=0)
    res = u.run(FORGET, NORMAL)
    assert (res.steps, res.stopped_by) == (1, "max_forget_loss")
    assert -res.history[0]["forget"] >= nll0 / 2
    u = lu.Unlearner(make_model("llama"), byte_tok, answer_pool=POOL, max_steps=3, rng=0)
    res = u.run(FORGET, NORMAL, batch_size=2)
    assert (res.steps, res.stopped_by, len(res.history)) == (3, "max_steps", 3)
    assert u.run(FORGET, NORMAL).steps == 0  # max_steps counts every step of this Unlearner
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.steps = 4  # frozen result


def test_gradient_ascent_only_raises_the_forget_nll(byte_tok):
    model = make_model("qwen2")
    batch = lu.encode_qa(FORGET, byte_tok)
    before = float(lu.answer_nll(model, batch).mean().detach())
    u = lu.Unlearner(model, byte_tok, answer_pool=POOL, eps=(1.0, 0.0, 0.0), lr=1e-2, rng=0)
    for _ in range(4):
        out = u.step(FORGET, NORMAL)
        assert np.isfinite(out["mismatch"]) and out["kl"] >= 0  # still reported
    assert float(lu.answer_nll(model, batch).mean().detach()) > before + 0.5


def test_lora_trains_the_adapter_only_and_merges_to_base_plus_ba(byte_tok):
    model = make_model("llama")
    original = copy.deepcopy(model)
    config = peft.LoraConfig(
        r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]
    )
    u = lu.Unlearner(model, byte_tok, answer_pool=POOL, lora=config, lr=1e-2, rng=0)
    assert u.ref_model is None  # the reference is the adapter-disabled model
    first = u.step(FORGET[:2], NORMAL[:2])
    assert first["kl"] == pytest.approx(0.0, abs=1e-6)  # B = 0 at init: the original model
    for _ in range(3):
        u.step(FORGET[:2], NORMAL[:2])
    batch = lu.encode_qa(NORMAL, byte_tok)
    kl = u.losses(FORGET[:2], NORMAL)["kl"]
    assert float(kl.detach()) > 0
    assert_close(kl.detach(), lu.kl_to_reference(u.model, original, batch).detach(), rtol=1e-4)
    layer = u.model.base_model.model.model.layers[0].self_attn.q_proj
    base_w = layer.base_layer.weight.detach().clone()
    delta = (
        layer.lora_B["default"].weight @ layer.lora_A["default"].weight * layer.scaling["default"]
    )
    orig_q = original.model.layers[0].self_attn.q_proj.weight
    assert torch.equal(base_w, orig_q)  # the base weights did not move
    assert float(delta.detach().abs().max()) > 0
    with torch.no_grad():
        logits = u.model(**{k: v for k, v in batch.items() if k != "labels"}).logits
    merged = u.merged_model()
    assert_close(
        merged.model.layers[0].self_attn.q_proj.weight.detach(),
        (orig_q + delta).detach(),
        rtol=1e-5,
        atol=1e-6,
    )
    with torch.no_grad():
        assert_close(
            merged(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits,
            logits,
            rtol=1e-4,
            atol=1e-5,
        )


def test_generate_answers_matches_transformers_greedy_generate(llama, byte_tok):
    qs = [FORGET[0][0], NORMAL[1][0]]
    got = lu.generate_answers(llama, byte_tok, qs, max_new_tokens=6)
    for q, text in zip(qs, got, strict=True):
        ids = torch.tensor([byte_tok(lu.render_prompt(q))["input_ids"]])
        out = llama.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=6,
            do_sample=False,
            pad_token_id=byte_tok.pad_token_id,
            eos_token_id=byte_tok.eos_token_id,
        )
        assert text == byte_tok.decode(out[0, ids.shape[1] :])
