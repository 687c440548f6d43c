"""neighborhood: the fused Triton kernels against the reference (CPU under TRITON_INTERPRET=1).

Small fp32 shapes that do not divide the tile sizes, every axis feature (odd/even kernels, stride,
dilation, causal, GQA), forward output + LSE and backward through both.
"""

import pytest
import torch

from papershelf_kernels._dispatch import has_triton, interpreting
from papershelf_kernels.neighborhood import ATOL, na_forward
from papershelf_kernels.neighborhood.testing import assert_close

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
pytestmark = pytest.mark.skipif(
    not has_triton() or (DEVICE == "cpu" and not interpreting()),
    reason="needs triton and a CUDA device, or TRITON_INTERPRET=1",
)

CASES = [  # shape, kernel, stride, dilation, causal, H, Hkv, D, q tile
    ((21,), 6, 2, 1, True, 2, 1, 16, (16,)),
    ((40,), 16, 16, 1, False, 1, 1, 16, (16,)),  # blocked: the mask-free (fully block-sparse) path
    ((6, 7), (4, 3), (2, 1), (1, 2), (True, False), 2, 1, 16, (4, 4)),
    ((4, 3, 5), (2, 3, 3), (1, 3, 2), (2, 1, 1), (False, False, True), 1, 1, 8, (2, 2, 4)),
    pytest.param(((19,), 5, 1, 3, False, 1, 1, 8, (16,)), marks=pytest.mark.slow),
    pytest.param(((9, 6), 3, 3, 1, False, 4, 2, 32, (4, 8)), marks=pytest.mark.slow),
]
IDS = ["1d", "1d-blocked", "2d", "3d", "1d-dilated", "2d-blocked-gqa"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_triton_matches_reference_forward_and_backward(case):
    shape, ks, st, di, ca, H, Hkv, D, tile = case
    g = torch.Generator().manual_seed(0)

    def mk(h):
        x = torch.randn(1, *shape, h, D, generator=g).to(DEVICE)
        return x.requires_grad_(True)

    q, k, v = mk(H), mk(Hkv), mk(Hkv)
    out, lse = na_forward(
        q, k, v, ks, st, di, ca, backend="triton", q_tile_shape=tile, kv_tile_size=16
    )
    ref, ref_lse = na_forward(q, k, v, ks, st, di, ca, backend="reference")
    assert_close(out, ref, ATOL[torch.float32], msg="out")
    assert_close(lse, ref_lse, ATOL[torch.float32], msg="lse")
    w = torch.randn(out.shape, generator=g).to(DEVICE)
    wl = torch.randn(lse.shape, generator=g).to(DEVICE)
    got = torch.autograd.grad((out * w).sum() + (lse * wl).sum(), (q, k, v))
    want = torch.autograd.grad((ref * w).sum() + (ref_lse * wl).sum(), (q, k, v))
    for name, a, b in zip("qkv", got, want):
        assert_close(a, b, 1e-4, msg=f"d{name}")


def test_triton_backward_is_deterministic_and_registered():
    q = torch.randn(1, 5, 5, 1, 16, device=DEVICE, requires_grad=True)
    grads = []
    for _ in range(2):
        out, lse = na_forward(q, q, q, 3, backend="triton", q_tile_shape=(4, 4), kv_tile_size=16)
        grads.append(torch.autograd.grad(out.sum() + lse.sum(), q)[0])
    assert torch.equal(grads[0], grads[1])
    assert hasattr(torch.ops.papershelf_kernels, "na_fwd")


def test_triton_rejects_bad_tiles():
    q = torch.randn(1, 8, 1, 16, device=DEVICE)
    with pytest.raises(ValueError, match="q_tile_shape"):
        na_forward(q, q, q, 3, backend="triton", q_tile_shape=(12,))


@pytest.mark.slow  # dynamo tracing takes tens of seconds on 2 cores
def test_torch_compile_fullgraph_through_the_custom_op():
    q = torch.randn(1, 6, 5, 1, 16, device=DEVICE, requires_grad=True)

    def f(q):
        out, lse = na_forward(q, q, q, 3, backend="triton", q_tile_shape=(4, 4), kv_tile_size=16)
        return out.sum() + lse.sum()

    compiled = torch.compile(f, fullgraph=True, backend="eager")  # fullgraph: a graph break raises
    a = compiled(q)
    (ga,) = torch.autograd.grad(a, q)
    b = f(q)
    (gb,) = torch.autograd.grad(b, q)
    assert_close(a, b, 1e-5)
    assert_close(ga, gb, 1e-5)
