import numpy as np
import pytest


def spd(rng, n, d, cond=10.0):
    """(n, d, d) random SPD matrices with condition number <= cond."""
    q, _ = np.linalg.qr(rng.normal(size=(n, d, d)))
    ev = rng.uniform(1.0, cond, size=(n, d))
    ev[:, 0] = 1.0
    return np.einsum("nij,nj,nkj->nik", q, ev, q)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
