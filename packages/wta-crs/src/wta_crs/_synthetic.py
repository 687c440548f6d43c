"""Synthetic activations and gradients for the tests and reproduce.py (not public API)."""

from __future__ import annotations

import numpy as np


def heavy_rows(n: int, d_in: int, d_out: int, seed: int, sigma: float = 1.0):
    """X [n, d_in] and G [n, d_out] whose row norms are log-normal (the heavy tail the paper
    observes in transformer activations and gradients)."""
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, d_in)) * np.exp(sigma * r.standard_normal(n))[:, None]
    G = r.standard_normal((n, d_out)) * np.exp(sigma * r.standard_normal(n))[:, None]
    return X, G
