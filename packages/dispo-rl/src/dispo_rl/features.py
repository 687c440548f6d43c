"""State feature maps phi: observations (B, obs_dim) -> features (B, d)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_rng

__all__ = ["OneHotFeatures", "RandomFourierFeatures", "as_observations"]


def as_observations(observations, name: str = "observations") -> np.ndarray:
    """Observations as a (B, obs_dim) float array; int observations (B,) become (B, 1) floats."""
    obs = check_array(observations, name, ndim=(1, 2))
    return obs[:, None] if obs.ndim == 1 else obs


class OneHotFeatures:
    """One-hot features of integer states 0..n-1: phi(s) = e_s, d = n.

    Called on observations of shape (B,) or (B, 1) holding integers in [0, n).
    """

    def __init__(self, n):
        self.n = check_int(n, "n", minimum=1)
        self.dim = self.n

    def __call__(self, observations) -> np.ndarray:
        obs = as_observations(observations)
        if obs.shape[1] != 1:
            raise ValueError(
                f"observations must be integer states of shape (B,) or (B, 1), got shape {obs.shape}"
            )
        s = obs[:, 0]
        if np.any(s != np.round(s)) or np.any(s < 0) or np.any(s >= self.n):
            raise ValueError(f"observations must be integers in [0, {self.n}), got {s[:5]}...")
        out = np.zeros((len(s), self.n))
        out[np.arange(len(s)), s.astype(np.int64)] = 1.0
        return out

    def __repr__(self) -> str:
        return f"OneHotFeatures({self.n})"


class RandomFourierFeatures:
    """The paper's random Fourier features: ``n`` frozen random ReLU networks
    obs_dim -> hidden -> hidden -> 1 (He-normal weights, zero biases replaced by N(0, 1) ones),
    features [sin z_1..z_n, cos z_1..z_n, 1], so d = 2n + 1 (129 for the paper's n = 64).
    """

    def __init__(self, obs_dim, *, n=64, hidden=32, rng=None):
        self.obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        self.n = check_int(n, "n", minimum=1)
        self.hidden = check_int(hidden, "hidden", minimum=1)
        g = check_rng(rng)
        h = self.hidden
        self.W1 = g.normal(0, np.sqrt(2 / self.obs_dim), (self.n, self.obs_dim, h))
        self.b1 = g.normal(0, 1, (self.n, 1, h))
        self.W2 = g.normal(0, np.sqrt(2 / h), (self.n, h, h))
        self.b2 = g.normal(0, 1, (self.n, 1, h))
        self.W3 = g.normal(0, np.sqrt(2 / h), (self.n, h, 1))
        self.dim = 2 * self.n + 1

    def __call__(self, observations) -> np.ndarray:
        obs = as_observations(observations)
        if obs.shape[1] != self.obs_dim:
            raise ValueError(
                f"observations must have {self.obs_dim} columns, got shape {obs.shape}"
            )
        x = np.maximum(obs[None] @ self.W1 + self.b1, 0.0)
        x = np.maximum(x @ self.W2 + self.b2, 0.0)
        z = (x @ self.W3)[..., 0].T  # (B, n)
        return np.concatenate([np.sin(z), np.cos(z), np.ones((len(obs), 1))], axis=1)

    def __repr__(self) -> str:
        return f"RandomFourierFeatures({self.obs_dim}, n={self.n}, hidden={self.hidden})"
