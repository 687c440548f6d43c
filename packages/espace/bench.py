"""GEMM time of ESPACE's inference form (x -> Pᵀx -> W̃(Pᵀx)) against the dense nn.Linear.

A square d x d layer at 20 % and 50 % compression (L from rank_for_compression), and the
truncated-SVD factorisation at the same rank (the same two GEMMs, so the same cost). CPU, fp32.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch
from torch import nn

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def run(args):
    import espace

    torch.set_num_threads(1)  # one core: steadier timings on a shared machine

    dims = (256,) if args.quick else (1024, 4096)
    tokens = 64 if args.quick else 256
    repeat = 3 if args.quick else 7
    table = Table(["d", "tokens", "compression", "rank L", "dense_ms", "espace_ms", "speedup"])
    g = torch.Generator().manual_seed(0)
    for d in dims:
        lin = nn.Linear(d, d, bias=False)
        x = torch.randn(tokens, d, generator=g)
        with torch.no_grad():
            dense = timeit_ms(lambda lin=lin, x=x: lin(x), repeat=repeat)
            for comp in (0.2, 0.5):
                L = espace.rank_for_compression(d, d, comp)
                P = espace.random_projection(d, L, generator=g)
                layer = espace.ProjectedLinear.from_linear(lin, P, mode="inference")
                ours = timeit_ms(lambda layer=layer, x=x: layer(x), repeat=repeat)
                table.add(
                    d,
                    tokens,
                    f"{int(comp * 100)} %",
                    L,
                    round(dense.best_ms, 3),
                    round(ours.best_ms, 3),
                    ratio(dense.best_ms, ours.best_ms),
                )
    table.notes = (
        "speedup = dense_ms / espace_ms (> 1: the projected layer is faster); best of "
        f"{repeat} runs; torch threads {torch.get_num_threads()}; issue target: >= 1.5x at 50 % "
        "and d = 4096. The MACs ratio is N·K / (L·(N + K)) = 1 / (1 - compression)."
    )
    return table


main = bench_cli(run, title="ESPACE inference GEMM vs dense nn.Linear")
