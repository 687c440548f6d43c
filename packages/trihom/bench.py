"""Benchmark trihom's metrics on large random graphs.

    python bench.py [--quick] [--json PATH]

* h_F on 10^5 nodes (target < 10 s): ours scans the grid through the quadratic v_f(h) (one sparse
  product A X), the baseline is the authors' algorithm (one sparse product per grid value, 201 in
  all), written here in scipy.
* edge / node / class homophily against torch-geometric's ``utils.homophily`` (methods "edge",
  "node", "edge_insensitive"), timed in the same run, with the largest absolute difference
  (they must agree exactly on a simple graph without isolated nodes). PyG is a bench-only peer.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def _graph(n, avg_deg, num_classes, feat_dim, seed, h=0.6):
    """A simple undirected graph without isolated nodes (a ring plus random edges, a share h of
    them within classes), labels and Gaussian features."""
    gen = np.random.default_rng(seed)
    y = gen.integers(0, num_classes, size=n)
    m = n * avg_deg // 2
    src = gen.integers(0, n, size=m)
    by_class = [np.flatnonzero(y == k) for k in range(num_classes)]
    dst = gen.integers(0, n, size=m)
    same = gen.random(m) < h
    for k in range(num_classes):
        rows = np.flatnonzero(same & (y[src] == k))
        dst[rows] = gen.choice(by_class[k], size=rows.size)
    ring = np.arange(n)
    src, dst = np.concatenate([src, ring]), np.concatenate([dst, (ring + 1) % n])
    keep = src != dst
    a = sp.coo_matrix((np.ones(keep.sum()), (src[keep], dst[keep])), shape=(n, n)).tocsr()
    a = ((a + a.T) > 0).tocoo()
    edge_index = np.stack([a.row, a.col]).astype(np.int64)
    x = gen.normal(size=(n, feat_dim)) + y[:, None] * 0.5
    return edge_index, x, y


def _authors_h_f(edge_index, x, y):
    """The authors' estimator, grid value by grid value (201 sparse products)."""
    import trihom

    n = y.size
    a = sp.csr_matrix((np.ones(edge_index.shape[1]), (edge_index[0], edge_index[1])), (n, n))
    rho = trihom.spectral_radius(edge_index, num_nodes=n)
    onehot = sp.csr_matrix((np.ones(n), (np.arange(n), y)))
    counts = np.asarray(onehot.sum(axis=0)).ravel()
    grid = np.round(np.arange(-100, 101) * 0.01, 12)
    v = np.empty((grid.size, x.shape[1]))
    for g, h in enumerate(grid):
        x0 = x - (h / rho) * (a @ x)
        means = (onehot.T @ x0) / counts[:, None]
        v[g] = np.sum((x0 - means[y]) ** 2, axis=0)
    return float(np.mean(grid[np.argmin(v, axis=0)]))


def run(args):
    import trihom
    from trihom import baselines as B

    n = 10_000 if args.quick else 100_000
    repeat = 1 if args.quick else 3
    ei, x, y = _graph(n, 10, 5, 16, 0)
    table = Table(["config", "ours_ms", "baseline_ms", "ratio", "agree"])
    ours = timeit_ms(lambda: trihom.feature_homophily(ei, x, y), repeat=repeat, warmup=0)
    base = timeit_ms(lambda: _authors_h_f(ei, x, y), repeat=1, warmup=0)
    agree = trihom.feature_homophily(ei, x, y) == _authors_h_f(ei, x, y)
    table.add(
        f"h_F, N={n}, E={ei.shape[1] // 2}, F=16 (baseline: 201-step grid loop)",
        round(ours.best_ms, 1),
        round(base.best_ms, 1),
        ratio(base.best_ms, ours.best_ms),
        str(agree),
    )
    s = timeit_ms(lambda: trihom.structural_homophily(ei, y), repeat=repeat, warmup=0)
    table.add(f"h_S, N={n}", round(s.best_ms, 1), "-", "-", "-")
    notes = [RATIO_NOTE, f"h_F at N={n}: {ours.best_ms / 1000:.2f} s (target < 10 s at 10^5)"]
    try:
        import torch
        from torch_geometric.utils import homophily
    except ImportError:
        notes.append("torch-geometric not installed: PyG rows skipped")
    else:
        eit, yt = torch.as_tensor(ei), torch.as_tensor(y)
        for ours_fn, method in (
            (B.edge_homophily, "edge"),
            (B.node_homophily, "node"),
            (B.class_homophily, "edge_insensitive"),
        ):
            t_ours = timeit_ms(lambda f=ours_fn: f(ei, y), repeat=repeat)
            t_pyg = timeit_ms(lambda m=method: homophily(eit, yt, method=m), repeat=repeat)
            diff = abs(ours_fn(ei, y) - float(homophily(eit, yt, method=method)))
            table.add(
                f"{ours_fn.__name__} vs PyG homophily('{method}'), N={n}",
                round(t_ours.best_ms, 2),
                round(t_pyg.best_ms, 2),
                ratio(t_pyg.best_ms, t_ours.best_ms),
                f"|diff| {diff:.1e}",
            )
        notes.append(
            "PyG's node homophily counts isolated nodes as 0; ours leaves them out (the graphs"
            " here have none)."
        )
    return Table(table.columns, table.rows, " ".join(notes))


main = bench_cli(run, title="trihom: metric cost at scale")
