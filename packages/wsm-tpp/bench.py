"""Speed: closed-form vectorised AWSM objective+gradient vs a naive per-event implementation,
and AWSM vs MLE fit time on exponential-Hawkes data.

    python bench.py [--quick] [--json PATH]

ratio = baseline / ours (> 1 means ours is faster). The naive baseline evaluates the intensity by
direct sums over the history and the scores by finite differences (what one writes without the
recursions), so it is O(N^2) per sequence.
"""

from __future__ import annotations

from wsm_tpp import ExpHawkes, fit, objective, simulate_hawkes
from wsm_tpp._naive import naive_awsm as _naive_awsm

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

NOTES = f"{RATIO_NOTE}; baseline = naive per-event AWSM (rows 1-n) or MLE fit (last row)"


def _time(fn, repeat=3):
    """Best of ``repeat`` calls, in ms (no warm-up call: the naive baseline takes seconds)."""
    return timeit_ms(fn, repeat=repeat, warmup=0).best_ms


def run(args) -> Table:
    T = 50.0
    sizes = [5] if args.quick else [5, 20, 50]
    table = Table(["config", "ours_ms", "baseline_ms", "ratio"], notes=NOTES)
    model = ExpHawkes(1, beta=2.0, mu=[0.6], A=[[0.7]])
    for n in sizes:
        seqs = [simulate_hawkes(0.5, 0.8, 2.0, T, rng=i) for i in range(n)]
        ours = _time(lambda seqs=seqs: objective(model, seqs, method="awsm", T=T))
        naive = _time(lambda seqs=seqs: _naive_awsm(model, seqs, T), repeat=1)
        table.add(
            f"AWSM objective, {n} seqs",
            round(ours, 2),
            round(naive, 2),
            ratio(naive, ours, digits=0),
        )
    n = 30 if args.quick else 200
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, T, rng=i) for i in range(n)]
    t_awsm = _time(lambda: fit(seqs, method="awsm", model=ExpHawkes(1, beta=2.0), T=T), repeat=1)
    t_mle = _time(lambda: fit(seqs, method="mle", model=ExpHawkes(1, beta=2.0), T=T), repeat=1)
    table.add(
        f"fit AWSM vs fit MLE (exact compensator), {n} seqs",
        round(t_awsm, 1),
        round(t_mle, 1),
        ratio(t_mle, t_awsm),
    )
    return table


main = bench_cli(run, title="time per call, ms")
