"""Reproduce the headline claims of "What Is Missing In Homophily? Disentangling Graph Homophily
For Graph Neural Networks" (NeurIPS 2024) at small scale, on CSBM-3H graphs.

    python reproduce.py [--quick] [--full] [--json PATH]

The GNN claims train the 2-layer GCN / MLP of ``trihom.models`` (the package's ``torch`` extra;
torch comes with the ``bench`` dependency group that ``nox -s reproduce`` syncs). The metric
claims are numpy/scipy only. The paper's real-data correlations (31 datasets) are printed beside
ours for reference; the datasets are not downloaded.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

from papershelf_harness import Claim, reproduce_cli

C = 4


def _graph(n, h_l, h_s, h_f, seed, *, degree_range=(5, 15), feat_dim=32):
    import trihom

    return trihom.csbm3h(
        n, C, degree_range=degree_range, feat_dim=feat_dim, h_L=h_l, h_S=h_s, h_F=h_f, rng=seed
    )


def _round_trip(args):
    import trihom

    n = 400 if args.quick else 1500
    targets = (0.1, 0.25, 0.5, 0.75, 0.9)
    got = [
        trihom.label_homophily(*_graph(n, t, 1.0, 0.0, 100 + i, degree_range=(5, 10))[::2])
        for i, t in enumerate(targets)
    ]
    err = max(abs(g - t) for g, t in zip(got, targets))
    yield Claim(
        "CSBM-3H round trip: measured h_L within +-0.03 of the target at h_S = 1 (N = 1500, C = 4)",
        paper="+-0.03 (brief check 1)",
        measured=f"max error {err:.3f}; "
        + ", ".join(f"{t}->{g:.3f}" for t, g in zip(targets, got)),
        holds=None if args.quick else bool(err <= 0.03),
        note="quick: N = 400, not checked" if args.quick else "",
    )
    hs_targets = (0.0, 0.25, 0.5, 0.75, 1.0)
    hs = [
        trihom.structural_homophily(*_graph(n, 0.5, t, 0.0, 200 + i, degree_range=(40, 60))[::2])
        for i, t in enumerate(hs_targets)
    ]
    yield Claim(
        "measured h_S increases strictly with the target h_S (degrees 40-60)",
        paper="strictly increasing, compressed ~0.68 -> 0.88 (brief check 1)",
        measured=" < ".join(f"{v:.3f}" for v in hs),
        holds=bool(all(b > a for a, b in zip(hs, hs[1:]))),
    )
    hf_targets = (-0.6, -0.3, 0.0, 0.3, 0.6, 0.9)
    hf = []
    for i, t in enumerate(hf_targets):
        ei, x, y = _graph(n, 0.5, 1.0, t, 300 + i, degree_range=(5, 10), feat_dim=16)
        hf.append(trihom.feature_homophily(ei, x, y))
    rho_s = stats.spearmanr(hf_targets, hf)[0]
    pos_err = max(abs(g - t) for g, t in zip(hf, hf_targets) if t >= 0)
    yield Claim(
        "h_F estimator is monotone in the target (Spearman 1), within +-0.15 on [0, 0.9]",
        paper="Spearman 1; +-0.15 on [0, 0.9]; -0.6 -> ~-0.98 (brief check 1)",
        measured=f"Spearman {rho_s:.2f}; max error on [0, 0.9] {pos_err:.3f}; "
        + ", ".join(f"{t}->{g:.2f}" for t, g in zip(hf_targets, hf)),
        holds=bool(rho_s == 1.0 and pos_err <= 0.15),
        note="negative targets are biased towards -1 (documented)",
    )


def _formula():
    import trihom

    ok = []
    for c, rho in itertools.product((2, 4, 7), (1.0, 10.0)):
        for h_l, h_s in itertools.product((0.1, 0.5, 0.9), (0.0, 0.5, 1.0)):
            ok.append(trihom.tri_hom(h_l, h_s, 0.0, c, rho=rho, graph_aware=False) == 1.0)
            ok.append(abs(trihom.tri_hom(1 / c, h_s, 0.5, c, rho=rho)) < 1e-15)
        for h_f in (-0.5, 0.3):
            a = trihom.tri_hom(1.0, 1.0, h_f, c, rho=rho)
            ok.append(abs(a - trihom.tri_hom(1.0, 1.0, h_f, c, rho=rho, graph_aware=False)) < 1e-12)
            js = [trihom.tri_hom(0.7, s, h_f, c, rho=rho) for s in np.linspace(0, 1, 21)]
            ok.append(all(b > a for a, b in zip(js, js[1:])))
    yield Claim(
        "Tri-Hom properties: h_F = 0 -> J^notG = 1; h_L = 1/C -> J^G = 0; h_L = h_S = 1 -> "
        "J^G = J^notG; J^G increasing in h_S",
        paper="exact (brief check 2)",
        measured=f"{sum(ok)}/{len(ok)} cases hold (C in 2, 4, 7; rho in 1, 10)",
        holds=all(ok),
    )


def _baselines(args):
    from trihom import baselines as B

    gen = np.random.default_rng(0)
    n = 600 if args.quick else 3000
    y = gen.permutation(np.arange(n) % C)
    ei = gen.integers(0, n, size=(2, 10 * n))
    intra = ei[:, y[ei[0]] == y[ei[1]]]
    ones = [
        f(intra, y)
        for f in (B.edge_homophily, B.node_homophily, B.class_homophily, B.adjusted_homophily)
    ]
    adj, cls = B.adjusted_homophily(ei, y), B.class_homophily(ei, y)
    yield Claim(
        "baselines: intra-class edges only -> h_edge = h_node = h_class = h_adj = 1; "
        "Erdos-Renyi + balanced random labels -> h_adj, h_class ~ 0 (+-0.03)",
        paper="exact 1; 0 +- 0.03 (brief check 3)",
        measured=f"{[round(v, 6) for v in ones]}; h_adj {adj:+.4f}, h_class {cls:+.4f}",
        holds=bool(all(v == 1.0 for v in ones) and abs(adj) < 0.03 and abs(cls) < 0.03),
    )


def _accuracy(train, ei, x, y, seed, epochs):
    import torch

    return train(
        ei, x, y, epochs=epochs, generator=torch.Generator().manual_seed(seed)
    ).test_accuracy


def _correlation_study(args, details):
    import trihom
    from trihom.baselines import class_homophily
    from trihom.models import train_gcn, train_mlp

    n, epochs = (200, 10) if args.quick else (1000, 100)
    grid = list(itertools.product((0.1, 0.3, 0.5, 0.7, 0.9), (0.2, 0.6, 1.0), (-0.4, 0.4)))
    if args.quick:
        grid = grid[::6]
    rows = []
    for i, (h_l, h_s, h_f) in enumerate(grid):
        ei, x, y = _graph(n, h_l, h_s, h_f, 1000 + i)
        m_l = trihom.label_homophily(ei, y)
        m_s = trihom.structural_homophily(ei, y)
        m_f = trihom.feature_homophily(ei, x, y)
        rho = trihom.spectral_radius(ei, num_nodes=n)
        rows.append(
            {
                "target": [h_l, h_s, h_f],
                "h_L": m_l,
                "h_S": m_s,
                "h_F": m_f,
                "rho_A": rho,
                "h_class": class_homophily(ei, y),
                "J_G": trihom.tri_hom(m_l, m_s, m_f, C),
                "J_notG": trihom.tri_hom(m_l, m_s, m_f, C, graph_aware=False),
                "J_G_rhoA": trihom.tri_hom(m_l, m_s, m_f, C, rho=rho),
                "J_notG_rhoA": trihom.tri_hom(m_l, m_s, m_f, C, rho=rho, graph_aware=False),
                "gcn": _accuracy(train_gcn, ei, x, y, i, epochs),
                "mlp": _accuracy(train_mlp, ei, x, y, i, epochs),
            }
        )
    details["correlation_graphs"] = rows

    def corr(metric, model):
        return float(np.corrcoef([r[metric] for r in rows], [r[model] for r in rows])[0, 1])

    table = {
        f"{model}:{metric}": corr(metric, model)
        for model in ("gcn", "mlp")
        for metric in ("J_G", "J_notG", "J_G_rhoA", "J_notG_rhoA", "h_L", "h_class")
    }
    details["correlations"] = table
    scale = (
        "quick: 5 graphs, N = 200, 10 epochs" if args.quick else "30 graphs, N = 1000, 100 epochs"
    )
    for rho_name, key in (("rho = 1", "J_G"), ("rho = rho(A)", "J_G_rhoA")):
        jg, he = table[f"gcn:{key}"], table["gcn:h_L"]
        yield Claim(
            f"GCN accuracy over CSBM-3H graphs: Pearson corr(J^G, acc) > corr(h_edge, acc) and "
            f"> 0.6 ({rho_name})",
            paper="real data (31 sets): J^G 0.665, h_edge 0.566, h_class 0.612",
            measured=f"J^G {jg:.3f}, h_edge {he:.3f}, h_class {table['gcn:h_class']:.3f}",
            holds=None if args.quick else bool(jg > he and jg > 0.6),
            note=scale,
        )
    for rho_name, key in (("rho = 1", "J_notG"), ("rho = rho(A)", "J_notG_rhoA")):
        jn, he = table[f"mlp:{key}"], table["mlp:h_L"]
        yield Claim(
            f"MLP accuracy: corr(J^notG, acc) > corr(h_edge, acc) and > 0.6 ({rho_name})",
            paper="real data: J^notG 0.580, h_edge 0.444",
            measured=f"J^notG {jn:.3f}, h_edge {he:.3f}",
            holds=None if args.quick else bool(jn > he and jn > 0.6),
            note=scale,
        )


def _pitfall(args, details):
    import trihom
    from trihom.models import train_gcn

    n, epochs, seeds = (200, 10, 1) if args.quick else (1000, 100, 2)
    h_ls = (0.0, 0.25, 1.0) if args.quick else (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.6, 0.8, 1.0)
    acc, jg, he = [], [], []
    for i, h_l in enumerate(h_ls):
        a = []
        for s in range(seeds):
            ei, x, y = _graph(n, h_l, 1.0, 0.0, 2000 + 10 * i + s, feat_dim=8)
            a.append(_accuracy(train_gcn, ei, x, y, s, epochs))
        acc.append(float(np.mean(a)))
        he.append(trihom.label_homophily(ei, y))
        jg.append(trihom.tri_hom_from_graph(ei, x, y))
    k = int(np.argmin(acc))
    details["pitfall"] = {"h_L_target": list(h_ls), "gcn": acc, "J_G": jg, "h_edge": he}
    u_shape = 0 < k < len(h_ls) - 1 and abs(h_ls[k] - 1 / C) <= 0.1
    yield Claim(
        "mid-homophily pitfall: at h_S = 1, h_F = 0, GCN accuracy vs h_L is U-shaped with its "
        "minimum near 1/C = 0.25 (J^G too), while h_edge is monotone",
        paper="U-shape, minimum at h_L = 1/C (paper Fig., brief check 5)",
        measured=f"GCN min at h_L = {h_ls[k]} (acc {acc[k]:.3f}); acc "
        + ", ".join(f"{h}:{a:.2f}" for h, a in zip(h_ls, acc))
        + f"; J^G min at h_L = {h_ls[int(np.argmin(jg))]}; h_edge monotone "
        + str(all(b >= a for a, b in zip(he, he[1:]))),
        holds=None if args.quick else bool(u_shape),
        note=f"{seeds} seed(s) per point, F = 8",
    )


def _feature_effect(args, details):
    from trihom.models import train_gcn

    n, epochs, seeds = (200, 10, 1) if args.quick else (1000, 100, 3)
    h_fs = (-0.6, 0.0, 0.6)
    acc = []
    for i, h_f in enumerate(h_fs):
        a = [
            _accuracy(
                train_gcn, *_graph(n, 0.8, 1.0, h_f, 3000 + 10 * i + s, feat_dim=8), s, epochs
            )
            for s in range(seeds)
        ]
        acc.append(float(np.mean(a)))
    details["feature_effect"] = {"h_F": list(h_fs), "gcn": acc}
    yield Claim(
        "feature homophily: at h_L = 0.8, raising h_F from -0.6 to 0.6 raises GCN accuracy",
        paper="accuracy increases with h_F (brief check 6)",
        measured=", ".join(f"h_F {h}: {a:.3f}" for h, a in zip(h_fs, acc)),
        holds=None if args.quick else bool(acc[-1] > acc[0]),
        note=f"mean of {seeds} seed(s), h_S = 1, F = 8",
    )


DETAILS: dict = {}


def claims(args):
    """Yield one Claim per headline claim (brief checks 1-6)."""
    DETAILS.clear()
    yield from _round_trip(args)
    yield from _formula()
    yield from _baselines(args)
    try:
        import torch  # noqa: F401
    except ImportError:  # the plain `tests` env: the smoke test runs without the extra
        for name in ("correlation study (brief check 4)", "pitfall (5)", "h_F effect (6)"):
            yield Claim.reported(
                f"GNN claim: {name}",
                paper="-",
                measured="torch not installed",
                note='needs the torch extra: pip install "trihom[torch]"',
            )
        return
    yield from _correlation_study(args, DETAILS)
    yield from _pitfall(args, DETAILS)
    yield from _feature_effect(args, DETAILS)


main = reproduce_cli(claims, quick=True, details=lambda args: DETAILS)
