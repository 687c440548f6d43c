"""Check the kernels' exactness claims at small scale (CPU; the GPU timings are natten-lite's and
h2o-cache's gpu_check.py).

* Faster Neighborhood Attention (NeurIPS 2024), Sec. 4: the fused algorithm (query tiles against
  the KV box of their windows) computes neighborhood attention exactly, not an approximation:
  the tiled path against a brute-force oracle of NATTEN's mask, fp64, random 1-D/2-D/3-D problems
  with odd/even kernels, stride, dilation, causal axes and GQA.
* H2O (NeurIPS 2023), Alg. 1: ``attention_colsum``'s column sums are each key's attention mass
  summed over the query rows, against float64 per-element loops.
* The Triton kernels (forward, LSE, backward) against the reference in fp32: on CUDA, or in
  Triton's CPU interpreter when there is no GPU (skipped with ``--quick``).

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import math
import os
import random

from papershelf_harness import Claim, reproduce_cli

PACKAGE = "papershelf-kernels"
PAPER = (
    "Faster Neighborhood Attention (NeurIPS 2024); H2O: Heavy-Hitter Oracle (NeurIPS 2023) "
    "- the kernels"
)


def na_exactness(n_problems: int) -> tuple[float, int]:
    """Max |tiled - oracle| over out and LSE, fp64, on ``n_problems`` random problems."""
    import torch

    from papershelf_kernels.neighborhood import na_forward
    from papershelf_kernels.neighborhood.testing import oracle_case

    worst = 0.0
    for seed in range(n_problems):
        n = 1 + seed % 3
        g = torch.Generator().manual_seed(seed)
        q, k, v, problem, want, want_lse = oracle_case(random.Random(1000 + seed), n, g)
        ks, st, di, ca = problem[1:]
        out, lse = na_forward(q, k, v, ks, st, di, ca, backend="tiled")
        worst = max(worst, (out - want).abs().max().item(), (lse - want_lse).abs().max().item())
    return worst, n_problems


def colsum_exactness(n_cases: int) -> tuple[float, float]:
    """(max |colsum - loops|, max |sum_j colsum - Lq|) of the torch path, GQA + causal + mask."""
    import torch

    from papershelf_kernels.attention import attention_colsum

    worst = total = 0.0
    for seed in range(n_cases):
        g = torch.Generator().manual_seed(seed)
        B, H, Hkv, Lq, Lk, D = 2, 4, 2, 3 + seed, 7 + 2 * seed, 8
        q = torch.randn(B, H, Lq, D, generator=g, dtype=torch.float64)
        k = torch.randn(B, Hkv, Lk, D, generator=g, dtype=torch.float64)
        v = torch.randn(B, Hkv, Lk, D, generator=g, dtype=torch.float64)
        keep = torch.rand(B, Hkv, 1, Lk, generator=g) > 0.25
        keep[..., 0] = True  # every row keeps a key (key 0 is causally visible to all)
        _, col = attention_colsum(q, k, v, attn_mask=keep, causal=True, backend="torch")
        want = torch.zeros(B, H, Lk, dtype=torch.float64)
        for b in range(B):
            for h in range(H):
                for i in range(Lq):
                    js = [j for j in range(Lk) if keep[b, h // 2, 0, j] and j <= i + Lk - Lq]
                    s = [D**-0.5 * float(q[b, h, i] @ k[b, h // 2, j]) for j in js]
                    z = sum(math.exp(x - max(s)) for x in s)
                    for j, x in zip(js, s):
                        want[b, h, j] += math.exp(x - max(s)) / z
        worst = max(worst, (col.double() - want).abs().max().item())
        total = max(total, (col.double().sum(-1) - Lq).abs().max().item())
    return worst, total


def triton_vs_reference() -> tuple[float, float, str]:
    """(max forward/LSE error, max gradient error, device) of the fused kernels, fp32."""
    import torch

    from papershelf_kernels.neighborhood import na_forward

    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(0)
    worst_f = worst_g = 0.0
    cases = [((21,), 6, 2, 1, True, 16), ((6, 7), (4, 3), (2, 1), (1, 2), (True, False), (4, 4))]
    for shape, ks, st, di, ca, tile in cases:
        q, k, v = (
            torch.randn(1, *shape, 2, 16, generator=g).to(device).requires_grad_(True)
            for _ in range(3)
        )
        tiles = {"q_tile_shape": tile if isinstance(tile, tuple) else (tile,), "kv_tile_size": 16}
        out, lse = na_forward(q, k, v, ks, st, di, ca, backend="triton", **tiles)
        ref, ref_lse = na_forward(q, k, v, ks, st, di, ca, backend="reference")
        worst_f = max(worst_f, (out - ref).abs().max().item(), (lse - ref_lse).abs().max().item())
        got = torch.autograd.grad(out.sum() + lse.sum(), (q, k, v))
        want = torch.autograd.grad(ref.sum() + ref_lse.sum(), (q, k, v))
        worst_g = max(worst_g, *((a - b).abs().max().item() for a, b in zip(got, want)))
    return worst_f, worst_g, device


def claims(args):
    n_na = 3 if args.quick else (36 if args.full else 12)
    err, n = na_exactness(n_na)
    yield Claim(
        "fused NA (tiles x KV boxes) = neighborhood attention exactly",
        paper="exact (Sec. 4)",
        measured=f"max |err| {err:.1e}",
        holds=err <= 1e-10,
        note=f"tiled path vs brute-force NATTEN-mask oracle, fp64, {n} random 1-3D problems",
    )
    n_cs = 1 if args.quick else (6 if args.full else 3)
    err, total = colsum_exactness(n_cs)
    yield Claim(
        "attention_colsum = per-key attention mass summed over rows",
        paper="H2O Alg. 1 statistic",
        measured=f"max |err| {err:.1e}, row mass {total:.1e}",
        holds=err <= 1e-6 and total <= 1e-5,
        note=(
            f"torch path (fp64 in, colsum fp32 by contract) vs float64 loops, GQA 4/2, causal + "
            f"key mask, {n_cs} case(s); row mass = max |sum_j colsum - Lq|"
        ),
    )
    measured, holds, note = triton_claim(args.quick)
    yield Claim(
        "Triton kernels = reference (fp32 out, LSE, gradients)",
        paper="-",
        measured=measured,
        holds=holds,
        note=note,
    )


def triton_claim(quick: bool) -> tuple[str, bool | None, str]:
    """(measured, holds, note) of the Triton check, or why it did not run."""
    if quick:
        return "skipped (--quick)", None, "run without --quick (CUDA, or Triton's CPU interpreter)"
    import torch

    if not torch.cuda.is_available():
        # no GPU: run the kernels in Triton's CPU interpreter (read when the kernels are defined)
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from papershelf_kernels._dispatch import has_triton, interpreting

    if not has_triton() or (not torch.cuda.is_available() and not interpreting()):
        return "not run", None, "needs triton, and CUDA or TRITON_INTERPRET=1"
    fwd, grad, device = triton_vs_reference()
    where = "CUDA" if device == "cuda" else "Triton CPU interpreter"
    note = f"{where}; 1-D causal strided and 2-D dilated/causal problems, NATTEN's fp32 atol"
    return f"out/LSE {fwd:.1e}, grads {grad:.1e}", fwd <= 1e-4 and grad <= 1e-4, note


main = reproduce_cli(claims, paper=PAPER, full_help="more random problems (36 NA, 6 colsum)")
