"""TSP utilities against naive loops and brute force."""

import itertools

import numpy as np
import pytest
from lehd_routing import tsp


def naive_length(pts, tour):
    return sum(
        np.linalg.norm(pts[tour[i]] - pts[tour[(i + 1) % len(tour)]]) for i in range(len(tour))
    )


def brute_force(pts):
    """Shortest closed tour over every permutation fixing node 0 (vectorised enumeration)."""
    n = len(pts)
    perms = np.array([(0, *p) for p in itertools.permutations(range(1, n))])
    dist = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    lengths = dist[perms, np.roll(perms, -1, axis=1)].sum(1)
    k = int(lengths.argmin())
    return float(lengths[k]), perms[k]


def test_random_instances_shape_range_and_seed():
    a = tsp.random_instances(4, 7, rng=3)
    assert a.shape == (4, 7, 2) and a.dtype == np.float64
    assert a.min() >= 0 and a.max() < 1
    np.testing.assert_array_equal(a, tsp.random_instances(4, 7, rng=np.random.default_rng(3)))
    assert not np.array_equal(a, tsp.random_instances(4, 7, rng=4))


def test_tour_length_matches_a_loop_and_is_rotation_and_reversal_invariant():
    rng = np.random.default_rng(0)
    c = tsp.random_instances(3, 9, rng=rng)
    t = np.stack([rng.permutation(9) for _ in range(3)])
    got = tsp.tour_length(c, t)
    assert got.shape == (3,)
    for b in range(3):
        assert got[b] == pytest.approx(naive_length(c[b], t[b]), rel=1e-12)
    np.testing.assert_allclose(tsp.tour_length(c, np.roll(t, 3, axis=1)), got, rtol=1e-12)
    np.testing.assert_allclose(tsp.tour_length(c, t[:, ::-1]), got, rtol=1e-12)
    single = tsp.tour_length(c[0], t[0])
    assert isinstance(single, float) and single == pytest.approx(got[0])
    # float32 input gives the same float64 answer up to float32 rounding
    np.testing.assert_allclose(tsp.tour_length(c.astype(np.float32), t), got, rtol=1e-6)


def test_unit_square_tour_length():
    sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert tsp.tour_length(sq, [0, 1, 2, 3]) == pytest.approx(4.0)
    assert tsp.tour_length(sq, [0, 2, 1, 3]) == pytest.approx(2 + 2 * np.sqrt(2))


def test_is_valid_tour():
    tours = np.array([[0, 1, 2, 3], [0, 1, 1, 3], [0, 1, 2, 4], [3, 2, 1, 0]])
    np.testing.assert_array_equal(tsp.is_valid_tour(tours, 4), [True, False, False, True])
    assert tsp.is_valid_tour(tours, 5).tolist() == [False] * 4  # wrong length
    assert tsp.is_valid_tour(np.array([2, 0, 1]), 3) is True
    assert tsp.is_valid_tour([[0, -1, 1]], 3).tolist() == [False]


def naive_nn(pts, start):
    tour, left = [start], set(range(len(pts))) - {start}
    while left:
        cur = pts[tour[-1]]
        nxt = min(sorted(left), key=lambda j: np.sum((pts[j] - cur) ** 2))
        tour.append(nxt)
        left.remove(nxt)
    return tour


def test_nearest_neighbour_matches_naive():
    c = tsp.random_instances(3, 12, rng=1)
    for start in (0, 5):
        got = tsp.nearest_neighbour(c, start=start)
        assert got.shape == (3, 12) and (got[:, 0] == start).all()
        for b in range(3):
            assert got[b].tolist() == naive_nn(c[b], start)
    assert tsp.nearest_neighbour(c[0]).shape == (12,)


def test_two_opt_reaches_a_local_optimum():
    c = tsp.random_instances(3, 25, rng=2)
    rng = np.random.default_rng(0)
    start = np.stack([rng.permutation(25) for _ in range(3)])
    out = tsp.two_opt(c, start)
    assert tsp.is_valid_tour(out, 25).all()
    assert (tsp.tour_length(c, out) <= tsp.tour_length(c, start) + 1e-12).all()
    for b in range(3):
        base = naive_length(c[b], out[b])
        for i in range(25):
            for j in range(i + 2, 25):
                t = out[b].copy()
                t[i + 1 : j + 1] = t[i + 1 : j + 1][::-1]
                assert naive_length(c[b], t) >= base - 1e-9
    # max_iters=0 changes nothing
    np.testing.assert_array_equal(tsp.two_opt(c, start, max_iters=0), start)


def test_held_karp_matches_brute_force():
    c = tsp.random_instances(3, 8, rng=5)
    tours, lengths = tsp.held_karp(c)
    for b in range(3):
        best, _ = brute_force(c[b])
        assert lengths[b] == pytest.approx(best, rel=1e-12)
        assert tours[b, 0] == 0 and tsp.is_valid_tour(tours[b], 8)
        assert naive_length(c[b], tours[b]) == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_held_karp_tiny(n):
    c = tsp.random_instances(2, n, rng=0)
    tours, lengths = tsp.held_karp(c)
    for b in range(2):
        assert lengths[b] == pytest.approx(brute_force(c[b])[0] if n > 1 else 0.0)


def test_held_karp_limit_and_heuristics_are_no_better():
    with pytest.raises(ValueError, match="coords"):
        tsp.held_karp(tsp.random_instances(1, 14, rng=0))
    c = tsp.random_instances(3, 11, rng=6)
    _, opt = tsp.held_karp(c)
    nn = tsp.nearest_neighbour(c)
    two = tsp.two_opt(c, nn)
    assert (tsp.tour_length(c, two) >= opt - 1e-9).all()
    assert (tsp.tour_length(c, nn) >= tsp.tour_length(c, two) - 1e-9).all()
    np.testing.assert_allclose(tsp.gap(opt, opt), 0.0)
