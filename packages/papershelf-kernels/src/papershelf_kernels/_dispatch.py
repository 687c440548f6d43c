"""Backend dispatch with reasons (the xformers fmha pattern).

Each op has an ordered list of backends; every backend answers ``unsupported_reasons(*args)``
with a list of human-readable strings (empty = usable). ``backend="auto"`` picks the first
usable one; if none qualifies the error lists every backend and why it was rejected.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch


@functools.cache
def has_triton() -> bool:
    """True when the ``triton`` package can be imported (it ships with Linux torch wheels)."""
    return importlib.util.find_spec("triton") is not None


def interpreting() -> bool:
    """True under ``TRITON_INTERPRET=1``: Triton kernels then run on CPU tensors (for tests)."""
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def triton_device_reasons(*tensors: torch.Tensor) -> list[str]:
    """Reasons a Triton kernel cannot take these tensors (empty list when it can)."""
    reasons: list[str] = []
    if not has_triton():
        reasons.append("triton is not installed")
    devices = {t.device.type for t in tensors}
    if len(devices) != 1:
        reasons.append(f"tensors on several devices: {sorted(devices)}")
    elif devices == {"cpu"} and not interpreting():
        reasons.append("CPU tensors need TRITON_INTERPRET=1 (set before Python starts)")
    elif devices - {"cpu", "cuda"}:
        reasons.append(f"device {devices.pop()!r} is not supported (cuda only)")
    return reasons


@dataclass(frozen=True)
class Backend:
    name: str
    fn: Callable
    unsupported_reasons: Callable[..., list[str]]


def select(op: str, backends: Sequence[Backend], requested: str | None, *args, **kwargs) -> Backend:
    """Return the backend to run ``op`` with, or raise listing why each was rejected."""
    by_name = {b.name: b for b in backends}
    if requested not in (None, "auto"):
        if requested not in by_name:
            raise ValueError(
                f"{op}: unknown backend {requested!r}; choose from {sorted(by_name)} or 'auto'"
            )
        b = by_name[requested]
        reasons = b.unsupported_reasons(*args, **kwargs)
        if reasons:
            raise NotImplementedError(
                f"{op}: backend {requested!r} cannot run this problem: " + "; ".join(reasons)
            )
        return b
    rejected = []
    for b in backends:
        reasons = b.unsupported_reasons(*args, **kwargs)
        if not reasons:
            return b
        rejected.append(f"  {b.name}: " + "; ".join(reasons))
    raise NotImplementedError(f"{op}: no backend supports this problem:\n" + "\n".join(rejected))
