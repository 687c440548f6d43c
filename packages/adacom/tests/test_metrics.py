"""Metrics against independent references: a naive BLEU-4, brute-force LCS, hand values."""

import itertools
import math

import numpy as np
import pytest
from adacom import auroc, bleu4, contradiction, rouge_l, token_f1
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=0, max_size=9)


def naive_bleu4(h, r, smooth=True):
    """Straight from the definition: lists of n-grams, counts by list.count."""
    if not h:
        return 0.0
    logs = []
    for n in range(1, 5):
        hg = [tuple(h[i : i + n]) for i in range(len(h) - n + 1)]
        rg = [tuple(r[i : i + n]) for i in range(len(r) - n + 1)]
        m = sum(min(hg.count(g), rg.count(g)) for g in set(hg))
        tot = len(hg)
        if smooth and n > 1:
            m, tot = m + 1, tot + 1
        if m == 0:
            return 0.0
        logs.append(math.log(m / tot))
    bp = 1.0 if len(h) >= len(r) else math.exp(1 - len(r) / len(h))
    return bp * math.exp(sum(logs) / 4)


@settings(max_examples=150, deadline=None)
@given(h=WORDS, r=WORDS, smooth=st.booleans())
def test_bleu4_matches_the_naive_definition(h, r, smooth):
    assert bleu4(h, r, smooth=smooth) == pytest.approx(naive_bleu4(h, r, smooth), abs=1e-12)


def test_bleu4_hand_values():
    assert bleu4("returns the user", "returns the user") == 1.0
    assert bleu4("a b c d e f", "a b c d e f", smooth=False) == 1.0
    # 3 of 4 unigrams, 1 of 3 bigrams (+1: 2/4), 0 of 2 trigrams (+1: 1/3), 0 of 1 (+1: 1/2)
    want = math.exp((math.log(3 / 4) + math.log(2 / 4) + math.log(1 / 3) + math.log(1 / 2)) / 4)
    assert bleu4("a b x c", "a b y c") == pytest.approx(want)
    assert bleu4("a b x c", "a b y c", smooth=False) == 0.0
    # brevity penalty: hypothesis of 2, reference of 4
    want = math.exp(1 - 4 / 2) * math.exp((0 + math.log(2 / 2) + 0 + 0) / 4)
    assert bleu4("a b", "a b c d") == pytest.approx(want)
    assert bleu4("", "a b") == 0.0
    assert bleu4("x y", "a b") == 0.0  # no shared unigram: unsmoothed p1 = 0


def brute_lcs(a, b):
    for size in range(min(len(a), len(b)), 0, -1):
        subs = set(itertools.combinations(b, size))
        if any(c in subs for c in itertools.combinations(a, size)):
            return size
    return 0


@settings(max_examples=80, deadline=None)
@given(h=WORDS, r=WORDS)
def test_rouge_l_matches_brute_force_lcs(h, r):
    lcs = brute_lcs(h, r)
    if lcs == 0:
        assert rouge_l(h, r) == 0.0
        return
    p, rec, b2 = lcs / len(h), lcs / len(r), 1.2**2
    assert rouge_l(h, r) == pytest.approx((1 + b2) * p * rec / (rec + b2 * p))


def test_token_f1_and_contradiction_hand_values():
    assert token_f1("Returns the user.", "returns THE user") == 1.0
    # common {user} = 1; P = 1/3, R = 1/4 -> F1 = 2/7
    assert token_f1("returns the user", "fetch user from cache") == pytest.approx(2 / 7)
    assert token_f1("", "") == 1.0 and token_f1("", "a") == 0.0
    comments = ["returns the user", "returns the user", "fetch user from cache"]
    assert contradiction(comments) == pytest.approx(1 - (1 + 2 / 7 + 2 / 7) / 3)
    assert contradiction(["a b", "a b"]) == 0.0
    assert contradiction(["a", "b"]) == 1.0
    assert contradiction(["only one"]) == 0.0


@settings(max_examples=50, deadline=None)
@given(
    s=st.lists(st.integers(0, 4), min_size=2, max_size=12),
    y=st.lists(st.integers(0, 1), min_size=2, max_size=12),
)
def test_auroc_matches_pairwise_counting(s, y):
    n = min(len(s), len(y))
    s, y = np.array(s[:n], float), np.array(y[:n])
    if y.min() == y.max():
        return
    pos, neg = s[y == 1], s[y == 0]
    want = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
    assert auroc(s, y) == pytest.approx(want)
