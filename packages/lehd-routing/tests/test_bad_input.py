"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
import pytest
import torch
from hypothesis import strategies as st
from lehd_routing import LEHD, cvrp, fit, greedy, greedy_cvrp, rrc, sample_subpaths, tsp

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

C = tsp.random_instances(2, 6, rng=0)
T = np.tile(np.arange(6), (2, 1))
torch.manual_seed(0)
M = LEHD(embed_dim=8, heads=2, ff_dim=8, decoder_layers=1)
MC = LEHD(problem="cvrp", embed_dim=8, heads=2, ff_dim=8, decoder_layers=1)
ENC = M.encode(C)
VIS = np.zeros((2, 6), bool)
INST = cvrp.random_instances(1, 4, rng=0)
C1, D1, CAP = INST.coords[0], INST.demands[0], INST.capacity
SOL = np.array([0, 1, 2, 0, 3, 4, 0])
K = suite.keyword

ARRAYS = [
    suite.Array("tour_length.coords", "coords", lambda v: tsp.tour_length(v, T), (2, 6, 2), (2, 3)),
    suite.Array("tour_length.tours", "tours", lambda v: tsp.tour_length(C, v), (2, 6), (1, 2)),
    suite.Array("is_valid_tour.tours", "tours", lambda v: tsp.is_valid_tour(v, 6), (2, 6), (1, 2)),
    suite.Array("nearest_neighbour.coords", "coords", tsp.nearest_neighbour, (2, 6, 2), (2, 3)),
    suite.Array("two_opt.coords", "coords", lambda v: tsp.two_opt(v, T), (2, 6, 2), (2, 3)),
    suite.Array("two_opt.tours", "tours", lambda v: tsp.two_opt(C, v), (2, 6), (1, 2)),
    suite.Array("held_karp.coords", "coords", tsp.held_karp, (2, 6, 2), (2, 3)),
    suite.Array("gap.length", "length", lambda v: tsp.gap(v, np.ones(3)), (3,), (0, 1)),
    suite.Array("gap.reference", "reference", lambda v: tsp.gap(np.ones(3), v), (3,), (0, 1)),
    suite.Array(
        "sample_subpaths.tours", "tours", lambda v: sample_subpaths(v, rng=0), (2, 6), (2,)
    ),
    suite.Array("LEHD.encode.coords", "coords", M.encode, (2, 6, 2), (2, 3)),
    suite.Array(
        "fit.coords", "coords", lambda v: fit(M, v, T, epochs=1, batch_size=2), (2, 6, 2), (2, 3)
    ),
    suite.Array(
        "fit.tours", "tours", lambda v: fit(M, C, v, epochs=1, batch_size=2), (2, 6), (1, 2)
    ),
    suite.Array("greedy.coords", "coords", lambda v: greedy(M, v), (2, 6, 2), (2, 3)),
    suite.Array(
        "rrc.coords", "coords", lambda v: rrc(M, v, T, iterations=1, rng=0), (2, 6, 2), (2, 3)
    ),
    suite.Array("rrc.tours", "tours", lambda v: rrc(M, C, v, iterations=1, rng=0), (2, 6), (1, 2)),
    suite.Array("cvrp.cost.coords", "coords", lambda v: cvrp.cost(v, SOL), (5, 2), (2,)),
    suite.Array("cvrp.cost.solution", "solution", lambda v: cvrp.cost(C1, v), (7,), (1,)),
    suite.Array(
        "cvrp.is_feasible.solution", "solution", lambda v: cvrp.is_feasible(v, D1, CAP), (7,), (1,)
    ),
    suite.Array(
        "cvrp.is_feasible.demands", "demands", lambda v: cvrp.is_feasible(SOL, v, CAP), (5,), (1,)
    ),
    suite.Array("cvrp.exact.coords", "coords", lambda v: cvrp.exact(v, D1, CAP), (5, 2), (2,)),
    suite.Array("cvrp.exact.demands", "demands", lambda v: cvrp.exact(C1, v, CAP), (5,), (1,)),
    suite.Array("cvrp.savings.coords", "coords", lambda v: cvrp.savings(v, D1, CAP), (5, 2), (2,)),
    suite.Array("cvrp.routes.solution", "solution", cvrp.routes, (7,), (1,)),
    suite.Array(
        "greedy_cvrp.coords", "coords", lambda v: greedy_cvrp(MC, v, D1, CAP), (5, 2), (2, 3)
    ),
    suite.Array(
        "greedy_cvrp.demands", "demands", lambda v: greedy_cvrp(MC, C1, v, CAP), (5,), (1, 2)
    ),
]

INTS = [
    suite.Int(
        "tsp.random_instances.B", "B", lambda v: tsp.random_instances(v, 5, rng=0), minimum=1
    ),
    suite.Int(
        "tsp.random_instances.n", "n", lambda v: tsp.random_instances(2, v, rng=0), minimum=1
    ),
    suite.Int(
        "cvrp.random_instances.B", "B", lambda v: cvrp.random_instances(v, 5, rng=0), minimum=1
    ),
    suite.Int(
        "cvrp.random_instances.n", "n", lambda v: cvrp.random_instances(2, v, rng=0), minimum=1
    ),
    suite.Int("cvrp.capacity_for.n", "n", cvrp.capacity_for, minimum=1),
    suite.Int("is_valid_tour.n", "n", lambda v: tsp.is_valid_tour(T, v), minimum=1),
    K(suite.Int, tsp.nearest_neighbour, "start", C, minimum=0),
    suite.Int(
        "nearest_neighbour.start<n", "start", lambda v: tsp.nearest_neighbour(C, start=v), maximum=5
    ),
    K(suite.Int, tsp.two_opt, "max_iters", C, T, minimum=0, none_ok=True),
    K(suite.Int, LEHD, "embed_dim", minimum=1),
    K(suite.Int, LEHD, "heads", minimum=1),
    K(suite.Int, LEHD, "ff_dim", minimum=1),
    K(suite.Int, LEHD, "decoder_layers", minimum=1),
    K(suite.Int, LEHD, "encoder_layers", minimum=0),
    K(suite.Int, fit, "epochs", M, C, T, kwargs={"batch_size": 2}, minimum=1),
    K(suite.Int, fit, "batch_size", M, C, T, kwargs={"epochs": 1}, minimum=1),
    K(suite.Int, greedy, "start", M, C, minimum=0),
    suite.Int("greedy.start<n", "start", lambda v: greedy(M, C, start=v), maximum=5),
    K(suite.Int, rrc, "iterations", M, C, T, kwargs={"rng": 0}, minimum=0),
]

NUMBERS = [
    K(suite.Number, fit, "lr", M, C, T, kwargs={"epochs": 1, "batch_size": 2}),
    K(suite.Number, fit, "lr_decay", M, C, T, kwargs={"epochs": 1, "batch_size": 2}),
    suite.Number("cvrp.exact.capacity", "capacity", lambda v: cvrp.exact(C1, D1, v)),
    suite.Number("cvrp.is_feasible.capacity", "capacity", lambda v: cvrp.is_feasible(SOL, D1, v)),
    suite.Number("cvrp.savings.capacity", "capacity", lambda v: cvrp.savings(C1, D1, v)),
]

OUT_OF_RANGE = [
    K(
        suite.OutOfRange,
        fit,
        "lr",
        M,
        C,
        T,
        kwargs={"epochs": 1, "batch_size": 2},
        values=st.floats(-10, 0),
    ),
    K(
        suite.OutOfRange,
        fit,
        "lr_decay",
        M,
        C,
        T,
        kwargs={"epochs": 1, "batch_size": 2},
        values=st.floats(1.01, 10),
    ),
]

FLAGS = [K(suite.Flag, fit, "per_step_update", M, C, T, kwargs={"epochs": 1, "batch_size": 2})]

OPTIONS = [K(suite.Option, LEHD, "problem", valid=frozenset({"tsp", "cvrp"}))]

RNGS = [
    K(suite.Rng, tsp.random_instances, "rng", 2, 5),
    K(suite.Rng, cvrp.random_instances, "rng", 2, 5),
    K(suite.Rng, sample_subpaths, "rng", T),
    K(suite.Rng, rrc, "rng", M, C, T, kwargs={"iterations": 1}),
]

_BAD_TENSORS = (
    (torch.full((2, 6, 8), float("nan")), ValueError),
    (torch.zeros(2, 6), ValueError),
    (torch.zeros(2, 6, 3), ValueError),  # wrong width
    (np.zeros((2, 6, 8)), TypeError),
    ("enc", TypeError),
)
VALUES = [
    suite.Values(
        "next_node_logits.enc", "enc", lambda v: M.next_node_logits(v, 0, 1, VIS), _BAD_TENSORS
    ),
    suite.Values(
        "next_node_logits.first",
        "first",
        lambda v: M.next_node_logits(ENC, v, 1, VIS),
        (
            (6, ValueError),
            (-1, ValueError),
            ([0, 1, 2], ValueError),
            (0.5, TypeError),
            (True, TypeError),
            ("a", TypeError),
        ),
    ),
    suite.Values(
        "next_node_logits.last",
        "last",
        lambda v: M.next_node_logits(ENC, 0, v, VIS),
        (
            (6, ValueError),
            (np.array([0, 9]), ValueError),
            (None, TypeError),
            (torch.tensor([0.5, 1.0]), TypeError),
        ),
    ),
    suite.Values(
        "next_node_logits.visited",
        "visited",
        lambda v: M.next_node_logits(ENC, 0, 1, v),
        (
            (np.zeros((2, 5), bool), ValueError),
            (np.zeros(6, bool), ValueError),
            (np.zeros((2, 6)), TypeError),
            (None, TypeError),
        ),
    ),
    suite.Values(
        "fit.model",
        "model",
        lambda v: fit(v, C, T, epochs=1, batch_size=2),
        ((None, TypeError), (torch.nn.Linear(2, 2), TypeError)),
    ),
    suite.Values(
        "greedy.model", "model", lambda v: greedy(v, C), ((None, TypeError), (MC, ValueError))
    ),
    suite.Values(
        "rrc.model",
        "model",
        lambda v: rrc(v, C, T, iterations=1),
        (("m", TypeError), (MC, ValueError)),
    ),
    suite.Values(
        "greedy_cvrp.model",
        "model",
        lambda v: greedy_cvrp(v, C1, D1, CAP),
        ((M, ValueError), (1, TypeError)),
    ),
    suite.Values(
        "fit.generator",
        "generator",
        lambda v: fit(M, C, T, epochs=1, batch_size=2, generator=v),
        ((0, TypeError), ("g", TypeError), (np.random.default_rng(0), TypeError)),
    ),
    suite.Values(
        "greedy_cvrp.capacity",
        "capacity",
        lambda v: greedy_cvrp(MC, C1, D1, v),
        (
            (0, ValueError),
            (-1.0, ValueError),
            ("a", TypeError),
            (float("nan"), ValueError),
            (1, ValueError),
        ),
    ),
]

MISMATCH = [
    suite.Mismatch("tour_length.tours", "tours", lambda: tsp.tour_length(C, T[:1])),
    suite.Mismatch("tour_length.tours.width", "tours", lambda: tsp.tour_length(C, T[:, :5])),
    suite.Mismatch(
        "tour_length.tours.repeat", "tours", lambda: tsp.tour_length(C, np.zeros((2, 6), int))
    ),
    suite.Mismatch("two_opt.tours", "tours", lambda: tsp.two_opt(C, T[:, :4])),
    suite.Mismatch("rrc.tours", "tours", lambda: rrc(M, C, T[:1], iterations=1, rng=0)),
    suite.Mismatch(
        "fit.tours", "tours", lambda: fit(M, C, T[:, ::-1][:, :5], epochs=1, batch_size=1)
    ),
    suite.Mismatch(
        "sample_subpaths.tours", "tours", lambda: sample_subpaths(np.zeros((2, 6), int), rng=0)
    ),
    suite.Mismatch("sample_subpaths.short", "tours", lambda: sample_subpaths(T[:, :3] % 3, rng=0)),
    suite.Mismatch("gap.reference", "reference", lambda: tsp.gap(np.ones(3), np.ones(2))),
    suite.Mismatch("cvrp.exact.demands", "demands", lambda: cvrp.exact(C1, D1[:4], CAP)),
    suite.Mismatch("cvrp.exact.depot", "demands", lambda: cvrp.exact(C1, D1 + 1, CAP)),
    suite.Mismatch("cvrp.exact.too_big", "demands", lambda: cvrp.exact(C1, D1, 0.5)),
    suite.Mismatch(
        "cvrp.exact.size",
        "coords",
        lambda: cvrp.exact(tsp.random_instances(1, 10, rng=0)[0], np.r_[0, np.ones(9)], 30),
    ),
    suite.Mismatch("cvrp.cost.solution", "solution", lambda: cvrp.cost(C1, [1, 2, 0])),
    suite.Mismatch("cvrp.cost.range", "solution", lambda: cvrp.cost(C1, [0, 7, 0])),
    suite.Mismatch("greedy_cvrp.demands", "demands", lambda: greedy_cvrp(MC, C1, D1[:3], CAP)),
    suite.Mismatch("held_karp.size", "coords", lambda: tsp.held_karp(np.zeros((14, 2)))),
    suite.Mismatch("LEHD.heads", "embed_dim", lambda: LEHD(embed_dim=10, heads=4)),
    suite.Mismatch("encode.cvrp_demands", "demands", lambda: MC.encode(C1)),
    suite.Mismatch("encode.tsp_demands", "demands", lambda: M.encode(C1, D1, CAP)),
    suite.Mismatch(
        "next_node_logits.remaining",
        "remaining",
        lambda: MC.next_node_logits(MC.encode(C1, D1, CAP), 0, 1, np.zeros((1, 5), bool)),
    ),
    suite.Mismatch(
        "next_node_logits.cvrp_first",
        "first",
        lambda: MC.next_node_logits(
            MC.encode(C1, D1, CAP), 1, 1, np.zeros((1, 5), bool), remaining=1.0
        ),
    ),
    suite.Mismatch(
        "fit.cvrp_demands", "demands", lambda: fit(MC, INST.coords, [SOL], epochs=1, batch_size=1)
    ),
    suite.Mismatch(
        "fit.cvrp_infeasible",
        "tours",
        lambda: fit(
            MC,
            INST.coords,
            [np.array([0, 1, 2, 0])],
            epochs=1,
            batch_size=1,
            demands=INST.demands,
            capacity=CAP,
        ),
    ),
]


def test_torch_coords_are_accepted_by_the_model_but_not_by_numpy_utilities():
    t = torch.as_tensor(C)
    assert M.encode(t).shape == (2, 6, 8)
    assert_rejects(TypeError, "coords", tsp.tour_length, t, T)


@pytest.mark.parametrize("bad", [np.array([[0, 1, 2, 3, 4, 5.5]] * 2), np.ones((2, 6), bool)])
def test_tours_must_be_integers(bad):
    assert_rejects(TypeError, "tours", tsp.tour_length, C, bad)


globals().update(
    suite.bad_input_suite(
        [*ARRAYS, *INTS, *NUMBERS, *OUT_OF_RANGE, *FLAGS, *OPTIONS, *RNGS, *VALUES, *MISMATCH]
    )
)
