"""Synthetic StratPPI data: strata whose base rate and autorater quality differ.

The simulation of the papershelf brief for Fisch et al., NeurIPS 2024
(https://arxiv.org/abs/2406.04291, Sec. 5 "simulations"): in stratum k, Y ~ Bernoulli(p_k); the
autorater outputs f = a Y + b (a well-calibrated, accurate score) except with probability q_k,
when it outputs Uniform(0, 1) noise. The pool has N_k = w_k N unlabelled examples per stratum and
n_k labelled ones are drawn independently from the same stratum distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng
from .allocation import allocate

__all__ = ["SimData", "simulate", "oracle_sigma"]

DEFAULT_W = (0.4, 0.3, 0.2, 0.1)
DEFAULT_P = (0.9, 0.7, 0.5, 0.3)
DEFAULT_Q = (0.05, 0.2, 0.5, 1.0)


@dataclass(frozen=True)
class SimData:
    """One draw. `theta` is the true mean sum_k w_k p_k; `sigma` the oracle sd(Y - lam*_k f)."""

    Y: np.ndarray  # (n,)
    Yhat: np.ndarray  # (n,)
    Yhat_unlabeled: np.ndarray  # (N,)
    strata: np.ndarray  # (n,) int
    strata_unlabeled: np.ndarray  # (N,) int
    theta: float
    weights: np.ndarray  # (K,)
    sigma: np.ndarray  # (K,)


def _moments(p, q, a, b):
    p, q = np.asarray(p, float), np.asarray(q, float)
    Ef = (1 - q) * (a * p + b) + q / 2
    Ef2 = (1 - q) * (p * (a + b) ** 2 + (1 - p) * b**2) + q / 3
    EYf = (1 - q) * p * (a + b) + q * p / 2
    return p * (1 - p), EYf - p * Ef, Ef2 - Ef**2


def _params(p, q, a, b):
    p = check_array(p, "p", ndim=1)
    q = check_array(q, "q", shape=p.shape)
    for name, v in (("p", p), ("q", q)):
        if np.any((v < 0) | (v > 1)):
            raise ValueError(f"{name} must hold probabilities in [0, 1], got {v.tolist()}")
    return p, q, check_float(a, "a"), check_float(b, "b")


def oracle_sigma(*, p=DEFAULT_P, q=DEFAULT_Q, a=0.9, b=0.05, lam=None):
    """Population sd of Y - lam_k f per stratum; lam=None uses the oracle lam_k in [0, 1].

    >>> oracle_sigma(lam=0.0).round(3).tolist()  # sd of Y: sqrt(p (1 - p))
    [0.3, 0.458, 0.5, 0.458]
    """
    p, q, a, b = _params(p, q, a, b)
    vy, cov, vf = _moments(p, q, a, b)
    if lam is None:
        lam = np.clip(cov / vf, 0, 1)
    else:
        lam = check_array(lam, "lam", ndim=(0, 1))
        if lam.ndim == 1 and lam.shape != vy.shape:
            raise ValueError(f"lam must be a float or ({vy.shape[0]},), got shape {lam.shape}")
        lam = np.broadcast_to(lam, vy.shape)
    return np.sqrt(np.maximum(vy - 2 * lam * cov + lam**2 * vf, 0))


def _draw(rng, counts, p, q, a, b):
    s = np.repeat(np.arange(len(counts)), counts)
    y = (rng.random(s.shape[0]) < np.asarray(p)[s]).astype(np.float64)
    noisy = rng.random(s.shape[0]) < np.asarray(q)[s]
    f = np.where(noisy, rng.random(s.shape[0]), a * y + b)
    return y, f, s


def simulate(
    *,
    n=1000,
    N=20000,
    weights=DEFAULT_W,
    p=DEFAULT_P,
    q=DEFAULT_Q,
    n_k=None,
    a=0.9,
    b=0.05,
    rng=None,
):
    """Draw labelled and unlabelled data.

    Args:
        n: label budget (ignored when `n_k` is given); split proportionally by default.
        N: pool size, split as N_k = w_k N (largest remainder).
        weights, p, q: per-stratum weight, P(Y = 1) and probability that the autorater is noise.
        n_k: explicit (K,) labelled counts (e.g. from :func:`stratppi.allocate`).
        a, b: the clean autorater is a Y + b.
        rng: None, an int seed or a numpy Generator.

    >>> d = simulate(n=100, N=1000, rng=0)
    >>> d.Y.shape, d.Yhat_unlabeled.shape, round(d.theta, 2)
    ((100,), (1000,), 0.7)
    """
    rng = check_rng(rng)
    p, q, a, b = _params(p, q, a, b)
    K = p.shape[0]
    w = check_array(weights, "weights", shape=(K,))
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be non-negative and not all zero, got {w.tolist()}")
    N_k = allocate(check_int(N, "N", minimum=1), w, n_min=0)
    if n_k is None:
        n_k = allocate(check_int(n, "n", minimum=2 * K), w, n_min=2)
    else:
        n_k = check_array(n_k, "n_k", dtype="int", shape=(K,))
        if np.any(n_k < 0):
            raise ValueError(f"n_k must be non-negative, got {n_k.tolist()}")
    wk = N_k / N_k.sum()
    Y, F, s = _draw(rng, n_k, p, q, a, b)
    _, FU, su = _draw(rng, N_k, p, q, a, b)
    theta = float(np.sum(wk * p))
    return SimData(Y, F, FU, s, su, theta, wk, oracle_sigma(p=p, q=q, a=a, b=b))
