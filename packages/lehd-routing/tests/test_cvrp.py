"""CVRP utilities against brute force, and the CVRP decoder's feasibility."""

import itertools

import numpy as np
import pytest
import torch
from lehd_routing import LEHD, cvrp, fit, greedy_cvrp


def brute_force(c, d, cap):
    """Every customer order, every way to cut it into routes."""
    n = len(c) - 1
    dist = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1))
    best = np.inf
    for perm in itertools.permutations(range(1, n + 1)):
        for cuts in itertools.product([0, 1], repeat=n - 1):
            routes, cur = [], [perm[0]]
            for v, cut in zip(perm[1:], cuts):
                if cut:
                    routes.append(cur)
                    cur = []
                cur.append(v)
            routes.append(cur)
            if any(sum(d[v] for v in r) > cap for r in routes):
                continue
            total = sum(
                dist[0, r[0]] + dist[r[-1], 0] + sum(dist[a, b] for a, b in zip(r, r[1:]))
                for r in routes
            )
            best = min(best, total)
    return best


def test_random_instances():
    inst = cvrp.random_instances(3, 20, rng=0)
    coords, demands, capacity = inst
    assert coords.shape == (3, 21, 2) and demands.shape == (3, 21)
    assert (demands[:, 0] == 0).all() and demands[:, 1:].min() >= 1 and demands.max() <= 9
    assert capacity == 30
    assert [cvrp.capacity_for(n) for n in (10, 20, 50, 100)] == [20, 30, 40, 50]


def test_exact_matches_brute_force():
    inst = cvrp.random_instances(3, 5, rng=1)
    for k in range(3):
        cap = 12  # tight: several routes
        sol, cost = cvrp.exact(inst.coords[k], inst.demands[k], cap)
        assert cvrp.is_feasible(sol, inst.demands[k], cap)
        assert cost == pytest.approx(brute_force(inst.coords[k], inst.demands[k], cap), rel=1e-12)
        assert cost == pytest.approx(cvrp.cost(inst.coords[k], sol))


def test_savings_is_feasible_and_not_better_than_exact():
    inst = cvrp.random_instances(3, 8, rng=2)
    for k in range(3):
        s, c = cvrp.savings(inst.coords[k], inst.demands[k], inst.capacity)
        e, ce = cvrp.exact(inst.coords[k], inst.demands[k], inst.capacity)
        assert cvrp.is_feasible(s, inst.demands[k], inst.capacity)
        assert c >= ce - 1e-9


def test_is_feasible_and_cost():
    d = np.array([0, 3, 4, 5])
    assert cvrp.is_feasible([0, 1, 2, 0, 3, 0], d, 7)
    assert not cvrp.is_feasible([0, 1, 2, 3, 0], d, 7)  # over capacity
    assert not cvrp.is_feasible([0, 1, 2, 0], d, 20)  # customer 3 missing
    assert not cvrp.is_feasible([0, 1, 1, 2, 3, 0], d, 20)  # repeated
    assert not cvrp.is_feasible([1, 2, 3, 0], d, 20)  # not from the depot
    assert not cvrp.is_feasible([0, 1, 2, 4, 0], d, 20)  # unknown node
    c = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert cvrp.cost(c, [0, 1, 2, 3, 0]) == pytest.approx(4.0)
    assert cvrp.cost(c, [0, 1, 0, 2, 0, 3, 0]) == pytest.approx(2 + 2 * np.sqrt(2) + 2)
    assert [r.tolist() for r in cvrp.routes([0, 1, 2, 0, 3, 0])] == [[1, 2], [3]]


def test_greedy_cvrp_is_feasible():
    torch.manual_seed(0)
    m = LEHD(problem="cvrp", embed_dim=16, heads=2, ff_dim=32, decoder_layers=2)
    inst = cvrp.random_instances(4, 12, rng=3)
    for cap in (inst.capacity, 10):
        sols = greedy_cvrp(m, inst.coords, inst.demands, cap)
        assert isinstance(sols, list) and len(sols) == 4
        for k, s in enumerate(sols):
            assert cvrp.is_feasible(s, inst.demands[k], cap)
    one = greedy_cvrp(m, inst.coords[0], inst.demands[0], inst.capacity)
    assert len(one) == 1


def test_fit_cvrp_learns():
    inst = cvrp.random_instances(16, 6, rng=4)
    sols = [cvrp.exact(inst.coords[k], inst.demands[k], 15)[0] for k in range(16)]
    torch.manual_seed(0)
    m = LEHD(problem="cvrp", embed_dim=16, heads=2, ff_dim=32, decoder_layers=2)
    res = fit(
        m,
        inst.coords,
        sols,
        epochs=10,
        batch_size=16,
        lr=3e-3,
        demands=inst.demands,
        capacity=15,
        generator=torch.Generator().manual_seed(0),
    )
    assert np.mean(res.loss[-3:]) < np.mean(res.loss[:3]), res.loss
    for k, s in enumerate(greedy_cvrp(m, inst.coords, inst.demands, 15)):
        assert cvrp.is_feasible(s, inst.demands[k], 15)


def test_nearest_neighbour_cvrp_is_feasible_and_not_better_than_exact():
    inst = cvrp.random_instances(3, 7, rng=5)
    for k in range(3):
        s, c = cvrp.nearest_neighbour(inst.coords[k], inst.demands[k], 12)
        assert cvrp.is_feasible(s, inst.demands[k], 12)
        assert c >= cvrp.exact(inst.coords[k], inst.demands[k], 12)[1] - 1e-9


def test_cvrp_encoder_shape_and_depot_logit():
    torch.manual_seed(0)
    m = LEHD(problem="cvrp", embed_dim=16, heads=2, ff_dim=32, decoder_layers=1)
    inst = cvrp.random_instances(2, 5, rng=6)
    enc = m.encode(inst.coords, inst.demands, inst.capacity)
    assert enc.shape == (2, 6, 16)
    visited = np.zeros((2, 6), bool)
    at_depot = m.next_node_logits(enc, 0, 0, visited, remaining=1.0)
    assert torch.isinf(at_depot[:, 0]).all() and torch.isfinite(at_depot[:, 1:]).all()
    visited[:, 3] = True
    at_3 = m.next_node_logits(enc, 0, 3, visited, remaining=0.5)
    assert torch.isfinite(at_3[:, 0]).all() and torch.isinf(at_3[:, 3]).all()
