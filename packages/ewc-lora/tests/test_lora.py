"""LoRALinear / apply_lora / merge_lora against explicit matrix formulas, on nn.Linear, GPT-2's
Conv1D and tiny random Llama, GPT-2 and Qwen2 models."""

import torch
from conftest import randomize_lora
from ewc_lora import LoRALinear, apply_lora, merge_lora
from torch import nn

from papershelf_harness.testing import assert_close, assert_rejects


def _conv1d(nx, nf):
    from transformers.pytorch_utils import Conv1D

    torch.manual_seed(0)
    layer = Conv1D(nf, nx)
    nn.init.normal_(layer.weight)
    nn.init.normal_(layer.bias)
    return layer


def test_linear_shapes_init_and_forward():
    base = nn.Linear(6, 5)
    lora = LoRALinear(base, r=3, alpha=12, dropout=0.0)
    assert lora.A.shape == (3, 6) and lora.B.shape == (5, 3)
    assert torch.count_nonzero(lora.B) == 0 and torch.count_nonzero(lora.A) > 0
    assert lora.scaling == 4.0 and lora.r == 3
    assert not base.weight.requires_grad and not base.bias.requires_grad
    assert lora.A.requires_grad and lora.B.requires_grad
    x = torch.randn(4, 6)
    assert_close(lora(x), base(x), atol=0)  # B = 0: the base layer exactly
    with torch.no_grad():
        lora.B.normal_()
    w = base.weight + 4.0 * lora.B @ lora.A  # explicit adapted weight (out, in)
    assert_close(lora.delta_weight(), 4.0 * lora.B @ lora.A, rtol=1e-6)
    assert_close(lora(x), x @ w.T + base.bias, rtol=1e-5, atol=1e-6)


def test_conv1d_delta_in_base_layout():
    base = _conv1d(nx=6, nf=10)  # weight (in=6, out=10)
    lora = LoRALinear(base, r=2, alpha=4, dropout=0.0)
    assert lora.A.shape == (2, 6) and lora.B.shape == (10, 2) and lora.fan_in_fan_out
    with torch.no_grad():
        lora.B.normal_()
    delta = lora.delta_weight()
    assert delta.shape == base.weight.shape == (6, 10)
    assert_close(delta, (2.0 * lora.B @ lora.A).T, rtol=1e-6)
    x = torch.randn(3, 6)
    assert_close(lora(x), x @ (base.weight + delta) + base.bias, rtol=1e-5, atol=1e-6)


def test_dropout_only_on_the_lora_path_in_training():
    base = nn.Linear(8, 8)
    lora = LoRALinear(base, r=2, alpha=2, dropout=0.5)
    with torch.no_grad():
        lora.B.normal_()
    x = torch.randn(64, 8)
    lora.eval()
    assert_close(lora(x), lora(x))
    lora.train()
    a, b = lora(x), lora(x)
    assert not torch.allclose(a, b)
    # the base output is never dropped: with B = 0 training output equals the base output
    with torch.no_grad():
        lora.B.zero_()
    assert_close(lora(x), base(x), atol=1e-7)


def test_generator_makes_a_reproducible():
    a = LoRALinear(nn.Linear(4, 4), generator=torch.Generator().manual_seed(3)).A
    b = LoRALinear(nn.Linear(4, 4), generator=torch.Generator().manual_seed(3)).A
    assert_close(a, b, atol=0)


def test_apply_lora_on_hf_models(tiny):
    model, targets = tiny
    ids = torch.randint(0, 32, (2, 7), generator=torch.Generator().manual_seed(0))
    before = model(input_ids=ids).logits
    out = apply_lora(model, target_modules=targets, r=4, alpha=8)
    assert out is model
    layers = {n: m for n, m in model.named_modules() if isinstance(m, LoRALinear)}
    assert layers and all(n.rsplit(".", 1)[-1] in targets for n in layers)
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trainable == {f"{n}.{ab}" for n in layers for ab in ("A", "B")}
    model.eval()
    assert_close(model(input_ids=ids).logits, before, atol=1e-6)


def test_merge_lora_keeps_outputs_and_removes_adapters(tiny):
    model, targets = tiny
    apply_lora(model, target_modules=targets, r=4, alpha=8)
    randomize_lora(model).eval()
    ids = torch.randint(0, 32, (2, 7), generator=torch.Generator().manual_seed(1))
    adapted = model(input_ids=ids).logits
    expected = {}
    for n, m in model.named_modules():
        if isinstance(m, LoRALinear):
            expected[n + ".weight"] = (m.base.weight + m.delta_weight()).detach().clone()
    assert merge_lora(model) is model
    assert not any(isinstance(m, LoRALinear) for m in model.modules())
    params = dict(model.named_parameters())
    for k, w in expected.items():
        assert_close(params[k], w, atol=0)
    assert_close(model(input_ids=ids).logits, adapted, rtol=1e-4, atol=1e-5)


def test_target_modules_regex_and_errors():
    from papershelf_harness.tiny_hf import tiny_causal_lm

    model = tiny_causal_lm("llama", n_layers=2, vocab=32)
    apply_lora(model, target_modules=r".*layers\.1\.self_attn\.(q|k)_proj")
    names = sorted(n for n, m in model.named_modules() if isinstance(m, LoRALinear))
    assert names == ["model.layers.1.self_attn.k_proj", "model.layers.1.self_attn.q_proj"]
    assert_rejects(ValueError, "target_modules", apply_lora, model, target_modules=["q_proj"])
    assert_rejects(ValueError, "target_modules", apply_lora, model, target_modules=["nothing"])
    assert_rejects(ValueError, "target_modules", apply_lora, model, target_modules=["mlp"])
    assert_rejects(TypeError, "base", LoRALinear, nn.Conv2d(2, 2, 1))
    assert_rejects(ValueError, "r", LoRALinear, nn.Linear(2, 2), r=0)
    assert_rejects(ValueError, "r", apply_lora, model, target_modules=["v_proj"], r=0)
    assert_rejects(ValueError, "model", merge_lora, nn.Linear(2, 2))


def test_training_moves_only_the_adapters():
    from papershelf_harness.tiny_hf import tiny_causal_lm

    model = tiny_causal_lm("llama", n_layers=1, vocab=32)
    frozen = {n: p.detach().clone() for n, p in model.named_parameters()}
    apply_lora(model, r=2, dropout=0.0)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
    ids = torch.randint(0, 32, (2, 9), generator=torch.Generator().manual_seed(2))
    for _ in range(2):
        opt.zero_grad()
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
    moved = [m for m in model.modules() if isinstance(m, LoRALinear)]
    assert all(torch.count_nonzero(m.B) > 0 for m in moved)
    params = dict(model.named_parameters())
    for n, w in frozen.items():
        key = n.replace("q_proj.weight", "q_proj.base.weight").replace(
            "v_proj.weight", "v_proj.base.weight"
        )
        assert_close(params[key], w, atol=0)
