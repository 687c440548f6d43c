"""Demand models for the pricing game (Mahmood, NeurIPS 2024, https://arxiv.org/abs/2411.02661, Sec. 4).

A demand model gives, for each task ``t = 1..m``, the demand ``D_t(p)`` (non-increasing in the
per-prompt price ``p``). Calls are vectorised: ``demand(p)`` with ``p`` of shape ``S`` returns shape
``S + (m,)``. The paper's illustrations use exponential demand ``D_t(p) = a_t exp(-b p)``.

The game solvers need, for a set ``S`` of tasks, the maximiser of the piece revenue
``p * sum_{t in S} D_t(p)``. When that function is quasi-concave in ``p`` (exponential demand with a
common ``b``; linear demand, where it is log-concave) the constrained maximiser on an interval is the
clipped unconstrained one and the solvers are exact; otherwise they fall back to a grid search with
zoom refinement (:attr:`Demand.quasiconcave` is ``False``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._checks import check_array, check_callable, check_float, check_int
from ._validation import bool_mask, positive_array, real_array

__all__ = ["Demand", "ExponentialDemand", "LinearDemand", "CallableDemand"]


def check_prices(p, name: str = "p") -> np.ndarray:
    """Prices: a finite, non-negative, non-empty float array of any shape."""
    arr = real_array(p, name)
    if not (arr >= 0).all():
        raise ValueError(f"{name} must be >= 0, got min {float(arr.min())!r}")
    return arr


class Demand:
    """Base class: ``__call__(p) -> (..., m)``, ``n_tasks``, ``quasiconcave``, ``piece_argmax``.

    A subclass implements ``_evaluate(p)`` for a validated float array ``p``; ``__call__`` checks
    the prices (finite, >= 0, non-empty) first.
    """

    n_tasks: int
    quasiconcave: bool = False

    def __call__(self, p) -> np.ndarray:
        """Demand of every task at prices ``p`` (shape ``S``): an array of shape ``S + (m,)``."""
        return self._evaluate(check_prices(p))

    def _evaluate(self, p: np.ndarray) -> np.ndarray:
        """Demand at already-checked prices (the solvers call this, skipping the checks)."""
        if type(self).__call__ is not Demand.__call__:  # a subclass that overrides __call__
            return self(p)
        raise NotImplementedError(f"{type(self).__name__} must implement _evaluate(p)")

    def piece_argmax(self, tasks: np.ndarray) -> np.ndarray:
        """Unconstrained maximisers of ``p * sum_{t in S_j} D_t(p)`` over ``p > 0``.

        Args:
            tasks: bool array ``(k, m)``; row ``j`` is the task set ``S_j``.

        Returns:
            float array ``(k,)``. Only defined when :attr:`quasiconcave` is true.
        """
        raise NotImplementedError(f"{type(self).__name__} has no closed-form piece maximiser")

    def default_price_max(self) -> float | None:
        """A price above which no firm can gain (used as the first mover's search range)."""
        return None

    def scaled(self, weights) -> Demand:
        """Demand multiplied per task by ``weights`` (> 0), e.g. expected prompts per task.

        Revenue per prompt instead of per task is ``p * E[N_t] * D_t(p)``: pass
        ``demand.scaled(expected_prompts(q_B))`` to the solvers to use it.
        """
        w = self._scale_weights(weights)
        base = self
        return CallableDemand(
            lambda p: base(p) * w, n_tasks=self.n_tasks, p_max=self.default_price_max()
        )

    def _scale_weights(self, weights) -> np.ndarray:
        w = positive_array(weights, "weights", ndim=(0, 1))
        if w.ndim == 0:
            w = np.full(self.n_tasks, float(w))
        if w.shape != (self.n_tasks,):
            raise ValueError(f"weights must have shape ({self.n_tasks},), got {w.shape}")
        return w

    def revenue(self, p, tasks=None) -> np.ndarray:
        """Revenue ``p * sum_{t in tasks} D_t(p)``; ``tasks`` a bool mask ``(m,)`` (default all)."""
        p = check_prices(p)
        d = self._evaluate(p)
        if tasks is not None:
            d = d * bool_mask(tasks, "tasks", self.n_tasks)
        return p * d.sum(axis=-1)

    def _check_sets(self, tasks) -> np.ndarray:
        return check_array(tasks, "tasks", dtype="bool", ndim=2, shape=(None, self.n_tasks))


def _task_vector(x, name: str, m: int | None = None) -> np.ndarray:
    arr = positive_array(x, name, ndim=(0, 1))
    if arr.ndim == 0:
        arr = arr.reshape(1) if m is None else np.full(m, float(arr))
    if m is not None and arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},) to match a, got shape {arr.shape}")
    return arr


class ExponentialDemand(Demand):
    """``D_t(p) = a_t * exp(-b_t * p)`` (the paper's illustrative demand, e.g. a=(100,200,400), b=0.5).

    Args:
        a: market sizes, shape ``(m,)`` (> 0).
        b: price sensitivities, scalar or ``(m,)`` (> 0). With a common ``b`` every piece revenue is
            maximised at ``p = 1/b`` and the solvers are closed-form.

    >>> d = ExponentialDemand([100, 200, 400], 0.5)
    >>> d(np.array([0.0, 2.0])).shape
    (2, 3)
    """

    def __init__(self, a, b):
        self.a = _task_vector(a, "a")
        self.n_tasks = self.a.shape[0]
        self.b = _task_vector(b, "b", self.n_tasks)
        self.quasiconcave = bool(np.all(self.b == self.b[0]))

    def _evaluate(self, p: np.ndarray) -> np.ndarray:
        return self.a * np.exp(-self.b * p[..., None])  # (..., m)

    def piece_argmax(self, tasks):
        tasks = self._check_sets(tasks)
        if not self.quasiconcave:
            return super().piece_argmax(tasks)
        return np.full(tasks.shape[0], 1.0 / self.b[0])

    def default_price_max(self) -> float:
        # p exp(-b p) at 20/b is 1e-7 of its peak: nobody gains above it.
        return 20.0 / float(self.b.min())

    def scaled(self, weights) -> Demand:
        w = self._scale_weights(weights)
        return ExponentialDemand(self.a * w, self.b)

    def __repr__(self) -> str:
        return f"ExponentialDemand(a={self.a.tolist()}, b={self.b.tolist()})"


class LinearDemand(Demand):
    """``D_t(p) = max(a_t - b_t * p, 0)``.

    Each piece revenue ``p * sum_S (a_t - b_t p)_+`` is log-concave (a product of positive concave
    functions), hence quasi-concave: its maximiser is found exactly among the stationary points of
    the linear segments between the kinks ``a_t / b_t``.

    Args:
        a: intercepts, shape ``(m,)`` (> 0).
        b: slopes, scalar or ``(m,)`` (> 0).
    """

    quasiconcave = True

    def __init__(self, a, b):
        self.a = _task_vector(a, "a")
        self.n_tasks = self.a.shape[0]
        self.b = _task_vector(b, "b", self.n_tasks)

    def _evaluate(self, p: np.ndarray) -> np.ndarray:
        return np.maximum(self.a - self.b * p[..., None], 0.0)  # (..., m)

    def piece_argmax(self, tasks):
        tasks = self._check_sets(tasks)
        out = np.empty(tasks.shape[0])
        for j, s in enumerate(tasks):
            a, b = self.a[s], self.b[s]
            kinks = np.sort(a / b)
            # On the segment below kink c_i the active tasks are those with a/b > that price:
            # revenue p (A - B p), stationary at A / (2B), clipped to the segment.
            cands = [kinks]
            lo = 0.0
            for c in kinks:
                act = a / b >= c
                A, B = a[act].sum(), b[act].sum()
                cands.append(np.array([np.clip(A / (2 * B), lo, c)]))
                lo = c
            cand = np.concatenate(cands)
            rev = cand * np.maximum(a - b * cand[:, None], 0).sum(axis=1)
            out[j] = cand[np.argmax(rev)]
        return out

    def default_price_max(self) -> float:
        return float((self.a / self.b).max())

    def scaled(self, weights) -> Demand:
        w = self._scale_weights(weights)
        return LinearDemand(self.a * w, self.b * w)

    def __repr__(self) -> str:
        return f"LinearDemand(a={self.a.tolist()}, b={self.b.tolist()})"


class CallableDemand(Demand):
    """Any demand ``f(p) -> (..., m)`` vectorised over prices and tasks.

    Args:
        f: callable taking a float array of prices of shape ``S`` and returning demands of shape
            ``S + (m,)`` (non-negative, non-increasing in price).
        n_tasks: number of tasks ``m``; inferred from ``f(np.array([1.0]))`` when omitted.
        p_max: price range for the first mover's search (required there unless given to the solver).
        piece_argmax: optional callable ``tasks (k, m) bool -> (k,)`` giving exact unconstrained
            maximisers of ``p * sum_S D(p)``; supplying it declares the pieces quasi-concave.

    Without ``piece_argmax`` the solvers maximise each piece by grid search plus zoom refinement.
    """

    def __init__(
        self,
        f: Callable[[np.ndarray], np.ndarray],
        *,
        n_tasks: int | None = None,
        p_max: float | None = None,
        piece_argmax: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        self.f = check_callable(f, "f")
        if n_tasks is not None:
            n_tasks = check_int(n_tasks, "n_tasks", minimum=1)
        if p_max is not None:
            p_max = check_float(p_max, "p_max", minimum=0.0, min_inclusive=False)
        if piece_argmax is not None:
            check_callable(piece_argmax, "piece_argmax")
        probe = real_array(f(np.array([1.0])), "f(p)", allow_empty=True)
        if probe.ndim != 2 or probe.shape[0] != 1:
            raise ValueError(
                f"f(p) must return shape p.shape + (m,), got {probe.shape} for p.shape=(1,)"
            )
        m = probe.shape[1]
        if m == 0:
            raise ValueError("f(p) must return at least one task, got shape (1, 0)")
        if n_tasks is not None and n_tasks != m:
            raise ValueError(f"n_tasks must match the {m} tasks f returns, got {n_tasks}")
        self.n_tasks = m
        self.p_max = p_max
        self._piece_argmax = piece_argmax
        self.quasiconcave = piece_argmax is not None

    def _evaluate(self, p: np.ndarray) -> np.ndarray:
        d = real_array(self.f(p.reshape(-1)), "f(p)", allow_empty=True, finite=False)
        if d.shape != (p.size, self.n_tasks):
            raise ValueError(
                f"f(p) must return shape ({p.size}, {self.n_tasks}), got shape {d.shape}"
            )
        if not (np.isfinite(d) & (d >= 0)).all():
            raise ValueError(
                f"f(p) must return finite demands >= 0, got {int((~(np.isfinite(d) & (d >= 0))).sum())} "
                "negative, NaN or infinite value(s)"
            )
        return d.reshape(p.shape + (self.n_tasks,))

    def piece_argmax(self, tasks):
        if self._piece_argmax is None:
            return super().piece_argmax(tasks)
        tasks = self._check_sets(tasks)
        out = real_array(self._piece_argmax(tasks), "piece_argmax(tasks)")
        if out.shape != (tasks.shape[0],):
            raise ValueError(
                f"piece_argmax(tasks) must return shape ({tasks.shape[0]},), got shape {out.shape}"
            )
        return out

    def default_price_max(self) -> float | None:
        return self.p_max
