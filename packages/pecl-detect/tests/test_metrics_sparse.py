"""voc_ap against hand-computed values; sparsify counts and invariants."""

import math

import numpy as np
import pytest
from pecl_detect import sparsify, voc_ap

REC = [0.2, 0.4, 0.4, 0.6, 0.8]
PREC = [1.0, 1.0, 0.67, 0.75, 0.8]


def test_voc07_textbook_example():
    # t = 0..0.4: max precision 1; t = 0.5..0.8: 0.8; t = 0.9, 1.0: 0 -> (5 + 4 * 0.8) / 11
    assert voc_ap(REC, PREC) == pytest.approx(8.2 / 11, abs=1e-12)


def test_all_point_textbook_example():
    # envelope 1, 1, 0.8, 0.8 on the recall steps 0.2 each, 0 beyond 0.8
    assert voc_ap(REC, PREC, use_07=False) == pytest.approx(0.72, abs=1e-12)


def test_perfect_and_hopeless_detectors():
    rec = np.arange(1, 11) / 10
    assert voc_ap(rec, np.ones(10)) == pytest.approx(1.0)
    assert voc_ap(rec, np.ones(10), use_07=False) == pytest.approx(1.0)
    assert voc_ap([0.0, 0.0], [0.0, 0.0]) == 0.0
    # half the objects found at precision 1: 6 of the 11 points
    assert voc_ap([0.5], [1.0]) == pytest.approx(6 / 11)
    assert voc_ap([0.5], [1.0], use_07=False) == pytest.approx(0.5)


@pytest.mark.parametrize(("n", "ratio", "kept"), [(37, 0.05, 1), (250, 0.1, 25), (3, 0.5, 1)])
def test_instance_counts(n, ratio, kept):
    labels = np.array([7] * n + [2] * 40)
    idx = sparsify(labels, ratio, rng=0)
    assert (labels[idx] == 7).sum() == kept
    assert (labels[idx] == 2).sum() == max(1, math.floor(ratio * 40))
    assert len(set(idx.tolist())) == idx.size and np.all(np.diff(idx) > 0)


def test_per_image_and_reproducible():
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 4, rng.integers(0, 60)) for _ in range(20)]
    a = sparsify(images, 0.1, rng=5)
    b = sparsify(images, 0.1, rng=5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    for lab, keep in zip(images, a, strict=True):
        assert np.all(keep < lab.size)
        for c in np.unique(lab):
            assert (lab[keep] == c).sum() == max(1, math.floor(0.1 * (lab == c).sum()))
    assert any(not np.array_equal(x, y) for x, y in zip(a, sparsify(images, 0.1, rng=6)))


def test_image_level():
    images = [np.array([1, 2])] * 617
    kept = sparsify(images, 0.1, rng=0, level="image")
    assert kept.size == 61 and len(set(kept.tolist())) == 61 and kept.max() < 617
    with pytest.raises(ValueError, match="labels"):
        sparsify(np.array([1, 2, 3]), 0.5, level="image")


def test_rng_is_uniform():
    """Each of 10 instances is kept with probability 3/10 (chi-square-free check: 4 sigma)."""
    counts = np.zeros(10)
    for s in range(600):
        counts[sparsify(np.zeros(10, int), 0.3, rng=s)] += 1
    sd = math.sqrt(600 * 0.3 * 0.7)
    assert np.all(np.abs(counts - 180) < 4 * sd)
