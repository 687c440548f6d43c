"""The Clipped-SGD optimizer state: one step per stochastic gradient (one sample or a mini-batch).

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das et al., NeurIPS 2024) - https://arxiv.org/abs/2410.20135.  Implements the Clipped-SGD
recursion ``x_{t+1} = Pi_X(x_t - eta_t clip_Gamma(g_t))`` with last-iterate (strongly convex
case) and Polyak-averaged (convex / Lipschitz extensions) outputs.  Memory is O(d): the iterate,
its running average and a few counters.  See :mod:`clipped_sgd.functional` for the schedules.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np

from ._checks import check_array, check_bool, check_callable, check_float, check_int, describe
from .functional import _clip_norm, _project_ball, as_step_schedule

__all__ = ["ClippedSGD", "PlainSGD"]


def _identity(x):
    return x


class ClippedSGD:
    """Clipped stochastic gradient descent, ``x <- Pi_X(x - eta_t clip_Gamma(g))``.

    Args:
        dim: dimension d of the iterate.
        step: ``"strongly_convex"`` (``eta_t = 1/(mu (t + t0))``, the schedule for L-smooth
            mu-strongly convex objectives), ``"constant"`` (``eta_t = lr``, with ``average=True`` the
            convex / Lipschitz setting), a positive number (constant step) or a callable
            ``t -> eta_t`` (t is 1-based).
        mu: strong convexity constant (``step="strongly_convex"``).
        L: smoothness constant (``step="strongly_convex"``).
        t0: step offset; default ``L/mu - 1`` so ``eta_1 = 1/L`` (mean estimation: ``eta_t = 1/t``).
        lr: the constant step for ``step="constant"``.
        clip: clipping level Gamma > 0, a callable ``t -> Gamma_t``, or None (plain SGD).  Use
            :func:`clipped_sgd.clip_level` for the paper-style level.
        projection: None (unconstrained), ``("ball", radius)`` (ball centred at 0) or a callable
            ``x -> Pi_X(x)``.
        average: also keep the running average of the iterates ``x_2 .. x_{t+1}`` in ``x_avg_``
            (always kept; this flag only selects what :attr:`solution_` returns).
        x0: starting point; an array of shape (d,) or (..., d) to run independent chains in
            parallel (each chain clipped separately).  Default zeros(d).

    Attributes:
        x_: (d,) or (..., d) current (last) iterate.
        x_avg_: running average of the iterates after each step.
        t_: number of steps taken.
        n_clipped_: number of steps whose gradient was clipped (per chain: an int array if batched).
        clip_level_: the clipping level used at the last step (``inf`` if unclipped).

    >>> opt = ClippedSGD(2, clip=1.0)
    >>> opt.step(np.array([3.0, 4.0])).x_            # eta_1 = 1, clipped to norm 1
    array([-0.6, -0.8])
    >>> opt.n_clipped_
    1
    """

    def __init__(
        self,
        dim,
        *,
        step="strongly_convex",
        mu=1.0,
        L=1.0,
        t0=None,
        lr=None,
        clip=None,
        projection=None,
        average=False,
        x0=None,
    ):
        self.dim = check_int(dim, "dim", minimum=1)
        self._eta = as_step_schedule(step, mu=mu, L=L, t0=t0, lr=lr)
        self.step_rule = step
        if clip is not None and not callable(clip):
            clip = check_float(clip, "clip", minimum=0.0, min_inclusive=False, finite=False)
        self.clip = clip
        self._project = self._make_projection(projection)
        self.average = check_bool(average, "average")
        if x0 is None:
            x0 = np.zeros(self.dim)
        x0 = check_array(x0, "x0").copy()
        if x0.ndim == 0 or x0.shape[-1] != self.dim:
            raise ValueError(f"x0 must have shape (..., {self.dim}), got shape {x0.shape}")
        self.x_ = self._project(x0)
        self.x_avg_ = self.x_.copy()
        self.t_ = 0
        batch = self.x_.shape[:-1]
        self.n_clipped_ = np.zeros(batch, dtype=np.int64) if batch else 0
        self.clip_level_ = math.inf

    @staticmethod
    def _make_projection(projection) -> Callable[[np.ndarray], np.ndarray]:
        if projection is None:
            return _identity
        if callable(projection):
            return projection
        if not isinstance(projection, tuple | list):
            raise TypeError(
                "projection must be None, ('ball', radius) or a callable, got "
                f"{describe(projection)}"
            )
        if len(projection) != 2 or not (isinstance(projection[0], str) and projection[0] == "ball"):
            raise ValueError(
                f"projection must be None, ('ball', radius) or a callable, got {projection!r}"
            )
        radius = check_float(projection[1], "projection radius", minimum=0.0, min_inclusive=False)
        return partial(_project_ball, radius=radius)

    def current_clip_level(self, t=None) -> float:
        """Gamma_t for step t (default: the next step)."""
        t = self.t_ + 1 if t is None else check_int(t, "t", minimum=1)
        if self.clip is None:
            return math.inf
        if not callable(self.clip):
            return self.clip
        level = float(self.clip(t))
        if not level > 0:  # NaN or <= 0 would disable clipping or flip the gradient
            raise ValueError(
                f"clip({t}) must return a level > 0 (inf disables clipping), got {level}"
            )
        return level

    def step(self, g):
        """One Clipped-SGD step with stochastic gradient ``g`` (shape of ``x_``); returns self."""
        if not (
            type(g) is np.ndarray
            and g.dtype == np.float64
            and g.shape == self.x_.shape
            and np.isfinite(g).all()
        ):  # the common case passes without the full check (this is the hot loop)
            g = check_array(g, "g", shape=self.x_.shape)
        return self._step(g)

    def _step(self, g):
        """The update itself, without input checks (hot loop of the estimators)."""
        t = self.t_ + 1
        level = self.current_clip_level(t)
        if self.x_.ndim == 1:  # single chain: scalar arithmetic is ~5x cheaper than clip_norm
            norm = math.sqrt(float(g @ g))
            was = norm > level
            if was:
                g = g * (level / norm)
            self.n_clipped_ += int(was)
        else:
            if not math.isinf(level):
                g, was = _clip_norm(g, level)
                self.n_clipped_ = self.n_clipped_ + was
        eta = float(self._eta(t))
        if not (eta > 0 and math.isfinite(eta)):
            raise ValueError(f"step({t}) (the step size) must be finite and > 0, got {eta}")
        self.x_ = self._project(self.x_ - eta * g)
        self.x_avg_ += (self.x_ - self.x_avg_) / t  # running mean of x_2..x_{t+1}
        self.t_ = t
        self.clip_level_ = level
        return self

    def partial_fit(self, grad_fn, sample):
        """Step with ``g = grad_fn(x_, sample)`` (one sample or a mini-batch); returns self."""
        return self.step(check_callable(grad_fn, "grad_fn")(self.x_, sample))

    @property
    def solution_(self):
        """``x_avg_`` if ``average`` else the last iterate ``x_``."""
        return self.x_avg_ if self.average else self.x_


class PlainSGD(ClippedSGD):
    """Unclipped SGD baseline: :class:`ClippedSGD` with ``clip=None`` and the same step sizes.

    >>> PlainSGD(2).step(np.array([3.0, 4.0])).x_
    array([-3., -4.])
    """

    def __init__(
        self,
        dim,
        *,
        step="strongly_convex",
        mu=1.0,
        L=1.0,
        t0=None,
        lr=None,
        projection=None,
        average=False,
        x0=None,
    ):
        super().__init__(
            dim,
            step=step,
            mu=mu,
            L=L,
            t0=t0,
            lr=lr,
            clip=None,
            projection=projection,
            average=average,
            x0=x0,
        )
