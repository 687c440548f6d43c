"""NATTEN 0.21's top-level switches (``natten/context.py``), as harmless equivalents.

A model or training script written for NATTEN flips these; with natten-lite they keep their
state (each getter returns what its setter stored) but change no computation, for the reasons
given per function. ``HAS_LIBNATTEN`` is ``True``: NATTEN sets it when its compiled CUDA
library (the ``cutlass-fna``/``hopper-fna``/``blackwell-fna`` backends) is present, and every one
of those backend names runs in natten-lite (mapped to its own backends, see
``natten_lite.functional``), so code that checks the flag before choosing them keeps working.
"""

from __future__ import annotations

from enum import Enum

from ._checks import check_bool, check_option

__all__ = [
    "HAS_LIBNATTEN",
    "MemoryUsagePreference",
    "allow_flex_compile",
    "allow_flex_compile_backprop",
    "are_deterministic_algorithms_enabled",
    "disable_flex_compile",
    "disable_flex_compile_backprop",
    "get_memory_usage_preference",
    "is_flex_compile_allowed",
    "is_flex_compile_backprop_allowed",
    "is_kv_parallelism_in_fused_na_enabled",
    "is_memory_usage_default",
    "is_memory_usage_strict",
    "is_memory_usage_unrestricted",
    "set_memory_usage_preference",
    "use_deterministic_algorithms",
    "use_kv_parallelism_in_fused_na",
]

HAS_LIBNATTEN = True


class MemoryUsagePreference(Enum):
    """NATTEN's memory preference for KV parallelism in its CUTLASS backward."""

    Default = 0
    Strict = 1
    Unrestricted = 2


_STATE = {
    "deterministic": False,
    "kv_parallelism": True,
    "memory": MemoryUsagePreference.Default,
    "flex_compile": False,
    "flex_compile_backprop": False,
}


def use_deterministic_algorithms(mode: bool = True) -> None:
    """Stored only. natten-lite's Triton backward is deterministic whatever the flag (no
    atomics); the tiled/reference backwards are torch autograd and follow torch's own
    ``torch.use_deterministic_algorithms``."""
    _STATE["deterministic"] = check_bool(mode, "mode")


def are_deterministic_algorithms_enabled() -> bool:
    return _STATE["deterministic"]


def use_kv_parallelism_in_fused_na(mode: bool = True) -> None:
    """Stored only: natten-lite's backward kernels have no KV parallelism to switch."""
    _STATE["kv_parallelism"] = check_bool(mode, "mode")


def is_kv_parallelism_in_fused_na_enabled() -> bool:
    return _STATE["kv_parallelism"]


def set_memory_usage_preference(pref: str = "default") -> None:
    """Stored only (``"default"``, ``"strict"`` or ``"unrestricted"``): it sizes NATTEN's KV
    parallelism, which natten-lite does not have."""
    pref = check_option(pref, "pref", ("default", "strict", "unrestricted"))
    _STATE["memory"] = MemoryUsagePreference[pref.capitalize()]


def get_memory_usage_preference() -> MemoryUsagePreference:
    return _STATE["memory"]


def is_memory_usage_default() -> bool:
    return _STATE["memory"] is MemoryUsagePreference.Default


def is_memory_usage_strict() -> bool:
    return _STATE["memory"] is MemoryUsagePreference.Strict


def is_memory_usage_unrestricted() -> bool:
    return _STATE["memory"] is MemoryUsagePreference.Unrestricted


def allow_flex_compile(mode: bool = True, backprop: bool = False) -> None:
    """Stored only. NATTEN refuses ``torch_compile=True`` with its Flex backend unless this was
    called (it could not verify compiled Flex); natten-lite always compiles its Flex backend on
    CUDA and never on CPU, whatever ``torch_compile`` and these flags say. Unlike NATTEN 0.21.6,
    ``disable_flex_compile()`` does reset the flag (NATTEN's ``allow_flex_compile(False)``
    falls through and sets it again)."""
    mode, backprop = check_bool(mode, "mode"), check_bool(backprop, "backprop")
    _STATE["flex_compile"] = mode
    _STATE["flex_compile_backprop"] = mode and backprop


def allow_flex_compile_backprop(mode: bool = True) -> None:
    allow_flex_compile(_STATE["flex_compile"], check_bool(mode, "mode"))


def disable_flex_compile() -> None:
    allow_flex_compile(False)


def disable_flex_compile_backprop() -> None:
    allow_flex_compile(_STATE["flex_compile"], False)


def is_flex_compile_allowed() -> bool:
    return _STATE["flex_compile"]


def is_flex_compile_backprop_allowed() -> bool:
    return _STATE["flex_compile_backprop"]
