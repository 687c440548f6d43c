"""attention_colsum: the reference against a naive loop, the torch and Triton paths against the
reference (Triton on CPU under TRITON_INTERPRET=1, which the nox tests session sets)."""

from __future__ import annotations

import math

import pytest
import torch

from papershelf_kernels._dispatch import has_triton, interpreting
from papershelf_kernels.attention import ATOL, RTOL, attention_colsum, attention_colsum_reference

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
TRITON_OK = has_triton() and (DEVICE == "cuda" or interpreting())


def assert_close(got, want, *, atol=1e-5, rtol=1.3e-6):
    """|got - want| <= atol + rtol |want| elementwise (torch.testing.assert_close's rule; its
    first call imports torch.distributed, about 9 s on a loaded 2-core machine)."""
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    err = (got.double() - want.double()).abs()
    excess = err - (atol + rtol * want.double().abs())
    assert bool((excess <= 0).all()), (
        f"max abs error {err.max().item():.3g} (atol {atol}, rtol {rtol})"
    )


def naive(q, k, v, allowed, scale):
    """Row-by-row float64 loops: an implementation independent of the reference's tensor algebra."""
    B, H, Lq, D = q.shape
    Hkv, Lk = k.shape[1], k.shape[2]
    G = H // Hkv
    out = torch.zeros(B, H, Lq, v.shape[3], dtype=torch.float64)
    col = torch.zeros(B, H, Lk, dtype=torch.float64)
    for b in range(B):
        for h in range(H):
            for i in range(Lq):
                js = [j for j in range(Lk) if allowed(b, h, i, j)]
                if not js:
                    continue
                s = [scale * float(q[b, h, i].double() @ k[b, h // G, j].double()) for j in js]
                mx = max(s)
                e = [math.exp(x - mx) for x in s]
                z = sum(e)
                for j, ej in zip(js, e):
                    out[b, h, i] += ej / z * v[b, h // G, j].double()
                    col[b, h, j] += ej / z
    return out, col


def make(B, H, Hkv, Lq, Lk, D, dtype=torch.float32, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, Lq, D, generator=g).to(device, dtype)
    k = torch.randn(B, Hkv, Lk, D, generator=g).to(device, dtype)
    v = torch.randn(B, Hkv, Lk, D, generator=g).to(device, dtype)
    return q, k, v


@pytest.mark.parametrize("causal", [False, True])
def test_reference_matches_naive_loops(causal):
    q, k, v = make(2, 4, 2, 3, 6, 4)
    keep = torch.rand(2, 2, 1, 6, generator=torch.Generator().manual_seed(1)) > 0.3  # per KV head
    off = 6 - 3

    def allowed(b, h, i, j):
        return bool(keep[b, h // 2, 0, j]) and (not causal or j <= i + off)

    out, col = attention_colsum_reference(q, k, v, attn_mask=keep, causal=causal)
    n_out, n_col = naive(q, k, v, allowed, 4**-0.5)
    assert_close(out.double(), n_out, atol=1e-5, rtol=1e-5)
    assert_close(col.double(), n_col, atol=1e-5, rtol=1e-5)


def test_reference_additive_mask_equals_boolean_mask():
    q, k, v = make(1, 2, 2, 4, 5, 8)
    keep = torch.rand(1, 2, 4, 5, generator=torch.Generator().manual_seed(2)) > 0.4
    add = torch.zeros(keep.shape).masked_fill(~keep, float("-inf"))
    a = attention_colsum_reference(q, k, v, attn_mask=keep)
    b = attention_colsum_reference(q, k, v, attn_mask=add)
    for x, y in zip(a, b):
        assert_close(x, y)


def _check(q, k, v, backend, **kw):
    ro, rc = attention_colsum_reference(q.float(), k.float(), v.float(), **kw)
    out, col = attention_colsum(q, k, v, backend=backend, **kw)
    assert out.dtype == q.dtype and col.dtype == torch.float32
    atol, rtol = ATOL[q.dtype], RTOL[q.dtype]
    assert_close(out.float(), ro, atol=atol, rtol=rtol)
    assert_close(col, rc, atol=atol * q.shape[2], rtol=rtol)


CASES = [
    # B, H, Hkv, Lq, Lk, D, causal, mask kind
    (1, 2, 2, 8, 8, 16, True, None),  # MHA prefill
    (2, 4, 2, 5, 19, 16, True, None),  # GQA chunk after a cache
    (2, 4, 1, 1, 37, 32, False, "kv"),  # MQA decode with per-KV-head key padding
    (1, 4, 2, 20, 70, 16, True, "kvq"),  # several key and query blocks, per-KV-head full mask
    (2, 2, 2, 6, 6, 24, False, "add"),  # additive mask with -inf, non power-of-two head dim
    (1, 2, 1, 3, 5, 8, False, "qhead"),  # per-query-head mask
]


def _mask(kind, B, H, Hkv, Lq, Lk):
    g = torch.Generator().manual_seed(3)
    if kind is None:
        return None
    if kind == "kv":
        return torch.rand(B, Hkv, 1, Lk, generator=g) > 0.3
    if kind == "kvq":
        return torch.rand(B, Hkv, Lq, Lk, generator=g) > 0.2
    if kind == "qhead":
        return torch.rand(1, H, Lq, Lk, generator=g) > 0.5
    m = torch.rand(B, 1, Lq, Lk, generator=g)
    return torch.where(m > 0.3, m, torch.full_like(m, float("-inf")))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("backend", ["torch", "triton"])
def test_backend_matches_reference(case, backend):
    if backend == "triton" and not TRITON_OK:
        pytest.skip(
            "Triton backend needs CUDA or TRITON_INTERPRET=1 (the nox tests session sets it)"
        )
    B, H, Hkv, Lq, Lk, D, causal, kind = case
    q, k, v = make(B, H, Hkv, Lq, Lk, D, device=DEVICE)
    m = _mask(kind, B, H, Hkv, Lq, Lk)
    _check(q, k, v, backend, attn_mask=None if m is None else m.to(DEVICE), causal=causal)


@pytest.mark.parametrize("backend", ["torch", "triton"])
def test_fully_masked_rows_are_zero(backend):
    if backend == "triton" and not TRITON_OK:
        pytest.skip("Triton backend needs CUDA or TRITON_INTERPRET=1")
    q, k, v = make(1, 2, 2, 4, 3, 16, device=DEVICE)
    out, col = attention_colsum(
        q, k, v, causal=True, backend=backend
    )  # Lq > Lk: row 0 sees nothing
    assert torch.all(out[:, :, 0] == 0)
    assert_close(col.sum(-1), torch.full((1, 2), 3.0, device=DEVICE))


def test_column_sums_total_the_number_of_rows_and_respect_causality():
    q, k, v = make(1, 3, 1, 7, 7, 8)
    out, col = attention_colsum(q, k, v, causal=True)
    assert_close(col.sum(-1), torch.full((1, 3), 7.0))
    # the last key is seen only by the last row, the first key by every row
    assert torch.all(col[..., -1] <= 1.0 + 1e-6)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_triton_half_precision_on_gpu(dtype):
    q, k, v = make(2, 8, 2, 130, 300, 64, dtype=dtype, device="cuda")
    _check(q, k, v, "triton", causal=True)
    q, k, v = make(2, 8, 2, 1, 1000, 128, dtype=dtype, device="cuda")
    m = torch.rand(2, 2, 1, 1000, device="cuda") > 0.1
    _check(q, k, v, "triton", attn_mask=m)


def test_dispatch_lists_reasons_when_triton_cannot_run():
    q, k, v = make(1, 2, 2, 2, 3, 8)
    q.requires_grad_(True)
    with pytest.raises(NotImplementedError, match="triton"):
        attention_colsum(q, k, v, backend="triton")
