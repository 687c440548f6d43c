"""Policies that act in environments, and encoders from observations to table rows."""

from __future__ import annotations

import math
import numbers

import numpy as np

from papershelf_mdp import check_stochastic

from ._checks import check_array, check_int, check_rng, describe
from ._validation import state_index

__all__ = ["GridEncoder", "StateEncoder", "TabularPolicy"]


class StateEncoder:
    """Integer observations in [0, n_states) are their own table row (the tabular case)."""

    def __init__(self, n_states):
        self.n_codes = check_int(n_states, "n_states", minimum=1)

    def __call__(self, obs) -> int:
        return state_index(obs, self.n_codes)

    def __repr__(self) -> str:
        return f"StateEncoder(n_states={self.n_codes})"


class GridEncoder:
    """A uniform grid over a box: ``obs`` (k,) -> the index of its cell, row-major.

    ``low`` and ``high`` (k,) bound the box (observations outside are clipped to the border
    cells); ``bins`` is an int or (k,) ints. ``n_codes = prod(bins)``."""

    def __init__(self, low, high, bins):
        self.low = check_array(low, "low", ndim=1)
        self.high = check_array(high, "high", shape=self.low.shape)
        if np.any(self.high <= self.low):
            raise ValueError(
                f"high must exceed low in every coordinate, got {self.low}, {self.high}"
            )
        k = self.low.shape[0]
        if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
            bins = [bins] * k
        b = check_array(bins, "bins", dtype="int", shape=(k,))
        if np.any(b < 1):
            raise ValueError(f"bins must be >= 1, got {b.tolist()}")
        self.bins = b.astype(np.int64)
        self.n_codes = int(np.prod(self.bins))
        self._strides = np.r_[np.cumprod(self.bins[::-1])[:-1][::-1], 1].astype(np.int64)
        self._lo, self._nb, self._st = self.low.tolist(), self.bins.tolist(), self._strides.tolist()
        self._scale = (self.bins / (self.high - self.low)).tolist()

    def __call__(self, obs) -> int:
        if type(obs) is np.ndarray and obs.shape == self.low.shape and obs.dtype.kind == "f":
            code = 0
            for i, v in enumerate(obs.tolist()):
                if not math.isfinite(v):
                    raise ValueError(f"observation must be finite, got {obs}")
                j = math.floor((v - self._lo[i]) * self._scale[i])
                code += min(max(j, 0), self._nb[i] - 1) * self._st[i]
            return code
        x = check_array(obs, "observation", shape=self.low.shape)
        idx = np.floor((x - self.low) * np.asarray(self._scale)).astype(np.int64)
        idx = np.clip(idx, 0, self.bins - 1)
        return int(idx @ self._strides)

    def centers(self) -> np.ndarray:
        """Cell centres in code order, (n_codes, k)."""
        axes = [
            self.low[i] + (np.arange(n) + 0.5) * (self.high[i] - self.low[i]) / n
            for i, n in enumerate(self.bins)
        ]
        mesh = np.meshgrid(*axes, indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=-1)

    def __repr__(self) -> str:
        return f"GridEncoder(low={self.low.tolist()}, high={self.high.tolist()}, bins={self.bins.tolist()})"


class TabularPolicy:
    """Action probabilities over table rows: ``probs`` (C, A) or (H, C, A), and an ``encoder``
    (observation -> row; default: integer observations are rows). ``act(obs, h, rng)``."""

    def __init__(self, probs, *, encoder=None):
        p = check_array(probs, "probs", ndim=(2, 3))
        check_stochastic(p, "probs")
        if encoder is None:
            encoder = StateEncoder(p.shape[-2])
        if not callable(encoder) or not hasattr(encoder, "n_codes"):
            raise TypeError(
                f"encoder must be callable with an n_codes attribute, got {describe(encoder)}"
            )
        if encoder.n_codes != p.shape[-2]:
            raise ValueError(
                f"probs has {p.shape[-2]} rows but the encoder has {encoder.n_codes} codes"
            )
        self.probs = p
        self.encoder = encoder
        self.n_actions = p.shape[-1]
        self._cum = np.cumsum(p, axis=-1)

    @property
    def horizon(self) -> int | None:
        return self.probs.shape[0] if self.probs.ndim == 3 else None

    def row(self, code: int, h: int) -> np.ndarray:
        if self.probs.ndim == 3:
            if not 0 <= h < self.probs.shape[0]:
                raise ValueError(f"h must be in [0, {self.probs.shape[0]}), got {h}")
            return self.probs[h, code]
        return self.probs[code]

    def _draw(self, code: int, h: int, g: np.random.Generator) -> int:
        cum = self._cum[h, code] if self._cum.ndim == 3 else self._cum[code]
        return min(int(np.searchsorted(cum, g.random(), side="right")), self.n_actions - 1)

    def act(self, obs, h, rng=None) -> int:
        if type(h) is not int:
            h = check_int(h, "h", minimum=0)
        if h < 0:
            raise ValueError(f"h must be >= 0, got {h}")
        if self.probs.ndim == 3 and h >= self.probs.shape[0]:
            raise ValueError(f"h must be < {self.probs.shape[0]}, got {h}")
        g = rng if type(rng) is np.random.Generator else check_rng(rng)
        return self._draw(self.encoder(obs), h, g)

    def __repr__(self) -> str:
        return f"TabularPolicy(shape={self.probs.shape}, encoder={self.encoder!r})"
