"""SchurLayer vs LinmapsLayer forward time on batches of subgraph occurrences (CPU).

The paper reports Schur epochs only ~10-20% slower than linmaps; the claim checked here is a
Schur layer forward <= 2x a linmaps layer at 10k 6-cycle occurrences, 64 channels. A naive
``sum_j P_j X W_j`` (one einsum per eigenspace) is timed beside.

    python bench.py [--quick] [--threads N] [--json PATH]
"""

from __future__ import annotations

import torch

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def run(args):
    from laplacian_equivariant import LinmapsLayer, SchurLayer, cycle_adjacency

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    configs = [(1000, 6, 64)] if args.quick else [(1000, 6, 64), (10000, 5, 64), (10000, 6, 64)]
    table = Table(
        [
            "occurrences x m x c",
            "schur_ms",
            "naive_ms",
            "linmaps_ms",
            "linmaps/schur",
            "naive/schur",
            "<= 2x linmaps",
        ]
    )
    for k, m, c in configs:
        schur, lin = SchurLayer(cycle_adjacency(m), c, c), LinmapsLayer(c, c)
        x = torch.randn(k, m, c)
        proj, w, b = schur.projectors, schur.weight.detach(), schur.bias.detach()

        def naive(x=x, proj=proj, w=w, b=b):
            return sum(torch.einsum("ab,kbc,cd->kad", proj[j], x, w[j]) for j in range(len(w))) + b

        fns = {"schur": lambda f=schur, x=x: f(x), "naive": naive, "lin": lambda f=lin, x=x: f(x)}
        best = dict.fromkeys(fns, float("inf"))
        with torch.no_grad():
            # interleaved rounds, best of all: on shared cores a burst of load then hits every
            # variant alike instead of whichever happened to be running
            for _ in range(3 if args.quick else 9):
                for name, fn in fns.items():
                    best[name] = min(best[name], timeit_ms(fn, repeat=2, warmup=1).best_ms)
        t_s, t_n, t_l = best["schur"], best["naive"], best["lin"]
        table.add(
            f"{k} x {m} x {c}",
            round(t_s, 3),
            round(t_n, 3),
            round(t_l, 3),
            ratio(t_l, t_s),
            ratio(t_n, t_s),
            t_s <= 2.0 * t_l,
        )
    table.notes += f"; torch {torch.__version__}, {torch.get_num_threads()} threads, no grad"
    return table


def _extra(parser):
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")


main = bench_cli(run, title="Schur layer vs linmaps layer, forward time", extra_args=_extra)
