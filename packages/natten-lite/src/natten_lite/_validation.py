"""natten-lite's own input checks, built on the shared vocabulary in ``_checks``.

Same rule as ``_checks``: a wrong type raises ``TypeError``, a wrong value ``ValueError``, and
both messages start with the argument's name. Nothing here imports torch at module level (the
mask helpers and the simulator use it without torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._checks import check_bool, check_int, check_tensor, describe

__all__ = [
    "check_kernel_schedule",
    "check_na_args",
    "check_per_axis",
    "check_shape",
    "check_tile_shape",
    "check_token_tensor",
    "raise_on_non_finite",
]

#: dtypes every CPU backend computes in
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
#: NATTEN's Hopper kernel schedules (``natten.types.KernelSchedule``), by string and enum name
KERNEL_SCHEDULES = {
    "non": "NonPersistent",
    "coop": "WarpSpecializedCooperative",
    "pp": "WarpSpecializedPingpong",
}


def check_per_axis(value: Any, name: str, n: int, *, kind: str = "int", minimum: int = 1) -> tuple:
    """An int (bool for ``kind="bool"``) or an n-sequence of them -> an n-tuple.

    >>> check_per_axis(3, "kernel_size", 2)
    (3, 3)
    >>> check_per_axis((True, False), "is_causal", 2, kind="bool")
    (True, False)
    """
    if kind == "bool":
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            if len(value) != n:
                raise ValueError(f"{name} must be a bool or {n} bools, got {value!r}")
            return tuple(check_bool(v, f"{name}[{i}]") for i, v in enumerate(value))
        return (check_bool(value, name),) * n
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != n:
            raise ValueError(f"{name} must be an int or {n} ints, got {value!r}")
        return tuple(check_int(v, f"{name}[{i}]", minimum=minimum) for i, v in enumerate(value))
    return (check_int(value, name, minimum=minimum),) * n


def check_shape(shape: Any, name: str = "shape") -> tuple[int, ...]:
    """A token layout: 1 to 3 positive ints."""
    if not isinstance(shape, Sequence) or isinstance(shape, str | bytes):
        raise TypeError(f"{name} must be a sequence of 1 to 3 ints, got {describe(shape)}")
    if not 1 <= len(shape) <= 3:
        raise ValueError(f"{name} must have 1 to 3 axes, got {tuple(shape)!r}")
    return tuple(check_int(s, f"{name}[{i}]", minimum=1) for i, s in enumerate(shape))


def check_na_args(
    shape: Sequence[int], kernel_size: Any, stride: Any, dilation: Any, is_causal: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    """NATTEN's per-axis rules: k >= 2, 1 <= s <= k, d >= 1, k * d <= L (None = the default).

    >>> check_na_args((8, 8), 3, (1, 2), None, None)
    ((3, 3), (1, 2), (1, 1), (False, False))
    """
    n = len(shape)
    ks = check_per_axis(kernel_size, "kernel_size", n, minimum=2)
    st = check_per_axis(1 if stride is None else stride, "stride", n)
    di = check_per_axis(1 if dilation is None else dilation, "dilation", n)
    ca = check_per_axis(False if is_causal is None else is_causal, "is_causal", n, kind="bool")
    if any(s > k for s, k in zip(st, ks)):
        raise ValueError(f"stride must be <= kernel_size on every axis, got {st} and {ks}")
    if any(k * d > L for k, d, L in zip(ks, di, shape)):
        raise ValueError(
            f"kernel_size * dilation must be <= the input size on every axis, got "
            f"kernel_size={ks}, dilation={di} for input size {tuple(shape)}"
        )
    return ks, st, di, ca


def check_tile_shape(value: Any, name: str, n: int) -> tuple[int, ...] | None:
    """``None`` or n positive ints (NATTEN's ``q_tile_shape``-style arguments)."""
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be None or a tuple of {n} ints, got {describe(value)}")
    if len(value) != n:
        raise ValueError(f"{name} must have {n} entries (one per axis), got {tuple(value)!r}")
    return tuple(check_int(v, f"{name}[{i}]", minimum=1) for i, v in enumerate(value))


def check_kernel_schedule(value: Any) -> str | None:
    """``None``, ``"non"``, ``"coop"``, ``"pp"``, or NATTEN's ``KernelSchedule`` enum member."""
    if value is None:
        return None
    if isinstance(value, str):
        if value not in KERNEL_SCHEDULES:
            raise ValueError(
                f"kernel_schedule must be None or one of {list(KERNEL_SCHEDULES)}, got {value!r}"
            )
        return value
    enum_name = getattr(value, "name", None)  # natten.types.KernelSchedule
    for short, long in KERNEL_SCHEDULES.items():
        if enum_name == long:
            return short
    raise TypeError(f"kernel_schedule must be None or a str, got {describe(value)}")


def check_token_tensor(value: Any, name: str, ndim: int) -> Any:
    """A floating tensor of rank ``ndim``, non-empty, in a dtype the backends compute in.

    Finiteness is checked afterwards through the output (:func:`raise_on_non_finite`).
    """
    check_tensor(value, name, ndim=ndim, finite=False)
    if str(value.dtype).removeprefix("torch.") not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float16/bfloat16/float32/float64, got {describe(value)}")
    return value


def raise_on_non_finite(out: Any, *, direct: Sequence[str] = (), **inputs: Any) -> None:
    """A NaN or +-inf input -> ``ValueError`` naming that input.

    The inputs named in ``direct`` (the keys) are checked directly: a -inf in a key can give
    that key a -inf score, i.e. weight 0, and a finite output. Every other input is checked
    through the output (one reduction instead of one per input: a non-finite query or value
    always makes the output non-finite). Only where that is free of device syncs (CPU tensors)
    and never while compiling.
    """
    import torch

    if out.device.type != "cpu" or torch.compiler.is_compiling():
        return
    for name in direct:
        x = inputs[name]
        if x is not None and not bool(torch.isfinite(x.detach()).all()):
            check_tensor(x.detach(), name)  # raises "<name> must be finite, got ..."
    if bool(torch.isfinite(out.detach().sum(dtype=torch.float64))):
        return
    for name, x in inputs.items():
        if x is not None:
            check_tensor(x.detach(), name)
