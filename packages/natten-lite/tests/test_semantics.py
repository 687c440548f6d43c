"""Brief check list 1-3: NATTEN's window semantics against a brute-force oracle."""

import math
import random

import natten_lite
import pytest
import torch
from natten_lite import masks

from papershelf_kernels.neighborhood import neighbor_indices
from papershelf_kernels.neighborhood.testing import (
    assert_close,
    masked_attention,
    oracle_mask,
    random_problem,
)

NA = {1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}
MAXLEN = {1: 24, 2: 9, 3: 5}


def _qkv(shape, H=2, Hkv=2, D=8, B=2, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, *shape, H, D, generator=g, dtype=dtype)
    k = torch.randn(B, *shape, Hkv, D, generator=g, dtype=dtype)
    v = torch.randn(B, *shape, Hkv, D, generator=g, dtype=dtype)
    return q, k, v


def _reference_set(shape, ks, st, di, ca):
    idx, valid = neighbor_indices(shape, ks, st, di, ca)
    N = math.prod(shape)
    m = torch.zeros(N, N, dtype=torch.bool)
    rows = torch.arange(N)[:, None].expand_as(idx)
    m[rows[valid], idx[valid]] = True
    return m


@pytest.mark.parametrize("seed", range(30))
def test_random_sweep_masks_and_outputs(seed):
    rng = random.Random(seed)
    n = 1 + seed % 3
    shape, ks, st, di, ca = random_problem(rng, n, MAXLEN[n])
    oracle = oracle_mask(shape, ks, st, di, ca)
    # the helper mask and the reference's gathered neighbour set equal the oracle
    assert torch.equal(masks.dense_mask(shape, ks, stride=st, dilation=di, is_causal=ca), oracle)
    assert torch.equal(_reference_set(shape, ks, st, di, ca), oracle)
    counts = oracle.sum(1).view(*shape)
    coords = torch.stack(torch.meshgrid(*[torch.arange(L) for L in shape], indexing="ij"), -1)
    expect = torch.ones(shape, dtype=torch.long)
    for a in range(n):
        if not ca[a]:
            expect = expect * ks[a]
        elif st[a] == 1:
            expect = expect * torch.clamp(coords[..., a] // di[a] + 1, max=ks[a])
        else:
            expect = None
            break
    if expect is not None:  # non-causal: prod(k); causal, s=1: prod(min(i'+1, k))
        assert torch.equal(counts, expect)
    # every attended key is in the query's dilation group on every axis
    qi, kj = oracle.nonzero(as_tuple=True)
    for a in range(n):
        assert torch.equal(coords.view(-1, n)[qi, a] % di[a], coords.view(-1, n)[kj, a] % di[a])
    # outputs equal masked SDPA (fp64) for every CPU backend
    H, Hkv = 2, rng.choice([1, 2])
    q, k, v = _qkv(shape, H=H, Hkv=Hkv, seed=seed)
    want, want_lse = masked_attention(q, k, v, oracle)
    for backend in ("reference", "tiled", "dense", None):
        out, lse = NA[n](q, k, v, ks, st, di, ca, backend=backend, return_lse=True)
        assert_close(out, want, 1e-12, msg=f"{backend}")
        assert_close(lse, want_lse, 1e-12, msg=f"{backend} lse")


def test_border_rows_see_the_shifted_window():
    q, k, v = _qkv((7,), B=1, H=1, Hkv=1)
    m = masks.dense_mask((7,), 3)
    assert m[0].nonzero().flatten().tolist() == [0, 1, 2]
    assert m[6].nonzero().flatten().tolist() == [4, 5, 6]
    # a truncated-window implementation (SASA/Liger) would give query 0 only {0, 1}
    truncated = torch.zeros(7, 7, dtype=torch.bool)
    for i in range(7):
        truncated[i, max(0, i - 1) : i + 2] = True
    out = natten_lite.na1d(q, k, v, 3, backend="reference")
    assert_close(out, masked_attention(q, k, v, m)[0], 1e-12)
    assert (out - masked_attention(q, k, v, truncated)[0]).abs()[:, 0].max() > 1e-3


@pytest.mark.parametrize("k", [5, 6])
def test_interior_rows_odd_and_even_kernels(k):
    L, r = 20, k // 2
    m = masks.dense_mask((L,), k)
    for i in range(r, L - r):
        hi = i + r if k % 2 else i + r - 1
        assert m[i].nonzero().flatten().tolist() == list(range(i - r, hi + 1))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_full_kernel_is_self_attention(n):
    shape = (6,) * n if n < 3 else (3, 4, 3)
    q, k, v = _qkv(shape)
    want = masked_attention(q, k, v, None)[0]
    for backend in (None, "reference", "tiled"):
        assert_close(NA[n](q, k, v, shape, backend=backend), want, 1e-12)


def test_1d_causal_full_kernel_is_causal_attention():
    q, k, v = _qkv((9,))
    want = masked_attention(q, k, v, torch.ones(9, 9, dtype=torch.bool).tril())[0]
    for backend in (None, "reference", "tiled"):
        got = natten_lite.na1d(q, k, v, 9, is_causal=True, backend=backend)
        assert_close(got, want, 1e-12)


def test_stride_equal_kernel_is_blocked_attention():
    q, k, v = _qkv((6, 8))
    out = natten_lite.na2d(q, k, v, (3, 4), stride=(3, 4), backend="reference")
    for bx in range(2):
        for by in range(2):
            sl = (slice(None), slice(3 * bx, 3 * bx + 3), slice(4 * by, 4 * by + 4))
            want = masked_attention(q[sl], k[sl], v[sl], None)[0]
            assert_close(out[sl], want, 1e-12)


def test_dilation_is_na_on_each_subgrid():
    q, k, v = _qkv((11, 9))
    out = natten_lite.na2d(q, k, v, (3, 2), dilation=(3, 2), backend="tiled")
    for gx in range(3):
        for gy in range(2):
            sl = (slice(None), slice(gx, None, 3), slice(gy, None, 2))
            want = natten_lite.na2d(q[sl], k[sl], v[sl], (3, 2), backend="reference")
            assert_close(out[sl], want, 1e-12)


def test_gqa_equals_repeated_kv_heads():
    q, k, v = _qkv((5, 6), H=4, Hkv=2)
    kr, vr = k.repeat_interleave(2, dim=-2), v.repeat_interleave(2, dim=-2)
    for backend in ("reference", "tiled", "dense"):
        a = natten_lite.na2d(q, k, v, 3, backend=backend)
        b = natten_lite.na2d(q, kr, vr, 3, backend=backend)
        assert_close(a, b, 1e-12)


def test_additional_kv_and_merge():
    shape, M = (4, 5), 3
    q, k, v = _qkv(shape, H=2, Hkv=1)
    g = torch.Generator().manual_seed(1)
    ak = torch.randn(2, M, 1, 8, generator=g, dtype=torch.float64)
    av = torch.randn(2, M, 1, 8, generator=g, dtype=torch.float64)
    # dense attention over [NA keys, extra keys] with a mask that always allows the extra keys
    na_mask = masks.dense_mask(shape, 3, is_causal=(False, True))
    full_mask = torch.cat([na_mask, torch.ones(20, M, dtype=torch.bool)], dim=1)
    kcat = torch.cat([k.reshape(2, 20, 1, 8), ak], dim=1)
    vcat = torch.cat([v.reshape(2, 20, 1, 8), av], dim=1)
    qf = q.reshape(2, 20, 2, 8)
    want, want_lse = masked_attention(qf, kcat, vcat, full_mask)
    for backend in ("reference", "tiled", "dense"):
        out, lse = natten_lite.na2d(
            q, k, v, 3, is_causal=(False, True), additional_keys=ak, additional_values=av,
            backend=backend, return_lse=True,
        )  # fmt: skip
        assert_close(out.reshape(2, 20, 2, 8), want, 1e-12)
        assert_close(lse.reshape(2, 20, 2), want_lse, 1e-12)
    o1, l1 = natten_lite.na2d(q, k, v, 3, is_causal=(False, True), return_lse=True)
    o2, l2 = natten_lite.attention(qf, ak, av, return_lse=True)
    out, lse = natten_lite.merge_attentions(
        [o1.reshape(2, 20, 2, 8), o2], [l1.reshape(2, 20, 2), l2]
    )
    assert_close(out, want, 1e-12)
    assert_close(lse, want_lse, 1e-12)


def test_attention_matches_dense_and_causal():
    g = torch.Generator().manual_seed(3)
    q = torch.randn(2, 7, 4, 8, generator=g, dtype=torch.float64)
    k = torch.randn(2, 7, 2, 8, generator=g, dtype=torch.float64)
    v = torch.randn(2, 7, 2, 8, generator=g, dtype=torch.float64)
    for causal in (False, True):
        mask = torch.ones(7, 7, dtype=torch.bool).tril() if causal else None
        want, want_lse = masked_attention(q, k, v, mask)
        out, lse = natten_lite.attention(q, k, v, is_causal=causal, return_lse=True)
        assert_close(out, want, 1e-12)
        assert_close(lse, want_lse, 1e-12)
        assert_close(natten_lite.attention(q, k, v, is_causal=causal), want, 1e-12)


@pytest.mark.slow  # importing flex_attention pulls in torch._dynamo (~8 s)
def test_flex_backend_matches_reference():
    pytest.importorskip("torch.nn.attention.flex_attention")
    q, k, v = _qkv((6, 7), D=16)
    want = natten_lite.na2d(q, k, v, (3, 4), stride=(2, 1), dilation=(2, 1), backend="reference")
    got = natten_lite.na2d(q, k, v, (3, 4), stride=(2, 1), dilation=(2, 1), backend="flex")
    assert_close(got, want, 1e-10)


def test_low_precision_inputs():
    q, k, v = _qkv((8, 8), dtype=torch.float32)
    want = natten_lite.na2d(q.double(), k.double(), v.double(), 5, backend="reference")
    for dtype in (torch.bfloat16, torch.float16):
        for backend in ("reference", "tiled"):
            out = natten_lite.na2d(q.to(dtype), k.to(dtype), v.to(dtype), 5, backend=backend)
            assert out.dtype == dtype
            assert_close(out.double(), want, 5e-2)


def test_merge_of_parts_that_attend_nothing_is_empty_not_nan():
    o = torch.randn(1, 3, 2, 4, dtype=torch.float64)
    empty = torch.full((1, 3, 2), float("-inf"), dtype=torch.float64)
    out, lse = natten_lite.merge_attentions([o, o.clone()], [empty, empty.clone()])
    assert torch.equal(out, torch.zeros_like(o)) and torch.isneginf(lse).all()
    # one empty part: the other part unchanged
    lse1 = torch.randn(1, 3, 2, dtype=torch.float64)
    out, lse = natten_lite.merge_attentions([o, torch.zeros_like(o)], [lse1, empty])
    assert_close(out, o, 1e-15)
    assert_close(lse, lse1, 1e-15)
