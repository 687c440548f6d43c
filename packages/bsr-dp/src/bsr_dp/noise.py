"""Streaming correlated noise ``C^{-1} Z`` for a banded Toeplitz strategy C.

Kalinin & Lampert, NeurIPS 2024 - https://arxiv.org/abs/2405.13763 (Sec. 2: the MF mechanism
releases ``B (C X + Z) = A (X + C^{-1} Z)``, i.e. the optimizer sees gradients plus ``C^{-1} Z``).

With banded C (coefficients ``c_0..c_{p-1}``) the rows of ``U = C^{-1} Z`` follow
``u_t = (z_t - sum_{j=1}^{p-1} c_j u_{t-j}) / c_0``: the state is the last p - 1 noise vectors,
never an n x n matrix.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_rng
from ._validation import check_coefs

__all__ = ["CorrelatedNoise"]


class CorrelatedNoise:
    """Generator of the rows of ``C^{-1} Z``, ``Z`` i.i.d. ``N(0, sigma^2)``, one step at a time.

    Args:
        coefs: (p,) first column of the banded strategy C (``c_0 > 0``), e.g. `bsr_coefs`.
        shape: shape of one noise sample (the parameter's shape); an int or a tuple.
        sigma: standard deviation of Z. For DP use ``clip_norm * noise_multiplier * sens(C)``.
        rng: a ``numpy.random.Generator`` or a seed; each step draws
            ``rng.standard_normal(shape)`` once, so the same seed reproduces Z.
        dtype: float dtype of the returned samples (state is kept in float64).

    Example:
        >>> from bsr_dp import CorrelatedNoise, bsr_coefs
        >>> gen = CorrelatedNoise(bsr_coefs(100, 4), (3,), sigma=1.0, rng=0)
        >>> gen().shape, gen.state_size
        ((3,), 3)
    """

    def __init__(self, coefs, shape, *, sigma=1.0, rng=None, dtype=np.float64):
        self.coefs = check_coefs(coefs, "coefs")
        if isinstance(shape, tuple | list):
            self.shape = tuple(check_int(s, "shape", minimum=0) for s in shape)
        elif isinstance(shape, np.integer | int) and not isinstance(shape, bool):
            self.shape = (check_int(shape, "shape", minimum=0),)
        else:
            raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}")
        self.sigma = check_float(sigma, "sigma", minimum=0.0)
        self.rng = check_rng(rng)
        try:
            self.dtype = np.dtype(dtype)
        except TypeError as err:
            raise TypeError(f"dtype must be a float dtype, got {dtype!r}") from err
        if not np.issubdtype(self.dtype, np.floating):
            raise TypeError(f"dtype must be a float dtype, got {self.dtype}")
        self.state_size = self.coefs.size - 1
        # ring buffer of the last p-1 outputs: (p-1, *shape)
        self._buffer = np.zeros((self.state_size, *self.shape))
        self._head = 0  # index of the most recent output u_{t-1}
        self.step_count = 0

    def __call__(self) -> np.ndarray:
        """Next noise sample ``u_t`` (shape `shape`)."""
        z = self.sigma * self.rng.standard_normal(self.shape)
        q = self.state_size
        m = min(q, self.step_count)
        if m:
            # the j-th most recent output u_{t-j} sits at buffer[(head - j + 1) % q]
            idx = (self._head - np.arange(m)) % q
            z = z - np.tensordot(self.coefs[1 : m + 1], self._buffer[idx], axes=1)
        u = z / self.coefs[0]
        if q:
            self._head = (self._head + 1) % q
            self._buffer[self._head] = u
        self.step_count += 1
        return u.astype(self.dtype, copy=False)

    def __iter__(self):
        return self

    def __next__(self) -> np.ndarray:
        return self()

    def sample(self, steps) -> np.ndarray:
        """The next ``steps`` samples stacked: (steps, *shape)."""
        steps = check_int(steps, "steps", minimum=0)
        return (
            np.stack([self() for _ in range(steps)])
            if steps
            else np.zeros((0, *self.shape), self.dtype)
        )
