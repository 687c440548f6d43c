"""Speed of the curation kernels, measured against baselines and faiss in the same run.

    python bench.py [--quick] [--json PATH]

Rows ``knn n=... d=...`` (milliseconds, best of a few runs): ``knn_negatives`` (blocked Gram
screening + exact re-measure, numpy) against the naive full-matrix numpy search
(``np.linalg.norm`` of all pairs where memory allows, else the full Gram matrix + argsort) and
faiss ``IndexFlatL2`` (exact, what the paper used; bench-only peer, ``n/a`` when not installed);
``agree`` is the fraction of rows where faiss returns the same neighbours. Row ``bootstrap``:
``bootstrap`` (binomial draw of the resampled counts) against resampling question indices
(100k x 500, in chunks), the same distribution. Ratios = baseline / ours.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from scifibench import bootstrap, knn_negatives  # noqa: E402

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms  # noqa: E402


def _naive_knn(X, k):
    n = len(X)
    if n * n * X.shape[1] <= 2e7:
        D = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)
    else:
        sq = (X * X).sum(1)
        D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    np.fill_diagonal(D, np.inf)
    return np.argsort(D, axis=1)[:, :k]


def _faiss_knn(X, k):
    import faiss

    index = faiss.IndexFlatL2(X.shape[1])
    Xf = np.ascontiguousarray(X, dtype=np.float32)
    index.add(Xf)
    _, idx = index.search(Xf, k + 1)
    out = np.empty((len(X), k), dtype=np.int64)
    for i, row in enumerate(idx):  # drop self (it may not come first when there are ties)
        out[i] = [j for j in row if j != i][:k]
    return out


def _naive_bootstrap(correct, n_boot, rng, chunk=5000):
    n = len(correct)
    means = np.empty(n_boot)
    for s in range(0, n_boot, chunk):
        m = min(chunk, n_boot - s)
        means[s : s + m] = correct[rng.integers(0, n, size=(m, n))].mean(axis=1)
    return means.std(ddof=1)


def run(args) -> Table:
    try:
        import faiss  # noqa: F401

        have_faiss = True
    except ImportError:
        have_faiss = False
    table = Table(
        ["config", "ours_ms", "naive_ms", "faiss_ms", "naive/ours", "faiss/ours", "agree"],
        notes=f"{RATIO_NOTE}; faiss IndexFlatL2 is exact in float32 (agree = rows with the same "
        "neighbour set as ours); single-threaded BLAS",
    )
    sizes = [(300, 64), (600, 256)] if args.quick else [(2000, 64), (2000, 2048), (5000, 256)]
    rng = np.random.default_rng(0)
    reps = 2 if args.quick else 3
    for n, d in sizes:
        X = rng.standard_normal((n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        ours = timeit_ms(lambda X=X: knn_negatives(X, k=4), repeat=reps, warmup=0).best_ms
        naive = timeit_ms(lambda X=X: _naive_knn(X, 4), repeat=reps, warmup=0).best_ms
        if have_faiss:
            fa = timeit_ms(lambda X=X: _faiss_knn(X, 4), repeat=reps, warmup=0).best_ms
            a, b = knn_negatives(X, k=4), _faiss_knn(X, 4)
            agree = float(np.mean([set(r) == set(s) for r, s in zip(a.tolist(), b.tolist())]))
        else:
            fa, agree = None, None
        table.add(
            f"knn n={n} d={d}",
            round(ours, 2),
            round(naive, 2),
            None if fa is None else round(fa, 2),
            ratio(naive, ours),
            ratio(fa, ours),
            "n/a" if agree is None else f"{agree:.4f}",
        )
    n_boot = 10_000 if args.quick else 100_000
    correct = np.r_[np.ones(280), np.zeros(220)]
    ours = timeit_ms(lambda: bootstrap(correct, n_boot=n_boot, rng=0), repeat=reps).best_ms
    naive = timeit_ms(
        lambda: _naive_bootstrap(correct, n_boot, np.random.default_rng(0)), repeat=reps, warmup=0
    ).best_ms
    table.add(
        f"bootstrap n=500 n_boot={n_boot}",
        round(ours, 2),
        round(naive, 2),
        None,
        ratio(naive, ours),
        "n/a",
        "n/a",
    )
    return table


main = bench_cli(run, title="scifibench: kNN negative mining and bootstrap")
