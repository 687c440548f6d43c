"""The sub-path sampler: contiguity, the length and reversal distributions, and the training
scheme's premise (a sub-path of an optimal tour is optimal for its fixed-endpoint problem)."""

import itertools

import numpy as np
from lehd_routing import sample_subpaths, tsp

# chi-square quantiles at 0.999 (tables): df=6 -> 22.458, df=1 -> 10.828
CHI2_999 = {9: 27.877, 6: 22.458, 1: 10.828}


def _segment_of(tour, nodes):
    n, k = len(tour), len(nodes)
    pos = {v: i for i, v in enumerate(tour)}
    p0 = pos[nodes[0]]
    fwd = [tour[(p0 + i) % n] for i in range(k)]
    bwd = [tour[(p0 - i) % n] for i in range(k)]
    if list(nodes) == fwd:
        return "forward"
    if list(nodes) == bwd:
        return "reversed"
    return None


def test_subpaths_are_contiguous_segments_of_one_length():
    rng = np.random.default_rng(0)
    tours = np.stack([rng.permutation(10) for _ in range(6)])
    for seed in range(20):
        nodes = sample_subpaths(tours, rng=seed)
        assert nodes.ndim == 2 and nodes.shape[0] == 6 and 4 <= nodes.shape[1] <= 10
        for b in range(6):
            assert _segment_of(tours[b].tolist(), nodes[b].tolist()) is not None


def test_lengths_and_offsets_uniform_and_reversal_half():
    n, draws = 10, 3000
    rng = np.random.default_rng(1)
    tour = np.arange(n)[None]
    lengths, directions, offsets = [], [], []
    for _ in range(draws):
        nodes = sample_subpaths(tour, rng=rng)[0]
        lengths.append(len(nodes))
        reversed_ = _segment_of(list(range(n)), nodes.tolist()) == "reversed"
        directions.append(reversed_)
        offsets.append(int(nodes[-1] if reversed_ else nodes[0]))  # the segment's tour position
    counts = np.bincount(lengths, minlength=n + 1)[4:]
    assert counts.sum() == draws and np.bincount(lengths)[:4].sum() == 0
    expected = draws / len(counts)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < CHI2_999[len(counts) - 1], counts
    off = np.bincount(offsets, minlength=n)
    assert ((off - draws / n) ** 2 / (draws / n)).sum() < CHI2_999[n - 1], off
    rev = int(np.sum(directions))
    chi2_rev = (rev - draws / 2) ** 2 / (draws / 2) * 2
    assert chi2_rev < CHI2_999[1], rev


def test_a_wrong_sampler_would_fail_the_uniformity_check():
    # the statistic used above separates U{4..n} from a length that is always n
    counts = np.zeros(7)
    counts[-1] = 3000
    expected = 3000 / 7
    assert ((counts - expected) ** 2 / expected).sum() > CHI2_999[6]


def _best_path(pts, start, end, inner):
    """Shortest path start -> all of inner -> end, by enumerating every order."""
    dist = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    perms = np.array([(start, *p, end) for p in itertools.permutations(inner)])
    return float(dist[perms[:, :-1], perms[:, 1:]].sum(1).min())


def test_subpaths_of_optimal_tours_are_optimal_for_their_subproblem():
    c = tsp.random_instances(6, 8, rng=2)
    tours, _ = tsp.held_karp(c)
    rng = np.random.default_rng(3)
    for _ in range(8):
        nodes = sample_subpaths(tours, rng=rng)
        for b in range(6):
            seq = nodes[b]
            length = sum(np.linalg.norm(c[b, x] - c[b, y]) for x, y in zip(seq, seq[1:]))
            assert length <= _best_path(c[b], seq[0], seq[-1], seq[1:-1]) + 1e-9


def test_four_nodes_always_give_the_whole_tour():
    tours = np.array([[2, 0, 3, 1]])
    for seed in range(10):
        nodes = sample_subpaths(tours, rng=seed)
        assert nodes.shape == (1, 4) and _segment_of([2, 0, 3, 1], nodes[0].tolist())
