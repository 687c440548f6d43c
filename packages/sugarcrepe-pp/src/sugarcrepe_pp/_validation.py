"""Package-specific checks, built on the shared vocabulary in ``_checks``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._checks import check_option, describe

__all__ = ["check_categories", "check_path", "check_str", "check_texts"]


def check_str(value: Any, name: str, *, allow_empty: bool = False) -> str:
    """A ``str``; an empty (or all-whitespace) string is a ValueError unless ``allow_empty``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {describe(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value


def check_texts(value: Any, name: str) -> list[str]:
    """A non-empty list/tuple of strings (a bare string is refused: it is not a list of texts)."""
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise TypeError(f"{name} must be a list of strings, got {describe(value)}")
    if len(value) == 0:
        raise ValueError(f"{name} must not be empty, got an empty {type(value).__name__}")
    for i, t in enumerate(value):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] must be a string, got {describe(t)}")
    return list(value)


def check_categories(value: Any, name: str, options: tuple[str, ...]) -> tuple[str, ...]:
    """``None`` (all of ``options``, in their order), one category name, or an iterable of
    distinct names; unknown names are ValueErrors, non-strings TypeErrors."""
    if value is None:
        return tuple(options)
    if isinstance(value, str):
        return (check_option(value, name, options),)
    if not isinstance(value, Iterable) or isinstance(value, bytes | dict):
        raise TypeError(
            f"{name} must be None, a category name or a list of them, got {describe(value)}"
        )
    out = tuple(value)
    if not out:
        raise ValueError(
            f"{name} must name at least one category, got an empty {type(value).__name__}"
        )
    for v in out:
        check_option(v, name, options)
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a category, got {list(out)}")
    return out


def check_path(value: Any, name: str) -> Path:
    """A ``str`` or ``os.PathLike`` naming an existing directory."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError(
            f"{name} must be a directory path (str or os.PathLike), got {describe(value)}"
        )
    path = Path(value)
    if not path.is_dir():
        raise ValueError(f"{name} must be an existing directory, got {str(value)!r}")
    return path
