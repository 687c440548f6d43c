"""Fuzzy reasoning against hand-computed tables, a naive per-image loop and the logic laws."""

import itertools
import math

import numpy as np
import pytest
import symbol_llm as sl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

FEW = settings(max_examples=25, deadline=None)
VALUES = [0.0, 0.3, 0.6, 1.0]

# the two-premise truth tables, by hand: premises (a, b) and each t-norm's "a and b"
HAND_PREMISES = [(0.3, 0.6), (0.6, 0.6), (1.0, 0.3), (0.0, 1.0), (1.0, 1.0)]
HAND = {
    "min": [0.3, 0.6, 0.3, 0.0, 1.0],
    "product": [0.18, 0.36, 0.3, 0.0, 1.0],
    "lukasiewicz": [0.0, 0.2, 0.3, 0.0, 1.0],
}


@pytest.mark.parametrize("tnorm", sl.TNORMS)
def test_two_premise_tables_by_hand(tnorm):
    for (a, b), want in zip(HAND_PREMISES, HAND[tnorm], strict=True):
        got = sl.rule_scores([[a, b]], [[True, True]], tnorm=tnorm)
        assert got.shape == (1, 1)
        assert got[0, 0] == pytest.approx(want, abs=1e-12)


def test_three_premise_lukasiewicz_and_product_by_hand():
    P = [[0.9, 0.8, 0.7, 0.1]]
    M = [[1, 1, 1, 0]]
    assert sl.rule_scores(P, M, tnorm="lukasiewicz")[0, 0] == pytest.approx(0.4)
    assert sl.rule_scores(P, M, tnorm="product")[0, 0] == pytest.approx(0.504)
    assert sl.rule_scores(P, M)[0, 0] == 0.7  # default is Gödel min


def _naive_rules(P, M, tnorm):
    out = np.ones((len(P), len(M)))
    for i, p in enumerate(P):
        for r, row in enumerate(M):
            vals = [p[s] for s in range(len(row)) if row[s]]
            if not vals:
                continue
            if tnorm == "min":
                v = min(vals)
            elif tnorm == "product":
                v = math.prod(vals)
            else:
                v = max(0.0, sum(vals) - (len(vals) - 1))
            out[i, r] = v
    return out


@pytest.mark.parametrize("tnorm", sl.TNORMS)
def test_matches_naive_loop_on_random_rule_bases(tnorm):
    rng = np.random.default_rng(1)
    P = rng.random((37, 11))
    M = rng.random((23, 11)) < 0.25
    M[0] = False  # an empty conjunction is true
    np.testing.assert_allclose(
        sl.rule_scores(P, M, tnorm=tnorm), _naive_rules(P, M, tnorm), rtol=0, atol=1e-12
    )
    ra = rng.integers(0, 5, size=23)
    ra[ra == 3] = 4  # activity 3 has no rule
    want = np.zeros((37, 6))
    R = _naive_rules(P, M, tnorm)
    for a in range(6):
        cols = np.flatnonzero(ra == a)
        if cols.size:
            want[:, a] = R[:, cols].max(axis=1)
    got = sl.activity_scores(P, M, ra, n_activities=6, tnorm=tnorm)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.all(got[:, [3, 5]] == 0)


def test_long_rules_and_mixed_premise_counts():
    rng = np.random.default_rng(2)
    P = rng.random((50, 12))
    M = np.zeros((12, 12), bool)
    for r in range(12):
        M[r, rng.choice(12, r + 1, replace=False)] = True  # 1 to 12 premises
    for t in sl.TNORMS:
        np.testing.assert_allclose(sl.rule_scores(P, M, tnorm=t), _naive_rules(P, M, t), atol=1e-12)


def test_no_rules_gives_zero_evidence():
    P = np.full((4, 3), 0.9)
    out = sl.activity_scores(P, np.zeros((0, 3), bool), np.zeros(0, int), n_activities=2)
    assert out.shape == (4, 2) and np.all(out == 0)


@FEW
@given(p=st.floats(0, 1), q=st.floats(0, 1), r=st.floats(0, 1))
def test_laws_of_the_t_norms(p, q, r):
    for t in sl.TNORMS:
        f = lambda *v, t=t: sl.t_norm(np.array(v), kind=t)  # noqa: E731
        assert f(p, q) == pytest.approx(f(q, p), abs=1e-12)  # commutative
        assert f(p, 1.0) == pytest.approx(p, abs=1e-12)  # AND 1 is the identity
        assert f(p, 0.0) == 0.0  # AND 0 gives 0
        assert f(min(p, q), r) <= f(max(p, q), r) + 1e-12  # monotone


@FEW
@given(
    P=arrays(np.float64, (6, 5), elements=st.floats(0, 1)),
    M=arrays(np.bool_, (4, 5)),
    extra=arrays(np.bool_, (5,)),
    s=st.integers(0, 4),
)
def test_more_rules_never_lower_more_premises_never_raise(P, M, extra, s):
    for t in sl.TNORMS:
        R = sl.rule_scores(P, M, tnorm=t)
        A = sl.activity_scores(P, M, np.zeros(4, int), n_activities=1, tnorm=t)
        A2 = sl.activity_scores(P, np.vstack([M, extra]), np.zeros(5, int), n_activities=1, tnorm=t)
        assert np.all(A2 >= A - 1e-12)
        M2 = M.copy()
        M2[:, s] = True
        assert np.all(sl.rule_scores(P, M2, tnorm=t) <= R + 1e-12)


def test_one_rule_one_symbol_is_p():
    P = np.random.default_rng(3).random((10, 4))
    out = sl.activity_scores(P, np.eye(4, dtype=bool)[[2]], [0], n_activities=1)
    np.testing.assert_array_equal(out[:, 0], P[:, 2])


def test_yes_no_prob_exact_values():
    assert sl.yes_no_prob(1.3, 1.3) == 0.5
    assert sl.yes_no_prob(0.2, 0.2 + math.log(3)) == pytest.approx(0.75, abs=1e-15)
    ly = np.array([[0.1, 5.0], [800.0, -800.0]])
    ln = np.array([[0.1, 1.0], [-800.0, 800.0]])
    out = sl.yes_no_prob(ly, ln)
    sm = np.exp(-np.logaddexp(0, -(ln[0] - ly[0])))  # softmax([ly, ln])[1], stable
    np.testing.assert_allclose(out[0], sm)
    assert out[1, 0] == 0.0 and out[1, 1] == 1.0 and np.all(np.isfinite(out))


def test_t_norm_empty_axis_is_one_and_axis_choice():
    assert np.all(sl.t_norm(np.zeros((3, 0))) == 1)
    v = np.array([[0.2, 0.9], [0.5, 0.4]])
    np.testing.assert_array_equal(sl.t_norm(v, axis=0), [0.2, 0.4])
    for combo in itertools.product(VALUES, repeat=2):
        assert sl.t_norm(np.array(combo)) == min(combo)
