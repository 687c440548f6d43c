"""Staged, streaming filtering of records with per-stage accounting.

A :class:`Pipeline` pulls records in batches of ``batch_size``, runs every stage on the records
that survived the stages before it (so an expensive stage, such as a text encoder, only sees
survivors), and yields the survivors lazily and in input order. Scoring stages write their
``similarity_*`` field into the records they pass (a shallow copy: the input dicts are not
modified) and keep a record when its score is ``>= t``.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ._checks import check_callable, check_float, check_int, describe
from .schema import EMBEDDING_DIM

__all__ = [
    "AudioStage",
    "DedupStage",
    "DurationStage",
    "Pipeline",
    "PredicateStage",
    "Report",
    "Stage",
    "StageCount",
    "TextStage",
    "ThresholdStage",
]


class _BadRecord(ValueError):
    """Raised by a stage about record ``index`` of its batch; the caller adds the position."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


class Stage:
    """Base class of the pipeline stages.

    A stage maps a batch (list of records, in order) to ``(records, keep)``: the records with
    anything it writes, and a boolean mask of the ones it keeps. ``begin()`` makes the state
    of one run (``DedupStage`` remembers the keys it has seen across batches). Calling a stage
    on records, ``stage(records)``, runs it alone and returns the kept records.
    """

    name: str = "Stage"

    def begin(self) -> Any:
        return None

    def apply(self, batch: list, state: Any) -> tuple[list, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def __call__(self, records: Iterable[Mapping]) -> list[dict]:
        return list(Pipeline([self], batch_size=4096).run(records))

    def __repr__(self) -> str:
        return self.name


def _get(record: Mapping, key: str, index: int) -> Any:
    try:
        return record[key]
    except KeyError:
        raise _BadRecord(index, f"missing field {key!r}") from None


def _number(record: Mapping, key: str, index: int) -> float:
    value = _get(record, key, index)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise _BadRecord(index, f"field {key!r} must be a number, got {describe(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise _BadRecord(index, f"field {key!r} must be finite, got {value}")
    return value


_BOOLS = (bool, np.bool_)


def _field(batch: list, key: str) -> list:
    try:
        return [r[key] for r in batch]
    except KeyError:
        for i, r in enumerate(batch):
            _get(r, key, i)
        raise  # pragma: no cover - the loop above raised


def _numbers(batch: list, key: str) -> np.ndarray:
    """Field ``key`` of every record as float64 (numbers only: no bools, str, None, NaN)."""
    values = _field(batch, key)
    arr = np.array(values) if values else np.zeros(0)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or any(type(v) in _BOOLS for v in values):
        for i, r in enumerate(batch):  # the slow path only to name the culprit
            _number(r, key, i)
        raise _BadRecord(0, f"field {key!r} must hold numbers")  # pragma: no cover
    if arr.dtype != np.float32:  # float32 embeddings (DISCO's) stay float32; the rest float64
        arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise _BadRecord(i, f"field {key!r} must be finite, got {arr[i]}")
    return arr


def _written(batch: list, field_name: str, scores: np.ndarray, keep: np.ndarray) -> list:
    out = list(batch)
    values = scores.tolist()  # Python floats
    for i in np.flatnonzero(keep).tolist():
        r = dict(batch[i])
        r[field_name] = values[i]
        out[i] = r
    return out


class _ScoreStage(Stage):
    field: str
    t: float

    def score(self, records: Sequence[Mapping]) -> np.ndarray:
        """The stage's score of each record (float64, one per record), without filtering."""
        batch = list(records)
        try:
            return self._score(batch)
        except _BadRecord as e:
            raise ValueError(f"{self.name}: record {e.index}: {e.reason}") from None

    def _score(self, batch: list) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def apply(self, batch, state):
        scores = self._score(batch) if batch else np.zeros(0)
        keep = scores >= self.t
        return _written(batch, self.field, scores, keep), keep


class DurationStage(_ScoreStage):
    """Writes ``similarity_duration`` = :func:`~disco_filter.duration_similarity` of
    ``track_duration_spotify_ms`` and ``video_duration_youtube_sec``; keeps ``>= t``."""

    field = "similarity_duration"
    track_field = "track_duration_spotify_ms"
    video_field = "video_duration_youtube_sec"

    def __init__(self, t) -> None:
        self.t = check_float(t, "t", minimum=0.0, maximum=1.0)
        self.name = "DurationStage"

    def _score(self, batch):
        t = _numbers(batch, self.track_field)
        v = _numbers(batch, self.video_field)
        for arr, key in ((t, self.track_field), (v, self.video_field)):
            bad = np.flatnonzero(arr <= 0)
            if bad.size:
                i = int(bad[0])
                raise _BadRecord(i, f"field {key!r} must be > 0, got {batch[i][key]!r}")
        t = t / 1000.0
        return 1.0 - np.abs(t - v) / np.maximum(t, v)

    def __repr__(self) -> str:
        return f"DurationStage({self.t})"


def _stack_embeddings(batch: list, key: str, dim: int | None) -> np.ndarray:
    rows = _field(batch, key)
    try:
        arr = np.array(rows)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.dtype.kind not in "iuf":  # str, bool, None, ragged objects
        for i, row in enumerate(rows):
            a = np.asarray(row) if isinstance(row, np.ndarray | list | tuple) else None
            if a is None or a.dtype.kind not in "iuf":
                raise _BadRecord(i, f"field {key!r} must be a list of {dim} numbers")
        arr = None
    if arr is None or arr.ndim != 2 or (dim is not None and arr.shape[1] != dim):
        for i, row in enumerate(rows):  # find the culprit for the message
            try:
                a = np.asarray(row)
            except (TypeError, ValueError):
                a = np.asarray(None)
            if a.dtype.kind not in "iuf":
                raise _BadRecord(i, f"field {key!r} must be a list of {dim} numbers")
            want = dim if dim is not None else np.asarray(rows[0]).shape
            if a.ndim != 1 or (dim is not None and a.shape[0] != dim):
                raise _BadRecord(i, f"field {key!r} must be {want} numbers, got shape {a.shape}")
        raise _BadRecord(0, f"field {key!r}: embeddings of different lengths")
    if arr.dtype != np.float32:  # float32 embeddings (DISCO's) stay float32; the rest float64
        arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.all(np.isfinite(arr), axis=1))[0])
        raise _BadRecord(i, f"field {key!r} must be finite")
    return arr


def _row_cosine(a: np.ndarray, b: np.ndarray, key_a: str, key_b: str) -> np.ndarray:
    if a.dtype != b.dtype:
        a, b = a.astype(np.float64, copy=False), b.astype(np.float64, copy=False)
    na = np.sqrt(np.einsum("ij,ij->i", a, a))
    nb = np.sqrt(np.einsum("ij,ij->i", b, b))
    for norms, key in ((na, key_a), (nb, key_b)):
        zero = np.flatnonzero(norms == 0)
        if zero.size:
            raise _BadRecord(int(zero[0]), f"field {key!r} is all zeros (no direction)")
    out = np.einsum("ij,ij->i", a, b) / (na * nb)
    return np.clip(out.astype(np.float64, copy=False), -1.0, 1.0)


class AudioStage(_ScoreStage):
    """Writes ``similarity_audio`` = cosine of ``audio_embedding_spotify`` and
    ``audio_embedding_youtube`` (512 numbers each: lists or arrays); keeps ``>= t``.

    Computed in float64, or in float32 when both embeddings of every record of a batch are
    float32 arrays (as DISCO's parquet files load; about 1e-6 relative error)."""

    field = "similarity_audio"
    spotify_field = "audio_embedding_spotify"
    youtube_field = "audio_embedding_youtube"

    def __init__(self, t) -> None:
        self.t = check_float(t, "t", minimum=-1.0, maximum=1.0)
        self.name = "AudioStage"

    def _score(self, batch):
        a = _stack_embeddings(batch, self.spotify_field, EMBEDDING_DIM)
        b = _stack_embeddings(batch, self.youtube_field, EMBEDDING_DIM)
        return _row_cosine(a, b, self.spotify_field, self.youtube_field)

    def __repr__(self) -> str:
        return f"AudioStage({self.t})"


#: DISCO-10M's names for the two text scores; other pairs get ``similarity_<query>_<target>``
TEXT_SCORE_FIELDS = {
    ("search_query_youtube", "video_title_youtube"): "similarity_query_video_title",
    ("search_query_youtube", "video_description_youtube"): "similarity_query_description",
}


def _encode(encoder: Any, texts: list[str]) -> np.ndarray:
    fn = encoder.encode if hasattr(encoder, "encode") else encoder
    out = fn(texts)
    if hasattr(out, "detach"):  # a torch tensor from a sentence encoder
        out = out.detach().cpu().numpy()
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"encoder must return an (n, d) array of numbers, got {describe(out)}"
        ) from None
    if arr.ndim != 2 or arr.shape[0] != len(texts):
        raise ValueError(
            f"encoder must return shape ({len(texts)}, d) for {len(texts)} texts, got {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError("encoder returned NaN or infinite values")
    return arr


class TextStage(_ScoreStage):
    """Writes the cosine of the sentence embeddings of fields ``query`` and ``target``; keeps
    ``>= t``.

    ``encoder`` has ``encode(list[str]) -> (n, d)`` (or is such a callable); it is called once
    per batch, on the batch's queries followed by its targets. The score field is DISCO's name for the pair
    (``search_query_youtube`` with ``video_title_youtube`` -> ``similarity_query_video_title``,
    with ``video_description_youtube`` -> ``similarity_query_description``), else
    ``similarity_<query>_<target>``; it is the attribute ``field``.
    """

    def __init__(self, query, target, t, *, encoder) -> None:
        for value, name in ((query, "query"), (target, "target")):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a field name (str), got {describe(value)}")
            if not value:
                raise ValueError(f"{name} must be a non-empty field name")
        self.query = query
        self.target = target
        self.t = check_float(t, "t", minimum=-1.0, maximum=1.0)
        if isinstance(encoder, str | bytes) or not (
            callable(getattr(encoder, "encode", None)) or callable(encoder)
        ):
            raise TypeError(
                f"encoder must have an encode(list[str]) method or be callable, got {describe(encoder)}"
            )
        self.encoder = encoder
        self.field = TEXT_SCORE_FIELDS.get((query, target), f"similarity_{query}_{target}")
        self.name = "TextStage"

    def _score(self, batch):
        qs, ts = [], []
        for i, r in enumerate(batch):
            for key, out in ((self.query, qs), (self.target, ts)):
                value = _get(r, key, i)
                if not isinstance(value, str):
                    raise _BadRecord(i, f"field {key!r} must be a string, got {describe(value)}")
                out.append(value)
        emb = _encode(self.encoder, qs + ts)  # one call per batch: queries, then targets
        a, b = emb[: len(qs)], emb[len(qs) :]
        return _row_cosine(a, b, self.query, self.target)

    def __repr__(self) -> str:
        return f"TextStage({self.query!r}, {self.target!r}, {self.t})"


class ThresholdStage(Stage):
    """Keeps the records whose numeric field ``field`` is ``>= t`` (NaN or a missing field is
    a ``ValueError``, never a silent drop)."""

    def __init__(self, field, t) -> None:
        if not isinstance(field, str):
            raise TypeError(f"field must be a field name (str), got {describe(field)}")
        self.field = field
        self.t = check_float(t, "t")
        self.name = "ThresholdStage"

    def apply(self, batch, state):
        return batch, _numbers(batch, self.field) >= self.t

    def __repr__(self) -> str:
        return f"ThresholdStage({self.field!r}, {self.t})"


def _hashable(value: Any) -> Hashable:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.ndarray):
        return (value.shape, value.tobytes())
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


class DedupStage(Stage):
    """Keeps the first record (in input order) of each value of ``key``: a field name, a
    tuple of field names, or a callable ``key(record)``. State spans the batches of a run."""

    def __init__(self, key) -> None:
        if isinstance(key, str):
            pass
        elif isinstance(key, tuple | list):
            if not key or not all(isinstance(k, str) for k in key):
                raise TypeError(
                    f"key must be a field name, a tuple of them or a callable, got {describe(key)}"
                )
            key = tuple(key)
        elif not callable(key):
            raise TypeError(
                f"key must be a field name, a tuple of them or a callable, got {describe(key)}"
            )
        self.key = key
        self.name = "DedupStage"

    def begin(self):
        return set()

    def _key(self, record, i):
        if isinstance(self.key, str):
            value = _get(record, self.key, i)
        elif isinstance(self.key, tuple):
            value = tuple(_get(record, k, i) for k in self.key)
        else:
            value = self.key(record)
        try:
            hash(value)
        except TypeError:
            value = _hashable(value)
        return value

    def apply(self, batch, state):
        keep = np.zeros(len(batch), dtype=bool)
        for i, r in enumerate(batch):
            k = self._key(r, i)
            if k not in state:
                state.add(k)
                keep[i] = True
        return batch, keep

    def __repr__(self) -> str:
        return f"DedupStage({self.key!r})"


class PredicateStage(Stage):
    """Keeps the records for which ``fn(record)`` is true."""

    def __init__(self, fn) -> None:
        self.fn = check_callable(fn, "fn")
        self.name = "PredicateStage"

    def apply(self, batch, state):
        return batch, np.array([bool(self.fn(r)) for r in batch], dtype=bool)

    def __repr__(self) -> str:
        return f"PredicateStage({getattr(self.fn, '__name__', self.fn)!r})"


class StageCount(NamedTuple):
    """One stage's line of a :class:`Report`: records it saw and records it passed."""

    name: str
    n_in: int
    n_passed: int


@dataclass(frozen=True)
class Report:
    """Accounting of one pipeline run: ``n_in`` records read, ``n_kept`` yielded, and
    ``stages``: one ``(name, n_in, n_passed)`` per stage, in order. Stage ``k`` sees exactly the
    records stage ``k - 1`` passed, so ``stages[0].n_in == n_in`` and the last ``n_passed`` is
    ``n_kept``."""

    n_in: int
    n_kept: int
    stages: list = field(default_factory=list)

    @property
    def n_dropped(self) -> int:
        return self.n_in - self.n_kept

    @property
    def kept_fraction(self) -> float:
        """``n_kept / n_in`` (NaN-free: 0.0 for an empty run)."""
        return self.n_kept / self.n_in if self.n_in else 0.0


class _Run:
    def __init__(self, stages: list) -> None:
        self.n_in = 0
        self.n_kept = 0
        self.seen = [0] * len(stages)
        self.passed = [0] * len(stages)


class Pipeline:
    """Run ``stages`` in order over a stream of records, ``batch_size`` at a time.

    ``run(records)`` returns a lazy iterator of the surviving records, in input order; stage
    ``k`` only sees the records that stages ``0..k-1`` kept. ``report`` is the
    :class:`Report` of the latest run (complete once its iterator is exhausted).
    """

    def __init__(self, stages, *, batch_size: int = 4096) -> None:
        if isinstance(stages, Stage) or not isinstance(stages, Iterable):
            raise TypeError(f"stages must be a sequence of Stage objects, got {describe(stages)}")
        stages = list(stages)
        for s in stages:
            if not isinstance(s, Stage):
                raise TypeError(f"stages must hold Stage objects, got {describe(s)}")
        self.stages = stages
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self._last = _Run(stages)

    @property
    def report(self) -> Report:
        run = self._last
        return Report(
            n_in=run.n_in,
            n_kept=run.n_kept,
            stages=[StageCount(s.name, n, p) for s, n, p in zip(self.stages, run.seen, run.passed)],
        )

    def run(self, records: Iterable[Mapping]) -> Iterator[dict]:
        if isinstance(records, Mapping | str | bytes) or not isinstance(records, Iterable):
            raise TypeError(f"records must be an iterable of dicts, got {describe(records)}")
        run = _Run(self.stages)
        self._last = run
        return self._iterate(iter(records), run)

    def _iterate(self, it: Iterator, run: _Run) -> Iterator[dict]:
        states = [s.begin() for s in self.stages]
        size = self.batch_size
        start = 0
        while True:
            batch = list(itertools.islice(it, size))
            if not batch:
                return
            if not all(type(r) is dict for r in batch):
                for i, r in enumerate(batch):
                    if not isinstance(r, Mapping):
                        raise TypeError(
                            f"records: record {start + i} must be a dict, got {describe(r)}"
                        )
            positions = np.arange(start, start + len(batch))
            start += len(batch)
            run.n_in += len(batch)
            for k, (stage, state) in enumerate(zip(self.stages, states)):
                run.seen[k] += len(batch)
                if not batch:
                    continue
                try:
                    out, keep = stage.apply(batch, state)
                except _BadRecord as e:
                    raise ValueError(
                        f"{stage.name}: record {int(positions[e.index])}: {e.reason}"
                    ) from None
                keep = np.asarray(keep, dtype=bool)
                if keep.shape != (len(batch),) or len(out) != len(batch):
                    raise ValueError(f"{stage.name} returned a mask of the wrong length")
                idx = np.flatnonzero(keep)
                positions = positions[idx]
                batch = [out[i] for i in idx.tolist()]
                run.passed[k] += len(batch)
            run.n_kept += len(batch)
            yield from batch
