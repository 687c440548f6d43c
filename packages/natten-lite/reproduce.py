"""Reproduce the claims of Faster Neighborhood Attention (NeurIPS 2024) that a CPU can check.

Prints claim | paper | measured | holds and writes a JSON result for docs/reproductions.md.

* semantics: NATTEN's windows (shifted at borders, dilation groups, causal, stride) - outputs equal
  dense masked attention in fp64 over a random parameter sweep;
* linear cost in N at fixed kernel (the tiled path), against dense attention's quadratic cost;
* memory linear in N (constant per token), e.g. 2-D 128x128 k=7 under 200 MB;
* the tile-count ("speed of light") simulation numbers of the GNA analysis;
* the fused kernels' GPU speedups (+1759% 1-D / +958% 2-D over naive) need a GPU: gpu_check.py.

    python reproduce.py [--full | --quick] [--json PATH]
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import natten_lite
import torch
import torch.nn.functional as F
from natten_lite import masks
from natten_lite.sim import tile_work

from papershelf_harness import Claim, reproduce_cli, timeit_ms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import peak_mb_in_subprocess

PAPER = "Faster Neighborhood Attention (NeurIPS 2024)"
NA = {1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}


def _semantics(n_cases: int) -> Claim:
    rng = random.Random(0)
    worst = 0.0
    for c in range(n_cases):
        n = 1 + c % 3
        shape = [rng.randint(2, {1: 48, 2: 12, 3: 6}[n]) for _ in range(n)]
        ks, st, di, ca = [], [], [], []
        for L in shape:
            k = rng.randint(2, L)
            d = rng.randint(1, L // k)
            ks.append(k), st.append(rng.randint(1, k)), di.append(d), ca.append(rng.random() < 0.3)
        q = torch.randn(2, *shape, 2, 8, dtype=torch.float64)
        k_, v = torch.randn_like(q), torch.randn_like(q)
        m = masks.dense_mask(
            shape, tuple(ks), stride=tuple(st), dilation=tuple(di), is_causal=tuple(ca)
        )
        qh, kh, vh = (t.reshape(2, -1, 2, 8).transpose(1, 2) for t in (q, k_, v))
        want = (
            F.scaled_dot_product_attention(qh, kh, vh, attn_mask=m).transpose(1, 2).reshape(q.shape)
        )
        for backend in ("reference", "tiled"):
            got = NA[n](q, k_, v, tuple(ks), tuple(st), tuple(di), tuple(ca), backend=backend)
            worst = max(worst, (got - want).abs().max().item())
    return Claim(
        claim="NATTEN semantics (shifted windows, dilation, causal, stride): output = masked attention",
        paper="exact",
        measured=f"max err {worst:.1e}",
        holds=worst < 1e-12,
        note=f"{n_cases} random 1-D/2-D/3-D problems, fp64, reference and tiled backends",
    )


def _time(fn, repeats=3) -> float:
    """Best wall time of ``fn`` in seconds (one warm-up call, then ``repeats`` timed ones)."""
    return timeit_ms(fn, repeat=repeats, warmup=1).best_ms / 1e3


def _linear_cost(sizes) -> list[Claim]:
    # one thread: on a shared machine 2-thread timings of short ops are dominated by contention
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    times, dense_times = [], []
    with torch.no_grad():
        for s in sizes:
            q = torch.randn(1, s, s, 4, 32)
            k, v = torch.randn_like(q), torch.randn_like(q)
            tiled = lambda q=q, k=k, v=v: natten_lite.na2d(q, k, v, 7, backend="tiled")  # noqa: E731
            times.append(_time(tiled, 5))
        dense_sizes = [32, 64]
        for s in dense_sizes:
            q = torch.randn(1, s * s, 4, 32).transpose(1, 2)
            m = masks.dense_mask((s, s), 7)
            dense = lambda q=q, m=m: F.scaled_dot_product_attention(q, q, q, attn_mask=m)  # noqa: E731
            dense_times.append(_time(dense, 2))
    torch.set_num_threads(threads)
    exponent = math.log(times[-1] / times[0]) / math.log((sizes[-1] / sizes[0]) ** 2)
    dense_exp = math.log(dense_times[-1] / dense_times[0]) / math.log(
        (dense_sizes[-1] / dense_sizes[0]) ** 2
    )
    rows = [
        Claim(
            claim="cost linear in N at fixed kernel (tiled path, 2-D k=7)",
            paper="O(N k^2)",
            measured=f"time ~ N^{exponent:.2f} (dense: N^{dense_exp:.2f})",
            holds=exponent < 1.5,  # closer to linear (1) than to quadratic (2)
            note="holds if the exponent is nearer 1 than 2; "
            f"sides {sizes}, 4 heads, d=32, fp32, 1 thread; "
            f"times {[round(t * 1e3, 1) for t in times]} ms (best of 5 on a shared machine)",
        )
    ]
    rows.append(_goal_case())
    return rows


def _goal_case() -> Claim:
    """Issue goal: tiled >= 10x dense-masked SDPA on 2-D 64x64, k=7, 4 heads, d=32 (1 and 2 threads)."""
    q = torch.randn(1, 64, 64, 4, 32)
    k, v = torch.randn_like(q), torch.randn_like(q)
    m = masks.dense_mask((64, 64), 7)
    qh, kh, vh = (t.reshape(1, -1, 4, 32).transpose(1, 2) for t in (q, k, v))
    ratios, notes = {}, []
    threads = torch.get_num_threads()
    for th in (1, 2):
        torch.set_num_threads(th)
        with torch.no_grad():
            tiled = _time(lambda: natten_lite.na2d(q, k, v, 7, backend="tiled"), 5)
            dense = _time(lambda: F.scaled_dot_product_attention(qh, kh, vh, attn_mask=m), 2)
        ratios[th] = dense / tiled
        notes.append(f"{th} thread(s): dense {dense * 1e3:.0f} ms, tiled {tiled * 1e3:.1f} ms")
    torch.set_num_threads(threads)
    return Claim(
        claim="tiled CPU path vs dense-masked SDPA, 2-D 64x64 k=7 (issue goal, not paper)",
        paper=">= 10x",
        measured=f"{ratios[2]:.1f}x (2 thr), {ratios[1]:.1f}x (1 thr)",
        holds=ratios[2] >= 10,  # the goal is stated for 2 cores
        note="; ".join(notes) + ". Same-run ratios; dense SDPA scales to the 2nd thread "
        "better than the tiled path's short ops (and a shared machine's contention hits them hardest)",
    )


def _peak_mb(side: int, backend: str) -> float:
    code = f"""
import torch, natten_lite
torch.set_num_threads(2)
q = torch.randn(1, {side}, {side}, 2, 8)
with torch.no_grad():
    PEAK = peak_memory(lambda: natten_lite.na2d(q, q, q, 7, backend={backend!r}))[1]
"""
    return peak_mb_in_subprocess(code)


def _memory() -> Claim:
    m128 = _peak_mb(128, "reference")
    dense_mb = (128 * 128) ** 2 / 2**20
    return Claim(
        claim="memory O(N k^2), never O(N^2): 2-D 128x128 k=7 forward (reference)",
        paper="< 200 MB",
        measured=f"{m128:.0f} MB",
        holds=m128 < 200,
        note=f"extra peak RSS, 2 heads, d=8; a dense bool mask alone is {dense_mb:.0f} MB",
    )


def _simulation() -> list[Claim]:
    cases = [
        ("FLUX-like 2-D 256^2, k=80^2, s=16^2, tiles 16x8", ((256, 256), 80, 16, (16, 8), False), "10.2x"),
        ("Hunyuan-like 3-D 30x48x80, k=(18,24,24), s=(16,8,8)", ((30, 48, 80), (18, 24, 24), (16, 8, 8), (2, 8, 8), False), "11.1x"),
        ("1-D 32768, k=2048, s=256, tiles 128", ((32768,), 2048, 256, (128,), False), "16x"),
        ("FLUX-like, s=1, multi-dim tiles 16x8 (box count)", ((256, 256), 80, 1, (16, 8), False), "7.5x (brief)"),
        ("FLUX-like, s=1, flattened 128-token blocks", ((256, 256), 80, 1, 128, True), "3.2x (brief)"),
    ]  # fmt: skip
    rows = []
    for name, (shape, k, s, tile, flat), paper in cases:
        r = tile_work(shape, k, stride=s, q_tile_shape=tile, flatten=flat)
        want = float(paper.split("x")[0])
        rows.append(
            Claim(
                claim=f"tile-work bound vs dense: {name}",
                paper=paper,
                measured=f"{r.speedup_bound:.2f}x",
                holds=abs(r.speedup_bound - want) <= 0.06 * want,
                note=f"FLOP bound {r.flop_bound:.2f}x; pure-Python simulator (natten_lite.sim)",
            )
        )
    return rows


def claims(args) -> list[Claim]:
    """The claims; ``--quick`` (the smoke test) keeps the exact ones and skips the timed ones."""
    torch.set_num_threads(2)
    rows = [_semantics(3 if args.quick else 60 if args.full else 24)]
    if not args.quick:
        rows += _linear_cost([64, 128, 192, 256] if args.full else [64, 128, 192])
        rows.append(_memory())
    rows += _simulation()
    gpu = torch.cuda.is_available()
    for name, paper in (("1-D", "+1759%"), ("2-D", "+958%")):
        rows.append(
            Claim(
                claim=f"fused kernel forward speedup over naive NA, {name}",
                paper=paper,
                measured="see gpu_check.py" if gpu else "n/a (CPU)",
                holds=None,
                note="needs an NVIDIA GPU: run `python gpu_check.py --json out.json`; numbers in BENCHMARKS.md",
            )
        )
    return rows


main = reproduce_cli(claims, paper=PAPER, full_help="larger sweep and sizes")
