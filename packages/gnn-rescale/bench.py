"""Cost of dynamic rescaling and speed of the pure-PyTorch GATv2 layer.

    python bench.py [--quick] [--json PATH]

Rows 1-2: one rebalance (10 sweeps of DR_RG or DR_W) against one training epoch (forward +
backward) of a 5-layer width-64 GATv2Net: with the authors' schedule (every 10 epochs) the
overhead per epoch is a tenth of the column. Rows 3+: forward time of our GATv2Layer against
PyG's GATv2Conv (heads=1, share_weights=True, bias=False) on the same weights and graph.
"""

from __future__ import annotations

import gnn_rescale as gr
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

F = torch.nn.functional


def run(args):
    torch.set_num_threads(1)
    n = 300 if args.quick else 2000
    repeat = 2 if args.quick else 5
    g = torch.Generator().manual_seed(0)
    d = gr.data.csbm(n, 4, homophily=0.2, avg_degree=10, feat_dim=64, generator=g)
    table = Table(["config", "ours_ms", "baseline_ms", "ratio"])
    m = gr.GATv2Net([64, 64, 64, 64, 64, 4])

    def epoch():
        m.zero_grad()
        F.cross_entropy(m(d.x, d.edge_index), d.y).backward()

    epoch_ms = timeit_ms(epoch, repeat=repeat).best_ms
    rg_ms = timeit_ms(lambda: gr.balance_relative_gradients_(m), repeat=repeat).best_ms
    w_ms = timeit_ms(lambda: gr.balance_weight_norms_(m), repeat=repeat).best_ms
    table.add(
        f"DR_RG 10 sweeps vs epoch, N={n}",
        round(rg_ms, 3),
        round(epoch_ms, 3),
        ratio(epoch_ms, rg_ms),
    )
    table.add(
        f"DR_W 10 sweeps vs epoch, N={n}", round(w_ms, 3), round(epoch_ms, 3), ratio(epoch_ms, w_ms)
    )
    notes = [RATIO_NOTE, "Rows 1-2: baseline = one training epoch (forward + backward)."]
    try:
        from gnn_rescale.pyg import from_gatv2net
    except ImportError:  # pragma: no cover
        from_gatv2net = None
    sizes = [300] if args.quick else [1000, 4000, 16000]
    for size in sizes:
        dd = gr.data.csbm(size, 4, homophily=0.2, avg_degree=10, feat_dim=64, generator=g)
        net = gr.GATv2Net([64, 64])
        ours = timeit_ms(lambda net=net, dd=dd: net(dd.x, dd.edge_index), repeat=repeat).best_ms
        try:
            peer = from_gatv2net(net) if from_gatv2net else None
        except ImportError:
            peer = None
        if peer is None:
            table.add(f"GATv2 layer forward, N={size}", round(ours, 3), "n/a", "n/a")
            continue
        with torch.no_grad():
            torch.testing.assert_close(net(dd.x, dd.edge_index), peer(dd.x, dd.edge_index))
        base = timeit_ms(lambda peer=peer, dd=dd: peer(dd.x, dd.edge_index), repeat=repeat).best_ms
        table.add(
            f"GATv2 layer forward vs PyG GATv2Conv, N={size}, d=64",
            round(ours, 3),
            round(base, 3),
            ratio(base, ours),
        )
    notes.append("Rows 3+: baseline = PyG GATv2Conv on copied weights (outputs checked equal).")
    return Table(table.columns, table.rows, " ".join(notes))


main = bench_cli(run, title="gnn-rescale: rebalance cost and GATv2 forward time")
