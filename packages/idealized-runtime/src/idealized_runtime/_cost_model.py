"""The two-parameter cost model T(p, o) = alpha(p) + beta * (o - 1) + overhead, HELM's lookup rule."""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._checks import check_float, describe
from ._validation import check_tokens

__all__ = ["CostModel", "load_helm_json"]


def _as_tokens(value: Any, name: str) -> np.ndarray:
    """Non-negative integer token counts (any shape; integral floats accepted)."""
    return check_tokens(value, name, minimum=0)


def _parse_json(value: Any, name: str) -> Any:
    if not isinstance(value, str | bytes):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as e:
        raise ValueError(f"{name} is not valid JSON: {e}") from None


def _check_alpha(alpha: Any) -> dict[int, float]:
    if not isinstance(alpha, Mapping):
        raise TypeError(f"alpha must be a dict {{prompt size: seconds}}, got {describe(alpha)}")
    if len(alpha) == 0:
        raise ValueError("alpha must not be empty: it needs at least one profiled prompt size")
    out: dict[int, float] = {}
    for key, val in alpha.items():
        if not isinstance(key, numbers.Integral) or isinstance(key, bool | np.bool_):
            raise TypeError(f"alpha keys must be integer prompt sizes, got key {key!r}")
        if int(key) < 1:
            raise ValueError(f"alpha keys must be prompt sizes >= 1, got {int(key)}")
        out[int(key)] = check_float(val, f"alpha[{int(key)}]", minimum=0.0)
    return dict(sorted(out.items()))


class CostModel:
    """Idealized (or denoised) runtime of a model: ``T(p, o) = alpha(p) + beta*(o - 1) + overhead``.

    Parameters
    ----------
    alpha
        ``{prompt size k: seconds}``: the time to encode ``k`` prompt tokens and emit the first
        output token, at the profiled sizes (HELM's ``runtime_for_prompt_tokens``).
    beta
        Seconds per further output token (HELM's ``runtime_per_output_token``), ``>= 0``.
    overhead
        Constant seconds added to every request (HELM's optional ``overhead``), ``>= 0``.
    """

    __slots__ = ("_alpha", "_beta", "_overhead", "_keys", "_vals")

    def __init__(self, alpha: Mapping[int, float], beta: float, *, overhead: float = 0.0):
        self._alpha = _check_alpha(alpha)
        self._beta = check_float(beta, "beta", minimum=0.0)
        self._overhead = check_float(overhead, "overhead", minimum=0.0)
        self._keys = np.array(list(self._alpha), dtype=np.int64)
        self._vals = np.array(list(self._alpha.values()), dtype=np.float64)

    @property
    def alpha(self) -> dict[int, float]:
        """``{prompt size: seconds}``, sorted by prompt size (a copy)."""
        return dict(self._alpha)

    @property
    def beta(self) -> float:
        return self._beta

    @property
    def overhead(self) -> float:
        return self._overhead

    def prompt_runtime(self, p: Any) -> Any:
        """alpha evaluated at any prompt size ``p`` by HELM's rule: ``alpha(k) * p / k`` with ``k``
        the smallest profiled size ``>= p``, or the largest profiled size if ``p`` exceeds all."""
        arr = _as_tokens(p, "p")
        idx = np.searchsorted(self._keys, arr, side="left")
        idx = np.minimum(idx, len(self._keys) - 1)
        k = self._keys[idx]
        out = self._vals[idx] * (arr / k)
        return float(out) if np.ndim(out) == 0 else out

    def runtime(self, p: Any, o: Any) -> Any:
        """Estimated seconds for prompts of ``p`` tokens and ``o`` output tokens (broadcast).

        HELM's rule: ``alpha(k) * p / k`` (see :meth:`prompt_runtime`), plus ``beta * (o - 1)``
        when ``o >= 1``, plus ``overhead``. Scalars in, a float out; arrays in, an array out.
        """
        parr = _as_tokens(p, "p")
        oarr = _as_tokens(o, "o")
        try:
            parr, oarr = np.broadcast_arrays(parr, oarr)
        except ValueError:
            raise ValueError(
                f"p and o must broadcast together, got shapes {np.shape(parr)} and {np.shape(oarr)}"
            ) from None
        idx = np.minimum(np.searchsorted(self._keys, parr, side="left"), len(self._keys) - 1)
        t = self._vals[idx] * (parr / self._keys[idx])
        t = t + self._beta * np.where(oarr >= 1, oarr - 1, 0) + self._overhead
        return float(t) if np.ndim(t) == 0 else t

    def to_json(self) -> dict:
        """HELM's layout: ``{"runtime_per_output_token", "runtime_for_prompt_tokens", ["overhead"]}``
        (string keys; ``overhead`` only when non-zero, as in HELM's idealized table)."""
        d: dict[str, Any] = {
            "runtime_per_output_token": self._beta,
            "runtime_for_prompt_tokens": {str(k): v for k, v in self._alpha.items()},
        }
        if self._overhead != 0.0:
            d["overhead"] = self._overhead
        return d

    @classmethod
    def from_json(cls, d: Any) -> CostModel:
        """Build from one model's entry of HELM's JSON (a dict, or its JSON text)."""
        d = _parse_json(d, "d")
        if not isinstance(d, Mapping):
            raise TypeError(f"d must be a dict in HELM's format, got {describe(d)}")
        for key in ("runtime_per_output_token", "runtime_for_prompt_tokens"):
            if key not in d:
                raise ValueError(f"d lacks the key {key!r} of HELM's format; got keys {list(d)}")
        raw = d["runtime_for_prompt_tokens"]
        if not isinstance(raw, Mapping):
            raise TypeError(f"d['runtime_for_prompt_tokens'] must be a dict, got {describe(raw)}")
        alpha: dict[int, float] = {}
        for k, v in raw.items():
            try:
                ki = int(k)
            except (TypeError, ValueError):
                raise ValueError(
                    f"d['runtime_for_prompt_tokens'] keys must be integers, got {k!r}"
                ) from None
            alpha[ki] = v
        overhead = d.get("overhead")
        return cls(
            alpha, d["runtime_per_output_token"], overhead=0.0 if overhead is None else overhead
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostModel):
            return NotImplemented
        return (self._alpha, self._beta, self._overhead) == (
            other._alpha,
            other._beta,
            other._overhead,
        )

    def __hash__(self) -> int:
        return hash((tuple(self._alpha.items()), self._beta, self._overhead))

    def __repr__(self) -> str:
        ks = list(self._alpha)
        span = f"{len(ks)} sizes {ks[0]}..{ks[-1]}" if len(ks) > 1 else f"size {ks[0]}"
        oh = f", overhead={self._overhead:g}" if self._overhead else ""
        return f"CostModel(alpha=<{span}>, beta={self._beta:g}{oh})"

    def __getstate__(self):
        return (self._alpha, self._beta, self._overhead)

    def __setstate__(self, state):
        alpha, beta, overhead = state
        self.__init__(alpha, beta, overhead=overhead)


def load_helm_json(obj: Any) -> dict[str, CostModel]:
    """A whole HELM efficiency file (``{model name: entry}``, a dict or JSON text) as cost models."""
    obj = _parse_json(obj, "obj")
    if not isinstance(obj, Mapping):
        raise TypeError(f"obj must be a dict {{model name: entry}}, got {describe(obj)}")
    if not obj:
        raise ValueError("obj must not be empty")
    return {str(name): CostModel.from_json(entry) for name, entry in obj.items()}
