"""MSSA and SubspaceTransformer against naive per-head loops written from the formulas."""

import math

import depict_seg as ds
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def naive_mssa(x, U, eta, heads, dim_head, query=None):
    """eta * concat_h(softmax(Q_h W_h^T / sqrt(d_h)) W_h) U, one head and one batch item at a time."""
    x = x.double().numpy()
    U = U.detach().double().numpy()
    q_in = x if query is None else query.double().numpy()
    out = np.zeros((x.shape[0], q_in.shape[1], U.shape[1]))
    for b in range(x.shape[0]):
        parts = []
        for k in range(heads):
            Uk = U[k * dim_head : (k + 1) * dim_head]  # head-major rows of U
            Wk = x[b] @ Uk.T
            Qk = q_in[b] @ Uk.T
            s = Qk @ Wk.T / math.sqrt(dim_head)
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            parts.append(a @ Wk)
        out[b] = float(eta) * np.concatenate(parts, axis=1) @ U
    return out


def layer_norm(t):
    return torch.nn.functional.layer_norm(t, t.shape[-1:])


@pytest.mark.parametrize("heads,dim_head,dim", [(1, 4, 6), (3, 5, 8), (4, 2, 3)])
def test_mssa_matches_a_naive_per_head_loop(heads, dim_head, dim):
    torch.manual_seed(heads)
    m = ds.MSSA(dim, heads=heads, dim_head=dim_head).double()
    x = torch.randn(2, 7, dim, dtype=torch.float64)
    q = torch.randn(2, 3, dim, dtype=torch.float64)
    eta = m.step_size.item()
    assert_close(m(x), naive_mssa(x, m.proj, eta, heads, dim_head), rtol=1e-10, atol=1e-12)
    cross = m(x, query=q)
    assert cross.shape == (2, 3, dim)
    assert_close(cross, naive_mssa(x, m.proj, eta, heads, dim_head, q), rtol=1e-10, atol=1e-12)


def test_mssa_parameters_and_init():
    torch.manual_seed(0)
    m = ds.MSSA(400, heads=3, dim_head=100)
    assert dict(m.named_parameters()).keys() == {"proj", "step_size"}
    assert m.proj.shape == (300, 400) and m.step_size.shape == (1,)
    # U = d^{-1/2} N(0, 1): entries with variance 1/d (120 000 draws, 4 standard errors)
    var = m.proj.detach().double().var().item() * 400
    assert abs(var - 1) < 4 * math.sqrt(2 / 120_000)


def test_mssa_update_lies_in_the_row_space_of_U():
    torch.manual_seed(1)
    m = ds.MSSA(32, heads=2, dim_head=4).double()  # rank(U) = 8 < 32
    x = torch.randn(3, 10, 32, dtype=torch.float64)
    for delta in (m(x), m(x, query=torch.randn(3, 5, 32, dtype=torch.float64))):
        U = m.proj.detach()
        proj_rows = delta @ torch.linalg.pinv(U) @ U
        rel = (delta - proj_rows).norm() / delta.norm()
        assert rel < 1e-10
    # an unconstrained update would not: a random direction keeps most of its norm outside
    r = torch.randn(3, 10, 32, dtype=torch.float64)
    assert ((r - r @ torch.linalg.pinv(U) @ U).norm() / r.norm()) > 0.5


def test_mssa_step_size_scales_the_update():
    torch.manual_seed(2)
    m = ds.MSSA(6, heads=2, dim_head=3)
    x = torch.randn(1, 5, 6)
    y1 = m(x)
    with torch.no_grad():
        m.step_size.mul_(-2.5)
    assert_close(m(x), -2.5 * y1, rtol=1e-5, atol=1e-6)


def test_subspace_transformer_is_prenorm_residual_mssa():
    torch.manual_seed(3)
    net = ds.SubspaceTransformer(8, 3, heads=2, dim_head=3).double()
    with torch.no_grad():  # non-trivial LayerNorm affine so that LN placement matters
        for layer in net.layers:
            layer.norm.weight.uniform_(0.5, 1.5)
            layer.norm.bias.normal_()
    x = torch.randn(2, 6, 8, dtype=torch.float64)
    q = torch.randn(2, 4, 8, dtype=torch.float64)
    ref_x, ref_q = x.clone(), q.clone()
    for layer in net.layers:
        ln = layer.norm
        ref_x = ref_x + layer.attn(ln(ref_x))
        # cross mode: LN on the image tokens only, the query un-normalised
        ref_q = ref_q + layer.attn(ln(x), query=ref_q)
    assert_close(net(x), ref_x, rtol=1e-12)
    assert_close(net(x, query=q), ref_q, rtol=1e-12)
    # the reference would fail for LN on the query: that gives a different update
    first = net.layers[0]
    wrong = q + first.attn(first.norm(x), query=first.norm(q))
    assert not torch.allclose(wrong, q + first.attn(first.norm(x), query=q))


def test_dropout_only_in_training():
    torch.manual_seed(4)
    m = ds.MSSA(8, heads=2, dim_head=4, dropout=0.5)
    x = torch.randn(1, 6, 8)
    m.eval()
    assert_close(m(x), m(x))
    m.train()
    assert not torch.allclose(m(x), m(x))
