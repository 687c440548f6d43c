"""Brief check 4: gradients (gradcheck on the reference; every backend against dense-masked SDPA)."""

import natten_lite
import pytest
import torch

from papershelf_kernels.neighborhood.testing import assert_close, masked_attention, oracle_mask

NA = {1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}

CASES = [  # (shape, kernel, stride, dilation, causal)
    ((9,), 4, 2, 2, True),
    ((8,), 3, 1, 1, False),
    ((5, 6), (3, 2), (2, 1), (1, 2), (False, True)),
    ((4, 3, 4), (2, 3, 2), (1, 2, 2), (2, 1, 1), (True, False, False)),
]


def _inputs(shape, H=2, Hkv=1, D=4, B=1, seed=0):
    g = torch.Generator().manual_seed(seed)

    def mk(h):
        return torch.randn(B, *shape, h, D, generator=g, dtype=torch.float64, requires_grad=True)

    return mk(H), mk(Hkv), mk(Hkv)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{len(c[0])}d")
def test_gradcheck_reference(case):
    shape, ks, st, di, ca = case
    q, k, v = _inputs(shape)

    def fn(q, k, v):
        return NA[len(shape)](q, k, v, ks, st, di, ca, backend="reference", return_lse=True)

    assert torch.autograd.gradcheck(fn, (q, k, v), eps=1e-6, atol=1e-7, fast_mode=True)


@pytest.mark.parametrize("backend", ["reference", "tiled", "dense"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{len(c[0])}d")
def test_gradients_equal_dense_masked_attention(case, backend):
    shape, ks, st, di, ca = case
    n = len(shape)
    norm = lambda x, t: x if isinstance(x, tuple) else (x,) * n  # noqa: E731
    mask = oracle_mask(shape, norm(ks, int), norm(st, int), norm(di, int), norm(ca, bool))
    q, k, v = _inputs(shape, seed=1)
    g = torch.Generator().manual_seed(2)
    w_out = torch.randn(1, *shape, 2, 4, generator=g, dtype=torch.float64)
    w_lse = torch.randn(1, *shape, 2, generator=g, dtype=torch.float64)
    o, lse = masked_attention(q, k, v, mask)
    want = torch.autograd.grad((o * w_out).sum() + (lse * w_lse).sum(), (q, k, v))
    o, lse = NA[n](q, k, v, ks, st, di, ca, backend=backend, return_lse=True)
    got = torch.autograd.grad((o * w_out).sum() + (lse * w_lse).sum(), (q, k, v))
    for a, b in zip(got, want):
        assert_close(a, b, 1e-10)
    # output-only gradients (the tiled path then runs SDPA without an LSE)
    o = masked_attention(q, k, v, mask)[0]
    want = torch.autograd.grad((o * w_out).sum(), (q, k, v))
    got = torch.autograd.grad(
        (NA[n](q, k, v, ks, st, di, ca, backend=backend) * w_out).sum(), (q, k, v)
    )
    for a, b in zip(got, want):
        assert_close(a, b, 1e-10)


def test_additional_kv_gradients_flow_through_merge():
    q, k, v = _inputs((6,), H=2, Hkv=2)
    ak = torch.randn(1, 3, 2, 4, dtype=torch.float64, requires_grad=True)
    av = torch.randn(1, 3, 2, 4, dtype=torch.float64, requires_grad=True)
    fn = lambda q, k, v, ak, av: natten_lite.na1d(  # noqa: E731
        q, k, v, 3, additional_keys=ak, additional_values=av, backend="reference"
    )
    assert torch.autograd.gradcheck(fn, (q, k, v, ak, av), eps=1e-6, atol=1e-7, fast_mode=True)
