"""Subset builders: uniform random (streaming) and top-n by a score (streaming, exact ties)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ._checks import check_int, check_rng, describe

__all__ = ["random_subset", "top_subset"]

_CHUNK = 4096


def _check_records(records: Any) -> None:
    if isinstance(records, Mapping | str | bytes) or not isinstance(records, Iterable):
        raise TypeError(f"records must be an iterable of records, got {describe(records)}")


def _chunks(records: Iterable, size: int = _CHUNK):
    it = iter(records)
    while True:
        chunk = []
        for r in it:
            chunk.append(r)
            if len(chunk) == size:
                break
        if not chunk:
            return
        yield chunk


def _select(records: Iterable, n: int, rank: Callable[[list, int], np.ndarray]) -> tuple:
    """One pass keeping the ``n`` records of smallest ``(rank, position)``.

    ``rank(chunk, start)`` gives the chunk's rank values. The pool grows to at most ``2 n``
    between trims; a record ranking after the current ``n``-th best can never enter the
    result and is skipped. Returns ``(ranks, positions, items)`` of the winners, unordered.
    """
    ranks = np.empty(0)
    pos = np.empty(0, dtype=np.int64)
    items: list = []
    cutoff = np.inf  # rank of the current n-th best (a later record must beat it strictly)
    total = 0
    for chunk in _chunks(records):
        r = rank(chunk, total)
        p = np.arange(total, total + len(chunk))
        total += len(chunk)
        if n == 0:
            continue
        if len(items) >= n:
            sel = np.flatnonzero(r < cutoff)
            if sel.size == 0:
                continue
            r, p, chunk = r[sel], p[sel], [chunk[i] for i in sel.tolist()]
        ranks = np.concatenate([ranks, r])
        pos = np.concatenate([pos, p])
        items.extend(chunk)
        if len(items) > 2 * n or (len(items) >= n and cutoff == np.inf):
            keep = np.lexsort((pos, ranks))[:n]
            ranks, pos = ranks[keep], pos[keep]
            items = [items[i] for i in keep.tolist()]
            cutoff = ranks[-1] if len(items) == n else np.inf
    if total < n:
        raise ValueError(f"n must be <= the number of records ({total}), got {n}")
    keep = np.lexsort((pos, ranks))[:n]
    return ranks[keep], pos[keep], [items[i] for i in keep.tolist()]


def random_subset(records, n, *, rng=None) -> list:
    """A uniform random sample of ``n`` records without replacement, in input order.

    One pass over any iterable (streaming, memory ``O(n)``): every record draws a uniform key
    from ``rng`` and the ``n`` smallest keys win, so every ``n``-subset is equally likely and
    the same seed gives the same subset (for a list or a stream of the same records). Fewer
    than ``n`` records is a ``ValueError``.
    """
    _check_records(records)
    n = check_int(n, "n", minimum=0)
    gen = check_rng(rng)
    _, pos, items = _select(records, n, lambda chunk, start: gen.random(len(chunk)))
    order = np.argsort(pos, kind="stable")
    return [items[i] for i in order.tolist()]


def _key_fn(key: Any) -> Callable[[Any], Any]:
    if isinstance(key, str):

        def get(r, _k=key):
            try:
                return r[_k]
            except (KeyError, TypeError):
                raise ValueError(f"key: record has no field {_k!r}") from None

        return get
    if callable(key):
        return key
    raise TypeError(f"key must be a field name (str) or a callable, got {describe(key)}")


def _value(v: Any, index: int) -> float:
    if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real):
        raise TypeError(f"key of record {index} must be a real number, got {describe(v)}")
    v = float(v)
    if math.isnan(v):
        raise ValueError(f"key of record {index} is NaN")
    return v


def top_subset(records, n, *, key) -> list:
    """The ``n`` records with the highest ``key`` (a field name or ``key(record)``), highest
    first; among equal scores the earlier record wins (and comes first). One pass, memory
    ``O(n)``. Fewer than ``n`` records is a ``ValueError``; NaN scores too."""
    _check_records(records)
    n = check_int(n, "n", minimum=0)
    get = _key_fn(key)

    def rank(chunk, start):
        return -np.array([_value(get(r), start + i) for i, r in enumerate(chunk)], dtype=float)

    _, _, items = _select(records, n, rank)  # ordered by (-score, position)
    return items
