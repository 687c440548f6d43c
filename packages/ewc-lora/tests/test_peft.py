"""The penalty on real peft LoRA models (the `peft` extra) equals ours on the same adapters."""

import pytest
import torch
from conftest import _tiny
from ewc_lora import LoRALinear, apply_lora, ewc_full_penalty, ewc_lora_penalty, merge_lora

from papershelf_harness.testing import assert_close

peft = pytest.importorskip("peft")


@pytest.mark.parametrize("arch,targets", [("llama", ["q_proj", "v_proj"]), ("gpt2", ["c_attn"])])
def test_peft_penalty_and_outputs_equal_ours(arch, targets):
    ours, theirs = _tiny(arch), _tiny(arch)
    fisher = {n: torch.rand(p.shape) for n, p in ours.named_parameters()}
    theta0 = {n: p.detach().clone() for n, p in ours.named_parameters()}
    apply_lora(ours, target_modules=targets, r=4, alpha=8, dropout=0.0)
    config = peft.LoraConfig(
        r=4, lora_alpha=8, lora_dropout=0.0, target_modules=targets, fan_in_fan_out=arch == "gpt2"
    )
    theirs = peft.get_peft_model(theirs, config)
    assert float(ewc_lora_penalty(theirs, fisher).detach()) == 0.0
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, m in ours.named_modules():
            if isinstance(m, LoRALinear):
                m.A.copy_(torch.randn(m.A.shape, generator=g))
                m.B.copy_(torch.randn(m.B.shape, generator=g))
                layer = theirs.get_submodule("base_model.model." + name)
                layer.lora_A["default"].weight.copy_(m.A)
                layer.lora_B["default"].weight.copy_(m.B)
    ids = torch.randint(0, 32, (2, 6), generator=g)
    ours.eval(), theirs.eval()
    assert_close(theirs(input_ids=ids).logits, ours(input_ids=ids).logits, rtol=1e-4, atol=1e-5)
    pen = ewc_lora_penalty(ours, fisher, lam=0.5)
    assert pen > 0
    assert_close(ewc_lora_penalty(theirs, fisher, lam=0.5), pen, rtol=1e-5)
    assert_close(ewc_full_penalty(theirs, fisher, theta0, lam=0.5), pen, rtol=1e-5)
    # the gradient flows to peft's adapters
    ewc_lora_penalty(theirs, fisher).backward()
    assert any(
        p.grad is not None and p.grad.abs().sum() > 0
        for n, p in theirs.named_parameters()
        if "lora_B" in n
    )
    merged = merge_lora(theirs)
    assert_close(ewc_full_penalty(merged, fisher, theta0, lam=0.5), pen, rtol=1e-5)
