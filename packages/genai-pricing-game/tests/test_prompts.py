"""Expected prompts, relative performance and cost-effectiveness against simulation and sums."""

import genai_pricing_game as gp
import numpy as np
import pytest


def _simulate_prompts(q, cap, n, rng):
    # prompts until the first success, capped: min(Geometric(q), cap)
    n_prompts = rng.geometric(q, size=n)
    return np.minimum(n_prompts, cap) if cap is not None else n_prompts


@pytest.mark.parametrize("q,cap", [(0.3, None), (0.1, 5), (0.7, 3), (0.05, None)])
def test_expected_prompts_matches_monte_carlo(q, cap):
    rng = np.random.default_rng(0)
    x = _simulate_prompts(q, cap, 200_000, rng)
    # 5 standard errors of the sample mean
    tol = 5 * x.std() / np.sqrt(x.size)
    assert abs(gp.expected_prompts(q, cap=cap) - x.mean()) < tol


def test_cap_formula_equals_explicit_sum():
    q = np.array([0.05, 0.2, 0.5, 1.0])
    for cap in (1, 2, 7, 50):
        explicit = sum((1 - q) ** (r - 1) for r in range(1, cap + 1))  # sum_r P(N >= r)
        np.testing.assert_allclose(gp.expected_prompts(q, cap=cap), explicit, rtol=1e-12)
    assert gp.expected_prompts(0.0, cap=4) == 4.0


def test_success_curve():
    # a constant curve is the capped geometric model
    got = gp.expected_prompts(lambda r: np.full(r.shape, 0.25), cap=6)
    assert got == pytest.approx(gp.expected_prompts(0.25, cap=6), rel=1e-12)
    # a curve that always succeeds at round 3
    assert gp.expected_prompts(lambda r: (r == 3).astype(float), cap=10) == pytest.approx(3.0)
    # per-task curves: shape (cap, m)
    curve = lambda r: np.stack([np.full(r.shape, 0.5), np.full(r.shape, 1.0)], axis=1)  # noqa: E731
    np.testing.assert_allclose(gp.expected_prompts(curve, cap=4), [1.875, 1.0])


def test_relative_performance_and_cost_effective():
    k = gp.relative_performance([0.2, 0.5, 0.4], [0.4, 0.5, 0.1])
    np.testing.assert_allclose(k, [2.0, 1.0, 0.25])
    # B costs p_B/q_B per task, A costs p_A/q_A: cost-effective iff p_B <= kappa p_A
    pA, pB = 1.0, np.array([2.0, 1.0, 0.3])
    direct = pB / np.array([0.4, 0.5, 0.1]) <= pA / np.array([0.2, 0.5, 0.4]) + 1e-12
    np.testing.assert_array_equal(gp.is_cost_effective(pA, pB, k), direct)
    assert gp.is_cost_effective(1.0, 2.0, 2.0) is True
    assert gp.is_cost_effective(1.0, 2.0, 2.0, tie="first_mover") is False
