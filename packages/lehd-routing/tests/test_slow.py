"""Slow: the brief's learning claim at TSP10 scale (run by `nox -s tests_slow`)."""

import numpy as np
import pytest
import torch
from lehd_routing import LEHD, fit, greedy, rrc, tsp


@pytest.mark.slow
def test_trained_greedy_beats_nearest_neighbour_and_rrc_closes_the_gap():
    torch.manual_seed(0)
    coords = tsp.random_instances(600, 10, rng=0)
    labels, _ = tsp.held_karp(coords)
    model = LEHD(embed_dim=32, heads=4, ff_dim=64, decoder_layers=2)
    fit(
        model,
        coords,
        labels,
        epochs=6,
        batch_size=100,
        lr=1e-3,
        generator=torch.Generator().manual_seed(0),
    )
    test = tsp.random_instances(100, 10, rng=1)
    _, opt = tsp.held_karp(test)
    g_tours = greedy(model, test)
    gap_greedy = np.mean(tsp.tour_length(test, g_tours) / opt - 1)
    gap_nn = np.mean(tsp.tour_length(test, tsp.nearest_neighbour(test)) / opt - 1)
    assert gap_greedy < gap_nn, (gap_greedy, gap_nn)
    _, hist = rrc(model, test, g_tours, iterations=20, rng=0)
    gap_rrc = np.mean(hist[:, -1] / opt - 1)
    assert gap_rrc < 0.5 * gap_greedy, (gap_greedy, gap_rrc)
