"""ROUGE-L against a plain LCS, and the training pairs against the recipe's rules."""

from collections import Counter

import numpy as np
import pytest
from cappy_scorer import TrainingPair, build_training_pairs, rouge_l

WORDS = "a b c d e f g h".split()


def lcs_f(pred, ref):
    """ROUGE-L F1 from a textbook LCS table on whitespace tokens (beta = 1)."""
    x, y = pred.split(), ref.split()
    if not x or not y:
        return 0.0
    t = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
    for i in range(len(x)):
        for j in range(len(y)):
            t[i + 1][j + 1] = t[i][j] + 1 if x[i] == y[j] else max(t[i][j + 1], t[i + 1][j])
    lcs = t[-1][-1]
    if lcs == 0:
        return 0.0
    p, r = lcs / len(x), lcs / len(y)
    return 2 * p * r / (p + r)


def test_rouge_l_is_max_lcs_f_over_references():
    rng = np.random.default_rng(0)

    def text():
        return " ".join(rng.choice(WORDS, size=rng.integers(0, 9)))

    for _ in range(200):
        pred, refs = text(), [text() for _ in range(rng.integers(1, 4))]
        want = max(lcs_f(pred, r) for r in refs)
        assert rouge_l(pred, refs, stem=False) == pytest.approx(want, abs=1e-12)
        assert rouge_l(pred, refs) == pytest.approx(want, abs=1e-12)  # no suffixes to stem


def test_rouge_l_stems_and_takes_a_single_reference():
    assert rouge_l("the cats running", "the cat runs") == pytest.approx(1.0)
    assert rouge_l("the cats running", "the cat runs", stem=False) == pytest.approx(1 / 3)
    assert rouge_l("The CAT.", ["the cat"]) == 1.0  # lower-cased, punctuation dropped
    assert rouge_l("", ["the cat"]) == 0.0


EXAMPLES = [
    {"instruction": "q1", "references": ["a", "b"], "candidates": ["a", "a c", "d", "d"]},
    {"instruction": "q2", "references": ["c"], "candidates": ["c d e", "b"]},
    {"instruction": "q3", "references": ["e f", "e f"], "candidates": []},
]


def test_pairs_follow_the_recipe():
    pairs = build_training_pairs(EXAMPLES, rng=0)
    assert all(isinstance(p, TrainingPair) for p in pairs)
    keys = [(p.instruction, p.response) for p in pairs]
    assert len(keys) == len(set(keys))  # unique
    labels = dict(zip(keys, (p.label for p in pairs)))
    refs = {ex["instruction"]: ex["references"] for ex in EXAMPLES}
    pool = {r for ex in EXAMPLES for r in ex["references"]}
    # every reference is a positive
    for q, rs in refs.items():
        for r in rs:
            assert labels[(q, r)] == 1.0
    # every candidate is there, with max-over-references ROUGE-L unless it is a reference
    for ex in EXAMPLES:
        for c in ex["candidates"]:
            q = ex["instruction"]
            want = 1.0 if c in ex["references"] else rouge_l(c, ex["references"])
            if labels[(q, c)] == 0.0 and c in pool and c not in ex["references"]:
                continue  # drawn as a negative first, which is kept
            assert labels[(q, c)] == pytest.approx(want)
    # negatives: label 0, a reference of the pool, never a reference of their own instruction
    negs = [p for p in pairs if p.label == 0.0 and p.response in pool]
    for p in negs:
        assert p.response not in refs[p.instruction]
    n_pos = sum(len(set(rs)) for rs in refs.values())
    n_cand = len({(ex["instruction"], c) for ex in EXAMPLES for c in ex["candidates"]})
    assert len(pairs) <= n_pos * 2 + n_cand


def test_negatives_per_positive_and_seeded_shuffle():
    one = build_training_pairs(EXAMPLES, rng=1)
    assert build_training_pairs(EXAMPLES, rng=1) == one
    assert build_training_pairs(EXAMPLES, rng=2) != one
    none = build_training_pairs(EXAMPLES, negatives_per_positive=0, rng=1)
    pos = {(p.instruction, p.response) for p in none if p.label == 1.0}
    # with no negatives, exactly the positives and the distinct new candidates remain
    assert len(pos) == 4 and len(none) == 4 + 4
    many = build_training_pairs(EXAMPLES, negatives_per_positive=50, rng=1)
    # 50 draws per positive from 4 references hit every foreign reference
    foreign = {
        (ex["instruction"], r)
        for ex in EXAMPLES
        for r in {"a", "b", "c", "e f"} - set(ex["references"])
    }
    got = {(p.instruction, p.response) for p in many if p.label == 0.0}
    assert foreign <= got


def test_negative_draws_are_uniform_over_the_pool():
    exs = [{"instruction": f"q{i}", "references": [f"r{i}"]} for i in range(5)]
    counts = Counter()
    for seed in range(400):
        for p in build_training_pairs(exs, rng=seed):
            if p.label == 0.0:
                counts[p.response] += 1
    # each positive draws one of 5 references; 1/5 is its own and is skipped:
    # 400 * 5 * 4/5 = 1600 kept draws, 320 per reference (sd ~ 16)
    assert sum(counts.values()) == pytest.approx(1600, abs=4 * 18)
    for r in (f"r{i}" for i in range(5)):
        assert counts[r] == pytest.approx(320, abs=4 * 18)


def test_train_size_repeats_then_truncates():
    base = build_training_pairs(EXAMPLES, rng=3)
    n = len(base)
    big = build_training_pairs(EXAMPLES, train_size=2 * n + 3, rng=3)
    assert big == base + base + base[:3]
    assert build_training_pairs(EXAMPLES, train_size=2, rng=3) == base[:2]
