import dispo_rl as dr
import numpy as np


def test_cliff_grid_dynamics():
    g = dr.cliff_grid()
    np.testing.assert_allclose(g.P.sum(-1), 1.0)
    assert g.P[g.free][:, :, list(g.walls)].sum() == 0  # walls never entered
    assert g.P[0, 0, 0] == 1 and g.P[0, 3, 1] == 1 and g.P[2, 3, 2] == 1  # border, wall bounce
    s = dr.cliff_grid(slip=0.3)
    np.testing.assert_allclose(s.P, 0.7 * g.P + 0.3 * g.P.mean(axis=1, keepdims=True))


def test_random_walk_dataset_follows_the_dynamics():
    g = dr.cliff_grid()
    d = dr.random_walk_dataset(g.P, 50, 8, starts=g.free, rng=0)
    assert len(d["observations"]) == 400
    assert np.all(g.P[d["observations"], d["actions"], d["next_observations"]] == 1.0)
    seg = d["observations"].reshape(50, 8)
    np.testing.assert_array_equal(seg[:, 1:], d["next_observations"].reshape(50, 8)[:, :-1])
