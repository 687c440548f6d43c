"""Rule/activity scoring and fusion: symbol_llm vs the release notebook's per-image loop.

The baseline is the loop of hico_clip+reason.ipynb: for each activity and candidate image, for
each rule, ``np.array([p[symbol] for symbol in rule]).min()``, then the max over rules and
``s1 + fac * R + 100``. Ours is ``activity_scores`` + ``fuse`` on the whole matrix. Both give
the same scores (checked on every run).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

from functools import partial

import numpy as np
import symbol_llm as sl

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def problem(n_img, n_act, n_sym, rules_per_act, rng):
    P = rng.random((n_img, n_sym))
    s1 = rng.random((n_img, n_act))
    rules = [
        (a, list(rng.choice(n_sym, int(rng.integers(2, 6)), replace=False)))
        for a in range(n_act)
        for _ in range(rules_per_act)
    ]
    M = np.zeros((len(rules), n_sym), bool)
    for r, (_, syms) in enumerate(rules):
        M[r, syms] = True
    ra = np.array([a for a, _ in rules])
    cand = np.zeros((n_img, n_act), bool)
    top = np.argsort(-s1, axis=0)[: n_img // 4]
    np.put_along_axis(cand, top, True, axis=0)
    return P, s1, rules, M, ra, cand


def notebook_loop(P, s1, rules, cand, fac):
    out = s1.copy()
    by_act: dict[int, list[list[int]]] = {}
    for a, syms in rules:
        by_act.setdefault(a, []).append(syms)
    for a in range(s1.shape[1]):
        for i in np.flatnonzero(cand[:, a]):
            pred_rules = [np.array([P[i, s] for s in syms]).min() for syms in by_act.get(a, [])]
            r = np.array(pred_rules).max() if pred_rules else 0.0
            out[i, a] = out[i, a] + fac * r + 100
    return out


def ours(P, s1, M, ra, cand, fac):
    R = sl.activity_scores(P, M, ra, n_activities=s1.shape[1])
    return sl.fuse(s1, R, cand, weight=fac)


def run(args):
    table = Table(["config", "scored by the loop", "ours_ms", "notebook_loop_ms", "speedup"])
    configs = [(200, 20, 100, 5)] if args.quick else [(1000, 50, 300, 5), (4000, 100, 500, 8)]
    for n_img, n_act, n_sym, rpa in configs:
        P, s1, rules, M, ra, cand = problem(n_img, n_act, n_sym, rpa, np.random.default_rng(0))
        name = f"{n_img} img x {n_act} act, {len(rules)} rules, {n_sym} symbols"
        t_ours = timeit_ms(partial(ours, P, s1, M, ra, cand, 2.0), repeat=7)
        masks = [("candidates (1/4)", cand)]
        if n_img * n_act <= 50_000:
            masks.insert(0, ("all pairs", np.ones_like(cand)))
        for label, mask in masks:
            a = ours(P, s1, M, ra, mask, 2.0)
            np.testing.assert_allclose(a, notebook_loop(P, s1, rules, mask, 2.0), atol=1e-12)
            t_loop = timeit_ms(partial(notebook_loop, P, s1, rules, mask, 2.0), repeat=1, warmup=0)
            table.add(
                name,
                label,
                round(t_ours.best_ms, 3),
                round(t_loop.best_ms, 1),
                ratio(t_loop.best_ms, t_ours.best_ms),
            )
    table.notes += (
        "; ours always scores every (image, activity) pair; 'all pairs' is like for like, "
        "'candidates' is the notebook as released (it scores only each activity's top 1/4)"
    )
    return table


main = bench_cli(run, title="rule scoring + fusion, ms (best of repeats)")
