"""Package-specific checks built on the shared vocabulary (``_checks``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._checks import describe

__all__ = ["check_pairs", "check_text", "check_texts", "check_tokens"]


def check_text(value: Any, name: str) -> str:
    """A ``str`` (empty allowed)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value


def check_texts(value: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    """A sequence of ``str`` (not a bare ``str``) -> a list; empty only with ``allow_empty``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        if hasattr(value, "tolist") and not isinstance(value, str | bytes):
            value = value.tolist()
        else:
            raise TypeError(f"{name} must be a sequence of str, got {describe(value)}")
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a str, got {describe(item)}")
    if not items and not allow_empty:
        raise ValueError(f"{name} must not be empty, got an empty sequence")
    return items


def check_tokens(value: Any, name: str) -> list[str]:
    """A text (split on whitespace) or a sequence of str tokens -> a list of tokens."""
    if isinstance(value, str):
        return value.split()
    return check_texts(value, name, allow_empty=True)


def check_pairs(codes: Any, comments: Any) -> tuple[list[str], list[str]]:
    """Parallel non-empty sequences of code and comment texts."""
    codes = check_texts(codes, "codes")
    comments = check_texts(comments, "comments")
    if len(codes) != len(comments):
        raise ValueError(f"comments has {len(comments)} items but codes has {len(codes)}")
    return codes, comments
