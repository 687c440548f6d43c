"""simple_global_attention against the naive N x N formula, and the mask semantics."""

import pytest
import sgformer as S
import torch


def naive(q, k, v, normalize):
    """The all-pair matrix written out entry by entry (float64): A = D^-1 (I + Q~ K~^T / N)."""
    N, H, _ = q.shape
    if normalize == "frobenius":
        qt, kt = q / torch.sqrt((q**2).sum()), k / torch.sqrt((k**2).sum())
    else:
        qt = q / torch.sqrt((q**2).sum(-1, keepdim=True))
        kt = k / torch.sqrt((k**2).sum(-1, keepdim=True))
    out = torch.zeros(N, H, v.shape[-1], dtype=torch.float64)
    for h in range(H):
        M = torch.eye(N, dtype=torch.float64) + qt[:, h] @ kt[:, h].T / N
        A = M / M.sum(1, keepdim=True)
        out[:, h] = A @ v[:, h]
    return out


@pytest.mark.parametrize("normalize", ["frobenius", "row"])
@pytest.mark.parametrize("H", [1, 2])
def test_linear_attention_equals_naive_formula(normalize, H):
    g = torch.Generator().manual_seed(H)
    q = torch.randn(300, H, 16, generator=g, dtype=torch.float64)
    k = torch.randn(300, H, 16, generator=g, dtype=torch.float64) + 0.3
    v = torch.randn(300, H, 7, generator=g, dtype=torch.float64)
    out = S.simple_global_attention(q, k, v, normalize=normalize)
    assert out.shape == (300, H, 7) and out.dtype == torch.float64
    torch.testing.assert_close(out, naive(q, k, v, normalize), atol=1e-10, rtol=0)
    ref, A = S.dense_reference_attention(q, k, v, normalize=normalize)
    torch.testing.assert_close(out, ref, atol=1e-10, rtol=0)
    torch.testing.assert_close(
        A.sum(-1), torch.ones(H, 300, dtype=torch.float64), atol=1e-12, rtol=0
    )


def test_frobenius_and_row_differ():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(40, 1, 4, generator=g, dtype=torch.float64) for _ in range(3))
    a = S.simple_global_attention(q, k, v)
    b = S.simple_global_attention(q, k, v, normalize="row")
    assert (a - b).abs().max() > 1e-3


def test_frobenius_global_weight_is_at_most_one_over_sqrt_n():
    # |q~_n . k~_l| <= |q~_n||k~_l| and sum_l |k~_l| <= sqrt(N): the global part of row n
    # weighs sum_l |A_nl| for l != n  <= (1/N) * sqrt(N) * |q~_n|  / (1 - ...) , tiny for big N
    g = torch.Generator().manual_seed(1)
    N = 400
    q, k, v = (torch.randn(N, 1, 8, generator=g, dtype=torch.float64) for _ in range(3))
    _, A = S.dense_reference_attention(q, k, v)
    off = A[0] - torch.diag(torch.diagonal(A[0]))
    assert float(off.abs().sum(1).max()) <= 1.0 / N**0.5


def test_float32_close_to_float64():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(500, 2, 8, generator=g, dtype=torch.float64) for _ in range(3))
    out32 = S.simple_global_attention(q.float(), k.float(), v.float(), normalize="row")
    torch.testing.assert_close(out32.double(), naive(q, k, v, "row"), atol=1e-5, rtol=0)


@pytest.mark.parametrize("normalize", ["frobenius", "row"])
def test_mask_equals_each_graph_alone(normalize):
    torch.manual_seed(0)
    layer = S.SimpleGlobalAttention(6, 5, heads=2, normalize=normalize).double()
    sizes = [7, 3, 10]
    x = torch.randn(3, 10, 6, dtype=torch.float64)
    mask = torch.zeros(3, 10, dtype=torch.bool)
    for b, n in enumerate(sizes):
        mask[b, :n] = True
    x_padded = x.clone()
    x_padded[~mask] = 1e3  # garbage in the padding must not leak into any graph
    out = layer(x_padded, mask)
    assert out.shape == (3, 10, 5)
    for b, n in enumerate(sizes):
        alone = layer(x[b, :n])
        torch.testing.assert_close(out[b, :n], alone, atol=1e-12, rtol=0)
        assert bool((out[b, n:] == 0).all())


def test_module_matches_functional_with_mean_over_heads():
    torch.manual_seed(1)
    layer = S.SimpleGlobalAttention(4, 3, heads=2).double()
    x = torch.randn(20, 4, dtype=torch.float64)
    q = layer.Wq(x).view(20, 2, 3)
    k = layer.Wk(x).view(20, 2, 3)
    v = layer.Wv(x).view(20, 2, 3)
    torch.testing.assert_close(layer(x), naive(q, k, v, "frobenius").mean(1))
    torch.testing.assert_close(layer(x[None])[0], layer(x))


def test_permutation_equivariance():
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(50, 2, 4, generator=g) for _ in range(3))
    p = torch.randperm(50, generator=g)
    out = S.simple_global_attention(q, k, v)
    torch.testing.assert_close(
        S.simple_global_attention(q[p], k[p], v[p]), out[p], atol=1e-6, rtol=0
    )


def test_linear_path_builds_no_n_by_n_tensor():
    # N = 200k: an N x N float32 matrix would need 160 GB; the linear path must just run
    N = 200_000
    q = torch.randn(N, 1, 8)
    out = S.simple_global_attention(q, q, q[..., :4])
    assert out.shape == (N, 1, 4) and bool(torch.isfinite(out).all())


def test_softmax_attention_rows():
    g = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(30, 1, 4, generator=g, dtype=torch.float64) for _ in range(3))
    S_ = (q[:, 0] @ k[:, 0].T / 2.0).softmax(-1)
    torch.testing.assert_close(S.softmax_attention(q, k, v)[:, 0], S_ @ v[:, 0])
