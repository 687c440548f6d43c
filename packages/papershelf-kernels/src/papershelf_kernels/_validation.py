"""Checks the kernels share, built on the vendored vocabulary in ``_checks`` (never edited here).

The rule is ``_checks``': a wrong type raises ``TypeError``, a wrong value (shape, NaN/inf,
emptiness, mismatch) raises ``ValueError``, and the message starts with the argument's name.

NaN/inf scans read every element, so they run where that is cheap and possible: CPU tensors
outside ``torch.compile`` tracing, as one sum per tensor (the exact elementwise scan of
``check_tensor`` only runs when the sum is not finite). A CUDA tensor is not scanned (the scan
would cost a device synchronisation on every call, e.g. every decoding step).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._checks import check_tensor, describe

__all__ = ["ArgumentTypeError", "check_same_device_dtype", "check_qkv", "scans_values"]


class ArgumentTypeError(TypeError, ValueError):
    """A wrong-type argument whose 0.1 error was a ``ValueError``.

    It is a ``TypeError`` (the rule) and, for code written against 0.1 that catches
    ``ValueError`` (e.g. natten-lite's ``kernel_size=3.0`` check), still a ``ValueError``. The
    ``ValueError`` base goes away in 0.3.
    """


def scans_values(x: Any) -> bool:
    """Whether a NaN/inf scan of ``x`` runs: a CPU tensor, and not while compiling."""
    return (
        isinstance(x, torch.Tensor) and x.device.type == "cpu" and not torch.compiler.is_compiling()
    )


def _sum_is_finite(x: torch.Tensor) -> bool:
    """True proves every element finite: a NaN or +-inf makes the sum NaN or +-inf. A False can
    also be an overflow of finite values (then the exact scan decides). One reduction, no
    temporary: about 30 times cheaper than ``torch.isfinite(x).all()`` on CPU."""
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else None
    with torch.no_grad():  # no autograd node for a check
        return bool(torch.isfinite(x.sum(dtype=acc)))


def check_qkv(
    value: Any, name: str, *, ndim: int | Sequence[int] | None = None, allow_empty: bool = False
) -> torch.Tensor:
    """A real floating-point tensor (integer, bool, complex: ``TypeError``) of ``ndim``
    dimensions, non-empty, and without NaN/inf where :func:`scans_values` says so."""
    check_tensor(value, name, ndim=ndim, dtype="floating", allow_empty=allow_empty, finite=False)
    if scans_values(value) and not _sum_is_finite(value):
        check_tensor(value, name, dtype="floating", allow_empty=allow_empty, finite=True)
    return value


def check_same_device_dtype(reference: torch.Tensor, ref_name: str, **others: torch.Tensor) -> None:
    """Every tensor in ``others`` has ``reference``'s dtype (``TypeError``) and device
    (``ValueError``); the message names the one that differs."""
    for name, t in others.items():
        if t.dtype != reference.dtype:
            raise TypeError(
                f"{name} must have {ref_name}'s dtype {reference.dtype}, got {describe(t)}"
            )
        if t.device != reference.device:
            raise ValueError(f"{name} is on {t.device} but {ref_name} is on {reference.device}")
