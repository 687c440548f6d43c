"""Check 4: the similar-tasks theorem on a 40x40 grid, closed form vs the numerical solver."""

import genai_pricing_game as gp
import numpy as np
import pytest
from genai_pricing_game._reference import brute_first_mover

GRID = np.linspace(0.02, 0.98, 40)


@pytest.fixture(scope="module")
def region_map():
    return gp.two_task_region_map(GRID, GRID, n_prices=3000)


def test_shut_out_region_is_r_ge_s(region_map):
    S, R = np.meshgrid(GRID, GRID)
    mismatch = region_map.numeric_positive != (R < S)
    assert mismatch.sum() == 0
    np.testing.assert_array_equal(region_map.region == "blue", R >= S)


def test_green_orange_split_and_prices(region_map):
    S, R = np.meshgrid(GRID, GRID)
    pos = region_map.numeric_positive
    step = region_map.price_step[:, None] * np.ones_like(S)
    # the largest price at which A still earns agrees with the closed form to grid resolution
    np.testing.assert_array_less(
        np.abs(region_map.p_A_sup - region_map.closed_p_A_max)[pos], step[pos] + 1e-12
    )
    # green <=> at the boundary B's unconstrained price 1/b is feasible (kappa_1 p_A >= 1/b)
    green_numeric = region_map.p_A_sup + step >= 1.0
    green_closed = region_map.region == "green"
    np.testing.assert_array_equal(green_closed, (R * np.exp(1 - R) < S) & (R < S))
    far = np.abs(region_map.closed_p_A_max - 1.0) > 2 * step  # away from the green edge
    assert (green_numeric[pos & far] == green_closed[pos & far]).all()
    # A's optimal revenue: closed form a2 p e^{-p} at min(p_sup, 1/b); the grid is below it by at
    # most a2 * step (the slope of p e^{-p} is <= 1)
    gap = region_map.closed_revenue_A - region_map.revenue_A
    assert (gap[pos] >= -1e-12).all()
    assert (gap[pos] <= step[pos] + 1e-12).all()


@pytest.mark.parametrize("s,r", [(0.8, 0.3), (0.6, 0.5), (0.5, 0.7), (0.9, 0.85)])
def test_closed_form_vs_brute_force_loop(s, r):
    d = gp.ExponentialDemand([s, 1 - s], 1.0)
    _, rev = brute_first_mover([1.0, r], d, p_max=2.0 / r, n_a=400, n_b=4000)
    cf = gp.two_task_regions(s, 1 - s, 1.0, r, 1.0)
    assert (rev.max() > 0) == (cf.region != "blue")
    assert rev.max() <= cf.revenue_A + 1e-9 or cf.region == "blue"
    for tie in ("latecomer", "first_mover"):
        fm = gp.first_mover_price([1.0, r], d, tie=tie)
        assert fm.revenue_A == pytest.approx(cf.revenue_A, rel=1e-6, abs=1e-12)


def test_two_task_regions_vectorised_and_swapped():
    out = gp.two_task_regions([9.0, 3.0, 1.0], [1.0, 1.0, 3.0], 1.0, 0.5, 1.0)
    assert out.region.tolist() == ["green", "orange", "blue"]  # r e^{1-r} = 0.82 vs s
    sw = gp.two_task_regions(1.0, 9.0, 0.5, 1.0, 1.0)  # roles of the tasks swapped
    assert sw.region == "green" and sw.revenue_A == pytest.approx(out.revenue_A[0])
    with pytest.raises(ValueError, match="kappa2"):
        gp.two_task_regions(1.0, 1.0, 1.0, -0.5, 1.0)
    with pytest.raises(ValueError, match="shares"):
        gp.two_task_region_map([0.0, 0.5], [0.5])


def test_plot_writes_png(tmp_path, region_map):
    pytest.importorskip("matplotlib")
    path = tmp_path / "regions.png"
    gp.plot_two_task_regions(region_map, path=path)
    assert path.stat().st_size > 1000
