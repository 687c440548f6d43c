"""Against the peer LKH-3 (elkai; `nox -s tests_extras`): Held-Karp is exact, LKH is no better,
and 2-opt / LEHD tours are never shorter than LKH's on the same instances."""

import numpy as np
import pytest
from lehd_routing import tsp

elkai = pytest.importorskip("elkai")


def lkh_lengths(coords):
    out = []
    for c in coords:
        dist = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1))
        tour = elkai.DistanceMatrix(np.rint(dist * 1e7).astype(int).tolist()).solve_tsp(runs=3)
        out.append(tsp.tour_length(c, np.array(tour[:-1])))
    return np.array(out)


def test_held_karp_matches_lkh_on_small_instances():
    c = tsp.random_instances(5, 11, rng=0)
    _, exact = tsp.held_karp(c)
    lkh = lkh_lengths(c)
    np.testing.assert_allclose(exact, lkh, rtol=1e-5)  # LKH finds the optimum at n = 11


def test_two_opt_is_never_better_than_lkh():
    c = tsp.random_instances(4, 60, rng=1)
    two = tsp.tour_length(c, tsp.two_opt(c, tsp.nearest_neighbour(c)))
    lkh = lkh_lengths(c)
    assert (two >= lkh * (1 - 1e-6)).all()
    assert np.mean(two / lkh - 1) < 0.15  # 2-opt from nearest neighbour: a few percent
