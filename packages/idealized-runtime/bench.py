"""Benchmark: HELM's idealized-runtime lookup on many requests, vectorised vs HELM's per-request loop.

    python bench.py [--quick] [--json PATH]

The baseline restates crfm-helm's per-request rule (efficiency_metrics.py: sort the profiled
prompt sizes, take the smallest >= p, scale, add beta (o - 1) and the overhead) as a Python loop;
ours is CostModel.runtime on whole arrays. Both are checked equal before timing.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def run(args):
    import idealized_runtime as ir
    from idealized_runtime._helm_loop import helm_loop_runtime as helm_loop
    from idealized_runtime._reference_data import IDEALIZED_JSON

    notes = (
        f"{RATIO_NOTE}. helm_loop: crfm-helm's per-request rule restated as a Python loop (inputs "
        "as Python lists); ours: CostModel.runtime on numpy arrays; outputs equal to 1e-12 relative"
    )
    table = Table(["model", "requests", "helm_loop_ms", "ours_ms", "ratio"], notes=notes)
    rng = np.random.default_rng(0)
    for name in ["openai/davinci", "microsoft/TNLGv2_530B"]:
        for n in [10**4] if args.quick else [10**4, 10**6]:
            ps = rng.integers(0, 4096, n)
            os_ = rng.integers(0, 256, n)
            model = ir.REFERENCE_A100[name]
            entry = IDEALIZED_JSON[name]
            pl, ol = ps.tolist(), os_.tolist()
            np.testing.assert_allclose(model.runtime(ps, os_), helm_loop(entry, pl, ol), rtol=1e-12)
            base = timeit_ms(lambda e=entry, a=pl, b=ol: helm_loop(e, a, b), repeat=1, warmup=0)
            ours = timeit_ms(lambda m=model, a=ps, b=os_: m.runtime(a, b), repeat=5)
            table.add(
                name,
                n,
                round(base.best_ms, 2),
                round(ours.best_ms, 3),
                ratio(base.best_ms, ours.best_ms),
            )
    return table


main = bench_cli(run, title="Idealized runtime of N requests: vectorised vs HELM's loop")
