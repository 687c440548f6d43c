"""The EWC-LoRA penalty, the full EWC penalty and the diagonal Fisher against explicit formulas,
closed forms and per-sample brute force."""

import pytest
import torch
import torch.nn.functional as F
from conftest import randomize_lora
from ewc_lora import (
    LoRALinear,
    apply_lora,
    estimate_fisher_diag,
    ewc_full_penalty,
    ewc_lora_penalty,
    merge_lora,
)
from torch import nn

from papershelf_harness.testing import assert_close, assert_rejects


def _fisher_like(model, seed=0):
    g = torch.Generator().manual_seed(seed)
    return {n: torch.rand(p.shape, generator=g) for n, p in model.named_parameters()}


def test_penalty_is_zero_at_init_and_matches_full_ewc_on_merged_weights(tiny):
    model, targets = tiny
    fisher = _fisher_like(model)
    theta0 = {n: p.detach().clone() for n, p in model.named_parameters()}
    apply_lora(model, target_modules=targets, r=4, alpha=8)
    assert float(ewc_lora_penalty(model, fisher, lam=2.0).detach()) == 0.0  # B = 0
    randomize_lora(model)
    pen = ewc_lora_penalty(model, fisher, lam=2.0)
    assert pen > 0
    # the same model seen as full weights base + delta (no merge) ...
    assert_close(ewc_full_penalty(model, fisher, theta0, lam=2.0), pen, rtol=1e-6)
    merge_lora(model)
    # ... and the merged model: sum over every parameter of F (theta - theta0)^2, written out
    params = dict(model.named_parameters())
    reference = 2.0 * sum(
        (fisher[n].double() * (params[n].double() - theta0[n].double()) ** 2).sum() for n in fisher
    )
    assert_close(ewc_full_penalty(model, fisher, theta0, lam=2.0), reference, rtol=1e-6)
    assert_close(pen.double(), reference, rtol=1e-6)


def test_penalty_gradient_matches_the_written_out_formula():
    base = nn.Linear(5, 4)
    layer = LoRALinear(base, r=2, alpha=6, dropout=0.0)
    model = nn.Sequential(layer)
    with torch.no_grad():
        layer.B.normal_()
    f = torch.rand(4, 5)
    pen = ewc_lora_penalty(model, {"0.weight": f}, lam=0.7)
    ga, gb = torch.autograd.grad(pen, [layer.A, layer.B])
    # closed form: P = lam * sum F * (s B A)^2 -> dP/dB = 2 lam s^2 (F * BA) A^T, dP/dA = 2 lam s^2 B^T (F * BA)
    s, lam = 3.0, 0.7
    ba = (layer.B @ layer.A).detach()
    assert_close(gb, 2 * lam * s**2 * (f * ba) @ layer.A.detach().T, rtol=1e-5)
    assert_close(ga, 2 * lam * s**2 * layer.B.detach().T @ (f * ba), rtol=1e-5)


def test_penalty_errors_name_fisher():
    model = nn.Sequential(LoRALinear(nn.Linear(3, 2), r=1))
    assert_rejects(
        ValueError, "fisher", ewc_lora_penalty, model, {"other.weight": torch.ones(2, 3)}
    )
    assert_rejects(ValueError, "fisher", ewc_lora_penalty, model, {"0.weight": torch.ones(3, 2)})
    assert_rejects(ValueError, "fisher", ewc_lora_penalty, model, {"0.weight": -torch.ones(2, 3)})
    assert_rejects(TypeError, "fisher", ewc_lora_penalty, model, [torch.ones(2, 3)])
    assert_rejects(TypeError, "fisher", ewc_lora_penalty, model, {"0.weight": "x"})
    assert_rejects(
        ValueError, "lam", ewc_lora_penalty, model, {"0.weight": torch.ones(2, 3)}, lam=-1
    )
    assert_rejects(
        ValueError, "model", ewc_lora_penalty, nn.Linear(2, 2), {"weight": torch.ones(2, 2)}
    )
    theta0 = {"0.weight": torch.ones(2, 3)}
    assert_rejects(ValueError, "theta0", ewc_full_penalty, model, {"0.bias": torch.ones(2)}, theta0)
    assert_rejects(
        ValueError, "fisher", ewc_full_penalty, model, {"1.weight": torch.ones(2)}, theta0
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fisher_of_linear_softmax_is_the_closed_form(dtype):
    torch.manual_seed(0)
    model = nn.Linear(4, 3).to(dtype)
    xs, ys = torch.randn(10, 4, dtype=dtype), torch.randint(0, 3, (10,))
    fisher = estimate_fisher_diag(
        model,
        list(zip(xs, ys, strict=True)),
        loss_fn=lambda m, item: F.cross_entropy(m(item[0])[None], item[1][None]),
    )
    # d CE / d W = (softmax(Wx + b) - e_y) x^T, d / d b = softmax - e_y
    with torch.no_grad():
        r = torch.softmax(model(xs), dim=-1) - F.one_hot(ys, 3)
    assert set(fisher) == {"weight", "bias"}
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    assert fisher["weight"].dtype == dtype
    assert_close(fisher["weight"], (r[:, :, None] * xs[:, None, :]).pow(2).mean(0), rtol=rtol)
    assert_close(fisher["bias"], r.pow(2).mean(0), rtol=rtol)
    assert all(bool((f >= 0).all()) for f in fisher.values())
    assert model.weight.grad is None  # .grad untouched


def test_default_lm_fisher_matches_per_sample_hf_loss(tiny):
    model, _ = tiny
    g = torch.Generator().manual_seed(0)
    samples = [torch.randint(0, 32, (n,), generator=g) for n in (5, 8, 3)]
    fisher = estimate_fisher_diag(model, samples)
    names = [n for n, _ in model.named_parameters()]
    assert list(fisher) == names
    total = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
    for ids in samples:  # brute force: HF's own shifted LM loss, one sample at a time
        model.zero_grad()
        model(input_ids=ids[None], labels=ids[None]).loss.backward()
        for n, p in model.named_parameters():
            total[n] += p.grad**2
    for n in names:
        assert_close(fisher[n], total[n] / 3, rtol=1e-4, atol=1e-10)
    # a dict item with labels -100 on a prefix is the loss on the rest only
    ids = samples[1]
    labels = ids.clone()
    labels[:4] = -100
    item = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
    one = estimate_fisher_diag(model, [item])
    model.zero_grad()
    model(input_ids=ids[None], labels=labels[None]).loss.backward()
    name = names[-1]
    assert_close(one[name], dict(model.named_parameters())[name].grad ** 2, rtol=1e-4, atol=1e-10)


class _Bigram(nn.Module):
    def __init__(self, vocab=5, dim=3):
        super().__init__()
        torch.manual_seed(1)
        self.emb = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        with torch.no_grad():
            self.head.weight.mul_(3)

    def forward(self, input_ids, attention_mask=None):
        return self.head(self.emb(input_ids))


def test_true_fisher_converges_to_the_model_expectation():
    model = _Bigram()
    ids = torch.tensor([2, 0])  # context 2, one target
    n = 600
    fisher = estimate_fisher_diag(
        model, [ids] * n, empirical=False, generator=torch.Generator().manual_seed(0)
    )
    with torch.no_grad():
        h = model.emb.weight[2]
        p = torch.softmax(model.head(h), -1)
        per_y = torch.stack(
            [((p - F.one_hot(torch.tensor(y), 5))[:, None] * h) ** 2 for y in range(5)]
        )
        exact = (p[:, None, None] * per_y).sum(0)
        var = (p[:, None, None] * (per_y - exact) ** 2).sum(0)
    tol = 5 * (var / n).sqrt() + 1e-6  # five standard errors per entry
    assert bool(((fisher["head.weight"] - exact).abs() <= tol).all())
    empirical = estimate_fisher_diag(model, [ids])
    assert not torch.allclose(empirical["head.weight"], exact, rtol=0.1)


def test_fisher_errors():
    model = _Bigram()
    assert_rejects(ValueError, "samples", estimate_fisher_diag, model, [])
    assert_rejects(ValueError, "samples", estimate_fisher_diag, model, [torch.tensor([1])])
    assert_rejects(ValueError, "samples", estimate_fisher_diag, model, [torch.tensor([1, 9])])
    assert_rejects(ValueError, "samples", estimate_fisher_diag, model, [torch.zeros(2, 3).long()])
    assert_rejects(TypeError, "samples", estimate_fisher_diag, model, [torch.tensor([0.5, 1.0])])
    assert_rejects(TypeError, "samples", estimate_fisher_diag, model, 3)
    assert_rejects(TypeError, "loss_fn", estimate_fisher_diag, model, [[0, 1]], loss_fn=3)
    assert_rejects(TypeError, "empirical", estimate_fisher_diag, model, [[0, 1]], empirical=1)
    assert_rejects(TypeError, "generator", estimate_fisher_diag, model, [[0, 1]], generator=0)
    bad = dict(loss_fn=lambda m, i: m(torch.tensor(i)).sum(), empirical=False)
    assert_rejects(ValueError, "empirical", estimate_fisher_diag, model, [[0, 1]], **bad)
    vec = dict(loss_fn=lambda m, i: m(torch.tensor(i)).sum(0))
    assert_rejects(ValueError, "loss_fn", estimate_fisher_diag, model, [[0, 1]], **vec)
    for p in model.parameters():
        p.requires_grad_(False)
    assert_rejects(ValueError, "model", estimate_fisher_diag, model, [[0, 1]])


def test_a_bare_lora_layer_is_a_model_too():
    layer = LoRALinear(nn.Linear(3, 2), r=1, dropout=0.0)
    with torch.no_grad():
        layer.B.fill_(1.0)
    f = {"weight": torch.ones(2, 3), "bias": torch.ones(2)}
    theta0 = {
        "weight": layer.base.weight.detach().clone(),
        "bias": layer.base.bias.detach().clone(),
    }
    expected = (layer.delta_weight() ** 2).sum()
    assert_close(ewc_lora_penalty(layer, f), expected, rtol=1e-6)
    assert_close(ewc_full_penalty(layer, f, theta0), expected, rtol=1e-6)
