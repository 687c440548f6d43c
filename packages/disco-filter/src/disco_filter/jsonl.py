"""Streaming JSON-lines reader with errors that name the file and the line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._checks import describe
from .schema import record_problem

__all__ = ["RecordError", "read_jsonl"]


class RecordError(ValueError):
    """A malformed record: ``.path`` and ``.line`` (1-based) say where, ``.reason`` what."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(f"{path}:{line}: {reason} (file {path}, line {line})")


def _check_required(required: Any) -> tuple[str, ...]:
    if isinstance(required, str | bytes) or not hasattr(required, "__iter__"):
        raise TypeError(f"required must be a sequence of field names, got {describe(required)}")
    out = tuple(required)
    for name in out:
        if not isinstance(name, str):
            raise TypeError(f"required must hold field names (str), got {describe(name)}")
    return out


def read_jsonl(path: str | os.PathLike, *, required=()) -> Iterator[dict[str, Any]]:
    """Stream the records (dicts) of a JSON-lines file, one per non-blank line, in file order.

    Every line must be a JSON object holding the ``required`` fields; every field whose name
    contains ``embedding`` (``audio_embedding_spotify``, ``audio_embedding_youtube``) must be a
    list of 512 finite numbers. A line that is not, or that is not valid JSON, raises
    :class:`RecordError` (a ``ValueError``) naming the file and the 1-based line when the
    iterator reaches it. Values are returned as JSON parses them (embeddings stay lists).
    The path and ``required`` are checked at the call; the file is read lazily.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or os.PathLike, got {describe(path)}")
    fields = _check_required(required)
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"path {str(p)!r} does not exist")
    if p.is_dir():
        raise ValueError(f"path must be a file, got the directory {str(p)!r}")
    return _records(p, fields)


def _records(p: Path, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    name = str(p)
    with p.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(name, lineno, f"not UTF-8 ({e.reason})") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(
                    name, lineno, f"invalid JSON ({e.msg} at column {e.colno})"
                ) from None
            why = record_problem(record, required)
            if why is not None:
                raise RecordError(name, lineno, why)
            yield record
