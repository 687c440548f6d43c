"""The method against independent references: a closed form, a naive per-pair loop,
hand-computed barcodes, ripser on a dense matrix with inf for inadmissible edges, union-find."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import topo_parallax as tp
from ripser import ripser
from topo_parallax import _core, toys

RNG = np.random.default_rng(1)


def smooth_model(points):
    """A smooth confidence with a dip at (0.3, -0.2): every edge gets a different min_conf."""
    z = np.asarray(points)
    return 1.0 - 0.9 * np.exp(-4.0 * np.sum((z - np.array([0.3, -0.2])) ** 2, axis=1))


def sort_dgm(d):
    d = np.asarray(d, dtype=float).reshape(-1, 2)
    return d[np.lexsort((d[:, 1], d[:, 0]))]


def assert_same_diagrams(a, b, atol=1e-6):
    assert len(a) == len(b)
    for da, db in zip(a, b, strict=True):
        da, db = sort_dgm(da), sort_dgm(db)
        assert da.shape == db.shape, (da, db)
        np.testing.assert_allclose(da, db, atol=atol, rtol=0)


# --- the closed form: 24 points on |z| = 1.5, annulus model 1 <= |z| <= 2 -------------------
def test_closed_form_circle_in_annulus():
    X = toys.circle_points(24, radius=1.5)
    f = toys.annulus_model(inner=1.0, outer=2.0)
    rips = tp.rips_diagrams(X)
    birth, death = 3 * math.sin(math.pi / 24), 3 * math.sin(math.pi / 3)
    np.testing.assert_allclose(rips[1], [[birth, death]], atol=1e-6)
    assert rips[0].shape == (24, 2) and np.isinf(rips[0][:, 1]).sum() == 1
    par = tp.parallax_diagrams(X, f, [0.5])[0.5]
    assert par[1].shape == (1, 2)
    assert par[1][0, 0] == pytest.approx(birth, abs=1e-6) and np.isinf(par[1][0, 1])
    edges, lengths, conf = tp.admissible_edges(X, f)
    # chord k steps apart stays in |z| >= 1 iff 1.5 cos(pi k / 24) >= 1, i.e. k <= 6:
    # 24 * 6 of the 276 pairs
    assert edges.shape == (276, 2)
    steps = np.minimum(edges[:, 1] - edges[:, 0], 24 - (edges[:, 1] - edges[:, 0]))
    np.testing.assert_array_equal(conf >= 0.5, steps <= 6)
    assert np.count_nonzero(conf >= 0.5) / 276 == pytest.approx(144 / 276)
    rep = tp.parallax_report(X, f, [0.5])
    assert rep.bottleneck[0.5][1] == math.inf and rep.bottleneck[0.5][0] == 0.0
    assert rep.essential_rips == (1, 0) and rep.essential_parallax[0.5] == (1, 1)
    np.testing.assert_allclose(rep.unmatched[0.5][1], [[birth, math.inf]], atol=1e-6)
    assert rep.fraction_admissible[0.5] == pytest.approx(0.5217, abs=1e-4)


# --- admissible_edges against a naive per-pair loop -----------------------------------------
@pytest.mark.parametrize("r_max", [None, 0.7, 1.3])
@pytest.mark.parametrize("m", [2, 5, 32])
def test_admissible_edges_matches_naive_loop(r_max, m):
    X = RNG.uniform(-1, 1, size=(25, 2))
    edges, lengths, conf = tp.admissible_edges(X, smooth_model, r_max=r_max, m=m)
    want = []
    for i in range(len(X)):
        for j in range(i + 1, len(X)):
            length = math.dist(X[i], X[j])
            if r_max is not None and length > r_max:
                continue
            vals = [
                smooth_model((X[i] + (k / (m - 1)) * (X[j] - X[i]))[None, :])[0] for k in range(m)
            ]
            want.append((i, j, length, min(vals)))
    assert edges.shape == (len(want), 2)
    np.testing.assert_array_equal(edges, [(w[0], w[1]) for w in want])
    np.testing.assert_allclose(lengths, [w[2] for w in want], rtol=1e-12)
    np.testing.assert_allclose(conf, [w[3] for w in want], rtol=1e-12)
    assert edges.dtype.kind == "i" and np.all(edges[:, 0] < edges[:, 1])


def test_admissible_edges_batches_model_calls(monkeypatch):
    X = RNG.uniform(-1, 1, size=(30, 3))
    f3 = lambda z: 1.0 / (1.0 + np.sum(z**2, axis=1))  # noqa: E731
    full = tp.admissible_edges(X, f3, m=8)
    calls = []

    def counting(z):
        calls.append(len(z))
        return f3(z)

    monkeypatch.setattr(_core, "BATCH_POINTS", 100)
    small = tp.admissible_edges(X, counting, m=8)
    for a, b in zip(full, small, strict=True):
        np.testing.assert_array_equal(a, b)
    assert max(calls) <= 100 and sum(calls) == 435 * 8 and len(calls) == math.ceil(435 / 12)


def test_r_max_keeps_pairs_at_exactly_r_max():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    edges, lengths, _ = tp.admissible_edges(X, lambda z: np.ones(len(z)), r_max=2.0)
    np.testing.assert_array_equal(edges, [[0, 1], [1, 2]])
    np.testing.assert_array_equal(lengths, [1.0, 2.0])


# --- flag complexes with hand-computed barcodes ---------------------------------------------
SQUARE = [(0, 1), (1, 2), (2, 3), (0, 3)]


@pytest.mark.parametrize(
    ("n", "edges", "lengths", "h0", "h1"),
    [
        # hollow square: four components merge at 1, 2, 3; the cycle closes at 4, never fills
        (4, SQUARE, [1, 2, 3, 4], [[0, 1], [0, 2], [0, 3], [0, math.inf]], [[4, math.inf]]),
        # square with one diagonal: the cycle born at 1 dies when the diagonal fills it at 2
        (4, [*SQUARE, (0, 2)], [1, 1, 1, 1, 2], [[0, 1]] * 3 + [[0, math.inf]], [[1, 2]]),
        # a triangle: no H1 bar (the last edge fills it at once)
        (3, [(0, 1), (1, 2), (0, 2)], [1, 2, 3], [[0, 1], [0, 2], [0, math.inf]], []),
        # two disjoint edges and an isolated vertex: three essential components
        (5, [(0, 1), (2, 3)], [0.5, 1.5], [[0, 0.5], [0, 1.5]] + [[0, math.inf]] * 3, []),
        # a pentagon with nothing else: essential cycle born with its last edge
        (
            5,
            [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)],
            [1, 1, 1, 1, 1.5],
            [[0, 1]] * 4 + [[0, math.inf]],
            [[1.5, math.inf]],
        ),
        # no edges at all
        (3, np.zeros((0, 2), int), [], [[0, math.inf]] * 3, []),
    ],
)
def test_flag_diagrams_hand_computed(n, edges, lengths, h0, h1):
    dgms = tp.flag_diagrams(n, np.asarray(edges), np.asarray(lengths, float), maxdim=1)
    assert_same_diagrams(dgms, [np.asarray(h0, float), np.asarray(h1, float)])


def dense_with_inf(X, edges, lengths, keep):
    n = len(X)
    D = np.full((n, n), np.inf)
    np.fill_diagonal(D, 0.0)
    for (i, j), length in zip(edges[keep], lengths[keep], strict=True):
        D[i, j] = D[j, i] = length
    return D


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parallax_matches_ripser_on_dense_matrix_with_inf(seed):
    rng = np.random.default_rng(seed)
    X = toys.sample_annulus(40, inner=0.8, outer=2.0, rng=rng)
    taus = [0.0, 0.3, 0.6, 0.95]
    f = lambda z: np.clip(np.linalg.norm(z, axis=1) - 0.5, 0, 1)  # noqa: E731
    par = tp.parallax_diagrams(X, f, taus, maxdim=2, r_max=1.6)
    edges, lengths, conf = tp.admissible_edges(X, f, r_max=1.6)
    for tau in taus:
        D = dense_with_inf(X, edges, lengths, conf >= tau)
        want = ripser(D, distance_matrix=True, maxdim=2)["dgms"]
        assert_same_diagrams(par[tau], want)


def union_find_h0(n, edges, lengths):
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    deaths = []
    for k in np.argsort(lengths, kind="stable"):
        a, b = find(edges[k][0]), find(edges[k][1])
        if a != b:
            parent[a] = b
            deaths.append(lengths[k])
    comps = len({find(a) for a in range(n)})
    return sorted(d for d in deaths if d > 0), comps


@pytest.mark.parametrize("tau", [0.0, 0.5, 1.0])
def test_h0_matches_union_find(tau):
    X = np.vstack([RNG.normal([-2, 0], 0.3, (20, 2)), RNG.normal([2, 0], 0.3, (20, 2))])
    f = toys.balls_model([[-2, 0], [2, 0]], [1.2, 1.2])
    edges, lengths, conf = tp.admissible_edges(X, f)
    keep = conf >= tau
    deaths, comps = union_find_h0(len(X), edges[keep], lengths[keep])
    h0 = tp.parallax_diagrams(X, f, [tau], maxdim=0)[tau][0]
    assert np.isinf(h0[:, 1]).sum() == comps
    np.testing.assert_allclose(np.sort(h0[np.isfinite(h0[:, 1]), 1]), deaths, rtol=1e-6)
    assert comps == (1 if tau == 0.0 else 2)


def test_rips_diagrams_match_ripser_point_cloud():
    X = RNG.normal(size=(40, 3))
    ours = tp.rips_diagrams(X, maxdim=2)
    assert_same_diagrams(ours, ripser(X, maxdim=2)["dgms"])
    cut = tp.rips_diagrams(X, maxdim=1, r_max=1.0)
    assert_same_diagrams(cut, ripser(X, maxdim=1, thresh=1.0)["dgms"])


def test_duplicate_points_keep_zero_length_edges():
    # explicit zeros in a sparse matrix must stay edges (ripser.py issue 78 pitfall)
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    h0 = tp.rips_diagrams(X, maxdim=0)[0]
    assert np.isinf(h0[:, 1]).sum() == 1
    np.testing.assert_allclose(h0[np.isfinite(h0[:, 1])], [[0.0, 1.0]])


# --- reduction and monotonicity ---------------------------------------------------------------
def test_model_accepting_everything_gives_rips_exactly():
    X = toys.sample_disk(60, rng=3)
    par = tp.parallax_diagrams(X, lambda z: np.ones(len(z)), [0.0, 1.0], r_max=1.5)
    rips = tp.rips_diagrams(X, r_max=1.5)
    for tau in (0.0, 1.0):
        for a, b in zip(par[tau], rips, strict=True):
            np.testing.assert_array_equal(a, b)


def test_admissible_count_non_increasing_in_tau():
    X = RNG.uniform(-1, 1, size=(30, 2))
    rep = tp.parallax_report(X, smooth_model, np.linspace(0, 1, 11))
    counts = [rep.n_admissible[t] for t in rep.taus]
    assert counts[0] == rep.n_edges == 435
    assert all(a >= b for a, b in itertools.pairwise(counts)) and counts[-1] < counts[0]


def test_taus_scalar_and_duplicates():
    X = toys.circle_points(6)
    out = tp.parallax_diagrams(X, lambda z: np.ones(len(z)), 0.5)
    assert list(out) == [0.5] and isinstance(next(iter(out)), float)
    out = tp.parallax_diagrams(X, lambda z: np.ones(len(z)), [0.7, 0.2, 0.7])
    assert list(out) == [0.7, 0.2]


# --- bottleneck with essential bars -----------------------------------------------------------
def test_bottleneck_distance_rules():
    a = np.array([[0.0, 1.0], [0.5, math.inf]])
    b = np.array([[0.0, 1.2], [0.7, math.inf]])
    assert tp.bottleneck_distance(a, b) == pytest.approx(0.2)
    assert tp.bottleneck_distance(a, a[:1]) == math.inf
    assert tp.bottleneck_distance(a[:1], np.zeros((0, 2))) == pytest.approx(0.5)
    assert tp.bottleneck_distance(np.zeros((0, 2)), np.zeros((0, 2))) == 0.0


def test_report_unmatched_bars_are_the_new_long_ones():
    # data on a disk, model with a pocket: parallax adds a long H1 bar that Rips lacks
    X = toys.sample_disk(120, rng=0)
    f = toys.pocket_model(radius=1.0, pocket=0.3)
    rep = tp.parallax_report(X, f, [0.5])
    unm = rep.unmatched[0.5][1]
    longest_rips = np.max(np.diff(rep.rips[1], axis=1)) if len(rep.rips[1]) else 0.0
    assert unm.shape[0] >= 1
    assert np.max(unm[:, 1] - unm[:, 0]) > 2 * longest_rips
    assert rep.bottleneck_finite[0.5][1] > longest_rips


def test_report_is_frozen():
    rep = tp.parallax_report(toys.circle_points(5), lambda z: np.ones(len(z)), [0.5])
    with pytest.raises(AttributeError):
        rep.n_edges = 3  # type: ignore[misc]
