"""Fit (+ transform) time of MPIImputer against scikit-learn's KNNImputer and IterativeImputer
on the same masked table: 10^4 patients x 10^2 phenotypes + 100 features (two modalities of 70
and 30); --quick: 200 x 10 + 10, epochs=5, max_iter=1. One timed run each (repeat=1, no warm-up: a fit is seconds to
minutes), epochs=200 for MPI, max_iter=5 for IterativeImputer, single-threaded.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import warnings

from papershelf_harness import Table, bench_cli, peak_memory, ratio, timeit_ms


def run(args) -> Table:
    from pheno_impute import MPIImputer
    from pheno_impute.data import synthetic_cohort
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer, KNNImputer

    if args.quick:
        n, m, mods, epochs, iters = 200, 10, {"prot": 6, "metab": 4}, 5, 1
    else:
        n, m, mods, epochs, iters = 10_000, 100, {"prot": 70, "metab": 30}, 200, 5
    X = synthetic_cohort(n, m, modalities=mods, rng=0).X
    methods = {
        f"IterativeImputer (max_iter={iters})": lambda: IterativeImputer(
            max_iter=iters, random_state=0
        ),
        "KNNImputer (k=10)": lambda: KNNImputer(n_neighbors=10),
        "MPIImputer": lambda: MPIImputer(
            n_phenotypes=m, modalities=list(mods.values()), epochs=epochs, random_state=0
        ),
    }
    table = Table(["method", "fit_transform s", "peak MiB", "IterativeImputer / this"])
    base = None
    for name, make in methods.items():
        box = {}

        def once(make=make, box=box):
            box["peak"] = peak_memory(lambda: make().fit_transform(X))[1]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # IterativeImputer's early-stopping notice
            t = timeit_ms(once, repeat=1, warmup=0)
        base = t.best_ms if base is None else base
        mib = box["peak"] / 2**20
        table.add(name, f"{t.best_ms / 1000:.2f}", f"{mib:.0f}", ratio(base, t.best_ms))
    table.notes = (
        f"{n} x {m + sum(mods.values())} table; ratio = IterativeImputer time / this time "
        "(>1: faster than IterativeImputer)"
    )
    return table


main = bench_cli(run, title="Imputer fit_transform time")
