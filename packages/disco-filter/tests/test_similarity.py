"""cosine_rows and duration_similarity against pure-Python loops and their exact properties."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import py_cosine, py_duration
from disco_filter import cosine_rows, duration_similarity
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def test_cosine_rows_matches_python_loop():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 512))
    b = a + rng.standard_normal((50, 512)) * rng.uniform(0, 3, (50, 1))
    ref = [py_cosine(x, y) for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_allclose(cosine_rows(a, b), ref, rtol=0, atol=1e-12)
    assert cosine_rows(a, b).shape == (50,)
    np.testing.assert_allclose(cosine_rows(a, a), 1.0, atol=1e-12)
    np.testing.assert_allclose(cosine_rows(a, -a), -1.0, atol=1e-12)
    np.testing.assert_allclose(cosine_rows(a, 7.5 * a + 0.0), 1.0, atol=1e-12)  # scale-free


finite = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda v: abs(v) > 1e-3 or v == 0)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 6), d=st.integers(1, 9))
def test_cosine_symmetric_and_bounded(data, n, d):
    a = data.draw(hnp.arrays(np.float64, (n, d), elements=finite))
    b = data.draw(hnp.arrays(np.float64, (n, d), elements=finite))
    if not (np.linalg.norm(a, axis=1).all() and np.linalg.norm(b, axis=1).all()):
        with pytest.raises(ValueError):
            cosine_rows(a, b)
        return
    c = cosine_rows(a, b)
    np.testing.assert_array_equal(c, cosine_rows(b, a))
    assert np.all(c >= -1.0) and np.all(c <= 1.0)
    np.testing.assert_allclose(c, [py_cosine(x, y) for x, y in zip(a, b)], atol=1e-9)


def test_cosine_rows_rejects_zero_rows_and_mismatch():
    with pytest.raises(ValueError, match="a"):
        cosine_rows(np.zeros((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="b"):
        cosine_rows(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="columns"):
        cosine_rows(np.ones((2, 3)), np.ones((2, 4)))


def test_duration_formula_against_loop():
    rng = np.random.default_rng(1)
    ms = rng.integers(1000, 900_000, 200)
    s = rng.uniform(0.5, 900, 200)
    ref = [py_duration(int(m), float(v)) for m, v in zip(ms, s)]
    np.testing.assert_allclose(duration_similarity(ms, s), ref, rtol=0, atol=1e-15)
    for m, v, r in zip(ms[:20], s[:20], ref[:20]):
        out = duration_similarity(int(m), float(v))
        assert isinstance(out, float) and out == pytest.approx(r, abs=1e-15)


def test_duration_units_and_monotonicity():
    assert duration_similarity(180_000, 180.0) == 1.0
    assert duration_similarity(180_000, 90.0) == 0.5
    assert duration_similarity(90_000, 180.0) == 0.5  # symmetric in the two durations
    deltas = np.linspace(0, 170, 50)
    sims = duration_similarity(180_000, 180.0 + deltas)
    assert np.all(np.diff(sims) < 0) and sims[0] == 1.0
    sims_below = duration_similarity(180_000, 180.0 - deltas)
    assert np.all(np.diff(sims_below) < 0)
    assert np.all((sims >= 0) & (sims <= 1))


def test_duration_broadcasts_and_rejects_nonpositive():
    out = duration_similarity(np.array([180_000, 200_000]), 180.0)
    assert out.shape == (2,)
    with pytest.raises(ValueError, match="track_ms"):
        duration_similarity(0, 10.0)
    with pytest.raises(ValueError, match="video_s"):
        duration_similarity(1000, -1.0)
    with pytest.raises(ValueError, match="video_s"):
        duration_similarity(np.ones(3), np.ones(2))
