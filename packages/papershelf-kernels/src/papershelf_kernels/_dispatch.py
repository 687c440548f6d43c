"""Backend dispatch with reasons (the xformers fmha pattern).

Each op validates its arguments once into an inputs object (``NAInputs``, ``ColsumInputs``: the
role of xformers' ``fmha.Inputs``) and has an ordered list of backends. Every backend answers
``unsupported_reasons(inputs)`` with a list of human-readable strings (empty = usable) and runs
as ``fn(inputs)``. ``backend="auto"`` picks the first usable one, also passing over a backend
whose ``auto_reasons(inputs)`` is not empty (it could run, but should only when asked by name,
e.g. Triton's CPU interpreter); if none qualifies the error lists every backend and why.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ._checks import describe


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
    """One implementation of an op.

    Attributes:
        name: what ``backend=`` requests it by.
        fn: runs the op, ``fn(inputs)``.
        unsupported_reasons: ``unsupported_reasons(inputs) -> list[str]``, why it cannot run
            this problem (empty: it can).
        auto_reasons: optional, why ``backend="auto"`` should pass it over although it can run
            (it still runs when requested by name).
    """

    name: str
    fn: Callable
    unsupported_reasons: Callable[..., list[str]]
    auto_reasons: Callable[..., list[str]] | None = None


def select(op: str, backends: Sequence[Backend], requested: str | None, *args, **kwargs) -> Backend:
    """Return the backend to run ``op`` with, or raise listing why each was rejected.

    ``args``/``kwargs`` are what the backends' reason functions take: the op's one inputs object.
    ``requested`` is a backend name, or ``None``/``"auto"`` for the first that can run.
    """
    by_name = {b.name: b for b in backends}
    if requested is not None and not isinstance(requested, str):
        raise TypeError(
            f"backend must be one of {sorted(by_name)} or 'auto', got {describe(requested)}"
        )
    if requested not in (None, "auto"):
        if requested not in by_name:
            raise ValueError(
                f"backend must be one of {sorted(by_name)} or 'auto', got {requested!r} ({op}: "
                "unknown backend)"
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
        if not reasons and b.auto_reasons is not None:
            reasons = b.auto_reasons(*args, **kwargs)
        if not reasons:
            return b
        rejected.append(f"  {b.name}: " + "; ".join(reasons))
    raise NotImplementedError(f"{op}: no backend supports this problem:\n" + "\n".join(rejected))
