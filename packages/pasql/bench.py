"""Benchmark: seed-vectorised PASQL runs against a per-step loop (one run at a time).

Two comparisons at equal work (n_runs runs of T steps, period 2, the six-state stand-in):

* end to end: `pasql_many` (joint-chain simulation + vectorised learning) against `pasql` on the
  POMDP as a gymnasium-style env, run n_runs times (the per-step loop a user would write);
* learning only: `pasql_from_data` on recorded batches (vectorised kernel) against the same
  update run per step over each run (the loop kernel); both give bitwise-equal Q.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import pasql as pq
from pasql.learning import _learn

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def run(args):
    pom, ag = pq.six_state_standin(), pq.LastObservation(2)
    best = pq.best_periodic_bruteforce(pom, ag, 2)
    mu = pq.epsilon_greedy(best.policy, 0.3)
    configs = [(16, 1000)] if args.quick else [(16, 5000), (64, 5000), (256, 5000)]
    repeat = 1 if args.quick else 3
    table = Table(["config", "vectorised_ms", "per_step_loop_ms", "ratio"])
    for R, T in configs:

        def loop_env(R=R, T=T):
            return [pq.pasql(pom, ag, mu, T, gamma=0.9, rng=k) for k in range(R)]

        ours = timeit_ms(lambda R=R, T=T: pq.pasql_many(pom, ag, mu, T, R, rng=0), repeat=repeat)
        base = timeit_ms(loop_env, repeat=1, warmup=0)
        table.add(
            f"end to end: {R} runs x {T} steps",
            round(ours.best_ms, 1),
            round(base.best_ms, 1),
            ratio(base.best_ms, ours.best_ms),
        )
        tr = pq.sample_trajectories(pom, ag, mu, T, n_runs=R, rng=1)
        data = (tr.agent_states, tr.actions, tr.rewards, 2, 2, 2, 0.9, None, 0.0)
        vec = timeit_ms(lambda d=data: _learn(*d, vectorised=True), repeat=repeat)
        loop = timeit_ms(lambda d=data: _learn(*d, vectorised=False), repeat=1, warmup=0)
        table.add(
            f"learning only: {R} runs x {T} steps",
            round(vec.best_ms, 1),
            round(loop.best_ms, 1),
            ratio(loop.best_ms, vec.best_ms),
        )
    table.notes = (
        f"{RATIO_NOTE} The per-step loop is pure Python (about 1-3 us per step per run); the "
        "vectorised kernel pays numpy's per-call overhead once per step for all runs, so its "
        "advantage grows with the number of runs. Timings on a shared machine vary."
    )
    return table


main = bench_cli(run, title="PASQL: seed-vectorised runs vs a per-step loop, ms")
