"""Forward-pass time of SOFTS (STAR) against channel attention as the channel count grows.

L = 96, H = 96, d_model = 128, one encoder block, batch 1, CPU; the ratio column is
iTransformer-lite / SOFTS (> 1: SOFTS faster).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def run(args):
    import softs_ts as S

    torch.set_num_threads(1)
    chans = [16, 64, 256] if args.quick else [64, 256, 1024, 2048, 4096]
    torch.manual_seed(0)
    kw = {"d_model": 128, "d_ff": 128, "e_layers": 1}
    models = {
        "SOFTS": S.SOFTS(96, 96, d_core=128, **kw).eval(),
        "iTransformer-lite": S.ITransformerLite(96, 96, n_heads=8, **kw).eval(),
        "SeriesMLP": S.SeriesMLP(96, 96, **kw).eval(),
    }
    table = Table(["C", "SOFTS ms", "iTransformer-lite ms", "SeriesMLP ms", "attn / SOFTS"])
    with torch.no_grad():
        for c in chans:
            x = torch.randn(1, 96, c)
            t = {k: timeit_ms(lambda m=m, x=x: m(x), repeat=3).best_ms for k, m in models.items()}
            table.add(
                c,
                t["SOFTS"],
                t["iTransformer-lite"],
                t["SeriesMLP"],
                ratio(t["iTransformer-lite"], t["SOFTS"]),
            )
    return table


main = bench_cli(run, title="SOFTS vs channel attention: forward time against channel count")
