"""Time AcQUIre for 10^5 users against the baselines and scikit-learn's k-means++ seeding.

For squared-distance users AcQUIre *is* k-means++ seeding; scikit-learn's ``kmeans_plusplus`` is
the peer (``n_local_trials=1`` is the same algorithm; its default ``2 + ln k`` local trials does
more work per step for a better seed). Mahalanobis and regression users have no peer; the
baselines (random, greedy) set the scale. All timings are best of ``--repeat`` runs, same process.

    python bench.py [--quick] [--repeat R] [--json PATH]
"""

from __future__ import annotations

import numpy as np
from service_init import QuadraticUsers, RegressionUsers, acquire, greedy_init, random_init

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def _best(f, repeat):
    """Best of ``repeat`` calls in ms (no warm-up call, as the README's numbers)."""
    return timeit_ms(f, repeat=repeat, warmup=0).best_ms


def _spd(rng, n, d):
    a = rng.normal(size=(n, d, d)) / np.sqrt(d)
    return a @ np.swapaxes(a, 1, 2) + 0.1 * np.eye(d)


def run(args) -> Table:
    repeat = args.repeat or (1 if args.quick else 3)
    n = 2_000 if args.quick else 100_000
    rng = np.random.default_rng(0)
    try:
        from sklearn.cluster import kmeans_plusplus
    except ImportError:  # pragma: no cover - bench group not installed
        kmeans_plusplus = None

    configs = []
    for d, k in ((10, 10), (10, 100)) if not args.quick else ((5, 10),):
        x = rng.normal(size=(n, d))
        configs.append((f"euclid N={n:.0e} d={d} k={k}", QuadraticUsers(x), x, k))
    d = 5
    configs.append(
        (
            f"mahalanobis N={n:.0e} d={d} k=50",
            QuadraticUsers(rng.normal(size=(n, d)), metrics=_spd(rng, n, d)),
            None,
            50 if not args.quick else 10,
        )
    )
    m = n if args.quick else n // 5
    xs = rng.normal(size=(m, 10, d))
    ys = xs @ rng.normal(size=d) + rng.normal(size=(m, 10))
    built = []
    build_ms = timeit_ms(lambda: built.append(RegressionUsers(xs, ys)), repeat=1, warmup=0).best_ms
    reg = built[0]
    configs.append(
        (
            f"regression N={m:.0e} d={d} k=50 (build {build_ms:.0f} ms)",
            reg,
            None,
            50 if not args.quick else 10,
        )
    )

    columns = [
        "config",
        "acquire_ms",
        "random_ms",
        "greedy_ms",
        "sklearn_kpp_1trial_ms",
        "sklearn_kpp_default_ms",
        "ratio_vs_sklearn_1trial",
        "ratio_vs_sklearn_default",
    ]
    notes = (
        f"{RATIO_NOTE}: ratio = sklearn time / AcQUIre time; 1trial is the same "
        "algorithm, default uses 2+ln k local trials per step. Paper: AcQUIre scales to "
        "N=5M users, K=2000 services (runtime figure, no comparable number)."
    )
    table = Table(columns, notes=notes)
    for name, users, x, k in configs:
        ours = _best(lambda: acquire(users, k, rng=0), repeat)  # noqa: B023
        rnd = _best(lambda: random_init(users, k, rng=0), repeat)  # noqa: B023
        gre = _best(lambda: greedy_init(users, k, rng=0), repeat)  # noqa: B023
        sk1 = skd = None
        if x is not None and kmeans_plusplus is not None:
            sk1 = _best(lambda: kmeans_plusplus(x, k, random_state=0, n_local_trials=1), repeat)  # noqa: B023
            skd = _best(lambda: kmeans_plusplus(x, k, random_state=0), repeat)  # noqa: B023
        table.add(
            name,
            round(ours, 2),
            round(rnd, 2),
            round(gre, 2),
            None if sk1 is None else round(sk1, 2),
            None if skd is None else round(skd, 2),
            "n/a" if sk1 is None else ratio(sk1, ours),
            "n/a" if skd is None else ratio(skd, ours),
        )
    return table


def _extra_args(parser):
    parser.add_argument("--repeat", type=int, default=None, help="timed calls per row")


main = bench_cli(
    run,
    title="seeding time per call, ms (best of --repeat calls: 3, 1 with --quick)",
    extra_args=_extra_args,
)
