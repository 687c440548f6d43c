"""ProjectedLinear against y = W(PPᵀx)+b; svd_linear / whitened_svd against least squares."""

import numpy as np
import pytest
import torch
from espace import (
    LowRankLinear,
    ProjectedLinear,
    apply_espace,
    projection_from_stats,
    random_projection,
    svd_linear,
    whitened_svd,
)
from torch import nn


def _linear(K=12, N=9, bias=True, seed=0):
    torch.manual_seed(seed)
    return nn.Linear(K, N, bias=bias)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("mode", ["train", "inference"])
def test_output_is_w_p_pt_x_plus_b(mode, bias):
    lin = _linear(bias=bias)
    P = random_projection(12, 5, generator=torch.Generator().manual_seed(1))
    layer = ProjectedLinear.from_linear(lin, P, mode=mode)
    x = torch.randn(3, 4, 12, generator=torch.Generator().manual_seed(2))
    W, b = lin.weight.double(), lin.bias
    ref = x.double() @ (P.double() @ P.double().T) @ W.T
    if bias:
        ref = ref + b.double()
    torch.testing.assert_close(layer(x).double(), ref, atol=1e-5, rtol=1e-5)
    assert layer.mode == mode
    assert layer.weight.shape == ((9, 12) if mode == "train" else (9, 5))
    assert torch.equal(layer.projection, P) and layer.P is layer.projection


def test_full_rank_reproduces_the_layer():
    lin = _linear()
    P = random_projection(12, 12, generator=torch.Generator().manual_seed(0))
    x = torch.randn(7, 12)
    for mode in ("train", "inference"):
        out = ProjectedLinear.from_linear(lin, P, mode=mode)(x)
        assert (out - lin(x)).norm() / lin(x).norm() < 1e-6


def test_train_and_inference_agree_and_to_inference():
    lin = _linear()
    P = random_projection(12, 4, generator=torch.Generator().manual_seed(3))
    layer = ProjectedLinear.from_linear(lin, P)
    x = torch.randn(5, 12)
    y_train = layer(x)
    assert layer.to_inference() is layer and layer.mode == "inference"
    torch.testing.assert_close(layer(x), y_train, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(layer.weight, lin.weight @ P, atol=1e-6, rtol=1e-6)
    assert layer.to_inference() is layer  # idempotent


def test_train_mode_gradients_reach_w_not_p():
    lin = _linear()
    P = random_projection(12, 4, generator=torch.Generator().manual_seed(3))
    layer = ProjectedLinear.from_linear(lin, P, mode="train")
    names = {n for n, p in layer.named_parameters() if p.requires_grad}
    assert names == {"weight", "bias"}
    assert "projection" in dict(layer.named_buffers())
    x = torch.randn(5, 12)
    layer(x).square().sum().backward()
    assert layer.weight.grad is not None and layer.weight.grad.abs().sum() > 0
    # dL/dW = G (P P^T x)^T: zero on the directions orthogonal to P
    Q = torch.linalg.qr(torch.cat([P, torch.randn(12, 8)], 1))[0][:, 4:]
    assert (layer.weight.grad @ Q).abs().max() < 1e-5
    before = P.clone()
    torch.optim.SGD(layer.parameters(), lr=0.1).step()
    assert torch.equal(layer.projection, before)
    assert not torch.equal(layer.weight.detach(), lin.weight.detach())
    assert not torch.equal(lin.weight.detach(), layer.weight.detach())  # a copy, not shared


@pytest.mark.parametrize("bias", [True, False])
def test_num_parameters_formula(bias):
    lin = _linear(K=20, N=30, bias=bias)
    P = random_projection(20, 6)
    for mode in ("train", "inference"):
        layer = ProjectedLinear.from_linear(lin, P, mode=mode)
        assert layer.num_parameters() == 6 * (30 + 20) + (30 if bias else 0)
    inf = ProjectedLinear.from_linear(lin, P, mode="inference")
    stored = sum(p.numel() for p in inf.parameters()) + inf.projection.numel()
    assert stored == inf.num_parameters()


def test_apply_espace_replaces_named_layers():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 4))
    x = torch.randn(3, 8)
    P0 = random_projection(8, 3, generator=torch.Generator().manual_seed(0))
    ref = model[2](torch.relu(model[0](x @ P0 @ P0.T)))
    out_model = apply_espace(model, {"0": P0})
    assert out_model is model and isinstance(model[0], ProjectedLinear)
    assert model[0].mode == "inference" and isinstance(model[2], nn.Linear)
    torch.testing.assert_close(model(x), ref, atol=1e-5, rtol=1e-5)


def test_apply_espace_on_hf_llama_and_gpt2(ids):
    from papershelf_harness.tiny_hf import tiny_causal_lm

    for arch in ("llama", "gpt2", "qwen2"):
        model = tiny_causal_lm(arch, n_layers=1, seed=0, vocab=64)
        from espace import default_targets

        names = default_targets(model)
        modules = dict(model.named_modules())
        Ps = {}
        for n in names:
            K = modules[n].weight.shape[1 if isinstance(modules[n], nn.Linear) else 0]
            Ps[n] = random_projection(K, K)  # full rank: same function
        with torch.no_grad():
            ref = model(ids).logits
            apply_espace(model, Ps, mode="train")
            out = model(ids).logits
        assert all(isinstance(model.get_submodule(n), ProjectedLinear) for n in names)
        torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)


def _samples(K=10, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((K, K)) * (0.6 ** np.arange(K))
    return rng.standard_normal((n, K)) @ A.T


def test_whitened_svd_is_the_least_squares_optimum():
    K, N, L = 10, 7, 3
    X = _samples(K, n=1500)
    C = X.T @ X / len(X)
    torch.manual_seed(0)
    lin = nn.Linear(K, N, bias=False).double()
    W = lin.weight.detach().numpy()
    approx = whitened_svd(lin, torch.tensor(C), L)
    assert isinstance(approx, LowRankLinear) and approx.rank == L
    What = approx.weight.detach().numpy()
    assert np.linalg.matrix_rank(What, tol=1e-9) == L

    def err(M):
        return np.mean(np.sum((X @ (W - M).T) ** 2, axis=1))

    # brute force: rank-L least squares of Y = W x over factor pairs, by alternating LS
    Y = X @ W.T
    rng = np.random.default_rng(1)
    B = rng.standard_normal((L, K))
    for _ in range(200):
        Z = X @ B.T
        A = np.linalg.lstsq(Z, Y, rcond=None)[0].T  # (N, L)
        # update B: Y ~ X B^T A^T, normal equations (X^T X) B^T (A^T A) = X^T Y A
        Bt = np.linalg.solve(X.T @ X, X.T @ Y @ A) @ np.linalg.inv(A.T @ A)
        B = Bt.T
    best = err(A @ B)
    assert err(What) <= best * (1 + 1e-6)
    assert err(What) >= best * (1 - 1e-3)  # ALS reaches the same optimum
    # and it beats plain weight SVD and the ESPACE projection on these inputs
    plain = svd_linear(lin, L).weight.detach().numpy()
    P = projection_from_stats(torch.tensor(C), L).numpy()
    assert err(What) <= err(plain) and err(What) <= err(W @ P @ P.T)
    # closed form of the error: tr((W-Ŵ) C (W-Ŵ)^T)
    D = W - What
    assert np.isclose(np.trace(D @ C @ D.T), err(What), rtol=1e-8)


def test_whitened_svd_with_identity_is_plain_svd():
    torch.manual_seed(0)
    lin = nn.Linear(9, 6).double()
    a = whitened_svd(lin, torch.eye(9, dtype=torch.float64), 4).weight
    b = svd_linear(lin, 4).weight
    U, s, Vt = np.linalg.svd(lin.weight.detach().numpy())
    ref = U[:, :4] * s[:4] @ Vt[:4]
    np.testing.assert_allclose(a.detach().numpy(), ref, atol=1e-10)
    np.testing.assert_allclose(b.detach().numpy(), ref, atol=1e-10)


def test_whitened_svd_singular_covariance():
    # inputs live in a 3-d subspace: rank-3 whitened SVD has zero error on them
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((8, 3)))[0]
    X = rng.standard_normal((200, 3)) @ basis.T
    lin = nn.Linear(8, 5, bias=True).double()
    approx = whitened_svd(lin, torch.tensor(X.T @ X / 200), 3)
    x = torch.tensor(X)
    torch.testing.assert_close(approx(x), lin(x), atol=1e-9, rtol=1e-9)


def test_low_rank_keeps_bias_dtype_and_counts():
    lin = nn.Linear(10, 6)
    m = svd_linear(lin, 2)
    assert m.left.dtype == torch.float32 and torch.equal(m.bias, lin.bias)
    assert m.num_parameters() == 2 * 16 + 6
    x = torch.randn(4, 10)
    torch.testing.assert_close(m(x), x @ m.weight.T + lin.bias)


def test_conv1d_is_supported():
    from transformers.pytorch_utils import Conv1D

    conv = Conv1D(6, 10)  # nf=6 outputs, nx=10 inputs; weight (10, 6)
    nn.init.normal_(conv.weight)
    x = torch.randn(3, 10)
    P = random_projection(10, 4)
    layer = ProjectedLinear.from_linear(conv, P, mode="inference")
    torch.testing.assert_close(layer(x), conv(x @ P @ P.T), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(svd_linear(conv, 6)(x), conv(x), atol=1e-4, rtol=1e-4)
