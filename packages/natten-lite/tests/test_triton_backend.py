"""backend="triton" through the public API: CUDA, or CPU tensors under TRITON_INTERPRET=1."""

import natten_lite
import pytest
import torch

from papershelf_kernels._dispatch import has_triton, interpreting
from papershelf_kernels.neighborhood.testing import assert_close

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.mark.skipif(
    not has_triton() or (DEVICE == "cpu" and not interpreting()),
    reason="needs triton and CUDA, or TRITON_INTERPRET=1 (set by the nox tests session)",
)
def test_triton_backend_matches_reference_with_additional_kv():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 6, 5, 2, 16, generator=g).to(DEVICE).requires_grad_(True)
    k = torch.randn(1, 6, 5, 1, 16, generator=g).to(DEVICE).requires_grad_(True)
    v = torch.randn(1, 6, 5, 1, 16, generator=g).to(DEVICE).requires_grad_(True)
    ak = torch.randn(1, 3, 1, 16, generator=g).to(DEVICE)
    av = torch.randn(1, 3, 1, 16, generator=g).to(DEVICE)
    kw = dict(kernel_size=(3, 2), dilation=(2, 1), is_causal=(False, True), return_lse=True)
    out, lse = natten_lite.na2d(
        q,
        k,
        v,
        additional_keys=ak,
        additional_values=av,
        backend="triton",
        q_tile_shape=(4, 4),
        **kw,
    )
    ref, ref_lse = natten_lite.na2d(
        q, k, v, additional_keys=ak, additional_values=av, backend="reference", **kw
    )
    assert_close(out, ref, 1e-4)
    assert_close(lse, ref_lse, 1e-4)
    got = torch.autograd.grad(out.sum(), (q, k, v))
    want = torch.autograd.grad(ref.sum(), (q, k, v))
    for a, b in zip(got, want):
        assert_close(a, b, 1e-4)


def test_auto_dispatch_on_cpu_never_uses_the_interpreter():
    q = torch.randn(1, 8, 8, 1, 8)
    out = natten_lite.na2d(q, q, q, 3)  # picks "tiled" on CPU
    assert_close(out, natten_lite.na2d(q, q, q, 3, backend="reference"), 1e-5)


@pytest.mark.slow  # dynamo tracing takes tens of seconds on 2 cores
@pytest.mark.skipif(
    not has_triton() or (DEVICE == "cpu" and not interpreting()),
    reason="needs triton and CUDA, or TRITON_INTERPRET=1",
)
def test_torch_compile_fullgraph_na2d_triton():
    q = torch.randn(1, 6, 5, 1, 16, device=DEVICE)

    def f(q):
        return natten_lite.na2d(q, q, q, 3, dilation=(2, 1), backend="triton", q_tile_shape=(4, 4))

    got = torch.compile(f, fullgraph=True, backend="eager")(q)  # a graph break would raise
    assert_close(got, natten_lite.na2d(q, q, q, 3, dilation=(2, 1), backend="reference"), 1e-4)
