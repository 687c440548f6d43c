"""Clipped-SGD as pure functions: the clipping operator, step sizes, clipping level, projection.

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das, Nagaraj, Pal, Suggala, Varshney; NeurIPS 2024) - https://arxiv.org/abs/2410.20135

The algorithm (one pass, one stochastic gradient per step, O(d) state)::

    x_{t+1} = Pi_X( x_t - eta_t * clip_Gamma(g_t) ),   clip_Gamma(v) = v * min(1, Gamma / ||v||_2)

with the last iterate returned for smooth strongly convex objectives (the abstract's rate
sqrt([Tr(Sigma) + sqrt(Tr(Sigma)||Sigma||_2) ln(ln T / delta)] / T)) and the Polyak average for the
convex / Lipschitz extensions.

Provenance of the schedules (read this before relying on the constants): the paper's body could
not be retrieved while this package was written (only its abstract and OpenReview/NeurIPS
metadata), so the step size and clipping level below follow the standard strongly convex analysis
that the abstract's rate comes from, not a transcribed theorem:

* step size ``eta_t = 1 / (mu (t + t0))`` with ``t0 = kappa - 1`` (so ``eta_1 = 1/L``); for mean
  estimation (``mu = L = 1``) this is ``eta_t = 1/t`` and, without clipping, the iterate is exactly
  the running sample mean;
* clipping level ``Gamma = c * sqrt(T Tr(Sigma) / ln(ln T / delta))`` with ``c = 1``: the clipping bias
  ``<= Tr(Sigma) / Gamma`` then stays below the target error ``sqrt(Tr(Sigma) / T)`` up to the
  ``sqrt(ln(ln T / delta))`` factor, and the range term of Freedman's inequality,
  ``Gamma ln(ln T / delta) / T``, is ``sqrt(Tr(Sigma) ln(ln T / delta) / T)``.  ``Gamma`` is never set
  below ``2 ||grad F(x_1)||`` so that the deterministic part of the early gradients is not truncated.

Everything here broadcasts over leading dimensions: ``x`` of shape ``(..., d)`` runs independent
chains (used by the Monte-Carlo checks), clipping acts on the last axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np

__all__ = [
    "clip_norm",
    "clip_level",
    "strongly_convex_step",
    "project_ball",
    "estimate_noise_trace",
]


def clip_norm(v, level):
    """Scale each vector so that its Euclidean norm is at most ``level``: ``v * min(1, level/||v||)``.

    Args:
        v: (..., d) array of gradients; clipping acts on the last axis.
        level: clipping level Gamma > 0 (``np.inf`` disables clipping); a scalar or an array that
            broadcasts against ``v[..., 0]``.

    Returns:
        (clipped, was_clipped): the (..., d) clipped array and a (...,) boolean array, True where the
        norm exceeded ``level``.

    >>> clip_norm(np.array([3.0, 4.0]), 1.0)[0]
    array([0.6, 0.8])
    >>> bool(clip_norm(np.array([0.3, 0.4]), 1.0)[1])
    False
    """
    v = np.asarray(v, dtype=float)
    level = np.asarray(level, dtype=float)
    if np.any(~(level > 0)):
        raise ValueError(f"clip level must be > 0 (np.inf disables clipping), got {level}")
    norm = np.sqrt(np.einsum("...i,...i->...", v, v))  # (...,)
    was_clipped = norm > level
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(was_clipped, level / np.where(norm > 0, norm, 1.0), 1.0)  # (...,)
    return v * scale[..., None], was_clipped


def clip_level(noise_trace, horizon, *, delta=1e-3, c=1.0, grad_norm_init=0.0):
    """Clipping level ``Gamma = c sqrt(T Tr(Sigma) / ln(ln T / delta))``, floored at ``2 ||grad F(x_1)||``.

    See the module docstring for where this schedule comes from.

    Args:
        noise_trace: Tr(Sigma) >= 0, trace of the covariance of one step's stochastic gradient.
        horizon: T >= 1, number of steps.
        delta: failure probability in (0, 1) the level is tuned for.
        c: multiplicative constant (the analysis uses c = 1; results are flat for c in [0.5, 2]).
        grad_norm_init: ||grad F(x_1)||, an estimate of the deterministic gradient at the start.

    Returns:
        Gamma as a float (``np.inf`` when ``noise_trace == 0`` and ``grad_norm_init == 0``).

    >>> round(clip_level(10.0, 1000, delta=1e-3), 3)
    33.633
    """
    noise_trace = float(noise_trace)
    if not (noise_trace >= 0 and math.isfinite(noise_trace)):
        raise ValueError(f"noise_trace must be finite and >= 0, got {noise_trace}")
    if not (horizon >= 1):
        raise ValueError(f"horizon must be >= 1, got {horizon}")
    if not (0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if not (c > 0):
        raise ValueError(f"c must be > 0, got {c}")
    log_term = math.log(max(math.log(horizon), 1.0) / delta)  # ln(ln T / delta), >= ln(1/delta) > 0
    gamma = c * math.sqrt(horizon * noise_trace / log_term)
    gamma = max(gamma, 2.0 * float(grad_norm_init))
    return gamma if gamma > 0 else math.inf


def strongly_convex_step(t, *, mu=1.0, L=1.0, t0=None):
    """Step size ``eta_t = 1 / (mu (t + t0))`` for an L-smooth, mu-strongly convex objective.

    Args:
        t: step index, 1-based (int or array).
        mu: strong convexity constant > 0.
        L: smoothness constant >= mu.
        t0: offset; default ``kappa - 1`` with ``kappa = L / mu``, so that ``eta_1 = 1 / L``.

    >>> [strongly_convex_step(t) for t in (1, 2, 4)]
    [1.0, 0.5, 0.25]
    """
    if not (mu > 0):
        raise ValueError(f"mu must be > 0, got {mu}")
    if not (L >= mu):
        raise ValueError(f"L must be >= mu, got L={L}, mu={mu}")
    if t0 is None:
        t0 = L / mu - 1.0
    if not (t0 > -1):
        raise ValueError(f"t0 must be > -1, got {t0}")
    if isinstance(t, int | float | np.number):
        return 1.0 / (mu * (t + t0))
    return 1.0 / (mu * (np.asarray(t, dtype=float) + t0))


def project_ball(x, radius, center=None):
    """Euclidean projection of each (..., d) vector onto the ball ``||x - center|| <= radius``.

    >>> project_ball(np.array([3.0, 4.0]), 1.0)
    array([0.6, 0.8])
    """
    if not (radius > 0):
        raise ValueError(f"radius must be > 0, got {radius}")
    x = np.asarray(x, dtype=float)
    if center is None:
        return clip_norm(x, radius)[0]
    center = np.asarray(center, dtype=float)
    return center + clip_norm(x - center, radius)[0]


def _median_of_block_means_1d(values, n_blocks):
    """Median of ``n_blocks`` block means of a 1-d array (blocks in order, as equal as possible)."""
    n_blocks = max(1, min(int(n_blocks), values.shape[0]))
    means = [b.mean() for b in np.array_split(values, n_blocks)]
    return float(np.median(means))


def estimate_noise_trace(G, *, n_blocks=None):
    """Robust estimate of ``Tr Cov(g)`` from a pilot sample of gradients (median-of-means).

    ``Tr Cov(g) = E||g - E g||^2``.  The centre is the coordinate-wise median of ``G`` and the mean of
    ``||g_i - centre||^2`` is replaced by a median of block means, so one huge pilot gradient cannot
    inflate the estimate (heavy tails: ``||g||^2`` may have no variance).

    Args:
        G: (m, d) pilot gradients, m >= 2.
        n_blocks: number of blocks (default ``min(5, max(1, m // 10))``: few, long blocks, because the
            median of short block means of a right-skewed variable is biased low).

    Returns:
        float, the estimated trace (>= 0).

    >>> rng = np.random.default_rng(0)
    >>> round(estimate_noise_trace(rng.standard_normal((4000, 5))))
    5
    """
    G = np.asarray(G, dtype=float)
    if G.ndim != 2 or G.shape[0] < 2:
        raise ValueError(f"G must be a (m, d) array with m >= 2, got shape {G.shape}")
    m = G.shape[0]
    if n_blocks is None:
        n_blocks = min(5, max(1, m // 10))
    centre = np.median(G, axis=0)  # (d,)
    sq = np.einsum("ij,ij->i", G - centre, G - centre)  # (m,)
    return _median_of_block_means_1d(sq, n_blocks)


def _constant_step(t, *, lr):
    return lr


def as_step_schedule(step, *, mu=1.0, L=1.0, t0=None, lr=None) -> Callable[[int], float]:
    """Turn the ``step`` option of :class:`~clipped_sgd.ClippedSGD` into a picklable ``t -> eta_t``."""
    if callable(step):
        return step
    if isinstance(step, str) and step == "strongly_convex":
        strongly_convex_step(1, mu=mu, L=L, t0=t0)  # validates
        return partial(strongly_convex_step, mu=mu, L=L, t0=t0)
    if isinstance(step, str) and step == "constant":
        if lr is None or not (lr > 0):
            raise ValueError(f"step='constant' needs lr > 0, got lr={lr}")
        return partial(_constant_step, lr=float(lr))
    if isinstance(step, int | float | np.number) and not isinstance(step, bool):
        if not (step > 0 and math.isfinite(step)):
            raise ValueError(f"a numeric step must be finite and > 0, got {step}")
        return partial(_constant_step, lr=float(step))
    raise ValueError(
        f"step must be 'strongly_convex', 'constant', a positive number or a callable, got {step!r}"
    )
