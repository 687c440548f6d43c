"""The gudhi extra: the SimplexTree gives the same diagrams as the ripser path."""

from __future__ import annotations

import numpy as np
import pytest
import topo_parallax as tp
from topo_parallax import toys
from topo_parallax._gudhi import _intervals

gudhi = pytest.importorskip("gudhi")


def _clean(d):
    d = np.asarray(d, float).reshape(-1, 2)
    d = d[~(d[:, 1] - d[:, 0] <= 1e-12)]  # ripser drops zero-persistence pairs
    return d[np.lexsort((d[:, 1], d[:, 0]))]


@pytest.mark.parametrize("tau", [0.0, 0.5])
def test_simplex_tree_matches_ripser_path(tau):
    X = toys.sample_annulus(40, inner=1.0, outer=2.0, rng=5)
    f = toys.annulus_model()
    st = tp.parallax_simplex_tree(X, f, tau, maxdim=1, r_max=1.8)
    assert isinstance(st, gudhi.SimplexTree) and st.dimension() <= 2
    ours = tp.parallax_diagrams(X, f, [tau], r_max=1.8)[tau]
    for a, b in zip(_intervals(st, 1), ours, strict=True):
        a, b = _clean(a), _clean(b)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_closed_form_with_gudhi():
    X = toys.circle_points(24, radius=1.5)
    h1 = _intervals(tp.parallax_simplex_tree(X, toys.annulus_model(), 0.5), 1)[1]
    np.testing.assert_allclose(h1, [[3 * np.sin(np.pi / 24), np.inf]], atol=1e-9)
