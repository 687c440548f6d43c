"""Reproduce the headline claims of Learning Representations for Hierarchies with Minimal Support
(NeurIPS 2024) at small scale.

    python reproduce.py [--quick] [--full] [--json PATH]

1. Minimality, exhaustively: for every labelled poset on 4 and on 5 elements, the minimal
   sidigraph H* is consistent with that poset only, and dropping any one entry admits another.
2. Reduction ratios: balanced binary tree of depth 10 (2047 nodes), reduced examples
   (|E^tr| + |E_H*|) / full examples (|E^tc| + |Ē|).
3. Training (balanced tree, branching 3, depth 5, 364 nodes; equal budgets of sampled pairs):
   GT-BOX on the reduced set vs the full set (AUF1C, final F1), SIM-VEC likewise; and hard
   nested boxes reproduce the tree exactly (the inductive bias).
"""

from __future__ import annotations

import time

import numpy as np
from dag_sidigraph import (
    PairSampler,
    auf1c,
    balanced_tree,
    best_f1,
    enumerate_posets,
    minimal_sidigraph,
    stats,
    transitive_reduction,
)

from papershelf_harness import Claim, reproduce_cli

DETAILS: dict = {}


def _minimality(n: int) -> tuple[int, int, float]:
    """(#posets, #posets passing both checks, seconds)."""
    t0 = time.perf_counter()
    posets = enumerate_posets(n)

    def consistent(pos, neg):
        ok = posets[:, pos[0], pos[1]].all(axis=1)
        return ok & ~posets[:, neg[0], neg[1]].any(axis=1)

    good = 0
    for k, g in enumerate(posets):
        pos, neg = minimal_sidigraph(g)
        ok = consistent(pos, neg)
        unique = ok.sum() == 1 and ok[k]
        drops = all(
            consistent(np.delete(pos, j, axis=1), neg).sum() > 1 for j in range(pos.shape[1])
        ) and all(consistent(pos, np.delete(neg, j, axis=1)).sum() > 1 for j in range(neg.shape[1]))
        good += bool(unique and drops)
    return len(posets), good, time.perf_counter() - t0


def minimality_claims(args):
    for n in (4, 5):
        if n == 5 and args.quick:
            yield Claim.not_run(
                "H* is minimal on all 4231 posets of 5 elements",
                paper="proved (Thm.)",
                why="--quick runs 4 elements only",
                measured="skipped",
            )
            continue
        total, good, secs = _minimality(n)
        DETAILS[f"minimality_{n}"] = {"posets": total, "pass": good, "seconds": round(secs, 2)}
        yield Claim(
            f"H* is minimal on all {total} posets of {n} elements",
            paper="proved (Thm.)",
            measured=f"{good}/{total}",
            holds=good == total,
            note="exhaustive: H* admits only G; H* minus any one entry admits another poset",
        )


def ratio_claims(args):
    depth = 6 if args.quick else 10
    s = stats(balanced_tree(2, depth))
    DETAILS["binary_tree"] = {"depth": depth, **s.__dict__}
    yield Claim(
        f"binary tree depth {depth}: reduced/full training examples < 5%",
        paper="up to 99% fewer",
        measured=f"{100 * s.example_ratio:.2f}% ({100 * (1 - s.example_ratio):.2f}% fewer)",
        holds=s.example_ratio < 0.05,
        note=(
            f"|E^tr|/|E^tc| = {s.num_reduction_edges}/{s.num_closure_edges}, "
            f"|E_H*|/|Ē| = {s.num_minimal_negatives}/{s.num_non_edges}"
        ),
    )
    yield Claim.not_run(
        "MeSH 2020: negatives reduced by 95.83% (k = 4)",
        paper="-95.83%",
        why="MeSH is not bundled (no downloads at run time); synthetic graphs only",
    )


def _train_all(args):
    import torch
    from dag_sidigraph.models import BoxEmbedding, SimVec, train

    torch.set_num_threads(1)
    if args.quick:
        adj, budget, dim = balanced_tree(2, 3), 20_000, 8
    elif args.full:
        adj, budget, dim = balanced_tree(3, 5), 1_000_000, 64
    else:
        adj, budget, dim = balanced_tree(3, 5), 200_000, 64
    batch, k = 64, 4
    steps = max(1, budget // (batch * (1 + k)))
    runs = {}
    for model_name in ("box", "simvec"):
        for setting in ("full", "reduced"):
            gen = torch.Generator().manual_seed(0)
            if model_name == "box":
                model = BoxEmbedding(
                    len(adj), dim, volume_temp=0.1, intersection_temp=0.01, generator=gen
                )
            else:
                model = SimVec(len(adj), dim, generator=gen)
            # dim 64 was the best of 4-128 tried for the box on the reduced set (16: 0.77 final
            # F1, 64: 0.88, 128: 0.87; full set 0.95-0.96 throughout)
            pos, neg = ("closure", "all") if setting == "full" else ("reduction", "minimal")
            sampler = PairSampler(adj, positives=pos, negatives=neg, k=k, batch_size=batch, rng=0)
            hist = train(model, sampler, steps=steps, lr=0.02, eval_every=max(1, steps // 10))
            runs[(model_name, setting)] = hist
            DETAILS[f"{model_name}_{setting}"] = {
                "examples": hist.examples.tolist(),
                "f1": [round(float(x), 4) for x in hist.f1],
                "auf1c": round(auf1c(hist), 4),
                "training_set_size": sampler.num_examples,
            }
    return adj, runs, budget


def training_claims(args):
    try:
        import torch  # noqa: F401
    except ImportError:
        for text in (
            "GT-BOX / SIM-VEC training on the reduced vs the full set",
            "hard nested boxes",
        ):
            yield Claim.not_run(text, paper="-", why="needs torch")
        return
    adj, runs, budget = _train_all(args)
    n = len(adj)
    scale = f"tree n={n}, budget {budget} sampled pairs, k=4"
    bf, br = runs[("box", "full")], runs[("box", "reduced")]
    sf, sr = runs[("simvec", "full")], runs[("simvec", "reduced")]
    yield Claim(
        "GT-BOX: higher AUF1C on the reduced set than on the full set",
        paper="reduced > full",
        measured=f"{auf1c(br):.3f} vs {auf1c(bf):.3f}",
        holds=auf1c(br) > auf1c(bf),
        note=scale,
    )
    yield Claim(
        "GT-BOX on the reduced set reaches F1 >= 0.95",
        paper="robust F1",
        measured=f"{br.final_f1:.3f} (full: {bf.final_f1:.3f})",
        holds=br.final_f1 >= 0.95,
        note=scale,
    )
    yield Claim(
        "SIM-VEC degrades on the reduced set (lower final F1)",
        paper="reduced < full",
        measured=f"{sr.final_f1:.3f} vs {sf.final_f1:.3f}",
        holds=sr.final_f1 < sf.final_f1,
        note=scale,
    )
    yield _hard_boxes_claim(adj)


def _hard_boxes_claim(adj):
    import torch
    from dag_sidigraph.models import BoxEmbedding

    t = transitive_reduction(adj)
    lo, hi = np.zeros(len(adj)), np.zeros(len(adj))
    clock = 0
    stack = [(0, False)]
    while stack:  # iterative DFS: each box is the interval between entering and leaving a node
        u, leaving = stack.pop()
        if leaving:
            hi[u] = clock
        else:
            lo[u] = clock
            stack.append((u, True))
            stack.extend((int(c), False) for c in np.flatnonzero(t[u])[::-1])
        clock += 1
    model = BoxEmbedding(len(adj), 1, volume_temp=1e-3, intersection_temp=1e-4)
    model.set_boxes(torch.tensor(lo / clock)[:, None], torch.tensor(hi / clock)[:, None])
    f1 = best_f1(model.log_prob_matrix().double().numpy(), adj)
    return Claim(
        "boxes nested along E^tr, disjoint on E_H*, give the full adjacency (F1 = 1)",
        paper="containment is transitive",
        measured=f"F1 = {f1:.4f}",
        holds=f1 == 1.0,
        note="1-d intervals from a DFS, near-hard temperatures",
    )


main = reproduce_cli(
    [minimality_claims, ratio_claims, training_claims],
    details=lambda args: DETAILS,
    full_help="5x the training budget (1M sampled pairs)",
)
