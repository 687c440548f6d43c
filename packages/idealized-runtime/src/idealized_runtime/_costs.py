"""Accelerator-aware variants of the runtime and the FLOPs baseline."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_array, check_float, check_int
from ._validation import check_tokens

__all__ = ["accelerator_time", "dollar_cost", "flops_estimate"]


def _out(x: np.ndarray) -> Any:
    return float(x) if np.ndim(x) == 0 else x


def _runtime(runtime: Any) -> np.ndarray:
    arr = check_array(runtime, "runtime", dtype="numeric", allow_empty=True).astype(np.float64)
    if arr.size and arr.min() < 0:
        raise ValueError(f"runtime must be >= 0 seconds, got {float(arr.min())}")
    return arr


def accelerator_time(runtime: Any, n_acc: int) -> Any:
    """Accelerator-seconds ``runtime * n_acc`` (vectorised in ``runtime``)."""
    n = check_int(n_acc, "n_acc", minimum=1)
    return _out(_runtime(runtime) * n)


def dollar_cost(runtime: Any, n_acc: int, price_per_hour: float) -> Any:
    """Idealized dollar cost ``runtime * n_acc * price_per_hour / 3600`` (price per accelerator-hour).

    The paper uses $4.096 per A100-hour and $3.06 per V100-hour (AWS 8-GPU on-demand / 8).
    """
    n = check_int(n_acc, "n_acc", minimum=1)
    price = check_float(price_per_hour, "price_per_hour", minimum=0.0)
    return _out(_runtime(runtime) * n * price / 3600.0)


def flops_estimate(h: int, layers: int, p: Any, o: Any) -> Any:
    """The FLOPs baseline ``24 * h**2 * layers * (p + o - 1)`` (vectorised in ``p`` and ``o``)."""
    h = check_int(h, "h", minimum=1)
    layers = check_int(layers, "layers", minimum=1)
    parr = check_tokens(p, "p")
    oarr = check_tokens(o, "o")
    try:
        tokens = np.add(parr, oarr) - 1
    except ValueError:
        raise ValueError(
            f"p and o must broadcast together, got shapes {parr.shape} and {oarr.shape}"
        ) from None
    if tokens.size and tokens.min() < 0:
        raise ValueError("p + o must be >= 1 (a request with no tokens has no FLOPs estimate)")
    return _out(24.0 * float(h) ** 2 * layers * tokens.astype(np.float64))
