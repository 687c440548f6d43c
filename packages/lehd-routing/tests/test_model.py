"""The LEHD model: masking, padding-free batching, equivariance, decoders, training."""

import math

import numpy as np
import pytest
import torch
from lehd_routing import LEHD, FitResult, fit, greedy, rrc, tsp

from papershelf_harness.testing import assert_close


def small(**kw):
    torch.manual_seed(0)
    return LEHD(embed_dim=16, heads=2, ff_dim=32, decoder_layers=2, **kw)


def test_defaults_and_architecture():
    m = LEHD()
    assert (m.problem, m.embed_dim, m.heads, m.ff_dim, m.decoder_layers) == ("tsp", 128, 8, 512, 6)
    assert len(m.encoder) == 1 and len(m.decoder) == 6
    assert not any(isinstance(x, torch.nn.LayerNorm | torch.nn.BatchNorm1d) for x in m.modules())
    assert m.w_first.in_features == m.w_last.in_features == 128


def test_logits_masks_exactly_first_last_and_visited():
    m = small()
    c = tsp.random_instances(3, 9, rng=0)
    enc = m.encode(c)
    assert enc.shape == (3, 9, 16)
    visited = np.zeros((3, 9), bool)
    visited[0, [1, 2]] = True
    visited[1, [5]] = True
    visited[2, [0, 3, 4, 6]] = True
    first, last = np.array([0, 3, 7]), np.array([4, 5, 8])
    lg = m.next_node_logits(enc, first, last, visited)
    assert lg.shape == (3, 9)
    blocked = visited.copy()
    blocked[np.arange(3), first] = True
    blocked[np.arange(3), last] = True
    assert torch.equal(torch.isinf(lg), torch.as_tensor(blocked))
    assert (lg[torch.isinf(lg)] < 0).all()


def test_rows_with_different_candidate_counts_match_row_by_row():
    # a batch mixes candidate sets of different sizes (padding inside the decoder): each row
    # must equal the same row decoded alone (where no padding is used)
    m = small()
    c = tsp.random_instances(3, 10, rng=1)
    enc = m.encode(c)
    visited = np.zeros((3, 10), bool)
    visited[0, :5] = True
    visited[1, :2] = True
    first, last = np.array([9, 8, 7]), np.array([0, 1, 2])
    batch = m.next_node_logits(enc, first, last, visited)
    for b in range(3):
        alone = m.next_node_logits(
            enc[b : b + 1], first[b : b + 1], last[b : b + 1], visited[b : b + 1]
        )
        assert_close(batch[b], alone[0], rtol=1e-5, atol=1e-6)


def test_permuting_nodes_permutes_the_logits():
    m = small()
    c = tsp.random_instances(1, 8, rng=2)
    perm = np.random.default_rng(0).permutation(8)
    inv = np.argsort(perm)
    vis = np.zeros((1, 8), bool)
    vis[0, [1, 3]] = True
    lg = m.next_node_logits(m.encode(c), 0, 3, vis)
    lg_p = m.next_node_logits(m.encode(c[:, perm]), inv[0], inv[3], vis[:, perm])
    assert_close(lg_p[0], lg[0, perm], rtol=1e-5, atol=1e-6)


def test_float64_inputs_and_a_double_model():
    m = small()
    c = tsp.random_instances(2, 6, rng=3)
    assert greedy(m, c.astype(np.float32)).tolist() == greedy(m, c).tolist()
    md = small().double()
    enc = md.encode(torch.as_tensor(c))
    assert enc.dtype == torch.float64
    assert tsp.is_valid_tour(greedy(md, c), 6).all()


def manual_greedy(model, c, start):
    enc = model.encode(c)
    b, n = c.shape[:2]
    visited = np.zeros((b, n), bool)
    visited[:, start] = True
    last = np.full(b, start)
    tours = [last.copy()]
    with torch.no_grad():
        for _ in range(n - 1):
            lg = model.next_node_logits(enc, np.full(b, start), last, visited).numpy()
            if np.isinf(lg).all():  # only the start (= first) was left: impossible here
                raise AssertionError
            nxt = lg.argmax(1)
            if (~visited).sum(1).max() == 1:
                nxt = (~visited).argmax(1)
            visited[np.arange(b), nxt] = True
            last = nxt
            tours.append(nxt)
    return np.stack(tours, 1)


@pytest.mark.parametrize("start", [0, 4])
def test_greedy_is_the_argmax_rollout(start):
    m = small()
    c = tsp.random_instances(3, 7, rng=4)
    got = greedy(m, c, start=start)
    assert got.shape == (3, 7) and (got[:, 0] == start).all()
    np.testing.assert_array_equal(got, manual_greedy(m, c, start))
    assert greedy(m, c[0], start=start).shape == (7,)


@pytest.mark.parametrize("n", [10, 20])
def test_rrc_keeps_valid_tours_and_a_non_increasing_history(n):
    m = small()
    c = tsp.random_instances(3, n, rng=5)
    rng = np.random.default_rng(0)
    start = np.stack([rng.permutation(n) for _ in range(3)])  # a bad start: RRC must improve it
    tours, hist = rrc(m, c, start, iterations=12, rng=1)
    assert hist.shape == (3, 13)
    assert tsp.is_valid_tour(tours, n).all()
    assert (np.diff(hist, axis=1) <= 0).all()
    assert_close(hist[:, 0], tsp.tour_length(c, start))
    assert_close(hist[:, -1], tsp.tour_length(c, tours))
    assert (hist[:, -1] < hist[:, 0]).all()
    t0, h0 = rrc(m, c, start, iterations=0, rng=1)
    np.testing.assert_array_equal(t0, start)
    assert h0.shape == (3, 1)
    # reproducible with the same seed
    t2, h2 = rrc(m, c, start, iterations=12, rng=1)
    np.testing.assert_array_equal(t2, tours)


def test_rrc_every_iterate_is_valid():
    m = small()
    c = tsp.random_instances(2, 12, rng=6)
    tours = greedy(m, c)
    gen = np.random.default_rng(2)
    for _ in range(6):
        tours, hist = rrc(m, c, tours, iterations=1, rng=gen)
        assert tsp.is_valid_tour(tours, 12).all()
        assert (hist[:, 1] <= hist[:, 0]).all()


def teacher_accuracy(model, coords, tours):
    """Share of steps where the argmax next node is the labelled one, rebuilding each full
    labelled tour (first = its start) by teacher forcing; written here independently of fit."""
    b, n = tours.shape
    sub = np.take_along_axis(coords, tours[..., None], axis=1)  # node k is the k-th visited
    enc = model.encode(sub)
    visited = np.zeros((b, n), bool)
    visited[:, 0] = True
    hits = 0
    with torch.no_grad():
        for step in range(n - 2):
            logits = model.next_node_logits(enc, 0, step, visited)
            hits += int((logits.argmax(1) == step + 1).sum())
            visited[:, step + 1] = True
    return hits / (b * (n - 2))


def test_fit_learns_from_optimal_tours():
    c = tsp.random_instances(64, 8, rng=7)
    tours, _ = tsp.held_karp(c)
    held_out = tsp.random_instances(64, 8, rng=8)
    held_tours, _ = tsp.held_karp(held_out)
    m = small()
    before = teacher_accuracy(m, held_out, held_tours)
    res = fit(
        m, c, tours, epochs=10, batch_size=32, lr=3e-3, generator=torch.Generator().manual_seed(0)
    )
    assert isinstance(res, FitResult) and len(res.loss) == 10 and len(res.accuracy) == 10
    after = teacher_accuracy(m, held_out, held_tours)
    assert after > before + 0.1, (before, after)  # measured +0.16..+0.27 over 4 seeds
    assert not m.training  # left in eval mode


def test_fit_is_reproducible_with_a_generator():
    c = tsp.random_instances(12, 6, rng=9)
    tours, _ = tsp.held_karp(c)
    runs = []
    for _ in range(2):
        m = small()
        res = fit(m, c, tours, epochs=2, batch_size=4, generator=torch.Generator().manual_seed(3))
        runs.append((res.loss, [p.detach().clone() for p in m.parameters()]))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        assert torch.equal(a, b)


def test_fit_summed_update_also_learns():
    c = tsp.random_instances(24, 7, rng=8)
    tours, _ = tsp.held_karp(c)
    m = small()
    res = fit(
        m,
        c,
        tours,
        epochs=12,
        batch_size=24,
        lr=3e-3,
        per_step_update=False,
        generator=torch.Generator().manual_seed(1),
    )
    assert np.mean(res.accuracy[-3:]) > np.mean(res.accuracy[:3]), res.accuracy
    assert all(math.isfinite(v) for v in res.loss)


def test_decoder_attends_only_over_first_last_and_candidates():
    # the heavy decoder's tokens are W_f h_first, the unvisited candidates and W_l h_last:
    # changing the embedding of a visited node must not change any logit
    m = small()
    c = tsp.random_instances(2, 9, rng=10)
    enc = m.encode(c)
    visited = np.zeros((2, 9), bool)
    visited[:, [2, 5]] = True
    lg = m.next_node_logits(enc, 0, 1, visited)
    enc2 = enc.detach().clone()
    enc2[:, [2, 5]] = torch.randn(2, 2, 16)
    assert_close(m.next_node_logits(enc2, 0, 1, visited), lg, rtol=1e-6, atol=1e-7)
    enc3 = enc.detach().clone()
    enc3[:, 4] += 1.0  # a candidate's embedding does matter
    assert not torch.allclose(m.next_node_logits(enc3, 0, 1, visited), lg)


def test_heavy_encoder_light_decoder_ablation_is_the_same_class():
    m = LEHD(embed_dim=16, heads=2, ff_dim=32, encoder_layers=6, decoder_layers=1)
    assert len(m.encoder) == 6 and len(m.decoder) == 1
    c = tsp.random_instances(2, 8, rng=11)
    assert tsp.is_valid_tour(greedy(m, c), 8).all()
