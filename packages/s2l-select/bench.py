"""Clustering a large loss-trajectory pool: scikit-learn vs faiss K-means.

An n x 12 float16 memmap of synthetic loss trajectories (n = 10^6; --quick: 10^4), K = 100
(--quick: 20), 20 iterations, as in the paper's set-up (faiss K-means, 20 iterations, about 12
checkpoints). Rows: cluster_trajectories with backend="sklearn" (the baseline of the ratio),
backend="faiss" (k-means++ on faiss' training sample of <= 256 points per centroid), and faiss.Kmeans run as in the original code (its own
random start, no k-means++). The inertia column is the within-cluster sum of squares relative
to the sklearn run's (lower is better).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from papershelf_harness import Table, bench_cli, peak_memory, ratio, timeit_ms


def _trajectories(path: Path, n: int, t: int = 12, seed: int = 0) -> np.memmap:
    """Decaying per-example loss curves with a few hundred latent shapes, written in chunks."""
    rng = np.random.default_rng(seed)
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(n, t))
    shapes = rng.uniform(0.2, 3.0, (300, 2))
    steps = np.arange(t)
    for s in range(0, n, 200_000):
        m = min(200_000, n - s)
        kind = rng.integers(0, 300, m)
        start, rate = shapes[kind, 0], shapes[kind, 1] / t
        curve = start[:, None] * np.exp(-rate[:, None] * steps[None])
        mm[s : s + m] = curve + 0.05 * rng.standard_normal((m, t))
    mm.flush()
    return np.load(path, mmap_mode="r")


def _inertia(x: np.ndarray, labels: np.ndarray, k: int) -> float:
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    counts = np.bincount(labels, minlength=k)
    centers = sums / np.maximum(counts, 1)[:, None]
    return float(((x - centers[labels]) ** 2).sum())


def _faiss_original(x: np.ndarray, k: int) -> np.ndarray:
    import faiss

    x32 = np.ascontiguousarray(x, dtype=np.float32)
    km = faiss.Kmeans(x32.shape[1], k, niter=20, seed=0, verbose=False)
    km.train(x32)
    return km.index.search(x32, 1)[1][:, 0].astype(np.int64)


def run(args) -> Table:
    import s2l_select as s2l
    import sklearn.cluster  # noqa: F401  (imported before timing: not part of a call's cost)

    n, k = (10_000, 20) if args.quick else (1_000_000, 100)
    table = Table(["config", "backend", "ms", "peak_MiB", "inertia_vs_sklearn", "ratio"])
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        mm = _trajectories(Path(tmp) / "r.npy", n)
        x = np.asarray(mm, dtype=np.float64)
        runs = {
            "sklearn": lambda: s2l.cluster_trajectories(mm, n_clusters=k, rng=0),
        }
        try:
            import faiss  # noqa: F401

            runs["faiss"] = lambda: s2l.cluster_trajectories(
                mm, n_clusters=k, backend="faiss", rng=0
            )
            runs["faiss (original: random init)"] = lambda: _faiss_original(mm, k)
        except ImportError:
            notes.append("faiss is not installed: its rows are skipped.")
        base_ms = base_inertia = None
        for name, fn in runs.items():
            out: list = []  # one timed call, its peak memory measured in the same call
            timing = timeit_ms(
                lambda fn=fn, out=out: out.append(peak_memory(fn)), repeat=1, warmup=0
            )
            labels, peak = out[-1]
            inertia = _inertia(x, labels, k)
            if base_ms is None:
                base_ms, base_inertia = timing.best_ms, inertia
            table.add(
                f"n={n}, T=12 float16 memmap, K={k}, 20 iter",
                name,
                round(timing.best_ms, 1),
                round(peak / 2**20, 1),
                round(inertia / base_inertia, 4),
                ratio(base_ms, timing.best_ms),
            )
    notes.append(
        "ratio = sklearn time / this row's time (> 1: faster than scikit-learn). faiss trains on "
        "at most 256 points per centroid (its default, as in the original code); "
        "the cluster_trajectories rows include the k-means++ start (on all rows for sklearn, on "
        "the training sample for faiss) and reading the memmap."
    )
    table.notes = " ".join(notes)
    return table


main = bench_cli(run, title="K-means on loss trajectories, ms")
