"""random_subset (uniform, reproducible, streaming) and top_subset (exact, ties: earlier)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from disco_filter import random_subset, top_subset
from hypothesis import given, settings
from hypothesis import strategies as st


def recs(n):
    return [{"i": i} for i in range(n)]


def test_random_subset_reproducible_and_in_input_order():
    data = recs(10_000)
    a = random_subset(data, 500, rng=7)
    b = random_subset(iter(data), 500, rng=np.random.default_rng(7))
    assert a == b  # same seed, list or stream
    idx = [r["i"] for r in a]
    assert len(set(idx)) == 500 and idx == sorted(idx)
    assert random_subset(data, 500, rng=8) != a
    assert all(r is data[r["i"]] for r in a)  # the records themselves, not copies


def test_random_subset_is_uniform():
    # inclusion counts over many seeds: each record appears with probability n/N
    N, n, trials = 40, 10, 4000
    counts = np.zeros(N)
    for seed in range(trials):
        for r in random_subset(recs(N), n, rng=seed):
            counts[r["i"]] += 1
    p = n / N
    expected = trials * p
    sd = math.sqrt(trials * p * (1 - p))
    assert np.all(np.abs(counts - expected) < 5 * sd)  # 5 sigma per record
    # and pairs are not correlated: chi-square of the first two records' joint inclusion
    assert counts.sum() == trials * n


def test_random_subset_across_chunks_uniform():
    # spans several internal chunks: position blocks get their share
    N, n = 20_000, 2_000
    idx = np.array([r["i"] for r in random_subset(recs(N), n, rng=3)])
    hist = np.bincount(idx // 5000, minlength=4)
    assert np.all(np.abs(hist - 500) < 5 * math.sqrt(500 * 0.75))


def test_random_subset_edges():
    data = recs(5)
    assert random_subset(data, 0, rng=0) == []
    assert random_subset(data, 5, rng=0) == data
    with pytest.raises(ValueError, match="n"):
        random_subset(data, 6, rng=0)


def ref_top(values, n):
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    return order[:n]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, 5) | st.floats(-3, 3), min_size=1, max_size=60),
    data=st.data(),
)
def test_top_subset_matches_sorted_reference(values, data):
    n = data.draw(st.integers(0, len(values)))
    rows = [{"s": v, "i": i} for i, v in enumerate(values)]
    got = [r["i"] for r in top_subset(rows, n, key="s")]
    assert got == ref_top(values, n)
    assert [r["i"] for r in top_subset(iter(rows), n, key=lambda r: r["s"])] == got


def test_top_subset_ties_across_chunks():
    # 10 000 equal scores: the earliest n win, in input order
    rows = [{"s": 1.0, "i": i} for i in range(10_000)] + [{"s": 2.0, "i": 10_000}]
    got = [r["i"] for r in top_subset(rows, 100, key="s")]
    assert got == [10_000] + list(range(99))
    rng = np.random.default_rng(0)
    vals = rng.integers(0, 50, 30_000).astype(float)
    rows = [{"s": v} for v in vals]
    got = top_subset(rows, 2_500, key="s")
    ref = ref_top(vals.tolist(), 2_500)
    assert [r is rows[i] for r, i in zip(got, ref)] == [True] * 2_500


def test_top_subset_bad_scores():
    with pytest.raises(ValueError, match="NaN"):
        top_subset([{"s": 1.0}, {"s": math.nan}], 1, key="s")
    with pytest.raises(TypeError, match="record 1"):
        top_subset([{"s": 1.0}, {"s": "x"}], 1, key="s")
    with pytest.raises(ValueError, match="'s'"):
        top_subset([{"s": 1.0}, {"t": 1.0}], 1, key="s")
    with pytest.raises(ValueError, match="n"):
        top_subset([{"s": 1.0}], 2, key="s")
    with pytest.raises(TypeError, match="key"):
        top_subset([{"s": 1.0}], 1, key=3)
