"""Reproduce the headline claims of Dynamic Rescaling for Training GNNs (NeurIPS 2024) at small scale
(the brief's checks 2-7 on synthetic CSBM graphs; the paper's benchmarks are not downloaded).

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import statistics

import gnn_rescale as gr
import torch

from papershelf_harness import Claim, reproduce_cli

F = torch.nn.functional


def _fmt(v):
    return "never" if v is None else str(v)


CHANCE = 0.25  # 4 balanced classes
# The synthetic tasks (the paper's benchmarks are not downloaded). Both are learnable well above
# chance by the GAT: the heterophilic graph sends its other-class edges to one partner class (as
# in roman-empire, the neighbourhood says which class a node is), and the features are noisy
# enough (signal 1, noise sd 1 in 32 dims) that the graph matters.
HETERO = dict(homophily=0.2, mixing="paired", signal=1.0)
HOMO = dict(homophily=0.8, mixing="uniform", signal=0.5)


def _run(seed, *, n, graph, dims, crit=None, lr=0.01, epochs, focus=None):
    g = torch.Generator().manual_seed(seed)
    d = gr.data.csbm(n, 4, avg_degree=8, feat_dim=32, generator=g, **graph)
    masks = gr.data.random_split(n, train=0.5, val=0.25, generator=g)
    torch.manual_seed(seed)
    m = gr.GATv2Net(dims)
    gr.init.looks_linear_orthogonal_(m, generator=g)
    if focus is not None:
        gr.focus_layer_(m, focus, 0.1)
    r = gr.DynamicRescaler(m, criterion=crit, every=10) if crit else None
    return gr.train_node_classifier(
        m, d.x, d.edge_index, d.y, masks, epochs=epochs, lr=lr, clip=3.0, rescaler=r
    )


def _training_claim(claim, paper, measured, holds, note, *, baseline_test):
    """A comparison is only a test of the claim if the baseline learns: test accuracy at least
    twice chance (the runs of the first session were near chance and said nothing)."""
    if baseline_test < 2 * CHANCE:
        holds, note = None, note + "; baseline near chance: not a valid test"
    return Claim(claim, paper=paper, measured=measured, holds=holds, note=note)


def _test_at_best_val(res):
    i = max(range(len(res.val_acc)), key=res.val_acc.__getitem__)
    return res.test_acc[i]


def _balance_claims(quick):
    torch.manual_seed(0)
    m = gr.GATv2Net([16, 64, 64, 64, 64, 4]).double()
    hist = [gr.imbalance(m)]
    for _ in range(30):
        gr.balance_weight_norms_(m, n_iter=1)
        hist.append(gr.imbalance(m))
    ok = hist[10] < 1e-2 and hist[30] < 1e-4 and all(b <= a for a, b in zip(hist, hist[1:]))
    yield Claim(
        "DR_W: max relative imbalance < 1e-2 after 10 sweeps, < 1e-4 after 30 (5 layers, width 64)",
        paper="3e-3 / 3e-8 (brief's simulation)",
        measured=f"{hist[10]:.1e} / {hist[30]:.1e}",
        holds=ok,
        note=f"Xavier-normal init, start {hist[0]:.2f}; monotone decrease: {ok}",
    )
    ll, need = [], []
    for seed in range(1 if quick else 10):
        gr.init.looks_linear_orthogonal_(m, generator=torch.Generator().manual_seed(seed))
        h = [gr.imbalance(m)]
        for _ in range(20):
            gr.balance_weight_norms_(m, n_iter=1)
            h.append(gr.imbalance(m))
        ll.append(h[10])
        need.append(next((i for i, v in enumerate(h) if v < 1e-2), None))
    yield Claim(
        "DR_W from looks-linear init: max relative imbalance < 1e-2 after 10 sweeps",
        paper="< 1e-2 after 10 sweeps (issue)",
        measured=f"{min(ll):.2e} .. {max(ll):.2e} ({len(ll)} inits)",
        holds=max(ll) < 1e-2,
        note=f"sweeps needed to reach < 1e-2: {sorted(set(map(_fmt, need)))}; start "
        f"{h[0]:.2f}, per-sweep ratio at sweep 10: {h[10] / h[9]:.2f}; same sweep as the authors'",
    )
    gr.init.looks_linear_orthogonal_(m, generator=torch.Generator().manual_seed(0))
    gr.balance_weight_norms_(m)
    x = torch.randn(200, 16, dtype=torch.float64)
    ei = torch.randint(0, 200, (2, 1600))
    F.cross_entropy(m(x, ei), torch.randint(0, 4, (200,))).backward()
    gr.balance_relative_gradients_(m)
    r = torch.cat(gr.relative_gradient_balance(m))
    yield Claim(
        "DR_RG: R_in/R_out in [0.8, 1.25] for every neuron after 10 sweeps",
        paper="balanced (Eq. 4)",
        measured=f"[{float(r.min()):.3f}, {float(r.max()):.3f}]",
        holds=0.8 <= float(r.min()) and float(r.max()) <= 1.25,
        note="looks-linear init, after DR_W",
    )


def _conservation_claim(quick):
    steps = 40 if quick else 200
    g = torch.Generator().manual_seed(1)
    d = gr.data.csbm(100, 4, homophily=0.3, feat_dim=8, generator=g)
    x = d.x.double()
    drift = {}
    for name, opt_cls, lr in (("sgd", torch.optim.SGD, 1e-4), ("adam", torch.optim.Adam, 1e-2)):
        torch.manual_seed(1)
        m = gr.GATv2Net([8, 16, 16, 4]).double()
        c0 = torch.cat(gr.conserved_quantity(m))
        opt = opt_cls(m.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            F.cross_entropy(m(x, d.edge_index), d.y).backward()
            opt.step()
        c1 = torch.cat(gr.conserved_quantity(m))
        drift[name] = float(((c1 - c0).abs() / c0.abs().clamp_min(1e-3)).max())
    yield Claim(
        f"conservation: SGD lr 1e-4 x {steps} steps changes every c_i by < 1%; Adam lr 1e-2 far "
        "more",
        paper="conserved under gradient flow",
        measured=f"SGD {100 * drift['sgd']:.3f}% / Adam {100 * drift['adam']:.0f}%",
        holds=drift["sgd"] < 1e-2 and drift["adam"] > 10 * drift["sgd"],
        note="largest per-neuron relative change",
    )


def _focus_claim():
    g = torch.Generator().manual_seed(2)
    d = gr.data.csbm(100, 4, homophily=0.8, feat_dim=8, generator=g)
    torch.manual_seed(2)
    m = gr.GATv2Net([8, 16, 4])

    def rel():
        m.zero_grad()
        F.cross_entropy(m(d.x, d.edge_index), d.y).backward()
        return gr.relative_gradient_norms(m)

    before = rel()
    gr.focus_layer_(m, 0, 0.1)
    after = rel()
    ratio = after[0] / before[0]
    yield Claim(
        "focus_layer_(model, 0, 0.1) multiplies layer 1's relative-gradient norm by ~100 (±20%)",
        paper="~c^-2 = 100",
        measured=f"{ratio:.1f}x (layer 2: {after[1] / before[1]:.4f}x)",
        holds=80 <= ratio <= 120,
        note="compensated through the invariance: the network function is unchanged",
    )


def _median_epochs(v, epochs):
    return statistics.median(epochs + 1 if e is None else e for e in v)


def _heterophily_claim(quick):
    n, width, epochs = (80, 8, 15) if quick else (500, 16, 250)
    seeds = [0] if quick else [0, 1, 2]
    dims = [32] + [width] * 4 + [4]
    ep, te = {}, {}
    for crit in (None, "rg"):
        runs = [_run(s, n=n, graph=HETERO, dims=dims, crit=crit, epochs=epochs) for s in seeds]
        ep[crit] = [r.epochs_to(0.95) for r in runs]
        te[crit] = statistics.mean(_test_at_best_val(r) for r in runs)
    m_rg, m_base = _median_epochs(ep["rg"], epochs), _median_epochs(ep[None], epochs)
    note = (
        f"N={n}, width {width}, {epochs} epochs, {len(seeds)} seeds, epochs to 95% per seed "
        f"{list(map(_fmt, ep['rg']))} vs {list(map(_fmt, ep[None]))}; test acc at best val "
        f"(chance {100 * CHANCE:.0f})"
    )
    yield _training_claim(
        "heterophily (h=0.2, 5-layer GAT): DR_RG reaches 95% train acc in fewer epochs, test acc "
        "not worse by > 1 pt",
        "faster training, better generalisation (roman-empire, amazon-ratings, ...)",
        f"median epochs {m_rg} vs {m_base}; test {100 * te['rg']:.1f} vs {100 * te[None]:.1f}",
        m_rg < m_base and te["rg"] >= te[None] - 0.01,
        note,
        baseline_test=te[None],
    )


def _homophily_claim(quick):
    n, epochs = (80, 15) if quick else (500, 100)
    seeds = [0] if quick else [0, 1, 2]
    dims = [32, 32, 4]
    reach = {0: [], 1: []}
    base_at, base_test = [], []
    for s in seeds:
        base = _run(s, n=n, graph=HOMO, dims=dims, epochs=epochs)
        target = max(base.val_acc)
        base_at.append(base.val_acc.index(target))
        base_test.append(_test_at_best_val(base))
        for layer in (0, 1):
            r = _run(s, n=n, graph=HOMO, dims=dims, epochs=epochs, focus=layer)
            hit = next((i for i, v in enumerate(r.val_acc) if v >= target), None)
            reach[layer].append(epochs + 1 if hit is None else hit)
    m0, m1 = statistics.median(reach[0]), statistics.median(reach[1])
    bt = statistics.mean(base_test)
    note = (
        f"N={n}, dims {dims}, factor 0.1 (compensated), {epochs} epochs; per seed {reach[0]} vs "
        f"{reach[1]} ({epochs + 1} = never); the baseline reaches its best at {base_at}, test "
        f"acc {100 * bt:.1f} (chance {100 * CHANCE:.0f})"
    )
    yield _training_claim(
        "homophily (h=0.8, 2-layer GAT): focusing on layer 1 reaches the baseline's best val acc "
        "in fewer epochs than focusing on layer 2",
        "homophilic graphs prefer learning the first layer first",
        f"median epochs {m0} vs {m1}",
        m0 < m1,
        note,
        baseline_test=bt,
    )


def _lr_claim(quick):
    n, width, epochs = (80, 8, 15) if quick else (500, 16, 150)
    seeds = [0] if quick else [0, 1, 2, 3, 4]
    dims = [32] + [width] * 4 + [4]
    fails, te = {}, {}
    for crit in (None, "rg"):
        runs = [
            _run(s, n=n, graph=HETERO, dims=dims, crit=crit, lr=0.05, epochs=epochs) for s in seeds
        ]
        fails[crit] = sum(r.diverged or r.epochs_to(0.9) is None for r in runs)
        te[crit] = statistics.mean(_test_at_best_val(r) for r in runs)
    note = (
        f"fail = NaN loss or train acc never reaches 90% in {epochs} epochs; heterophilic task as "
        f"above; test acc at best val {100 * te['rg']:.1f} vs {100 * te[None]:.1f}"
    )
    holds = fails["rg"] < fails[None]
    if fails[None] == 0 and fails["rg"] == 0:
        holds, note = None, note + "; no run failed: not checkable"
    yield _training_claim(
        "lr 0.05: fewer seeds diverge/plateau with DR_RG than without",
        "balance supports larger learning rates",
        f"{fails['rg']}/{len(seeds)} vs {fails[None]}/{len(seeds)}",
        holds,
        note,
        baseline_test=te[None],
    )


def claims(args):
    torch.set_num_threads(1)
    yield from _balance_claims(args.quick)
    yield from _conservation_claim(args.quick)
    yield from _focus_claim()
    yield from _heterophily_claim(args.quick)
    yield from _homophily_claim(args.quick)
    yield from _lr_claim(args.quick)


main = reproduce_cli(
    claims, quick=True
)  # package, paper and --help from this file and pyproject.toml
