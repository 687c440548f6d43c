"""balanced_sample against an independent, literal re-implementation of the issue's rule."""

from __future__ import annotations

import numpy as np
import pytest
import s2l_select as s2l
from scipy import stats


def reference_counts(labels, budget, min_cluster_size=3, strata=None):
    """Per-(stratum, label) counts the rule prescribes, written from the text with plain
    Python (dicts, sorted lists), independent of the package. Returns (counts of the big
    clusters, fill per stratum, the budget per stratum)."""
    labels = [int(v) for v in labels]
    keys = [None] * len(labels) if strata is None else list(strata)
    if strata is None:
        stratum_budget = {None: budget}
    else:
        sizes = {}
        for k in keys:
            sizes[k] = sizes.get(k, 0) + 1
        order = sorted(sizes, key=lambda k: (sizes[k], k))
        stratum_budget, left = {}, budget
        for i, k in enumerate(order):
            q = left // (len(order) - i)
            stratum_budget[k] = sizes[k] if sizes[k] <= q else q
            left -= stratum_budget[k]
    counts, fill = {}, {}
    for k, b in stratum_budget.items():
        size = {}
        for key, lab in zip(keys, labels, strict=True):
            if key == k:
                size[lab] = size.get(lab, 0) + 1
        big = sorted((c for c in size if size[c] >= min_cluster_size), key=lambda c: (size[c], c))
        left = b
        for i, c in enumerate(big):
            q = left // (len(big) - i)
            counts[(k, c)] = size[c] if size[c] <= q else q
            left -= counts[(k, c)]
        fill[k] = left
    return counts, fill, stratum_budget


def observed_counts(idx, labels, strata=None):
    out = {}
    for i in idx:
        key = (None if strata is None else strata[i], int(labels[i]))
        out[key] = out.get(key, 0) + 1
    return out


def _random_case(rng):
    n = int(rng.integers(1, 120))
    k = int(rng.integers(1, 25))
    # skewed cluster sizes so that some clusters are capped and some taken whole
    p = rng.dirichlet(np.full(k, 0.5))
    labels = rng.choice(k, size=n, p=p) * int(rng.integers(1, 4))  # non-contiguous labels
    budget = int(rng.integers(0, n + 1))
    m = int(rng.integers(1, 6))
    return labels, budget, m


@pytest.mark.parametrize("with_strata", [False, True])
def test_counts_match_the_rule_exactly(with_strata):
    rng = np.random.default_rng(123)
    for trial in range(200):
        labels, budget, m = _random_case(rng)
        strata = None
        if with_strata:
            strata = rng.choice(["math", "code", "qa", "gsm"], size=len(labels))
        idx = s2l.balanced_sample(labels, budget, min_cluster_size=m, strata=strata, rng=trial)
        assert idx.shape == (budget,) and idx.dtype == np.int64
        assert len(np.unique(idx)) == budget
        assert np.all((idx >= 0) & (idx < len(labels)))
        want, fill, per = reference_counts(labels, budget, m, strata)
        got = observed_counts(idx, labels, strata)
        for key, c in want.items():
            assert got.get(key, 0) == c, (trial, key)
        # what is not in a big cluster is the fill, drawn from the small clusters only
        for k, f in fill.items():
            small = sum(v for key, v in got.items() if key[0] == k and key not in want)
            assert small == f
        if with_strata:
            for k, b in per.items():
                assert int(np.sum(strata[idx] == k)) == b


def test_exact_properties_of_the_water_filling():
    # sizes 2 (small), 3, 5, 10, 40 with budget 20: quotas 20//4=5 -> 3 whole, 17//3=5 -> 5
    # whole, 12//2=6 -> 6 of 10, 6//1=6 -> 6 of 40; no fill
    labels = np.repeat([7, 1, 2, 3, 4], [2, 3, 5, 10, 40])
    idx = s2l.balanced_sample(labels, 20, rng=0)
    got = observed_counts(idx, labels)
    assert got == {(None, 1): 3, (None, 2): 5, (None, 3): 6, (None, 4): 6}
    sel = s2l.S2LSelector(n_clusters=1)  # report through the internal allocation
    from s2l_select._sampling import _balanced

    _, alloc = _balanced(labels, 20, 3, None, np.random.default_rng(0))
    assert list(alloc.quotas[:4]) == [5, 5, 6, 6] and list(alloc.taken[:4]) == [3, 5, 6, 6]
    assert np.all(np.diff(alloc.taken[:4]) >= 0)  # non-decreasing along the visiting order
    assert sel.n_clusters == 1


def test_remainder_comes_from_the_small_clusters():
    labels = np.array([0, 0, 0, 1, 1, 1, 5, 6, 6])  # big: 0, 1; small: 5, 6
    idx = s2l.balanced_sample(labels, 8, rng=1)
    assert set(range(6)) <= set(idx.tolist())
    assert len(set(idx.tolist()) & {6, 7, 8}) == 2


def test_ties_are_broken_by_label():
    # two clusters of equal size 4 and budget 3: label 2 is visited first, gets 3 // 2 = 1
    labels = np.array([9, 9, 9, 9, 2, 2, 2, 2])
    for seed in range(20):
        idx = s2l.balanced_sample(labels, 3, rng=seed)
        got = observed_counts(idx, labels)
        assert got == {(None, 2): 1, (None, 9): 2}


def test_deterministic_given_the_seed():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 8, 500)
    a = s2l.balanced_sample(labels, 123, rng=42)
    b = s2l.balanced_sample(labels, 123, rng=42)
    c = s2l.balanced_sample(labels, 123, rng=43)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_uniform_within_a_capped_cluster():
    """Each member of a capped cluster is drawn with probability q / size: chi-square test of
    the inclusion counts over R runs, at significance 1e-4 (derived threshold, not tuned)."""
    labels = np.repeat([0, 1], [12, 30])  # budget 10: cluster 0 gets 5 of 12, cluster 1 gets 5
    runs = 1500
    hits = np.zeros(42)
    for r in range(runs):
        hits[s2l.balanced_sample(labels, 10, rng=r)] += 1
    for members, q in ((np.arange(12), 5), (np.arange(12, 42), 5)):
        expected = runs * q / len(members)
        assert np.allclose(hits[members].sum(), runs * q)
        # each draw includes q distinct members: inclusion counts are multinomial-like with
        # variance runs * p * (1 - p) * size / (size - 1) (sampling without replacement)
        p = q / len(members)
        var = runs * p * (1 - p) * len(members) / (len(members) - 1)
        chi2 = float(np.sum((hits[members] - expected) ** 2) / var)
        threshold = stats.chi2.ppf(1 - 1e-4, df=len(members) - 1)
        assert chi2 < threshold, (chi2, threshold)


def test_budget_zero_and_full():
    labels = np.array([0, 0, 1, 1, 1, 2])
    assert s2l.balanced_sample(labels, 0, rng=0).shape == (0,)
    np.testing.assert_array_equal(s2l.balanced_sample(labels, 6, rng=0), np.arange(6))


def test_water_fill_matches_the_reference():
    rng = np.random.default_rng(9)
    for _ in range(200):
        sizes = rng.integers(0, 30, rng.integers(1, 8))
        budget = int(rng.integers(0, sizes.sum() + 1))
        got = s2l.water_fill(sizes, budget)
        strata = np.repeat(np.arange(len(sizes)), sizes)
        if len(strata) == 0:
            continue
        _, _, per = reference_counts(np.zeros(len(strata)), budget, 1, strata)
        for k, b in per.items():
            assert got[k] == b
        assert got.sum() == budget
