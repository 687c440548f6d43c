"""Speed of r# against numpy.corrcoef, scipy.stats.spearmanr, kendalltau and chatterjeexi.

    python bench.py [--quick] [--json PATH]

Vector pairs for n up to 10^6 and a 10^4 x 200 correlation matrix (scipy's kendalltau and
chatterjeexi have no matrix form: their matrix time is one pair's time x the number of pairs,
marked "est."). Every number is measured in the same run; ratio = peer time / our time (>1 means
r# is faster).
"""

from __future__ import annotations

import numpy as np
import scipy
from rearrange_corr import rearrangement_corr
from rearrange_corr._core import _rsharp_1d
from scipy import stats

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

HAS_XI = hasattr(stats, "chatterjeexi")  # scipy >= 1.15


def _time(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls (no warm-up call), in ms."""
    return timeit_ms(fn, repeat=repeats, warmup=0).best_ms


def _peers_pair(x, y):
    peers = {
        "corrcoef": lambda: np.corrcoef(x, y)[0, 1],
        "spearmanr": lambda: stats.spearmanr(x, y).statistic,
        "kendalltau": lambda: stats.kendalltau(x, y).statistic,
    }
    if HAS_XI:
        peers["chatterjeexi"] = lambda: stats.chatterjeexi(x, y).statistic
    return peers


PEERS = ["corrcoef", "spearmanr", "kendalltau", "chatterjeexi"]


def bench_pairs(sizes, repeats, rng):
    rows = []
    for n in sizes:
        x = rng.uniform(size=n)
        y = np.exp(4 * x) + rng.normal(scale=10.0, size=n)
        ours = _time(lambda x=x, y=y: rearrangement_corr(x, y), repeats)
        times = {k: _time(f, repeats) for k, f in _peers_pair(x, y).items()}
        rows.append((f"pair n={n:.0e}".replace("e+0", "e"), ours, times, set()))
    return rows


def bench_matrix(n, p, repeats, rng):
    X = rng.normal(size=(n, p))
    X[:, 1::2] = np.exp(X[:, ::2][:, : X[:, 1::2].shape[1]]) + rng.normal(size=(n, p // 2))
    ours = _time(lambda: rearrangement_corr(X), repeats)
    pairs = p * (p - 1) // 2
    times = {
        "corrcoef": _time(lambda: np.corrcoef(X, rowvar=False), repeats),
        "spearmanr": _time(lambda: stats.spearmanr(X).statistic, repeats),
    }
    estimated = {"kendalltau", "chatterjeexi", "ours, loop over pairs"}
    times["kendalltau"] = _time(lambda: stats.kendalltau(X[:, 0], X[:, 1]), repeats) * pairs
    if HAS_XI:
        times["chatterjeexi"] = (
            _time(lambda: stats.chatterjeexi(X[:, 0], X[:, 1]), repeats)
            * pairs
            * 2  # xi is asymmetric
        )
    loop = _time(lambda: _rsharp_1d(X[:, 0], X[:, 1]), repeats) * pairs
    return (f"matrix {n:.0e} x {p}".replace("e+0", "e"), ours, times, estimated), loop


def run(args) -> Table:
    rng = np.random.default_rng(0)
    if args.quick:
        sizes, (mn, mp), repeats = [1_000, 10_000], (500, 20), 2
    else:
        sizes, (mn, mp), repeats = [1_000, 10_000, 100_000, 1_000_000], (10_000, 200), 3
    rows = bench_pairs(sizes, repeats, rng)
    mrow, loop_ms = bench_matrix(mn, mp, repeats, rng)
    rows.append(mrow)

    columns = ["config", "ours_ms"] + [f"{k}_ms" for k in PEERS] + [f"vs_{k}" for k in PEERS]
    vec_gain = loop_ms / mrow[1]
    notes = (
        "ratio = peer / ours; >1 means r# is faster. Matrix rows: kendalltau and chatterjeexi "
        "have no matrix API, so their time is one pair's time x pairs (x2 for asymmetric xi), "
        f"marked est.; a Python loop of 1-d r# calls would take {loop_ms:.0f} ms "
        f"({vec_gain:.1f}x the vectorised call). scipy {scipy.__version__}, numpy {np.__version__}."
    )
    if not HAS_XI:
        notes += " scipy.stats.chatterjeexi unavailable (scipy<1.15)."
    if args.quick:
        notes += " --quick sizes."
    table = Table(columns, notes=notes)
    for config, ours, times, est in rows:
        cells = [config, round(ours, 3)]
        for k in PEERS:
            t = times.get(k)
            cells.append(None if t is None else round(t, 3))
        for k in PEERS:
            t = times.get(k)
            cells.append("n/a" if t is None else ratio(t, ours) + (" est." if k in est else ""))
        table.add(*cells)
    print(f"vectorised matrix vs a Python loop of 1-d r# calls (est.): {vec_gain:.1f}x faster")
    if not HAS_XI:
        print(
            f"scipy {scipy.__version__} has no stats.chatterjeexi (needs scipy>=1.15): column n/a"
        )
    return table


main = bench_cli(run, title="time per call, ms")
