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


def random_subset(records, n, *, rng=None) -> list:
    """A uniform random sample of ``n`` records without replacement, in input order.

    One pass over any iterable (streaming, memory ``O(n)``): every record draws a uniform key
    from ``rng`` and the ``n`` smallest keys win, so every ``n``-subset is equally likely and
    the same seed gives the same subset. Fewer than ``n`` records is a ``ValueError``.
    """
    _check_records(records)
    n = check_int(n, "n", minimum=0)
    gen = check_rng(rng)
    keys = np.empty(0)
    pos = np.empty(0, dtype=np.int64)
    items: list = []
    total = 0
    for chunk in _chunks(records):
        k = gen.random(len(chunk))
        p = np.arange(total, total + len(chunk))
        total += len(chunk)
        if n == 0:
            continue
        if len(items) >= n:
            sel = np.flatnonzero(k < keys.max())
            if sel.size == 0:
                continue
            k, p, chunk = k[sel], p[sel], [chunk[i] for i in sel]
        keys = np.concatenate([keys, k])
        pos = np.concatenate([pos, p])
        items.extend(chunk)
        if len(items) > n:
            keep = np.argpartition(keys, n - 1)[:n]
            keys, pos = keys[keep], pos[keep]
            items = [items[i] for i in keep]
    if total < n:
        raise ValueError(f"n must be <= the number of records ({total}), got {n}")
    order = np.argsort(pos, kind="stable")
    return [items[i] for i in order]


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
    vals = np.empty(0)
    pos = np.empty(0, dtype=np.int64)
    items: list = []
    total = 0
    for chunk in _chunks(records):
        v = np.array([_value(get(r), total + i) for i, r in enumerate(chunk)], dtype=float)
        p = np.arange(total, total + len(chunk))
        total += len(chunk)
        if n == 0:
            continue
        if len(items) >= n:
            sel = np.flatnonzero(v > vals.min())  # ties with the current n-th go to the earlier
            if sel.size == 0:
                continue
            v, p, chunk = v[sel], p[sel], [chunk[i] for i in sel]
        vals = np.concatenate([vals, v])
        pos = np.concatenate([pos, p])
        items.extend(chunk)
        if len(items) > n:
            keep = np.lexsort((pos, -vals))[:n]
            vals, pos = vals[keep], pos[keep]
            items = [items[i] for i in keep]
    if total < n:
        raise ValueError(f"n must be <= the number of records ({total}), got {n}")
    order = np.lexsort((pos, -vals))
    return [items[i] for i in order]
