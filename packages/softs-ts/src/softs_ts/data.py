"""Windows, splits, scaling and a CSV loader for the standard benchmark layout."""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._checks import check_array, check_bool, check_int, check_option, describe
from ._validation import check_series

__all__ = [
    "CSVData",
    "StandardScaler",
    "chronological_split",
    "load_csv",
    "sliding_windows",
    "time_features",
]


def sliding_windows(
    series, seq_len: int, pred_len: int, *, stride: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """All (history, future) windows of a ``[T, C]`` series.

    Returns ``X [N, seq_len, C]`` and ``Y [N, pred_len, C]`` with window ``i`` starting at
    ``i * stride``: ``X[i] = series[s : s + seq_len]``, ``Y[i] = series[s + seq_len : s +
    seq_len + pred_len]``, ``N = (T - seq_len - pred_len) // stride + 1`` (copies, float64).
    """
    arr = check_series(series, "series", ndim=2)
    seq_len = check_int(seq_len, "seq_len", minimum=1)
    pred_len = check_int(pred_len, "pred_len", minimum=1)
    stride = check_int(stride, "stride", minimum=1)
    T = arr.shape[0]
    if T < seq_len + pred_len:
        raise ValueError(
            f"series must have at least seq_len + pred_len = {seq_len + pred_len} rows, got {T}"
        )
    n = (T - seq_len - pred_len) // stride + 1
    win = np.lib.stride_tricks.sliding_window_view(arr, seq_len + pred_len, axis=0)
    win = win[: (n - 1) * stride + 1 : stride].transpose(0, 2, 1)  # [N, L + H, C]
    return win[:, :seq_len].copy(order="C"), win[:, seq_len:].copy(order="C")


def chronological_split(
    T: int, ratios: Sequence[float] = (0.7, 0.1, 0.2), *, seq_len: int = 0
) -> tuple[slice, slice, slice]:
    """Train/val/test row slices of a length-``T`` series, in time order.

    ``ratios`` are the (train, val, test) fractions (the authors' 7:1:2 by default; train and
    test are floored, val takes the rest). With ``seq_len > 0`` the val and test slices start
    ``seq_len`` rows earlier so that their first window's history is available (as in the
    authors' loaders); the targets never overlap.
    """
    T = check_int(T, "T", minimum=3)
    r = check_array(ratios, "ratios", ndim=1, shape=(3,))
    if np.any(r < 0) or np.any(r[[0, 2]] <= 0) or abs(r.sum() - 1.0) > 1e-9:
        raise ValueError(f"ratios must be 3 non-negative fractions summing to 1, got {r.tolist()}")
    seq_len = check_int(seq_len, "seq_len", minimum=0)
    n_train, n_test = int(T * r[0]), int(T * r[2])
    n_val = T - n_train - n_test
    if n_train < 1 or n_test < 1:
        raise ValueError(f"T={T} is too short for ratios {r.tolist()}")
    if seq_len > n_train:
        raise ValueError(f"seq_len must be <= the train length {n_train}, got {seq_len}")
    return (
        slice(0, n_train),
        slice(n_train - seq_len, n_train + n_val),
        slice(T - n_test - seq_len, T),
    )


class StandardScaler:
    """Per-channel standardisation fitted on the training rows only (population std)."""

    def __init__(self) -> None:
        self.mean_: np.ndarray | None = None
        self.scale_: np.ndarray | None = None

    def fit(self, series) -> StandardScaler:
        arr = check_series(series, "series", ndim=2)
        self.mean_ = arr.mean(axis=0)
        std = arr.std(axis=0)
        self.scale_ = np.where(std > 0, std, 1.0)
        return self

    def _fitted(self, arr: np.ndarray, name: str) -> np.ndarray:
        if self.mean_ is None:
            raise ValueError("StandardScaler is not fitted; call fit(train) first")
        if arr.shape[-1] != self.mean_.shape[0]:
            raise ValueError(
                f"{name} must have {self.mean_.shape[0]} channels (last axis), got shape {arr.shape}"
            )
        return arr

    def transform(self, series) -> np.ndarray:
        arr = self._fitted(check_array(series, "series", ndim=(2, 3)), "series")
        return (arr - self.mean_) / self.scale_

    def inverse_transform(self, series) -> np.ndarray:
        arr = self._fitted(check_array(series, "series", ndim=(2, 3)), "series")
        return arr * self.scale_ + self.mean_

    def fit_transform(self, series) -> np.ndarray:
        return self.fit(series).transform(series)


_FREQS = ("s", "t", "h", "d", "b", "w", "m")


def time_features(dates: Sequence[dt.datetime], *, freq: str = "h") -> np.ndarray:
    """The authors' "timeF" covariates ``[T, F]`` in [-0.5, 0.5] for a frequency code.

    ``h``: hour, weekday, day of month, day of year; ``t`` adds minute, ``s`` adds second;
    ``d``/``b``: weekday, day of month, day of year; ``w``: day of month, week of year;
    ``m``: month of year.
    """
    freq = check_option(freq, "freq", _FREQS)
    if isinstance(dates, str | bytes) or not hasattr(dates, "__len__"):
        raise TypeError(f"dates must be a sequence of datetimes, got {describe(dates)}")
    if len(dates) == 0:
        raise ValueError("dates must not be empty")
    for d in dates:
        if not isinstance(d, dt.datetime):
            raise TypeError(f"dates must hold datetime.datetime values, got {describe(d)}")

    def col(fn):
        return np.array([fn(d) for d in dates], dtype=np.float64)

    sec = col(lambda d: d.second / 59.0 - 0.5)
    minute = col(lambda d: d.minute / 59.0 - 0.5)
    hour = col(lambda d: d.hour / 23.0 - 0.5)
    wday = col(lambda d: d.weekday() / 6.0 - 0.5)
    mday = col(lambda d: (d.day - 1) / 30.0 - 0.5)
    yday = col(lambda d: (d.timetuple().tm_yday - 1) / 365.0 - 0.5)
    month = col(lambda d: (d.month - 1) / 11.0 - 0.5)
    week = col(lambda d: (d.isocalendar()[1] - 1) / 52.0 - 0.5)
    cols = {
        "s": [sec, minute, hour, wday, mday, yday],
        "t": [minute, hour, wday, mday, yday],
        "h": [hour, wday, mday, yday],
        "d": [wday, mday, yday],
        "b": [wday, mday, yday],
        "w": [mday, week],
        "m": [month],
    }[freq]
    return np.stack(cols, axis=1)


@dataclass(frozen=True)
class CSVData:
    """A benchmark CSV: ``values [T, C]``, column ``names``, ``dates`` and ``marks [T, F]``."""

    values: np.ndarray
    names: tuple[str, ...]
    dates: tuple[dt.datetime, ...]
    marks: np.ndarray


def load_csv(
    path, *, freq: str = "h", date_column: str = "date", parse_dates: bool = True
) -> CSVData:
    """Read a file in the standard benchmark layout (``date`` column + one column per channel).

    The user supplies the file (ETTh1.csv, traffic.csv, ...); nothing is downloaded. Values must
    be numeric and finite; ``marks`` are :func:`time_features` of the dates.
    """
    if not isinstance(path, str | Path):
        raise TypeError(f"path must be a str or Path, got {describe(path)}")
    freq = check_option(freq, "freq", _FREQS)
    if not isinstance(date_column, str):
        raise TypeError(f"date_column must be a str, got {describe(date_column)}")
    parse_dates = check_bool(parse_dates, "parse_dates")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be an existing file, got {str(path)!r}")
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        raise ValueError(f"path must hold a header and at least one row, got {len(rows)} lines")
    header = [h.strip() for h in rows[0]]
    if date_column not in header:
        raise ValueError(f"date_column {date_column!r} is not a column of {str(path)!r}: {header}")
    di = header.index(date_column)
    names = tuple(h for i, h in enumerate(header) if i != di)
    try:
        values = np.array(
            [[float(v) for i, v in enumerate(r) if i != di] for r in rows[1:]], dtype=np.float64
        )
    except ValueError as e:
        raise ValueError(f"path holds a non-numeric value ({e})") from None
    values = check_array(values, "values", ndim=2)
    dates: tuple[dt.datetime, ...] = ()
    marks = np.zeros((len(values), 0))
    if parse_dates:
        dates = tuple(dt.datetime.fromisoformat(r[di].strip()) for r in rows[1:])
        marks = time_features(dates, freq=freq)
    return CSVData(values=values, names=names, dates=dates, marks=marks)
