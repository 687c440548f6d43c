"""WTALinear against nn.Linear, the row selection's unbiasedness, and saved bytes measured with
torch.autograd.graph.saved_tensors_hooks."""

import numpy as np
import pytest
import torch
from torch import nn
from wta_crs import (
    GradNormCache,
    WTALinear,
    convert_linear_layers,
    saved_activation_bytes,
    select_rows,
)


def assert_close(actual, expected, *, atol, rtol=0.0):
    """|actual - expected| <= atol + rtol |expected| (torch.testing's import is slow)."""
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    gap = (actual - expected).abs() - rtol * expected.abs()
    worst = float(gap.detach().max())
    assert worst <= atol, worst


def pair(d_in=16, d_out=8, bias=True, seed=0, **kw):
    torch.manual_seed(seed)
    dense = nn.Linear(d_in, d_out, bias=bias).double()
    wta = WTALinear.from_linear(dense, **kw)
    return dense, wta


def grads(layer, x, g):
    layer.zero_grad()
    x = x.clone().requires_grad_(True)
    y = layer(x)
    (y * g).sum().backward()  # = y.backward(g), without its slow DTensor import
    return (
        y.detach(),
        x.grad,
        layer.weight.grad.clone(),
        (None if layer.bias is None else layer.bias.grad.clone()),
    )


def heavy_input(shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=gen, dtype=torch.float64)
    return x * torch.exp(torch.randn(*shape[:-1], 1, generator=gen, dtype=torch.float64))


@pytest.mark.parametrize("bias", [True, False])
def test_output_input_grad_and_bias_grad_equal_nn_linear(bias):
    dense, wta = pair(bias=bias, ratio=0.3, generator=torch.Generator().manual_seed(1))
    x = heavy_input((4, 25, 16))
    g = torch.randn(4, 25, 8, dtype=torch.float64)
    y0, gx0, gw0, gb0 = grads(dense, x, g)
    y1, gx1, gw1, gb1 = grads(wta, x, g)
    assert_close(y1, y0, atol=1e-6, rtol=0)
    assert_close(gx1, gx0, atol=1e-6, rtol=0)
    if bias:
        assert_close(gb1, gb0, atol=1e-6, rtol=0)
    assert not torch.allclose(gw1, gw0)  # ∇W is an estimate (k = 30 of 100 rows)


def test_weight_grad_is_the_sum_over_the_selected_rows():
    gen_seed = 3
    dense, wta = pair(ratio=0.3, generator=torch.Generator().manual_seed(gen_seed))
    x = heavy_input((100, 16))
    g = torch.randn(100, 8, dtype=torch.float64)
    _, _, gw, _ = grads(wta, x, g)
    # redo the selection with the same generator state: an independent sum over the rows
    rows, scales = select_rows(
        torch.linalg.vector_norm(x.float(), dim=1),
        30,
        generator=torch.Generator().manual_seed(gen_seed),
    )
    expected = sum(s * torch.outer(g[i], x[i]) for i, s in zip(rows.tolist(), scales.tolist()))
    assert_close(gw, expected, atol=1e-9, rtol=1e-6)


def test_weight_grad_is_unbiased():
    # mean of 600 ∇W draws within 4.5 standard errors of the exact ∇W in every entry
    dense, wta = pair(
        d_in=3, d_out=2, ratio=0.3, min_k=2, generator=torch.Generator().manual_seed(0)
    )
    x = heavy_input((40, 3), seed=2)
    g = torch.randn(40, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    exact = g.T @ x
    draws = torch.stack([grads(wta, x, g)[2] for _ in range(600)])
    se = draws.std(0) / np.sqrt(len(draws))
    z = ((draws.mean(0) - exact).abs() / se).max()
    assert z < 4.5, z


def test_selection_scales_have_mean_one():
    # E[s_i] = 1 for every row with p_i > 0 <=> Σ s_i g_i x_iᵀ unbiased for every G
    w = torch.exp(torch.randn(30, generator=torch.Generator().manual_seed(0)))
    gen = torch.Generator().manual_seed(1)
    total = torch.zeros(30, dtype=torch.float64)
    sq = torch.zeros(30, dtype=torch.float64)
    n = 1500
    for _ in range(n):
        rows, scales = select_rows(w, 8, generator=gen)
        s = torch.zeros(30, dtype=torch.float64)
        s[rows] = scales.double()
        total += s
        sq += s**2
    mean = total / n
    se = ((sq / n - mean**2).clamp_min(1e-30) / n).sqrt()
    winners = se < 1e-12  # kept with scale exactly 1
    assert winners.any() and torch.all(mean[winners] == 1.0)
    z = ((mean[~winners] - 1) / se[~winners]).abs().max()
    assert z < 4.5, z


def test_selection_keeps_at_most_k_rows_and_fixed_fraction():
    w = torch.rand(50, generator=torch.Generator().manual_seed(0)) + 0.1
    rows, scales = select_rows(w, 10, num_deterministic=0.5, generator=torch.Generator())
    assert len(rows) <= 10 and torch.all(rows[1:] > rows[:-1])
    top5 = set(torch.topk(w, 5).indices.tolist())
    assert top5 <= set(rows.tolist())


def test_eval_and_no_grad_are_f_linear():
    dense, wta = pair(ratio=0.3)
    x = heavy_input((50, 16))
    wta.eval()
    assert_close(wta(x), dense(x), atol=0, rtol=0)
    wta.train()
    with torch.no_grad():
        assert_close(wta(x), dense(x), atol=0, rtol=0)
    dense.eval()
    g = torch.randn(50, 8, dtype=torch.float64)
    assert torch.equal(grads(wta.eval(), x, g)[2], grads(dense, x, g)[2])


def test_ratio_one_is_exact_backprop():
    dense, wta = pair(ratio=1.0)
    x = heavy_input((3, 20, 16))
    g = torch.randn(3, 20, 8, dtype=torch.float64)
    assert_close(grads(wta, x, g)[2], grads(dense, x, g)[2], atol=1e-12, rtol=0)


def test_small_batches_use_min_k_and_fall_back_to_exact():
    dense, wta = pair(ratio=0.3, min_k=10)
    x = heavy_input((8, 16))  # n = 8 < min_k: k = n, exact
    g = torch.randn(8, 8, dtype=torch.float64)
    assert_close(grads(wta, x, g)[2], grads(dense, x, g)[2], atol=1e-12, rtol=0)


def measured_bytes(layer, x):
    """Independent count: bytes of the storages packed for backward, the layer's own aside."""
    params = {p.untyped_storage().data_ptr() for p in layer.parameters()}
    sizes = {}

    def pack(t):
        sizes[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        layer(x)
    return sum(v for k, v in sizes.items() if k not in params)


def test_saved_bytes_are_the_kept_rows():
    torch.manual_seed(0)
    dense = nn.Linear(64, 32)
    wta = WTALinear.from_linear(dense, ratio=0.3)
    x = torch.randn(4, 100, 64, requires_grad=True)
    dense_bytes = measured_bytes(dense, x)
    wta.generator = torch.Generator().manual_seed(0)
    wta_bytes = measured_bytes(wta, x)
    assert dense_bytes == 400 * 64 * 4
    # k = 120 rows at most, with an int64 index and a float32 scale each
    assert wta_bytes <= 120 * (64 * 4 + 8 + 4)
    assert wta_bytes <= 0.4 * dense_bytes
    wta.generator = torch.Generator().manual_seed(0)  # the same draw again
    assert saved_activation_bytes(wta, x) == wta_bytes
    assert saved_activation_bytes(dense, x) == dense_bytes


def test_frozen_weight_saves_no_rows():
    dense = nn.Linear(64, 32)
    dense.weight.requires_grad_(False)
    wta = WTALinear.from_linear(dense, ratio=0.3)
    x = torch.randn(200, 64, requires_grad=True)
    assert measured_bytes(wta, x) == 0
    y = wta(x)
    y.sum().backward()
    assert x.grad is not None and wta.bias.grad is not None


def test_from_linear_shares_parameters():
    dense = nn.Linear(5, 3)
    wta = WTALinear.from_linear(dense, ratio=0.5, min_k=2)
    assert wta.weight is dense.weight and wta.bias is dense.bias
    assert (wta.ratio, wta.min_k) == (0.5, 2)
    assert isinstance(wta, nn.Linear)


def test_constructor_matches_nn_linear_shapes():
    layer = WTALinear(7, 3, bias=False, ratio=0.2, min_k=4)
    assert layer.weight.shape == (3, 7) and layer.bias is None
    assert layer.ratio == 0.2 and layer.min_k == 4


def test_grad_norm_cache_stores_and_uses_stale_norms():
    torch.manual_seed(0)
    cache = GradNormCache()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    convert_linear_layers(model, ratio=0.5, min_k=1, grad_cache=cache)
    x = torch.randn(3, 10, 8)
    g = torch.randn(3, 10, 4)
    with cache.examples([5, 7, 9]):
        (model(x) * g).sum().backward()
    assert len(cache) == 6  # 2 layers x 3 examples
    stored = cache._store[("2", 7)].float()
    assert_close(stored, g[1].norm(dim=-1), rtol=1e-2, atol=1e-2)
    # second visit: p ∝ ‖x‖·‖g_old‖, so a token whose old gradient was huge is a winner
    cache._store[("2", 5)] = torch.full((10,), 1e-3).bfloat16()
    cache._store[("2", 5)][3] = 1e6
    layer = model[2]
    seen = {}

    def spy(weights, k):
        seen["w"] = weights.clone()
        return select_rows(weights, k, generator=layer.generator)

    layer.select = spy
    with cache.examples([5, 7, 9]):
        (model(x) * g).sum().backward()
    assert int(torch.argmax(seen["w"])) == 3  # row (example 0, token 3)
    assert layer.cache_key == "2"


def test_cache_without_active_examples_is_unused():
    cache = GradNormCache()
    layer = WTALinear.from_linear(nn.Linear(4, 2), min_k=1)
    layer.grad_cache = cache
    layer(torch.randn(2, 5, 4)).sum().backward()
    assert len(cache) == 0


# importing transformers' model classes takes tens of seconds on a loaded 2-core machine
@pytest.mark.slow
def test_convert_linear_layers_regexes_on_tiny_llama():
    from papershelf_harness.tiny_hf import tiny_causal_lm

    model = tiny_causal_lm("llama", n_layers=2, seed=0)
    linear_names = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    ids = torch.randint(
        0, model.config.vocab_size, (2, 12), generator=torch.Generator().manual_seed(0)
    )
    model.eval()
    before = model(ids).logits
    convert_linear_layers(model, ratio=0.3, min_k=4)
    converted = [n for n, m in model.named_modules() if isinstance(m, WTALinear)]
    assert set(converted) == {n for n in linear_names if "lm_head" not in n}
    assert not isinstance(model.lm_head, WTALinear)
    assert_close(model(ids).logits, before, atol=0, rtol=0)
    model.train()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)

    m2 = tiny_causal_lm("llama", n_layers=2, seed=0)
    convert_linear_layers(m2, include=r"mlp\.", exclude=r"down_proj")
    names = {n for n, m in m2.named_modules() if isinstance(m, WTALinear)}
    assert names and all("mlp" in n and "down_proj" not in n for n in names)


@pytest.mark.slow
def test_converted_model_saves_fewer_bytes():
    from papershelf_harness.tiny_hf import tiny_causal_lm

    model = tiny_causal_lm("qwen2", n_layers=2, seed=0).train()
    ids = torch.randint(
        0, model.config.vocab_size, (4, 64), generator=torch.Generator().manual_seed(0)
    )
    dense = saved_activation_bytes(model, {"input_ids": ids})
    convert_linear_layers(model, ratio=0.3)
    sparse = saved_activation_bytes(model, {"input_ids": ids})
    assert 0 < sparse < dense


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.ModuleDict({"q_proj": nn.Linear(8, 8), "o_proj": nn.Linear(8, 8)})
        self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))
        self.lm_head = nn.Linear(8, 5, bias=False)

    def forward(self, x):
        h = x + self.attn["o_proj"](torch.tanh(self.attn["q_proj"](x)))
        return self.lm_head(h + self.mlp(h))


def test_convert_linear_layers_in_place_with_regexes():
    model = Tiny()
    weights = {n: p for n, p in model.named_parameters()}
    out = convert_linear_layers(model, ratio=0.25, min_k=3)
    assert out is model
    converted = {n for n, m in model.named_modules() if isinstance(m, WTALinear)}
    assert converted == {"attn.q_proj", "attn.o_proj", "mlp.0", "mlp.2"}
    assert all(model.get_submodule(n).ratio == 0.25 for n in converted)
    assert all(p is weights[n] for n, p in model.named_parameters())  # same Parameters
    only = convert_linear_layers(Tiny(), include=r"^attn\.", exclude=r"o_proj")
    assert {n for n, m in only.named_modules() if isinstance(m, WTALinear)} == {"attn.q_proj"}
    every = convert_linear_layers(Tiny(), exclude=None)
    assert isinstance(every.lm_head, WTALinear)
    x = torch.randn(6, 10, 8)
    model.eval()
    ref = Tiny()
    ref.load_state_dict(model.state_dict())
    assert_close(model(x), ref.eval()(x), atol=0, rtol=0)
