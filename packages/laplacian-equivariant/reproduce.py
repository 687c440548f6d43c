"""Reproduce the headline claims of Schur Nets (Zhang, Xu, Kondor; NeurIPS 2024) at small scale.

1. Number of Laplacian-eigenspace maps per template (the paper's table), beside the
   group-theoretic count (orbits of the automorphism group on node pairs, by brute force).
2. A Schur layer on the 6-cycle fits the antipodal map; linmaps cannot (and can fit a map in
   its own span).
3. SchurGNN < linmaps GNN < GIN test MAE on synthetic ring molecules, on two targets: the
   brief's para/meta substituent count, and the energy of the ring atoms' values in the top
   Laplacian eigenspace of each 6-ring (a target that needs the Schur layer's extra map). The
   paper's ZINC-12k 0.064 vs 0.071 is beside, not reproduced: no data download.

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


GNN_TASKS = {  # target -> (claim text, default number of seeds)
    "para_meta": ("para/meta pairs (brief's task)", 3),
    "alternating": ("6-ring top-eigenspace energy", 5),
}


def _gnn_run(args, target):
    """Test MAE of SchurGNN, the linmaps GNN and GIN, per seed, on one synthetic target."""
    from laplacian_equivariant import SchurGNN, batch_graphs, synthetic_molecules

    n_seeds = GNN_TASKS[target][1]
    if args.quick:
        n_train, n_test, epochs, n_seeds, hidden = 32, 32, 1, 1, 8
    elif args.full:
        n_train, n_test, epochs, n_seeds, hidden = 2000, 500, 80, n_seeds, 64
    else:
        n_train, n_test, epochs, hidden = 320, 160, 20, 32
    bs = 32
    results = {"schur": [], "linmaps": [], "gin": []}
    constant = []
    t0 = time.perf_counter()
    for seed in range(n_seeds):
        mols = synthetic_molecules(n_train + n_test, rng=1000 + seed, target=target)
        train = [batch_graphs(mols[i : i + bs]) for i in range(0, n_train, bs)]
        test = [batch_graphs(mols[i : i + bs]) for i in range(n_train, n_train + n_test, bs)]
        y_train = torch.cat([b.y.squeeze(-1) for b in train])
        y_test = torch.cat([b.y.squeeze(-1) for b in test])
        constant.append(float((y_test - y_train.median()).abs().mean()))  # best constant (L1)
        for kind in results:
            torch.manual_seed(seed)
            model = SchurGNN(
                int(mols[0].x.shape[1]),
                hidden,
                1,
                layers=3,
                use_schur=kind == "schur",
                cycle_sizes=() if kind == "gin" else (5, 6),
            )
            results[kind].append(_train(model, train, test, epochs=epochs, lr=3e-3, seed=seed))
    cfg = (
        f"{n_seeds} seeds, {n_train}/{n_test} graphs, {epochs} epochs, hidden {hidden}, "
        f"3 layers, L1 loss, {time.perf_counter() - t0:.0f} s"
    )
    return results, float(np.mean(constant)), cfg


def gnn_claims(args):
    args.gnn_mae = {}
    for target, (what, _) in GNN_TASKS.items():
        results, constant, cfg = _gnn_run(args, target)
        n = len(results["schur"])
        mean = {k: float(np.mean(v)) for k, v in results.items()}
        sem = {
            k: float(np.std(v, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
            for k, v in results.items()
        }
        txt = ", ".join(f"{k} {mean[k]:.3f}" + (f"±{sem[k]:.3f}" if n > 1 else "") for k in results)
        ordered = mean["schur"] < mean["linmaps"] < mean["gin"]
        # decided only when each gap exceeds twice the larger standard error of its two means
        gaps = (mean["linmaps"] - mean["schur"], mean["gin"] - mean["linmaps"])
        need = (2 * max(sem["schur"], sem["linmaps"]), 2 * max(sem["linmaps"], sem["gin"]))
        resolved = n > 1 and all(abs(g) > t for g, t in zip(gaps, need))
        learned = min(mean.values()) < constant - 2 * max(sem.values()) if n > 1 else False
        if args.quick:
            holds, verdict = None, "--quick is too small to decide"
        elif resolved:
            holds, verdict = bool(ordered), "resolved"
        else:
            holds, verdict = None, "not resolved at this scale"
            if not learned:
                verdict += " (no model beats the constant predictor)"
        args.gnn_mae[target] = {**results, "constant": constant}
        yield Claim(
            f"MAE Schur < linmaps < GIN: {what}",
            paper="ZINC-12k: Schur 0.064 < P-tensors/linmaps 0.071 (GIN-type baselines higher)",
            measured=txt + f" (mean ± SEM; constant predictor {constant:.3f})",
            holds=holds,
            note=f"{cfg}; gaps {gaps[0]:.3f}, {gaps[1]:.3f} vs 2 SEM {need[0]:.3f}, "
            f"{need[1]:.3f}: {verdict}",
        )


def claims(args):
    yield from count_claims()
    yield from antipodal_claims(args)
    yield from gnn_claims(args)


def _extra(parser):
    parser.add_argument("--seed", type=int, default=0, help="seed of the antipodal-map fit")


main = reproduce_cli(
    claims, quick=True, extra_args=_extra, details=lambda args: {"gnn_mae": args.gnn_mae}
)
