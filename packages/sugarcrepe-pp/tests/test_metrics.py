"""The metrics against hand-made cases (ties are wrong), closed forms and properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sugarcrepe_pp import accuracy, cosine, itt_correct, tot_correct


def test_tot_hand_made_with_ties():
    s12 = [0.9, 0.5, 0.5, 0.5, 0.7, 0.2]
    s1n = [0.8, 0.5, 0.4, 0.6, 0.1, 0.2]
    s2n = [0.1, 0.1, 0.5, 0.1, 0.69999, 0.3]
    assert tot_correct(s12, s1n, s2n).tolist() == [True, False, False, False, True, False]
    assert tot_correct(s12, s1n, s2n).dtype == bool
    assert bool(tot_correct(0.3, 0.2, 0.1)) is True
    assert bool(tot_correct(0.3, 0.3, 0.1)) is False


def test_itt_hand_made_with_ties():
    si1 = [0.3, 0.3, 0.2, 0.5, 0.1]
    si2 = [0.4, 0.3, 0.6, 0.5, 0.1]
    sin = [0.2, 0.3, 0.3, 0.49, 0.1]
    out = itt_correct(si1, si2, sin)
    assert set(out) == {"itt", "itt_p1", "itt_p2"}
    assert out["itt_p1"].tolist() == [True, False, False, True, False]
    assert out["itt_p2"].tolist() == [True, False, True, True, False]
    assert out["itt"].tolist() == [True, False, False, True, False]


def test_length_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="s1n"):
        tot_correct([0.1, 0.2], [0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="sin"):
        itt_correct([0.1, 0.2], [0.1, 0.2], [0.1, 0.2, 0.3])


scores = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        *[
            arrays(np.float64, n, elements=st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))
            for _ in range(3)
        ]
    )
)


@settings(max_examples=60, deadline=None)
@given(scores)
def test_itt_bounds(sims):
    a, b, c = sims
    f = itt_correct(a, b, c)
    itt, p1, p2 = (f[k].astype(int) for k in ("itt", "itt_p1", "itt_p2"))
    assert np.all(itt <= np.minimum(p1, p2))
    assert np.all(itt >= p1 + p2 - 1)
    # the counts obey the same bounds
    assert itt.sum() <= min(p1.sum(), p2.sum())
    assert itt.sum() >= p1.sum() + p2.sum() - len(a)


@settings(max_examples=60, deadline=None)
@given(scores)
def test_tot_symmetric_in_p1_p2_and_matches_a_loop(sims):
    s12, s1n, s2n = sims
    flags = tot_correct(s12, s1n, s2n)
    # swapping P1 and P2: s(P2, P1) = s12, and the two negative similarities trade places
    assert np.array_equal(flags, tot_correct(s12, s2n, s1n))
    loop = [bool(x > y and x > z) for x, y, z in zip(s12, s1n, s2n)]
    assert flags.tolist() == loop


def _naive_cosine(x, y, eps=1e-6):
    dot = sum(float(a) * float(b) for a, b in zip(x, y))
    nx = max(math.sqrt(sum(float(a) ** 2 for a in x)), eps)
    ny = max(math.sqrt(sum(float(b) ** 2 for b in y)), eps)
    return dot / (nx * ny)


def test_cosine_closed_forms_and_naive_reference():
    assert cosine([3.0, 4.0], [4.0, 3.0]) == pytest.approx(24 / 25)
    assert cosine([[1.0, 0.0]], [[-2.0, 0.0]]).tolist() == [-1.0]
    # eps: a zero row gives 0, not NaN (torch.nn.CosineSimilarity semantics)
    assert cosine([[0.0, 0.0]], [[1.0, 2.0]]).tolist() == [0.0]
    # eps clamps each norm separately: tiny vectors get scaled down, not renormalised
    tiny = cosine([[1e-7, 0.0]], [[1.0, 0.0]])[0]
    assert tiny == pytest.approx(1e-7 / 1e-6)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(7, 5)), rng.normal(size=(7, 5))
    got = cosine(x, y)
    assert got.shape == (7,)
    assert got == pytest.approx([_naive_cosine(a, b) for a, b in zip(x, y)], rel=1e-12, abs=1e-15)


def test_cosine_keeps_exact_ties_of_integer_vectors():
    # cos(a, b) = cos(n, b) mathematically (same norm, same dot with b): must compare equal
    # (normalising each row first, then the dot product, splits this tie by rounding)
    a = np.array([[2.0, 1.0, 1.0, 1.0, 2.0, 0.0]])
    n = np.array([[2.0, 2.0, 1.0, 1.0, 0.0, 1.0]])
    b = np.array([[3.0, 2.0, 3.0, 0.0, 1.0, 0.0]])
    assert (a @ b.T) == (n @ b.T) and (a @ a.T) == (n @ n.T)  # 13 and 11 both
    assert cosine(a, b)[0] == cosine(n, b)[0]
    assert not tot_correct(cosine(a, b), cosine(a, n), cosine(b, n))[0]


def test_cosine_shape_mismatch():
    with pytest.raises(ValueError, match="b has shape"):
        cosine(np.ones((2, 3)), np.ones((2, 4)))


def test_accuracy():
    assert accuracy(np.array([True, False, True, True])) == (3, 4, 0.75)
    c, t, a = accuracy(np.zeros(0, dtype=bool))
    assert (c, t) == (0, 0) and math.isnan(a)
