"""LoRA + WTA-CRS on a real peft model (tiny random-init Llama): exact outputs and input
gradients, unbiased LoRA weight gradients, and frozen base layers that save no rows."""

import pytest
import torch

peft = pytest.importorskip("peft")
tiny_hf = pytest.importorskip("papershelf_harness.tiny_hf")

from wta_crs import WTALinear, convert_linear_layers, saved_activation_bytes  # noqa: E402

TARGETS = ["q_proj", "v_proj", "up_proj", "down_proj"]


def _lora_model():
    model = tiny_hf.tiny_causal_lm("llama", n_layers=1, vocab=32, seed=0)
    # init_lora_weights=False: B is random too, so the gradients of A are not all zero
    config = peft.LoraConfig(
        r=4, lora_alpha=8, lora_dropout=0.0, target_modules=TARGETS, init_lora_weights=False
    )
    return peft.get_peft_model(model, config).train()


def _grads(model, ids):
    model.zero_grad(set_to_none=True)
    embeds = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    out = model(inputs_embeds=embeds, labels=ids)
    out.loss.backward()
    named = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    return out.logits.detach(), embeds.grad.clone(), named


def _converted(ids):
    model = _lora_model()
    exact = _grads(model, ids)
    convert_linear_layers(model, ratio=0.3, min_k=4, generator=torch.Generator().manual_seed(0))
    lora = [m for n, m in model.named_modules() if "lora_" in n and isinstance(m, WTALinear)]
    bases = [m for n, m in model.named_modules() if n.endswith("base_layer")]
    assert len(lora) == 2 * len(bases) == 2 * len(TARGETS)  # one layer; A and B per target
    assert all(isinstance(b, WTALinear) and not b.weight.requires_grad for b in bases)
    assert set(exact[2]) == {n for n, p in model.named_parameters() if p.requires_grad}
    return model, exact


IDS = torch.randint(0, 32, (2, 24), generator=torch.Generator().manual_seed(1))


def test_lora_wta_exact_outputs_and_input_gradients():
    model, (logits, grad_in, exact) = _converted(IDS)
    for _ in range(2):
        out, g_in, g = _grads(model, IDS)
        torch.testing.assert_close(out, logits, rtol=0, atol=1e-6)  # forward exact
        torch.testing.assert_close(g_in, grad_in, rtol=1e-4, atol=1e-6)  # ∇X exact
        assert any(not torch.allclose(g[n], exact[n]) for n in exact)  # ∇W sampled


def test_lora_wta_lora_gradients_are_unbiased():
    model, (_, _, exact) = _converted(IDS)
    runs = 150
    total = {n: torch.zeros_like(g, dtype=torch.float64) for n, g in exact.items()}
    square = {n: torch.zeros_like(g, dtype=torch.float64) for n, g in exact.items()}
    for _ in range(runs):
        g = _grads(model, IDS)[2]
        for n in exact:
            total[n] += g[n].double()
            square[n] += g[n].double().square()
    for n, g in exact.items():  # every lora_A and lora_B gradient (both inputs are sampled)
        mean = total[n] / runs
        var = (square[n] / runs - mean.square()).clamp_min(0) * runs / (runs - 1)
        assert var.sum() > 1e-8 * g.double().square().sum(), n  # really sampled
        # unbiased: E||mean - exact||^2 = sum(var) / runs; a bias would dominate this by far
        err = (mean - g.double()).square().sum().item()
        assert err < 4.0 * var.sum().item() / runs, (n, err, var.sum().item() / runs)


def test_frozen_base_saves_no_rows_and_lora_wta_saves_less():
    ids = torch.randint(0, 32, (4, 32), generator=torch.Generator().manual_seed(2))
    batch = {"input_ids": ids, "labels": ids}
    model = _lora_model()
    x = torch.randn(4, 32, 32, requires_grad=True)
    base = model.get_submodule("base_model.model.model.layers.0.mlp.up_proj.base_layer")
    plain = saved_activation_bytes(model, batch)
    convert_linear_layers(model, ratio=0.3)
    converted = model.get_submodule("base_model.model.model.layers.0.mlp.up_proj.base_layer")
    assert isinstance(converted, WTALinear) and converted.weight is base.weight
    assert saved_activation_bytes(converted, x) == 0  # frozen weight: no input rows kept
    assert saved_activation_bytes(model, batch) < plain
