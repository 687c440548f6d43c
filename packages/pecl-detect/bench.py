"""Benchmark obb_iou (vectorised exact rotated IoU) against shapely polygon intersection.

    python bench.py [--quick] [--json PATH]

Both compute the exact IoU of the same random oriented-box pairs; the table also reports the
largest absolute difference between the two.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def _boxes(rng, n):
    return np.column_stack([rng.uniform(0, 50, (n, 2)), rng.uniform(2, 20, (n, 2)),
                            rng.uniform(-np.pi, np.pi, n)])  # fmt: skip


def run(args):
    import shapely
    from pecl_detect import obb_iou, obb_to_poly

    rng = np.random.default_rng(0)
    sizes = [(10, 10), (50, 50)] if args.quick else [(10, 10), (100, 100), (300, 300)]
    table = Table(["pairs (n x m)", "pecl_detect_ms", "shapely_ms", "ratio", "max_abs_diff"])
    for n, m in sizes:
        a, b = _boxes(rng, n), _boxes(rng, m)
        pa = shapely.polygons(obb_to_poly(a))
        pb = shapely.polygons(obb_to_poly(b))

        def with_shapely(pa=pa, pb=pb):
            x, y = pa[:, None], pb[None, :]
            inter = shapely.area(shapely.intersection(x, y))
            return inter / (shapely.area(x) + shapely.area(y) - inter)

        ours = timeit_ms(lambda a=a, b=b: obb_iou(a, b), repeat=3)
        peer = timeit_ms(with_shapely, repeat=3)
        diff = float(np.max(np.abs(obb_iou(a, b) - with_shapely())))
        table.add(f"{n} x {m}", round(ours.best_ms, 3), round(peer.best_ms, 3),
                  ratio(peer.best_ms, ours.best_ms), f"{diff:.1e}")  # fmt: skip
    table.notes = RATIO_NOTE + "; shapely: vectorised shapely 2 intersection/area over all pairs"
    return table


main = bench_cli(run, title="obb_iou vs shapely (exact rotated-box IoU, all pairs)")
