"""Logit scores against per-row loops written from the definitions."""

import math

import numpy as np
import pytest

import papershelf_ood as po


def _rows(seed=0, n=30, c=7, scale=5.0):
    return np.random.default_rng(seed).normal(size=(n, c)) * scale


def test_msp_matches_a_per_row_loop():
    L = _rows()
    for T in (1.0, 0.5, 3.0):
        expected = [
            max(math.exp(v / T) for v in row) / sum(math.exp(v / T) for v in row) for row in L
        ]
        np.testing.assert_allclose(po.msp(L, temperature=T), expected, rtol=1e-12)


def test_energy_matches_a_per_row_loop():
    L = _rows(1)
    for T in (1.0, 2.0):
        expected = [T * math.log(sum(math.exp(v / T) for v in row)) for row in L]
        np.testing.assert_allclose(po.energy(L, temperature=T), expected, rtol=1e-12)


def test_max_logit_and_shapes():
    L = _rows(2)
    np.testing.assert_array_equal(po.max_logit(L), [max(r) for r in L])
    for f in (po.msp, po.energy, po.max_logit):
        assert f(L).shape == (L.shape[0],)


def test_scores_are_stable_for_huge_logits():
    L = np.array([[1000.0, 0.0], [-1000.0, -1000.0]])
    np.testing.assert_allclose(po.msp(L), [1.0, 0.5])
    np.testing.assert_allclose(po.energy(L), [1000.0, -1000.0 + math.log(2)])


def test_msp_is_in_its_range():
    p = po.msp(_rows(3, c=4))
    assert np.all(p >= 0.25 - 1e-15) and np.all(p <= 1.0)


def test_higher_score_means_more_in_distribution():
    confident = np.array([[10.0, 0.0, 0.0]])
    flat = np.array([[1.0, 1.0, 1.0]])
    assert po.msp(confident)[0] > po.msp(flat)[0]
    assert po.max_logit(confident)[0] > po.max_logit(flat)[0]
    assert po.energy(confident)[0] > po.energy(flat)[0]


@pytest.mark.parametrize("f", [po.msp, po.energy])
def test_temperature_is_keyword_only(f):
    with pytest.raises(TypeError):
        f(_rows(), 2.0)
