"""The result schemas of ``reproduce.py --json`` and ``bench.py --json`` (docs/contributing.md).

``tools/collect.py`` validates every file against these before it writes the reports, and the
script smoke test validates what the scripts write, so a malformed file fails loudly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class SchemaError(ValueError):
    """A result file does not follow the schema; the message names the offending field."""


_CLAIM_FIELDS = {"claim": str, "paper": str, "measured": str, "note": str}


def _require(obj: Mapping[str, Any], key: str, kind, where: str) -> Any:
    if key not in obj:
        raise SchemaError(f"{where}: missing field {key!r}")
    value = obj[key]
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SchemaError(f"{where}: {key!r} must be {name}, got {type(value).__name__}")
    return value


def validate_reproduce(obj: Any, where: str = "reproduce result") -> None:
    """Raise :class:`SchemaError` unless ``obj`` is a valid ``reproduce.py`` result."""
    if not isinstance(obj, Mapping):
        raise SchemaError(f"{where}: must be a JSON object, got {type(obj).__name__}")
    _require(obj, "package", str, where)
    _require(obj, "paper", str, where)
    _require(obj, "full", bool, where)
    _require(obj, "seconds", float, where)
    _require(obj, "machine", str, where)
    claims = _require(obj, "claims", list, where)
    if not claims:
        raise SchemaError(f"{where}: 'claims' is empty")
    for i, c in enumerate(claims):
        w = f"{where}: claims[{i}]"
        if not isinstance(c, Mapping):
            raise SchemaError(f"{w} must be an object, got {type(c).__name__}")
        for key, kind in _CLAIM_FIELDS.items():
            _require(c, key, kind, w)
        if "holds" not in c:
            raise SchemaError(f"{w}: missing field 'holds'")
        if c["holds"] not in (True, False, None) or not isinstance(c["holds"], bool | None):
            raise SchemaError(f"{w}: 'holds' must be true, false or null, got {c['holds']!r}")
        if not c["claim"].strip():
            raise SchemaError(f"{w}: 'claim' is blank")
        extra = set(c) - {*_CLAIM_FIELDS, "holds"}
        if extra:
            raise SchemaError(f"{w}: unknown fields {sorted(extra)}")


def validate_bench(obj: Any, where: str = "bench result") -> None:
    """Raise :class:`SchemaError` unless ``obj`` is a valid ``bench.py`` result."""
    if not isinstance(obj, Mapping):
        raise SchemaError(f"{where}: must be a JSON object, got {type(obj).__name__}")
    _require(obj, "package", str, where)
    _require(obj, "title", str, where)
    _require(obj, "machine", str, where)
    _require(obj, "notes", str, where)
    columns = _require(obj, "columns", list, where)
    rows = _require(obj, "rows", list, where)
    if not columns or not all(isinstance(c, str) for c in columns):
        raise SchemaError(f"{where}: 'columns' must be a non-empty list of strings")
    if not rows:
        raise SchemaError(f"{where}: 'rows' is empty")
    for i, r in enumerate(rows):
        if not isinstance(r, list) or len(r) != len(columns):
            got = len(r) if isinstance(r, list) else type(r).__name__
            raise SchemaError(
                f"{where}: rows[{i}] must be a list of {len(columns)} cells, got {got}"
            )
        for j, cell in enumerate(r):
            if not isinstance(cell, str | int | float | bool) and cell is not None:
                raise SchemaError(
                    f"{where}: rows[{i}][{j}] must be a string, number or null, got "
                    f"{type(cell).__name__}"
                )
