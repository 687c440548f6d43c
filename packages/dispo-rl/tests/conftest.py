import dispo_rl as dr
import numpy as np
import pytest


@pytest.fixture(scope="session")
def grid():
    return dr.cliff_grid()


@pytest.fixture(scope="session")
def every_pair(grid):
    """Each free (s, a) once: the empirical transition law equals the uniform random walk's."""
    free = grid.free
    s = np.repeat(free, 5)
    a = np.tile(np.arange(5), len(free))
    nxt = grid.P[s, a].argmax(axis=1)
    n = len(s)
    return {
        "observations": s,
        "actions": a,
        "rewards": np.zeros(n),
        "next_observations": nxt,
        "terminals": np.zeros(n, dtype=bool),
    }
