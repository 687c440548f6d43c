"""Input validation and the flat event layout shared by models and objectives.

Sequences are a list of ``(times, marks)`` pairs: ``times`` float64 (N,) strictly increasing in
[0, T], ``marks`` int (N,) in ``{0, ..., K-1}``. A bare 1-D array of times is accepted as an
unmarked sequence (all marks 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, describe


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
    """Validate one sequence and return ``(times float64 (N,), marks int64 (N,))``.

    An empty sequence (no events) is valid; ``prepare`` refuses data with no event at all.
    """
    if isinstance(seq, tuple | list) and len(seq) == 2 and not np.isscalar(seq[0]):
        times, marks = seq
    else:
        times, marks = seq, None
    times = check_array(times, f"{name} times", ndim=1, allow_empty=True)
    if times.size and times[0] < 0:
        raise ValueError(f"{name} times must be >= 0, got {times[0]}")
    if times.size > 1 and np.any(np.diff(times) <= 0):
        i = int(np.argmax(np.diff(times) <= 0))
        raise ValueError(
            f"{name} times must be strictly increasing, got {times[i]} then {times[i + 1]}"
        )
    if marks is None:
        marks = np.zeros(times.shape[0], dtype=np.int64)
    else:
        marks = check_array(marks, f"{name} marks", dtype="int", allow_empty=True)
        if marks.shape != times.shape:
            raise ValueError(
                f"{name} marks must have the shape of its times {times.shape}, got shape {marks.shape}"
            )
        marks = marks.astype(np.int64)
        if marks.size and marks.min() < 0:
            raise ValueError(f"{name} marks must be >= 0, got {marks.min()}")
    return times, marks


def check_times(t, name: str = "t") -> np.ndarray:
    """Finite 1-D float64 query times, not empty (a scalar becomes shape (1,))."""
    return np.atleast_1d(check_array(t, name, ndim=(0, 1)))


def check_positive_number(x, name: str, *, allow_zero: bool = False) -> float:
    """A finite real number > 0 (>= 0 with ``allow_zero``); bools and strings are TypeErrors."""
    return check_float(x, name, minimum=0.0, min_inclusive=allow_zero)


def check_rates(mu, name: str = "mu", K: int | None = None) -> np.ndarray:
    """(K,) finite rates > 0 from a number or a 1-D array (a number is K = 1)."""
    if np.ndim(mu) == 0 and not isinstance(mu, np.ndarray | list | tuple):
        arr = np.array([check_positive_number(mu, name)])
    else:
        arr = check_array(mu, name, ndim=(0, 1), dtype="numeric").astype(np.float64).reshape(-1)
        if np.any(arr <= 0):
            raise ValueError(f"{name} must be > 0, got {arr.min()}")
    if K is not None and arr.shape != (K,):
        raise ValueError(f"{name} must have shape ({K},) (one per mark), got shape {arr.shape}")
    return arr


def check_excitation(A, K: int, name: str = "A", *, k_from: str = "") -> np.ndarray:
    """(K, K) finite excitation >= 0; a number only when K = 1."""
    where = f" ({k_from})" if k_from else ""
    if np.ndim(A) == 0 and not isinstance(A, np.ndarray | list | tuple):
        value = check_positive_number(A, name, allow_zero=True)
        if K != 1:
            raise ValueError(f"{name} must have shape ({K}, {K}){where}, got the number {value}")
        return np.array([[value]])
    arr = check_array(A, name, dtype="numeric").astype(np.float64)
    if arr.shape == () and K == 1:
        arr = arr.reshape(1, 1)
    if arr.shape != (K, K):
        raise ValueError(f"{name} must have shape ({K}, {K}){where}, got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {arr.min()}")
    return arr


def check_model(model, name: str = "model"):
    """A parametric model instance of this package (or one with the same private protocol)."""
    needed = ("K", "params", "_theta", "_cache", "_local", "_vjp", "_compensator")
    if isinstance(model, type) or not all(hasattr(model, a) for a in needed):
        raise TypeError(
            f"{name} must be an ExpHawkes, GaussHawkes or InhomogeneousPoisson instance, "
            f"got {describe(model)}"
        )
    return model


def check_params_set(model, name: str = "model") -> None:
    if any(v is None for v in model.params.values()):
        raise ValueError(
            f"{name} parameters are not set (pass mu and A / weights, or call fit first)"
        )


def check_horizon(T, S: int, name: str = "T") -> np.ndarray:
    """(S,) horizons > 0 from a number or an (S,) array."""
    if np.ndim(T) == 0 and not isinstance(T, np.ndarray | list | tuple):
        return np.full(S, check_positive_number(T, name))
    arr = check_array(T, name, ndim=(0, 1))
    if arr.ndim == 0:
        arr = np.full(S, check_positive_number(arr[()], name))
    if arr.shape != (S,):
        raise ValueError(
            f"{name} must be a number or have shape ({S},) (one per sequence), got shape {arr.shape}"
        )
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {arr.min()}")
    return arr


def prepare(
    seqs, T=None, K: int | None = None, *, name: str = "seqs", single: bool = False
) -> Events:
    """Validate ``seqs`` (and ``T``: scalar or (S,)) and build the flat layout.

    If ``T`` is None the largest event time over all sequences is used (as the original code's
    ``max_observed``); pass the true observation window when you know it. ``single=True``: ``seqs``
    is one sequence, named ``name`` in the messages.
    """
    if single:
        pairs = [check_sequence(seqs, name=name)]
    else:
        if isinstance(seqs, np.ndarray) and seqs.ndim == 1 and seqs.dtype != object:
            seqs = [seqs]
        if not isinstance(seqs, list | tuple):
            raise TypeError(f"{name} must be a list of (times, marks) pairs, got {describe(seqs)}")
        if len(seqs) == 0:
            raise ValueError(f"{name} must not be empty (a list of sequences)")
        try:
            pairs = [check_sequence(s, name=f"{name}[{i}]") for i, s in enumerate(seqs)]
        except (TypeError, ValueError) as exc:
            if isinstance(seqs, tuple) and len(seqs) == 2:  # a lone (times, marks) pair?
                raise type(exc)(
                    f"{exc} ({name} is a list of sequences: wrap one (times, marks) pair as "
                    "[(times, marks)])"
                ) from exc
            raise
    S = len(pairs)
    lengths = np.array([p[0].shape[0] for p in pairs])
    if lengths.sum() == 0:
        raise ValueError(f"{name} contain no events")
    if T is None:
        T_arr = np.full(S, max(p[0][-1] for p in pairs if p[0].size))
    else:
        T_arr = check_horizon(T, S)
    for i, (times, _) in enumerate(pairs):
        if times.size and times[-1] > T_arr[i]:
            where = name if single else f"{name}[{i}]"
            raise ValueError(f"{where} has an event at {times[-1]}, after its window T={T_arr[i]}")
    max_mark = max((int(p[1].max()) for p in pairs if p[1].size), default=0)
    if K is None:
        K = max_mark + 1
    elif max_mark >= K:
        raise ValueError(
            f"{name} marks must be < K={K} (the model's number of marks), found {max_mark}"
        )
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
