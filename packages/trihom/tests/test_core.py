"""h_L, h_S, h_F, rho(A) and Tri-Hom against brute-force loops and closed forms."""

import math
import statistics

import numpy as np
import pytest
import scipy.sparse as sp
import trihom
from conftest import dense_adjacency, random_messy_graph


def test_label_homophily_matches_loop(messy):
    ei, y, _, nbrs = messy
    same = total = 0
    for i, s in enumerate(nbrs):
        for j in s:
            if i < j:
                total += 1
                same += y[i] == y[j]
    assert trihom.label_homophily(ei, y) == pytest.approx(same / total, abs=1e-15)


def test_inputs_sparse_and_list_agree(messy):
    ei, y, _, nbrs = messy
    a = sp.coo_matrix(dense_adjacency(nbrs))
    upper = sp.triu(a)  # one direction only
    for graph in (a, upper.tocsr(), ei.tolist(), ei.astype(np.int32)):
        assert trihom.label_homophily(graph, y) == trihom.label_homophily(ei, y)
        assert trihom.structural_homophily(graph, y) == trihom.structural_homophily(ei, y)


def _reference_structural(nbrs, y):
    c = max(y) + 1
    dists = {}
    for i, s in enumerate(nbrs):
        if s:
            dists[i] = [sum(1 for j in s if y[j] == k) / len(s) for k in range(c)]
    smax = math.sqrt((1 - 1 / c) / c)
    per, sizes = [math.nan] * c, [0] * c
    for k in range(c):
        members = [i for i in dists if y[i] == k]
        if len(members) < 2:
            continue
        per[k] = statistics.fmean(
            1 - statistics.stdev([dists[i][m] for i in members]) / smax for m in range(c)
        )
        sizes[k] = len(members)
    return per, sizes


def test_structural_homophily_matches_loop(messy):
    ei, y, _, nbrs = messy
    per, sizes = _reference_structural(nbrs, list(y))
    ok = [k for k in range(len(per)) if not math.isnan(per[k])]
    got = trihom.structural_homophily(ei, y, per_class=True)
    np.testing.assert_allclose(got, per, rtol=0, atol=1e-12)
    assert trihom.structural_homophily(ei, y) == pytest.approx(
        statistics.fmean(per[k] for k in ok), abs=1e-12
    )
    weighted = sum(per[k] * sizes[k] for k in ok) / sum(sizes[k] for k in ok)
    assert trihom.structural_homophily(ei, y, weighting="class_size") == pytest.approx(
        weighted, abs=1e-12
    )


def test_structural_homophily_isolated_nodes_and_small_classes_are_left_out():
    # class 0: nodes 0, 1 (both joined to node 2 of class 1); node 3 isolated; node 4 alone
    ei = np.array([[0, 1], [2, 2]])
    y = np.array([0, 0, 1, 1, 2])
    per = trihom.structural_homophily(ei, y, per_class=True)
    assert per[0] == pytest.approx(1.0)  # identical distributions
    assert np.isnan(per[1])  # node 3 is isolated: class 1 has one usable node
    assert np.isnan(per[2])
    assert trihom.structural_homophily(ei, y) == pytest.approx(1.0)


@pytest.mark.parametrize("m", [2, 3, 10])
def test_structural_homophily_closed_form_two_camps(m):
    """C = 3; the 2m class-0 nodes: half linked only to a class-1 hub, half only to a class-2
    hub. Label 0: sigma = 0; labels 1, 2: m ones and m zeros, sample std 0.5 sqrt(2m/(2m-1));
    sigma_max = sqrt(2)/3. The hubs are alone in their classes, so h_S = h_S(0)."""
    n0 = 2 * m
    ei = np.array([(i, n0 + (i >= m)) for i in range(n0)]).T
    y = np.array([0] * n0 + [1, 2])
    sigma = 0.5 * math.sqrt(2 * m / (2 * m - 1))
    expected = (1 + 2 * (1 - sigma / (math.sqrt(2) / 3))) / 3
    per = trihom.structural_homophily(ei, y, per_class=True)
    assert per[0] == pytest.approx(expected, abs=1e-12)
    assert np.isnan(per[1]) and np.isnan(per[2])
    assert trihom.structural_homophily(ei, y) == pytest.approx(expected, abs=1e-12)
    # all class-0 nodes on the class-1 hub: identical distributions, h_S = 1
    same = np.array([np.arange(n0), np.full(n0, n0)])
    assert trihom.structural_homophily(same, y) == pytest.approx(1.0)


def _reference_feature(nbrs, x, y, grid):
    a = dense_adjacency(nbrs)
    rho = max(abs(np.linalg.eigvals(a)))
    out = []
    for f in range(x.shape[1]):
        best, best_v = None, math.inf
        for h in grid:
            x0 = x[:, f] - (h / rho) * (a @ x[:, f])
            v = 0.0
            for k in set(y.tolist()):
                vals = x0[y == k]
                v += float(np.sum((vals - vals.mean()) ** 2))
            if v < best_v:
                best, best_v = h, v
        out.append(best)
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_feature_homophily_matches_grid_loop(seed):
    ei, y, x, nbrs = random_messy_graph(seed, n=14, feat_dim=5)
    grid = [k / 100 for k in range(-100, 101)]
    ref = _reference_feature(nbrs, x, y, grid)
    got = trihom.feature_homophily(ei, x, y, per_feature=True)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    assert trihom.feature_homophily(ei, x, y) == pytest.approx(ref.mean())
    coarse = [k / 4 for k in range(-4, 5)]
    np.testing.assert_allclose(
        trihom.feature_homophily(ei, x, y, grid_step=0.25, per_feature=True),
        _reference_feature(nbrs, x, y, coarse),
        atol=1e-12,
    )


@pytest.mark.parametrize("h", [-0.7, -0.2, 0.0, 0.35, 0.9])
def test_feature_homophily_recovers_exact_model(h):
    """X = (I - (h/rho) A)^{-1} X0 with X0 constant within each class: v(h) = 0 exactly."""
    ei, y, _, nbrs = random_messy_graph(7, n=30, p=0.2)
    a = dense_adjacency(nbrs)
    rho = max(abs(np.linalg.eigvalsh(a)))
    x0 = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0]])[y]
    x = np.linalg.solve(np.eye(len(y)) - (h / rho) * a, x0)
    np.testing.assert_allclose(trihom.feature_homophily(ei, x, y, per_feature=True), [h, h])


def test_spectral_radius_closed_forms_and_eigsh_path():
    n = 7
    complete = np.array([(i, j) for i in range(n) for j in range(i + 1, n)]).T
    assert trihom.spectral_radius(complete) == pytest.approx(n - 1)
    cycle = np.array([np.arange(n), (np.arange(n) + 1) % n])
    assert trihom.spectral_radius(cycle) == pytest.approx(2.0)
    star = np.array([[0] * 9, list(range(1, 10))])
    assert trihom.spectral_radius(star, num_nodes=15) == pytest.approx(3.0)
    # above the dense-solver size: scipy's eigsh against numpy's dense eigvalsh
    gen = np.random.default_rng(3)
    upper = np.triu(gen.random((450, 450)) < 0.02, k=1)
    ei = np.array(np.nonzero(upper))
    dense = np.linalg.eigvalsh((upper | upper.T).astype(float))[-1]
    assert trihom.spectral_radius(ei, num_nodes=450) == pytest.approx(dense, rel=1e-9)


def test_tri_hom_hand_computed_values():
    # C = 2, h_L = 0.75, h_S = 0.5, h_F = 0.5: lambda = 0.5, Q = 0.125 + 0.5 + 0.25 = 0.875
    j_not = (1 - 0.25 * 0.875) / (1 - 0.25) ** 2
    assert trihom.tri_hom(0.75, 0.5, 0.5, 2, graph_aware=False) == pytest.approx(j_not)
    assert trihom.tri_hom(0.75, 0.5, 0.5, 2) == pytest.approx(0.25 / 0.875 * j_not)
    # rho = 2: kappa = 0.25
    j2 = (1 - 0.0625 * 0.875) / (1 - 0.125) ** 2
    assert trihom.tri_hom(0.75, 0.5, 0.5, 2, rho=2.0, graph_aware=False) == pytest.approx(j2)
    assert trihom.tri_hom(0.75, 0.5, 0.5, 2, rho=2.0) == pytest.approx(0.25 / 0.875 * j2)


@pytest.mark.parametrize("c", [2, 3, 5])
@pytest.mark.parametrize("rho", [1.0, 7.5])
def test_tri_hom_properties(c, rho):
    for h_l in (0.1, 0.6, 0.95):
        for h_s in (0.0, 0.5, 1.0):
            assert trihom.tri_hom(h_l, h_s, 0.0, c, rho=rho, graph_aware=False) == 1.0
            assert trihom.tri_hom(1 / c, h_s, 0.3, c, rho=rho) == pytest.approx(0.0, abs=1e-15)
    for h_f in (-0.8, 0.0, 0.4):
        assert trihom.tri_hom(1.0, 1.0, h_f, c, rho=rho) == pytest.approx(
            trihom.tri_hom(1.0, 1.0, h_f, c, rho=rho, graph_aware=False)
        )
    values = [trihom.tri_hom(0.7, s, 0.3, c, rho=rho) for s in np.linspace(0, 1, 11)]
    assert all(b > a for a, b in zip(values, values[1:]))


def test_tri_hom_infinite_is_an_error():
    with pytest.raises(ValueError, match="h_F"):
        trihom.tri_hom(1.0, 1.0, 1.0, 3)


def test_tri_hom_from_graph_composes(messy):
    ei, y, x, _ = messy
    c = int(y.max()) + 1
    h = (
        trihom.label_homophily(ei, y),
        trihom.structural_homophily(ei, y),
        trihom.feature_homophily(ei, x, y),
    )
    assert trihom.tri_hom_from_graph(ei, x, y) == trihom.tri_hom(*h, c)
    rho = trihom.spectral_radius(ei, num_nodes=len(y))
    assert trihom.tri_hom_from_graph(ei, x, y, rho="spectral", graph_aware=False) == (
        pytest.approx(trihom.tri_hom(*h, c, rho=rho, graph_aware=False))
    )


def test_correlate_matches_numpy():
    gen = np.random.default_rng(0)
    m = gen.normal(size=20)
    a = 0.5 * m + gen.normal(size=20)
    r = trihom.correlate(m, a)
    assert r.pearson == pytest.approx(np.corrcoef(m, a)[0, 1])
    ranks = lambda v: np.argsort(np.argsort(v))  # noqa: E731 (no ties here)
    assert r.spearman == pytest.approx(np.corrcoef(ranks(m), ranks(a))[0, 1])
    assert r.n == 20 and 0 <= r.pearson_p <= 1
