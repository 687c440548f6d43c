"""The DISCO-10M row schema (field names of the released parquet files) and record checks."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = ["EMBEDDING_DIM", "EMBEDDING_FIELDS", "FIELDS", "DiscoRecord", "embedding_problem"]

EMBEDDING_DIM = 512
"""Length of every CLAP embedding in DISCO-10M (LAION-CLAP joint space)."""

#: field name -> Python type of the value, as the released parquet files load
FIELDS: dict[str, type] = {
    "track_id_spotify": str,
    "album_id_spotify": str,
    "artist_id_spotify": str,
    "track_name_spotify": str,
    "primary_artist_name_spotify": str,
    "track_duration_spotify_ms": int,
    "explicit_content_spotify": bool,
    "preview_url_spotify": str,
    "video_url_youtube": str,
    "video_title_youtube": str,
    "video_description_youtube": str,
    "video_duration_youtube_sec": float,
    "video_view_count_youtube": int,
    "video_thumbnail_url_youtube": str,
    "search_query_youtube": str,
    "similarity_duration": float,
    "similarity_query_video_title": float,
    "similarity_query_description": float,
    "similarity_audio": float,
    "audio_embedding_spotify": list,
    "audio_embedding_youtube": list,
}

#: the fields holding 512-d CLAP embeddings (any field whose name contains "embedding" is
#: checked the same way by :func:`disco_filter.read_jsonl`)
EMBEDDING_FIELDS = ("audio_embedding_spotify", "audio_embedding_youtube")


class DiscoRecord(TypedDict, total=False):
    """One DISCO-10M row as a dict (every field optional: subsets carry different columns)."""

    track_id_spotify: str
    album_id_spotify: str
    artist_id_spotify: str
    track_name_spotify: str
    primary_artist_name_spotify: str
    track_duration_spotify_ms: int
    explicit_content_spotify: bool
    preview_url_spotify: str
    video_url_youtube: str
    video_title_youtube: str
    video_description_youtube: str
    video_duration_youtube_sec: float
    video_view_count_youtube: int
    video_thumbnail_url_youtube: str
    search_query_youtube: str
    similarity_duration: float
    similarity_query_video_title: float
    similarity_query_description: float
    similarity_audio: float
    audio_embedding_spotify: list[float]
    audio_embedding_youtube: list[float]


def is_embedding_field(name: str) -> bool:
    return name in EMBEDDING_FIELDS or "embedding" in name


def embedding_problem(value: Any, *, dim: int = EMBEDDING_DIM) -> str | None:
    """Why ``value`` is not ``dim`` finite real numbers (None when it is)."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency
        np = None
    if np is not None and isinstance(value, np.ndarray):
        if value.ndim != 1 or value.shape[0] != dim:
            return f"must be {dim} numbers, got an array of shape {value.shape}"
        if value.dtype.kind not in "iuf":
            return f"must hold real numbers, got dtype {value.dtype}"
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            return "must be finite, got NaN or infinite value(s)"
        return None
    if not isinstance(value, list | tuple):
        return f"must be a list of {dim} numbers, got {type(value).__name__}"
    if len(value) != dim:
        return f"must be {dim} numbers, got {len(value)}"
    types = set(map(type, value))
    try:
        if types <= _FAST_TYPES and all(map(math.isfinite, value)):
            return None  # the common case, checked at C speed
    except OverflowError:  # an int too large for a float
        pass
    for k, x in enumerate(value):  # the slow path only to name the culprit
        if isinstance(x, bool) or not isinstance(x, int | float):
            return f"must hold numbers, got {type(x).__name__} {x!r} at position {k}"
        try:
            finite = math.isfinite(x)
        except OverflowError:
            finite = False
        if not finite:
            return f"must be finite, got {x} at position {k}"
    return None  # pragma: no cover - subclasses of int/float that are all finite


_FAST_TYPES = {float, int}


def record_problem(record: Any, required: tuple[str, ...]) -> str | None:
    """Why ``record`` is not a valid record (None when it is)."""
    if not isinstance(record, Mapping):
        return f"record must be a JSON object, got {type(record).__name__}"
    for name in required:
        if name not in record:
            return f"missing required field {name!r}"
    for name, value in record.items():
        if isinstance(name, str) and is_embedding_field(name):
            why = embedding_problem(value)
            if why is not None:
                return f"field {name!r} {why}"
    return None
