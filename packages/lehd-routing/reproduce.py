"""Reproduce the headline claims of Neural Combinatorial Optimization with Heavy Decoder: Toward Large Scale Generalization (NeurIPS 2023) at small scale.

The brief's CPU checks 1-6 and a CVRP20 run: validity of greedy/RRC tours, the training scheme's
premise (sub-paths of optimal tours are optimal), the sampler's distribution, learning on TSP20
with 2-opt labels, RRC's improvement against a random-policy control, LEHD against a
heavy-encoder light-decoder ablation on TSP50/100 (``--ablation`` or ``--full``), and CVRP20 against a
savings heuristic. The paper's Table 1 numbers (1M Concorde/HGS-labelled TSP100/CVRP100 instances,
150 GPU epochs) are printed beside our small-scale analogues and marked not checked.

    python reproduce.py [--quick] [--full] [--ablation] [--json PATH] [--train N] [--epochs E]
"""

from __future__ import annotations

import itertools
import math
import time
from functools import lru_cache

import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli

DETAILS: dict = {}
PAPER_TABLE1 = {  # greedy gap %, RRC-1000 gap % (the and brief's figures)
    "TSP100": (0.58, 0.002),
    "TSP1000": (3.17, 0.72),
    "CVRP100": (3.6, None),
}


def _extra(parser):
    parser.add_argument("--train", type=int, default=None, help="TSP20 training instances")
    parser.add_argument("--epochs", type=int, default=None, help="training epochs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--ablation", action="store_true", help="check 6: train the heavy-encoder ablation too"
    )


_CFG_KEYS = ("train", "epochs", "batch", "width", "heads", "ff", "layers", "eval", "rrc",
             "cvrp_train", "cvrp_epochs", "lr", "gen_sizes")  # fmt: skip
_QUICK = (48, 1, 16, 16, 2, 32, 1, 6, 4, 24, 1, 1e-3, (20,))
_DEFAULT = (3000, 6, 200, 64, 4, 128, 3, 100, 100, 1500, 4, 1e-3, (20, 50, 100))


def _cfg(args):
    torch.set_num_threads(1)  # small tensors: one thread is fastest on a shared machine
    cfg = dict(zip(_CFG_KEYS, _QUICK if args.quick else _DEFAULT))
    if args.quick:
        return cfg
    if args.full:
        cfg.update(train=20000, epochs=20, eval=200, cvrp_train=10000, cvrp_epochs=15)
    if args.train is not None:
        cfg["train"] = args.train
    if args.epochs is not None:
        cfg["epochs"] = args.epochs
    return cfg


def _reference(coords):
    """Near-optimal reference tours: LKH-3 through elkai when installed, else the best 2-opt of
    several starts."""
    from lehd_routing import tsp

    try:
        import elkai
    except ImportError:
        return _multi_two_opt(coords, 4, np.random.default_rng(123)), "best of 4 2-opt runs"
    tours = []
    for c in coords:
        dist = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1))
        scaled = np.rint(dist * 1e6).astype(int).tolist()
        t = elkai.DistanceMatrix(scaled).solve_tsp(runs=4)[:-1]
        tours.append(t)
    tours = np.array(tours, dtype=np.int64)
    return tsp.two_opt(coords, tours), "LKH-3 (elkai)"


def _multi_two_opt(coords, starts, rng):
    from lehd_routing import tsp

    best = tsp.two_opt(coords, tsp.nearest_neighbour(coords))
    best_len = tsp.tour_length(coords, best)
    for _ in range(starts - 1):
        init = np.stack([rng.permutation(coords.shape[1]) for _ in range(len(coords))])
        t = tsp.two_opt(coords, init)
        length = tsp.tour_length(coords, t)
        better = length < best_len
        best[better], best_len[better] = t[better], length[better]
    return best


def _model(cfg, **kw):
    from lehd_routing import LEHD

    return LEHD(embed_dim=cfg["width"], heads=cfg["heads"], ff_dim=cfg["ff"], **kw)


@lru_cache(maxsize=4)
def _trained(key):
    cfg, seed, enc_layers, dec_layers = dict(key[0]), key[1], key[2], key[3]
    from lehd_routing import fit, tsp

    torch.manual_seed(seed)
    coords = tsp.random_instances(cfg["train"], 20, rng=seed)
    labels = _multi_two_opt(coords, 2, np.random.default_rng(seed + 1))
    model = _model(cfg, encoder_layers=enc_layers, decoder_layers=dec_layers)
    t0 = time.perf_counter()
    res = fit(
        model,
        coords,
        labels,
        epochs=cfg["epochs"],
        batch_size=cfg["batch"],
        lr=cfg["lr"],
        generator=torch.Generator().manual_seed(seed),
    )
    return model, res, time.perf_counter() - t0


def _key(cfg, seed, enc=1, dec=None):
    return (
        tuple(sorted((k, v) for k, v in cfg.items())),
        seed,
        enc,
        cfg["layers"] if dec is None else dec,
    )


def _gap(lengths, ref):
    return float(np.mean(lengths / ref - 1) * 100)


def _chi2_sf(x, df):
    """Chi-square survival function for df = 1 or an even df (closed forms)."""
    if df == 1:
        return math.erfc(math.sqrt(x / 2))
    if df % 2:
        raise ValueError("odd df > 1 not needed here")
    term, total = 1.0, 1.0
    for i in range(1, df // 2):
        term *= (x / 2) / i
        total += term
    return math.exp(-x / 2) * total


# -- checks 2 and 3: the training scheme -----------------------------------------------------
def premise_and_sampler(args):
    from lehd_routing import sample_subpaths, tsp

    rng = np.random.default_rng(args.seed)
    samples = 40 if args.quick else 200
    coords = tsp.random_instances(samples, 10, rng=rng)
    tours, _ = tsp.held_karp(coords)
    violations = 0
    for b in range(samples):
        nodes = sample_subpaths(tours[b : b + 1], rng=rng)[0]
        dist = np.sqrt(((coords[b][:, None] - coords[b][None]) ** 2).sum(-1))
        ours = dist[nodes[:-1], nodes[1:]].sum()
        inner = nodes[1:-1]
        perms = np.array([(nodes[0], *p, nodes[-1]) for p in itertools.permutations(inner)])
        best = dist[perms[:, :-1], perms[:, 1:]].sum(1).min()
        violations += int(ours > best + 1e-9)
    yield Claim(
        "premise: a sub-path of an optimal tour is optimal for its fixed-endpoint sub-problem "
        "(TSP10, Held-Karp tours, brute force on the sub-problem)",
        paper="0 violations (by construction)",
        measured=f"{violations} / {samples}",
        holds=violations == 0,
    )
    n, draws = 20, 1000 if args.quick else 20000  # 17 lengths: an even df of 16
    tour = np.arange(n)[None]
    lengths, reversed_ = np.empty(draws, int), np.empty(draws, bool)
    for i in range(draws):
        nodes = sample_subpaths(tour, rng=rng)[0]
        lengths[i] = len(nodes)
        reversed_[i] = len(nodes) > 1 and (nodes[1] - nodes[0]) % n == n - 1
    counts = np.bincount(lengths, minlength=n + 1)[4:]
    expected = draws / len(counts)
    p_len = _chi2_sf(float(((counts - expected) ** 2 / expected).sum()), len(counts) - 1)
    k = int(reversed_.sum())
    p_rev = _chi2_sf((k - draws / 2) ** 2 / (draws / 4), 1)
    yield Claim(
        "sampler: sub-path length uniform on {4..n}, reversal probability 1/2 (n = 20)",
        paper="l ~ U{4..n}, reversed w.p. 1/2",
        measured=f"chi-square p = {p_len:.3f}, reversed {reversed_.mean():.3f} (p = {p_rev:.3f}),"
        f" {draws} draws",
        holds=bool(p_len > 0.01 and p_rev > 0.01),
    )


# -- checks 1, 4, 5: TSP20 --------------------------------------------------------------------
def tsp20(args):
    from lehd_routing import greedy, rrc, tsp

    cfg = _cfg(args)
    model, res, secs = _trained(_key(cfg, args.seed))
    coords = tsp.random_instances(cfg["eval"], 20, rng=args.seed + 100)
    ref_tours, ref_name = _reference(coords)
    ref = tsp.tour_length(coords, ref_tours)
    two = tsp.tour_length(coords, tsp.two_opt(coords, tsp.nearest_neighbour(coords)))
    nn = tsp.tour_length(coords, tsp.nearest_neighbour(coords))
    g_tours = greedy(model, coords)
    g = tsp.tour_length(coords, g_tours)
    t0 = time.perf_counter()
    r_tours, hist = rrc(model, coords, g_tours, iterations=cfg["rrc"], rng=args.seed)
    rrc_secs = time.perf_counter() - t0
    torch.manual_seed(args.seed + 7)
    control = _model(cfg, decoder_layers=cfg["layers"])  # random policy, same architecture
    _, hist_c = rrc(control, coords, g_tours, iterations=cfg["rrc"], rng=args.seed)
    DETAILS["tsp20"] = {
        "train_instances": cfg["train"],
        "epochs": cfg["epochs"],
        "train_seconds": round(secs, 1),
        "loss": [round(v, 4) for v in res.loss],
        "accuracy": [round(v, 4) for v in res.accuracy],
        "reference": ref_name,
        "gap_nn_%": _gap(nn, ref),
        "gap_2opt_%": _gap(two, ref),
        "gap_greedy_%": _gap(g, ref),
        "gap_rrc_%": _gap(hist[:, -1], ref),
        "gap_rrc_control_%": _gap(hist_c[:, -1], ref),
        "rrc_seconds": round(rrc_secs, 1),
    }
    d = DETAILS["tsp20"]
    valid = bool(tsp.is_valid_tour(g_tours, 20).all() and tsp.is_valid_tour(r_tours, 20).all())
    for n in (10, 50):
        c = tsp.random_instances(4, n, rng=n)
        t = greedy(model, c)
        gen = np.random.default_rng(n)
        ok = bool(tsp.is_valid_tour(t, n).all())
        for _ in range(3 if args.quick else 10):  # every RRC iterate
            t, h = rrc(model, c, t, iterations=1, rng=gen)
            ok &= bool(tsp.is_valid_tour(t, n).all() and (h[:, 1] <= h[:, 0]).all())
        valid &= ok
    monotone = bool((np.diff(hist, axis=1) <= 0).all())
    yield Claim(
        "validity: greedy tours and every RRC iterate are permutations (n = 10, 20, 50); the RRC "
        "length history is non-increasing",
        paper="by construction",
        measured=f"valid {valid}, non-increasing {monotone}",
        holds=valid and monotone,
    )
    acc = res.accuracy[-1]
    yield Claim(
        f"learning: TSP20 greedy gap below nearest neighbour's, teacher-step accuracy > 50% "
        f"({cfg['train']} instances x {cfg['epochs']} epochs, width {cfg['width']}, "
        f"{cfg['layers']} decoder layers, {secs:.0f} s)",
        paper="TSP100: greedy 0.58% (1M Concorde labels)",
        measured=f"greedy {d['gap_greedy_%']:.2f}% vs NN {d['gap_nn_%']:.2f}% "
        f"(2-opt {d['gap_2opt_%']:.2f}%), accuracy {acc:.1%}; reference {ref_name}",
        holds=bool(d["gap_greedy_%"] < d["gap_nn_%"] and acc > 0.5),
        note="lr 1e-3 (paper 1e-4) to learn in a CPU minute",
    )
    drop = 1 - d["gap_rrc_%"] / max(d["gap_greedy_%"], 1e-12)
    drop_c = 1 - d["gap_rrc_control_%"] / max(d["gap_greedy_%"], 1e-12)
    yield Claim(
        f"RRC-{cfg['rrc']} cuts the TSP20 greedy gap by >= 50% relative; a random-policy model "
        "improves much less",
        paper="TSP100: 0.58% -> 0.002% with RRC-1000",
        measured=f"{d['gap_greedy_%']:.2f}% -> {d['gap_rrc_%']:.2f}% ({drop:.0%}); control "
        f"{d['gap_rrc_control_%']:.2f}% ({drop_c:.0%}); {rrc_secs:.1f} s",
        holds=bool(drop >= 0.5 and drop > drop_c + 0.1),
    )


# -- check 6: heavy decoder vs heavy encoder -----------------------------------------------------
def generalisation(args):
    from lehd_routing import greedy, tsp

    cfg = _cfg(args)
    if not (args.full or getattr(args, "ablation", False)):
        yield Claim.reported(
            "LEHD's greedy gap grows less from TSP20 to TSP100 than a heavy-encoder light-decoder "
            "model trained identically",
            paper="LEHD generalises (TSP1000 3.17% greedy vs worse for heavy encoders)",
            measured="not run (--ablation or --full: trains a second model)",
        )
        return
    lehd, _, _ = _trained(_key(cfg, args.seed))
    held, _, _ = _trained(_key(cfg, args.seed, enc=cfg["layers"], dec=1))
    rows = {}
    for n in cfg["gen_sizes"]:
        c = tsp.random_instances(max(cfg["eval"] // 4, 4), n, rng=1000 + n)
        ref = tsp.tour_length(c, _reference(c)[0])
        rows[n] = (
            _gap(tsp.tour_length(c, greedy(lehd, c)), ref),
            _gap(tsp.tour_length(c, greedy(held, c)), ref),
        )
    DETAILS["generalisation"] = {str(n): {"lehd_%": a, "held_%": b} for n, (a, b) in rows.items()}
    lo, hi = min(rows), max(rows)
    growth = rows[hi][0] - rows[lo][0], rows[hi][1] - rows[lo][1]
    yield Claim(
        f"LEHD's greedy gap grows less from TSP{lo} to TSP{hi} than a heavy-encoder "
        "light-decoder model trained identically",
        paper="LEHD generalises (TSP1000 3.17% greedy vs worse for heavy encoders)",
        measured="; ".join(f"n={n}: LEHD {a:.1f}% / HELD {b:.1f}%" for n, (a, b) in rows.items()),
        holds=None if lo == hi else bool(growth[0] < growth[1]),
    )


# -- CVRP20 ------------------------------------------------------------------------------------
def cvrp20(args):
    from lehd_routing import LEHD, cvrp, fit, greedy_cvrp

    cfg = _cfg(args)
    torch.manual_seed(args.seed)
    inst = cvrp.random_instances(cfg["cvrp_train"], 20, rng=args.seed + 5)
    labels = [
        cvrp.savings(inst.coords[k], inst.demands[k], inst.capacity)[0]
        for k in range(cfg["cvrp_train"])
    ]
    model = LEHD(
        problem="cvrp",
        embed_dim=cfg["width"],
        heads=cfg["heads"],
        ff_dim=cfg["ff"],
        decoder_layers=cfg["layers"],
    )
    t0 = time.perf_counter()
    fit(
        model,
        inst.coords,
        labels,
        epochs=cfg["cvrp_epochs"],
        batch_size=cfg["batch"],
        lr=cfg["lr"],
        demands=inst.demands,
        capacity=inst.capacity,
        generator=torch.Generator().manual_seed(args.seed),
    )
    secs = time.perf_counter() - t0
    test = cvrp.random_instances(cfg["eval"], 20, rng=args.seed + 6)
    sols = greedy_cvrp(model, test.coords, test.demands, test.capacity)
    feasible = all(cvrp.is_feasible(s, test.demands[k], test.capacity) for k, s in enumerate(sols))
    ours = np.array([cvrp.cost(test.coords[k], s) for k, s in enumerate(sols)])
    ref = np.array(
        [
            cvrp.savings(test.coords[k], test.demands[k], test.capacity)[1]
            for k in range(cfg["eval"])
        ]
    )
    nn = np.array(
        [
            cvrp.nearest_neighbour(test.coords[k], test.demands[k], test.capacity)[1]
            for k in range(cfg["eval"])
        ]
    )
    DETAILS["cvrp20"] = {
        "train_instances": cfg["cvrp_train"],
        "epochs": cfg["cvrp_epochs"],
        "train_seconds": round(secs, 1),
        "gap_greedy_%": _gap(ours, ref),
        "gap_nn_%": _gap(nn, ref),
        "feasible": feasible,
    }
    yield Claim(
        f"CVRP20: LEHD greedy solutions are feasible and beat nearest-neighbour construction "
        f"(gaps vs Clarke-Wright savings + 2-opt; {cfg['cvrp_train']} instances x "
        f"{cfg['cvrp_epochs']} epochs, {secs:.0f} s)",
        paper="CVRP100 greedy 3.6% (vs HGS, 1M HGS labels)",
        measured=f"greedy {_gap(ours, ref):.2f}% vs NN {_gap(nn, ref):.2f}%, feasible {feasible}",
        holds=bool(feasible and ours.mean() < nn.mean()),
        note="trained on whole savings-labelled solutions (routes shuffled and reversed), not "
        "LEHD's partial-solution sampling",
    )


# -- the paper's Table 1 -----------------------------------------------------------------------
def table1(args):
    from lehd_routing import greedy, tsp

    cfg = _cfg(args)
    model, _, _ = _trained(_key(cfg, args.seed))
    n = 100 if not args.quick else 30
    c = tsp.random_instances(max(cfg["eval"] // 5, 4), n, rng=77)
    ref = tsp.tour_length(c, _reference(c)[0])
    ours = _gap(tsp.tour_length(c, greedy(model, c)), ref)
    g, r = PAPER_TABLE1["TSP100"]
    yield Claim.reported(
        "Table 1 TSP100: greedy gap 0.58%, RRC-1000 0.002% (trained on 1M TSP100 instances)",
        paper=f"{g}% / {r}%",
        measured=f"not reproduced at this scale; our TSP20-trained model, greedy on TSP{n}: "
        f"{ours:.2f}%",
        note="needs 1M Concorde-labelled TSP100 instances and ~150 GPU epochs",
    )
    g, r = PAPER_TABLE1["TSP1000"]
    yield Claim.reported(
        "Table 1 TSP1000 (trained on TSP100): greedy 3.17%, RRC-1000 0.72%",
        paper=f"{g}% / {r}%",
        measured="not run (GPU-scale model and data)",
    )
    yield Claim.reported(
        "Table 1 CVRP100: greedy 3.6% (vs HGS)",
        paper=f"{PAPER_TABLE1['CVRP100'][0]}%",
        measured="not run; see the CVRP20 row",
    )


main = reproduce_cli(
    [premise_and_sampler, tsp20, generalisation, cvrp20, table1],
    extra_args=_extra,
    details=lambda args: DETAILS,
)
