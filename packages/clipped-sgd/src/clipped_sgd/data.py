"""Heavy-tailed noise generators with zero mean and unit variance (only finitely many moments).

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das et al., NeurIPS 2024) - https://arxiv.org/abs/2410.20135.  The paper's setting assumes only a
finite second moment of the gradient noise; these generators produce such noise for experiments.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_option, check_rng, describe

__all__ = ["heavy_tailed_noise"]


_KINDS = ("student_t", "pareto", "lognormal", "gaussian")


def _check_size(size):
    if isinstance(size, tuple | list):
        return tuple(check_int(s, "size", minimum=0) for s in size)
    if isinstance(size, int | np.integer) and not isinstance(size, bool | np.bool_):
        return check_int(size, "size", minimum=0)
    raise TypeError(f"size must be an int or a tuple of ints, got {describe(size)}")


def heavy_tailed_noise(size, *, kind="student_t", tail=2.5, rng=None):
    """Draw i.i.d. zero-mean, unit-variance heavy-tailed noise.

    Args:
        size: output shape (an int >= 0 or a tuple of them).
        kind: ``"student_t"`` (Student-t with ``tail`` = nu > 2 degrees of freedom: moments of order
            < nu exist), ``"pareto"`` (symmetrised Pareto with tail index ``tail`` = alpha > 2: a random
            sign times ``U^(-1/alpha) - 1``), ``"lognormal"`` (centred ``exp(tail * Z)``: all moments,
            strong skew) or ``"gaussian"``.
        tail: finite nu (student_t), alpha (pareto) or sigma (lognormal); ignored for gaussian.
        rng: None, an int seed >= 0 or a ``numpy.random.Generator``.

    Returns:
        float array of shape ``size`` with mean 0 and variance 1.

    >>> x = heavy_tailed_noise(200_000, kind="pareto", tail=3.0, rng=0)
    >>> bool(abs(x.mean()) < 0.02 and abs(x.var() - 1) < 0.2)
    True
    """
    size = _check_size(size)
    kind = check_option(kind, "kind", _KINDS)
    tail = check_float(tail, "tail")
    rng = check_rng(rng)
    if kind == "student_t":
        if not (tail > 2):
            raise ValueError(f"tail (degrees of freedom) must be > 2 for student_t, got {tail}")
        return rng.standard_t(tail, size=size) / np.sqrt(tail / (tail - 2))
    if kind == "pareto":
        if not (tail > 2):
            raise ValueError(f"tail (tail index) must be > 2 for pareto, got {tail}")
        a = tail
        y = rng.uniform(size=size) ** (-1.0 / a) - 1.0  # Lomax(a): E y = 1/(a-1)
        second = a / ((a - 1) ** 2 * (a - 2)) + 1.0 / (a - 1) ** 2  # E y^2
        sign = rng.choice(np.array([-1.0, 1.0]), size=size)
        return sign * y / np.sqrt(second)
    if kind == "lognormal":
        if not (tail > 0):
            raise ValueError(f"tail (sigma) must be > 0 for lognormal, got {tail}")
        s2 = tail**2
        x = np.exp(tail * rng.standard_normal(size))
        return (x - np.exp(s2 / 2)) / np.sqrt((np.exp(s2) - 1) * np.exp(s2))
    return rng.standard_normal(size)
