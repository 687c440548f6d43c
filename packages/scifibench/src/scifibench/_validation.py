"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_int, describe

__all__ = ["check_str", "check_strings", "check_sequence", "check_n_options"]


def check_str(value: Any, name: str, *, allow_empty: bool = True) -> str:
    """A ``str`` (``TypeError`` otherwise); empty only when ``allow_empty``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty, got {value!r}")
    return value


def check_sequence(value: Any, name: str, *, allow_empty: bool = False) -> tuple:
    """A list, tuple or other sequence (not a str, bytes or mapping), returned as a tuple."""
    if isinstance(value, str | bytes | dict) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a list or tuple, got {describe(value)}")
    items = tuple(value)
    if not items and not allow_empty:
        raise ValueError(f"{name} must not be empty, got {describe(value)}")
    return items


def check_strings(value: Any, name: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    """A sequence of ``str`` (each checked, the index named in the message)."""
    items = check_sequence(value, name, allow_empty=allow_empty)
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise TypeError(f"{name}[{i}] must be a str, got {describe(s)}")
    return items


def check_n_options(value: Any, name: str = "n_options") -> int:
    """Number of options of a multiple-choice question: 2..26 (letters A..Z)."""
    return check_int(value, name, minimum=2, maximum=26)
