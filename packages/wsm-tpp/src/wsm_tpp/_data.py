"""Input validation and the flat event layout shared by models and objectives.

Sequences are a list of ``(times, marks)`` pairs: ``times`` float64 (N,) strictly increasing in
[0, T], ``marks`` int (N,) in ``{0, ..., K-1}``. A bare 1-D array of times is accepted as an
unmarked sequence (all marks 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Events:
    """All events of all sequences, concatenated sequence-major.

    Attributes:
        t: (M,) event times.
        k: (M,) marks.
        tprev: (M,) previous event time in the same sequence (0 for the first event).
        tend: (M,) horizon T of the event's sequence.
        seq: (M,) sequence index.
        T: (S,) horizons.
        padded_t: (S, Nmax) times, padded with the sequence's horizon.
        padded_k: (S, Nmax) marks, padded with 0.
        mask: (S, Nmax) True where an event exists; ``padded_t[mask]`` is ``t``.
        K: number of marks.
    """

    t: np.ndarray
    k: np.ndarray
    tprev: np.ndarray
    tend: np.ndarray
    seq: np.ndarray
    T: np.ndarray
    padded_t: np.ndarray
    padded_k: np.ndarray
    mask: np.ndarray
    K: int

    @property
    def M(self) -> int:
        return int(self.t.shape[0])


def check_sequence(seq, *, name: str = "seq") -> tuple[np.ndarray, np.ndarray]:
    """Validate one sequence and return ``(times float64 (N,), marks int64 (N,))``."""
    if isinstance(seq, tuple | list) and len(seq) == 2 and not np.isscalar(seq[0]):
        times, marks = seq
    else:
        times, marks = seq, None
    times = _as_real(times, f"{name}: times")
    if times.ndim != 1:
        raise ValueError(f"{name}: times must be 1-D, got shape {times.shape}")
    if not np.all(np.isfinite(times)):
        raise ValueError(f"{name}: times contain NaN or inf")
    if times.size and (times[0] < 0 or np.any(np.diff(times) <= 0)):
        raise ValueError(f"{name}: times must be non-negative and strictly increasing")
    if marks is None:
        marks = np.zeros(times.shape[0], dtype=np.int64)
    else:
        marks = np.asarray(marks)
        if marks.shape != times.shape:
            raise ValueError(f"{name}: marks shape {marks.shape} != times shape {times.shape}")
        if marks.size and not np.issubdtype(marks.dtype, np.integer):
            if not np.all(
                np.asarray(marks, dtype=float) == np.round(np.asarray(marks, dtype=float))
            ):
                raise TypeError(f"{name}: marks must be integers")
        marks = marks.astype(np.int64)
        if marks.size and marks.min() < 0:
            raise ValueError(f"{name}: marks must be >= 0")
    return times, marks


def _as_real(x, name: str) -> np.ndarray:
    """float64 array from real numeric input; TypeError for strings, objects, complex."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested lists
        raise TypeError(f"{name} must be real numbers: {exc}") from exc
    if arr.dtype.kind not in "biufO":  # complex, strings, datetimes, void
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}") from exc


def check_times(t, name: str = "t") -> np.ndarray:
    """Finite 1-D float64 query times (a scalar becomes shape (1,))."""
    t = np.atleast_1d(_as_real(t, name))
    if t.ndim != 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{name} contains NaN or inf")
    return t


def check_model(model, name: str = "model"):
    """A parametric model of this package (or one with the same private protocol)."""
    needed = ("K", "params", "_theta", "_cache", "_local", "_vjp", "_compensator")
    if not all(hasattr(model, a) for a in needed):
        raise TypeError(
            f"{name} must be an ExpHawkes, GaussHawkes or InhomogeneousPoisson instance, "
            f"got {type(model).__name__}"
        )
    return model


def check_positive(
    x, name: str, shape: tuple | None = None, allow_zero: bool = False
) -> np.ndarray:
    """Finite, (non-)negative float array with an optional exact shape."""
    arr = _as_real(x, name)
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if allow_zero and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0")
    if not allow_zero and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0")
    return arr


def prepare(seqs, T=None, K: int | None = None) -> Events:
    """Validate ``seqs`` (and ``T``: scalar or (S,)) and build the flat layout.

    If ``T`` is None the largest event time over all sequences is used (as the original code's
    ``max_observed``); pass the true observation window when you know it.
    """
    if isinstance(seqs, np.ndarray) and seqs.ndim == 1 and seqs.dtype != object:
        seqs = [seqs]
    if not isinstance(seqs, list | tuple):
        raise TypeError("seqs must be a list of (times, marks) pairs")
    if len(seqs) == 0:
        raise ValueError("seqs is empty")
    try:
        pairs = [check_sequence(s, name=f"seqs[{i}]") for i, s in enumerate(seqs)]
    except (TypeError, ValueError) as exc:
        if isinstance(seqs, tuple) and len(seqs) == 2:  # a lone (times, marks) pair?
            raise type(exc)(
                f"{exc} (seqs is a list of sequences: wrap one (times, marks) pair as [(times, marks)])"
            ) from exc
        raise
    S = len(pairs)
    lengths = np.array([p[0].shape[0] for p in pairs])
    if lengths.sum() == 0:
        raise ValueError("seqs contain no events")
    if T is None:
        T_arr = np.full(S, max(p[0][-1] for p in pairs if p[0].size))
    else:
        T_arr = check_positive(T, "T")
        if T_arr.ndim == 0:
            T_arr = np.full(S, float(T_arr))
        elif T_arr.shape != (S,):
            raise ValueError(f"T must be a scalar or have shape ({S},), got {T_arr.shape}")
    for i, (times, _) in enumerate(pairs):
        if times.size and times[-1] > T_arr[i]:
            raise ValueError(f"seqs[{i}] has an event after T={T_arr[i]}")
    max_mark = max((int(p[1].max()) for p in pairs if p[1].size), default=0)
    if K is None:
        K = max_mark + 1
    elif max_mark >= K:
        raise ValueError(f"marks must be < K={K}, found {max_mark}")
    nmax = int(lengths.max())
    padded_t = np.repeat(T_arr[:, None], nmax, axis=1)
    padded_k = np.zeros((S, nmax), dtype=np.int64)
    mask = np.arange(nmax)[None, :] < lengths[:, None]
    for i, (times, marks) in enumerate(pairs):
        padded_t[i, : times.size] = times
        padded_k[i, : times.size] = marks
    prev = np.concatenate([np.zeros((S, 1)), padded_t[:, :-1]], axis=1)
    seq_idx = np.repeat(np.arange(S), lengths)
    return Events(
        t=padded_t[mask],
        k=padded_k[mask],
        tprev=prev[mask],
        tend=T_arr[seq_idx],
        seq=seq_idx,
        T=T_arr,
        padded_t=padded_t,
        padded_k=padded_k,
        mask=mask,
        K=int(K),
    )
