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
from typing import NamedTuple

import numpy as np

from ._checks import check_array, check_callable, check_float, check_int, check_option

__all__ = [
    "ClipResult",
    "clip_norm",
    "clip_level",
    "strongly_convex_step",
    "project_ball",
    "estimate_noise_trace",
]


class ClipResult(NamedTuple):
    """What :func:`clip_norm` returns (unpacks as ``clipped, was_clipped``)."""

    clipped: np.ndarray  #: (..., d) the clipped vectors
    was_clipped: np.ndarray  #: (...,) True where the norm exceeded the level


def _check_vectors(v, name):
    """A finite float array of shape (..., d) with d >= 1."""
    v = check_array(v, name)
    if v.ndim < 1:
        raise ValueError(f"{name} must be at least 1-d (..., d), got a scalar")
    return v


def _check_level(level, name, batch_shape):
    """A clipping level > 0 (inf allowed): a number or an array broadcasting to ``batch_shape``."""
    if isinstance(level, np.ndarray) and level.ndim > 0 or isinstance(level, list | tuple):
        arr = check_array(level, name, finite=False)
        if np.any(np.isnan(arr)) or np.any(arr <= 0):
            raise ValueError(f"{name} must be > 0 (np.inf disables clipping), got {arr}")
        try:
            np.broadcast_shapes(arr.shape, batch_shape)
        except ValueError:
            raise ValueError(
                f"{name} of shape {arr.shape} does not broadcast against the {batch_shape} "
                "vectors (one level per vector, i.e. the shape of v[..., 0])"
            ) from None
        return arr
    return check_float(level, name, minimum=0.0, min_inclusive=False, finite=False)


def _clip_norm(v, level):
    """:func:`clip_norm` without input checks (the optimizer's hot loop)."""
    norm = np.sqrt(np.einsum("...i,...i->...", v, v))  # (...,)
    was_clipped = norm > level
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(was_clipped, level / np.where(norm > 0, norm, 1.0), 1.0)  # (...,)
    return ClipResult(v * scale[..., None], was_clipped)


def clip_norm(v, level):
    """Scale each vector so that its Euclidean norm is at most ``level``: ``v * min(1, level/||v||)``.

    Args:
        v: (..., d) finite array of gradients; clipping acts on the last axis.
        level: clipping level Gamma > 0 (``np.inf`` disables clipping); a number or an array that
            broadcasts against ``v[..., 0]``.

    Returns:
        :class:`ClipResult` ``(clipped, was_clipped)``: the (..., d) clipped array and a (...,)
        boolean array, True where the norm exceeded ``level``.

    >>> clip_norm(np.array([3.0, 4.0]), 1.0).clipped
    array([0.6, 0.8])
    >>> bool(clip_norm(np.array([0.3, 0.4]), 1.0).was_clipped)
    False
    """
    v = _check_vectors(v, "v")
    level = _check_level(level, "level", v.shape[:-1])
    return _clip_norm(v, np.asarray(level, dtype=float))


def clip_level(noise_trace, horizon, *, delta=1e-3, c=1.0, grad_norm_init=0.0):
    """Clipping level ``Gamma = c sqrt(T Tr(Sigma) / ln(ln T / delta))``, floored at ``2 ||grad F(x_1)||``.

    See the module docstring for where this schedule comes from.

    Args:
        noise_trace: Tr(Sigma) >= 0, trace of the covariance of one step's stochastic gradient.
        horizon: T >= 1 (an int), number of steps.
        delta: failure probability in (0, 1) the level is tuned for.
        c: multiplicative constant > 0 (the analysis uses c = 1; results are flat for c in [0.5, 2]).
        grad_norm_init: ||grad F(x_1)|| >= 0, an estimate of the deterministic gradient at the start.

    Returns:
        Gamma as a float (``np.inf`` when ``noise_trace == 0`` and ``grad_norm_init == 0``).

    >>> round(clip_level(10.0, 1000, delta=1e-3), 3)
    33.633
    """
    noise_trace = check_float(noise_trace, "noise_trace", minimum=0.0)
    horizon = check_int(horizon, "horizon", minimum=1)
    delta = check_float(
        delta, "delta", minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )
    c = check_float(c, "c", minimum=0.0, min_inclusive=False)
    grad_norm_init = check_float(grad_norm_init, "grad_norm_init", minimum=0.0)
    return _clip_level(noise_trace, horizon, delta, c, grad_norm_init)


def _clip_level(noise_trace, horizon, delta, c, grad_norm_init):
    log_term = math.log(max(math.log(horizon), 1.0) / delta)  # ln(ln T / delta), >= ln(1/delta) > 0
    gamma = c * math.sqrt(horizon * noise_trace / log_term)
    gamma = max(gamma, 2.0 * grad_norm_init)
    return gamma if gamma > 0 else math.inf


def _check_schedule(mu, L, t0):
    """Validated (mu, L, t0) of the strongly convex schedule; t0 defaults to ``L/mu - 1``."""
    mu = check_float(mu, "mu", minimum=0.0, min_inclusive=False)
    L = check_float(L, "L", minimum=0.0, min_inclusive=False)
    if L < mu:
        raise ValueError(f"L must be >= mu, got L={L}, mu={mu}")
    if t0 is None:
        t0 = L / mu - 1.0
    else:
        t0 = check_float(t0, "t0", minimum=-1.0, min_inclusive=False)
    return mu, L, t0


def _strongly_convex_step(t, *, mu, t0):
    return 1.0 / (mu * (t + t0))


def strongly_convex_step(t, *, mu=1.0, L=1.0, t0=None):
    """Step size ``eta_t = 1 / (mu (t + t0))`` for an L-smooth, mu-strongly convex objective.

    Args:
        t: step index, 1-based (a number >= 1 or an array of them).
        mu: strong convexity constant > 0.
        L: smoothness constant >= mu.
        t0: offset > -1; default ``kappa - 1`` with ``kappa = L / mu``, so that ``eta_1 = 1 / L``.

    >>> [strongly_convex_step(t) for t in (1, 2, 4)]
    [1.0, 0.5, 0.25]
    """
    mu, _, t0 = _check_schedule(mu, L, t0)
    if isinstance(t, np.ndarray | list | tuple):
        t = check_array(t, "t")
        if np.any(t < 1):
            raise ValueError(f"t must be >= 1 (steps are 1-based), got min {t.min()}")
    else:
        t = check_float(t, "t", minimum=1.0)
    return _strongly_convex_step(t, mu=mu, t0=t0)


def _project_ball(x, *, radius, center=None):
    """:func:`project_ball` without input checks."""
    if center is None:
        return _clip_norm(x, radius).clipped
    return center + _clip_norm(x - center, radius).clipped


def project_ball(x, radius, *, center=None):
    """Euclidean projection of each (..., d) vector onto the ball ``||x - center|| <= radius``.

    Args:
        x: (..., d) finite array.
        radius: finite radius > 0.
        center: None (the origin) or a (d,) finite array.

    >>> project_ball(np.array([3.0, 4.0]), 1.0)
    array([0.6, 0.8])
    """
    x = _check_vectors(x, "x")
    radius = check_float(radius, "radius", minimum=0.0, min_inclusive=False)
    if center is not None:
        center = check_array(center, "center", ndim=1, shape=(x.shape[-1],))
    return _project_ball(x, radius=radius, center=center)


def _median_of_block_means_1d(values, n_blocks):
    """Median of ``n_blocks`` block means of a 1-d array (blocks in order, as equal as possible)."""
    means = [b.mean() for b in np.array_split(values, n_blocks)]
    return float(np.median(means))


def estimate_noise_trace(G, *, n_blocks=None):
    """Robust estimate of ``Tr Cov(g)`` from a pilot sample of gradients (median-of-means).

    ``Tr Cov(g) = E||g - E g||^2``.  The centre is the coordinate-wise median of ``G`` and the mean of
    ``||g_i - centre||^2`` is replaced by a median of block means, so one huge pilot gradient cannot
    inflate the estimate (heavy tails: ``||g||^2`` may have no variance).

    Args:
        G: (m, d) finite pilot gradients, m >= 2.
        n_blocks: number of blocks in [1, m] (default ``min(5, max(1, m // 10))``: few, long
            blocks, because the median of short block means of a right-skewed variable is biased
            low).

    Returns:
        float, the estimated trace (>= 0).

    >>> rng = np.random.default_rng(0)
    >>> round(estimate_noise_trace(rng.standard_normal((4000, 5))))
    5
    """
    G = check_array(G, "G", ndim=2)
    m = G.shape[0]
    if m < 2:
        raise ValueError(f"G must have at least 2 rows (m, d), got shape {G.shape}")
    if n_blocks is None:
        n_blocks = min(5, max(1, m // 10))
    else:
        n_blocks = check_int(n_blocks, "n_blocks", minimum=1, maximum=m)
    centre = np.median(G, axis=0)  # (d,)
    sq = np.einsum("ij,ij->i", G - centre, G - centre)  # (m,)
    return _median_of_block_means_1d(sq, n_blocks)


def _constant_step(t, *, lr):
    return lr


_STEP_RULES = ("strongly_convex", "constant")


def as_step_schedule(step, *, mu=1.0, L=1.0, t0=None, lr=None) -> Callable[[int], float]:
    """Turn the ``step`` option of :class:`~clipped_sgd.ClippedSGD` into a picklable ``t -> eta_t``.

    Every argument is checked here, once; the returned schedule does no checks.
    """
    mu = check_float(mu, "mu", minimum=0.0, min_inclusive=False)
    L = check_float(L, "L", minimum=0.0, min_inclusive=False)
    if t0 is not None:
        t0 = check_float(t0, "t0", minimum=-1.0, min_inclusive=False)
    if lr is not None:
        lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    if isinstance(step, str):
        check_option(step, "step", _STEP_RULES)
        if step == "strongly_convex":
            mu, _, t0 = _check_schedule(mu, L, t0)
            return partial(_strongly_convex_step, mu=mu, t0=t0)
        if lr is None:
            raise ValueError("lr must be a number > 0 when step='constant', got None")
        return partial(_constant_step, lr=lr)
    if callable(step):
        return check_callable(step, "step")
    if isinstance(step, bool) or not isinstance(step, int | float | np.integer | np.floating):
        raise TypeError(
            "step must be 'strongly_convex', 'constant', a positive number or a callable, "
            f"got {type(step).__name__} {step!r}"
        )
    return partial(_constant_step, lr=check_float(step, "step", minimum=0.0, min_inclusive=False))
