"""Reproduce the headline claims of Schur Nets (Zhang, Xu, Kondor; NeurIPS 2024) at small scale.

1. Number of Laplacian-eigenspace maps per template (the paper's table), beside the
   group-theoretic count (orbits of the automorphism group on node pairs, by brute force).
2. A Schur layer on the 6-cycle fits the antipodal map; linmaps cannot (and can fit a map in
   its own span).
3. SchurGNN < linmaps GNN < GIN test MAE on synthetic ring molecules (the paper's ZINC-12k
   0.064 vs 0.071 is beside, not reproduced: no data download).

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import time

import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli

PAPER_COUNTS = [  # (template, edges, nodes, paper's count)
    ("6-cycle", [(i, (i + 1) % 6) for i in range(6)], 6, 4),
    ("5-cycle", [(i, (i + 1) % 5) for i in range(5)], 5, 3),
    ("4-cycle", [(i, (i + 1) % 4) for i in range(4)], 4, 3),
    ("3-cycle", [(0, 1), (1, 2), (2, 0)], 3, 2),
    ("star, 4 leaves", [(0, i) for i in range(1, 5)], 5, 3),
    ("star, 3 leaves", [(0, i) for i in range(1, 4)], 4, 3),
    ("3-node path", [(0, 1), (1, 2)], 3, 3),
    ("5-clique", [(i, j) for i in range(5) for j in range(i + 1, 5)], 5, 2),
]


def _adj(edges, m):
    a = np.zeros((m, m))
    for u, v in edges:
        a[u, v] = a[v, u] = 1.0
    return a


def count_claims():
    from laplacian_equivariant import commutant_dimension, num_equivariant_maps

    for name, edges, m, paper in PAPER_COUNTS:
        a = _adj(edges, m)
        ours, group = num_equivariant_maps(a), commutant_dimension(a)
        note = f"orbits of Aut on node pairs (group theory): {group}"
        if group != ours:
            note += (
                f"; the Laplacian basis spans {ours} of the {group} equivariant maps "
                "(eigenvalues shared by inequivalent irreducibles)"
            )
        yield Claim(
            f"equivariant maps of the {name}",
            paper=str(paper),
            measured=str(ours),
            holds=ours == paper,
            note=note,
        )


def _fit(layer, x, target, steps=50):
    opt = torch.optim.LBFGS(
        layer.parameters(),
        lr=1.0,
        max_iter=steps,
        tolerance_grad=1e-14,
        tolerance_change=1e-16,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = ((layer(x) - target) ** 2).mean()
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        return float(((layer(x) - target) ** 2).mean())


def antipodal_claims(args):
    from laplacian_equivariant import LinmapsLayer, SchurLayer, cycle_adjacency

    torch.manual_seed(args.seed)
    k = 200 if args.quick else 2000
    x = torch.randn(k, 6, 1, dtype=torch.float64)
    antipodal = x[:, [3, 4, 5, 0, 1, 2]]
    in_span = x + 2.0 * x.mean(dim=1, keepdim=True)  # identity + broadcast: linmaps can fit it
    var = float(antipodal.var())
    schur = SchurLayer(cycle_adjacency(6), 1, 1).double()
    mse_schur = _fit(schur, x, antipodal)
    w = schur.weight.detach().flatten().round(decimals=4).tolist()
    yield Claim(
        "a Schur layer fits the 6-cycle antipodal map",
        paper="exact (P0 - P1 + P2 - P3)",
        measured=f"MSE {mse_schur:.1e}",
        holds=mse_schur < 1e-8,
        note=f"{k} random occurrences, LBFGS; fitted W_j = {w} (eigenvalues 0, 1, 3, 4)",
    )
    lin = LinmapsLayer(1, 1).double()
    mse_lin = _fit(lin, x, antipodal)
    yield Claim(
        "linmaps cannot: unexplained variance of the antipodal map",
        paper=">= 0.5 Var",
        measured=f"{mse_lin / var:.3f} Var",
        holds=mse_lin >= 0.5 * var,
        note=f"MSE {mse_lin:.3f}, Var {var:.3f}",
    )
    lin2 = LinmapsLayer(1, 1).double()
    mse_span = _fit(lin2, x, in_span)
    var_span = float(in_span.var())
    yield Claim(
        "linmaps explains a map in its span (X + 2 mean X)",
        paper="all of Var",
        measured=f"{1 - mse_span / var_span:.6f} of Var",
        holds=mse_span < 1e-8 * var_span,
        note="control: the fit itself works",
    )


def _train(model, train, test, *, epochs, lr, seed):
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    for _ in range(epochs):
        model.train()
        for i in torch.randperm(len(train)).tolist():
            b = train[i]
            opt.zero_grad()
            loss = (
                (model(b.x, b.edge_index, b.batch, b.cycles).squeeze(-1) - b.y.squeeze(-1))
                .abs()
                .mean()
            )
            loss.backward()
            opt.step()
        sched.step()
    model.eval()
    with torch.no_grad():
        err = [
            (model(b.x, b.edge_index, b.batch, b.cycles).squeeze(-1) - b.y.squeeze(-1)).abs()
            for b in test
        ]
    return float(torch.cat(err).mean())


def gnn_claims(args):
    from laplacian_equivariant import SchurGNN, batch_graphs, synthetic_molecules

    if args.quick:
        n_train, n_test, epochs, seeds, hidden = 32, 32, 1, [0], 8
    elif args.full:
        n_train, n_test, epochs, seeds, hidden = 2000, 500, 80, [0, 1, 2], 64
    else:
        n_train, n_test, epochs, seeds, hidden = 320, 160, 20, [0, 1, 2], 32
    bs = 32
    results = {"schur": [], "linmaps": [], "gin": []}
    t0 = time.perf_counter()
    for seed in seeds:
        mols = synthetic_molecules(n_train + n_test, rng=1000 + seed)
        train = [batch_graphs(mols[i : i + bs]) for i in range(0, n_train, bs)]
        test = [batch_graphs(mols[i : i + bs]) for i in range(n_train, n_train + n_test, bs)]
        for kind in results:
            torch.manual_seed(seed)
            model = SchurGNN(
                3,
                hidden,
                1,
                layers=3,
                use_schur=kind == "schur",
                cycle_sizes=() if kind == "gin" else (5, 6),
            )
            results[kind].append(_train(model, train, test, epochs=epochs, lr=3e-3, seed=seed))
    mean = {k: float(np.mean(v)) for k, v in results.items()}
    std = {k: float(np.std(v)) for k, v in results.items()}
    txt = ", ".join(f"{k} {mean[k]:.3f}±{std[k]:.3f}" for k in results)
    cfg = (
        f"{len(seeds)} seeds, {n_train}/{n_test} graphs, {epochs} epochs, hidden {hidden}, "
        f"3 layers, {time.perf_counter() - t0:.0f} s"
    )
    ordered = mean["schur"] < mean["linmaps"] < mean["gin"]
    # decided only when every gap exceeds the standard error of a seed mean
    sem = max(std.values()) / np.sqrt(len(seeds))
    gaps = (mean["linmaps"] - mean["schur"], mean["gin"] - mean["linmaps"])
    resolved = min(abs(g) for g in gaps) > sem
    holds = None if args.quick or not resolved else bool(ordered)
    yield Claim(
        "test MAE: SchurGNN < linmaps GNN < GIN (synthetic ring molecules)",
        paper="ZINC-12k: Schur 0.064 < P-tensors/linmaps 0.071 (GIN-type baselines higher)",
        measured=txt,
        holds=holds,
        note=cfg
        + (
            "; --quick is too small to decide"
            if args.quick
            else f"; gaps {gaps[0]:.4f}, {gaps[1]:.4f} vs seed SEM {sem:.4f}"
            + ("" if resolved else " (not resolved at this scale)")
            + "; target: para pairs - 0.5 meta pairs on 6-rings"
        ),
    )
    args.gnn_mae = results


def claims(args):
    yield from count_claims()
    yield from antipodal_claims(args)
    yield from gnn_claims(args)


def _extra(parser):
    parser.add_argument("--seed", type=int, default=0, help="seed of the antipodal-map fit")


main = reproduce_cli(
    claims, quick=True, extra_args=_extra, details=lambda args: {"gnn_mae": args.gnn_mae}
)
