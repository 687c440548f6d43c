"""DOTA label files: one object a line, ``x1 y1 x2 y2 x3 y3 x4 y4 category difficult``.

Optional header lines ``imagesource:...`` and ``gsd:...`` (DOTA-v1.0) are kept as metadata;
blank lines are skipped. Anything else that is not a well-formed record raises ``ValueError``
naming the file and the line (the DOTA devkit silently skips short lines).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from ._checks import check_array

__all__ = ["DotaLabels", "read_dota", "write_dota"]


@dataclass(frozen=True)
class DotaLabels:
    """The objects of one DOTA label file.

    ``polys``: ``(n, 4, 2)`` corners in file order; ``classes``: ``n`` category names;
    ``difficult``: ``(n,)`` bool; ``meta``: the header fields (e.g. ``{"gsd": "0.146"}``).
    """

    polys: np.ndarray
    classes: tuple[str, ...]
    difficult: np.ndarray
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.classes)


def _check_path(path, name="path") -> str:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"{name} must be a str or os.PathLike, got {type(path).__name__}")
    return os.fspath(path)


def read_dota(path) -> DotaLabels:
    """Read a DOTA label txt (``poly8 category difficult``; ``difficult`` may be omitted: 0)."""
    path = _check_path(path)
    polys, classes, difficult, meta = [], [], [], {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            text = line.strip()
            if not text:
                continue
            head = text.split(":", 1)[0]
            if head in ("imagesource", "gsd") and ":" in text and not polys:
                meta[head] = text.split(":", 1)[1].strip()
                continue
            parts = text.split()
            where = f"{path}, line {lineno}"
            if len(parts) not in (9, 10):
                raise ValueError(
                    f"{where}: a DOTA record has 8 coordinates, a category and an optional "
                    f"difficult flag (9 or 10 fields), got {len(parts)}: {text!r}"
                )
            try:
                xy = [float(v) for v in parts[:8]]
            except ValueError:
                raise ValueError(f"{where}: coordinates must be numbers, got {text!r}") from None
            if not all(math.isfinite(v) for v in xy):
                raise ValueError(f"{where}: coordinates must be finite, got {text!r}")
            flag = parts[9] if len(parts) == 10 else "0"
            if flag not in ("0", "1"):
                raise ValueError(f"{where}: difficult must be 0 or 1, got {flag!r}")
            polys.append(xy)
            classes.append(parts[8])
            difficult.append(flag == "1")
    arr = np.asarray(polys, dtype=float).reshape(-1, 4, 2)
    return DotaLabels(arr, tuple(classes), np.asarray(difficult, dtype=bool), meta)


def write_dota(path, polys, classes, *, difficult=None, meta=None) -> None:
    """Write a DOTA label txt that :func:`read_dota` reads back exactly.

    ``polys``: ``(n, 4, 2)`` or ``(n, 8)`` corners; ``classes``: ``n`` category names (no
    whitespace); ``difficult``: ``(n,)`` bools (default all 0); ``meta``: header fields written
    first as ``key:value`` (``imagesource``, ``gsd``). Coordinates are written with ``repr``
    precision, so they round-trip bit for bit.
    """
    path = _check_path(path)
    arr = check_array(polys, "polys", ndim=(2, 3), allow_empty=True)
    if arr.size == 0:
        arr = arr.reshape(0, 8)
    if arr.ndim == 3 and arr.shape[1:] != (4, 2) or arr.ndim == 2 and arr.shape[1] != 8:
        raise ValueError(f"polys must have shape (n, 4, 2) or (n, 8), got {arr.shape}")
    arr = arr.reshape(-1, 8)
    if isinstance(classes, str) or not isinstance(classes, list | tuple | np.ndarray):
        raise TypeError(
            f"classes must be a sequence of category names, got {type(classes).__name__}"
        )
    names = list(classes)
    for i, c in enumerate(names):
        if not isinstance(c, str | np.str_):
            raise TypeError(f"classes[{i}] must be a str, got {type(c).__name__}")
        if not c or any(ch.isspace() for ch in c):
            raise ValueError(f"classes[{i}] must be a non-empty name without whitespace, got {c!r}")
    if len(names) != arr.shape[0]:
        raise ValueError(f"classes has {len(names)} names but polys has {arr.shape[0]} boxes")
    if difficult is None:
        diff = np.zeros(arr.shape[0], dtype=bool)
    else:
        raw = check_array(difficult, "difficult", ndim=1, dtype="any", allow_empty=True)
        if raw.size and not np.all((raw == 0) | (raw == 1)):
            raise ValueError(f"difficult must hold 0/1 or booleans, got {np.unique(raw)}")
        diff = raw.astype(bool)
        if diff.size != arr.shape[0]:
            raise ValueError(f"difficult has {diff.size} flags but polys has {arr.shape[0]} boxes")
    meta = {} if meta is None else meta
    if not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict, got {type(meta).__name__}")
    lines = [f"{k}:{v}" for k, v in meta.items()]
    for xy, c, d in zip(arr, names, diff, strict=True):
        lines.append(" ".join(repr(float(v)) for v in xy) + f" {c} {int(d)}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + ("\n" if lines else ""))
