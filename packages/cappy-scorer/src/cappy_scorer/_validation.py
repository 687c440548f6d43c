"""Checks for text, models and tokenizers, in the vocabulary of ``_checks`` (same rule: a wrong
type is a ``TypeError``, a wrong value a ``ValueError``, both naming the argument)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._checks import check_callable, check_float, describe

__all__ = [
    "check_label",
    "check_model",
    "check_references",
    "check_text",
    "check_texts",
    "check_tokenizer",
]


def check_text(value: Any, name: str) -> str:
    """A ``str`` (an empty string is allowed: it is a valid, if poor, response)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value


def check_texts(value: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    """A list, tuple or 1-d array of ``str`` (a single ``str`` is refused: it is not a list of
    texts); empty unless ``allow_empty`` is a ``ValueError``."""
    if isinstance(value, str | bytes) or value is None or isinstance(value, Mapping):
        raise TypeError(f"{name} must be a list of str, got {describe(value)}")
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise ValueError(f"{name} must be a 1-d list of str, got shape {value.shape}")
        value = value.tolist()
    if not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of str, got {describe(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a str, got {describe(item)}")
        out.append(item)
    if not out and not allow_empty:
        raise ValueError(f"{name} must not be empty, got an empty {type(value).__name__}")
    return out


def check_references(value: Any, name: str) -> list[str]:
    """One reference (a ``str``) or a non-empty list of them."""
    if isinstance(value, str):
        return [value]
    return check_texts(value, name)


def check_label(value: Any, name: str) -> float:
    """A training label: a finite real number in [0, 1] (Cappy regresses onto correctness)."""
    return check_float(value, name, minimum=0.0, maximum=1.0)


def check_model(value: Any, name: str = "model") -> Any:
    """A ``torch.nn.Module`` (a Hugging Face ``PreTrainedModel`` in practice)."""
    import torch

    if not isinstance(value, torch.nn.Module):
        raise TypeError(
            f"{name} must be a torch.nn.Module (a PreTrainedModel), got {describe(value)}"
        )
    return value


def check_tokenizer(value: Any, name: str = "tokenizer") -> Any:
    """A callable Hugging Face-style tokenizer (``tokenizer(text) -> {"input_ids": ...}``)."""
    if isinstance(value, str | bytes) or value is None:
        raise TypeError(f"{name} must be a tokenizer, got {describe(value)}")
    return check_callable(value, name)
