"""stratppi's own input checks, built on the shared vocabulary in :mod:`._checks`.

Everything here follows ``_checks``' rule: wrong type -> ``TypeError``, wrong value (shape, range,
NaN/inf, emptiness, length mismatch, unknown option) -> ``ValueError``; every message starts with
the argument's name and says what was received. What is specific to StratPPI lives here: stratum
labels (ints, strings or objects) and their fast encoding to codes 0..K-1, stratum weights,
``alpha`` / ``alternative`` / ``ddof`` / ``lam_optim_mode``, and ppi_py-style sample weights.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from ._checks import (
    check_array,
    check_float,
    check_int,
    check_option,
    describe,
)

ALTERNATIVES = ("two-sided", "larger", "smaller")
# scipy.stats spellings accepted as aliases of ppi_py's / statsmodels' names
_ALTERNATIVE_ALIASES = {"greater": "larger", "less": "smaller"}


def as_2d(value, name: str):
    """(n,) or (n, d) real array -> ((n, d) float64, was_1d)."""
    arr = check_array(value, name, ndim=(1, 2))
    if arr.ndim == 1:
        return arr[:, None], True
    return arr, False


def check_same_cols(**arrays) -> int:
    """All keyword (n, d) arrays have the same number of columns; returns it."""
    names = list(arrays)
    d0 = arrays[names[0]].shape[1]
    for k in names[1:]:
        if arrays[k].shape[1] != d0:
            raise ValueError(
                f"{k} has {arrays[k].shape[1]} columns but {names[0]} has {d0}; they must match"
            )
    return d0


def check_alpha(alpha) -> float:
    return check_float(
        alpha, "alpha", minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )


def check_alternative(alternative) -> str:
    """Validate `alternative`; "greater" / "less" (scipy's names) map to "larger" / "smaller"."""
    if isinstance(alternative, str):
        alternative = _ALTERNATIVE_ALIASES.get(alternative, alternative)
    return check_option(alternative, "alternative", ALTERNATIVES)


def check_ddof(ddof) -> int:
    return check_option(check_int(ddof, "ddof"), "ddof", (0, 1))


def check_optim_mode(mode) -> str:
    return check_option(mode, "lam_optim_mode", ("overall", "element"))


def sample_weights(w, name: str, n: int) -> np.ndarray:
    """ppi_py's per-sample weights: None -> ones; else (n,) non-negative, rescaled to mean 1."""
    if w is None:
        return np.ones(n)
    arr = check_array(w, name, ndim=1)
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but the data have {n} rows")
    if np.any(arr < 0) or arr.sum() <= 0:
        raise ValueError(f"{name} must be non-negative and not all zero, got min {arr.min():.3g}")
    return arr / arr.sum() * n


# --- stratum labels -----------------------------------------------------------------------------


def check_labels(value, name: str, n: int) -> np.ndarray:
    """Stratum labels: 1-d, length n; integers, integral floats, strings, or objects (str / int).

    Returns an int64 array or a fixed-width str / bytes array. Object arrays (e.g. a pandas column
    of strings) must hold only str or only int.
    """
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be an array of stratum labels, got {describe(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:  # ragged nested sequences
        raise TypeError(f"{name} must be a 1-d array of stratum labels ({e})") from None
    kind = arr.dtype.kind
    if kind not in "biufUSO" or (kind == "O" and arr.ndim != 1):
        raise TypeError(f"{name} must hold integer or string stratum labels, got {describe(arr)}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d (one stratum label per row), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but the data have {n} rows")
    if kind == "O":
        kinds = set(map(type, arr.tolist()))
        if kinds and all(issubclass(t, str) for t in kinds):
            return arr.astype(str)
        if kinds and all(issubclass(t, int) and not issubclass(t, bool) for t in kinds):
            return arr.astype(np.int64)
        raise TypeError(
            f"{name} must hold integer or string stratum labels, got objects of types "
            f"{sorted(t.__name__ for t in kinds)}"
        )
    if kind in "US":
        return arr
    if kind == "b":
        return arr.astype(np.int64)
    if kind == "f":
        return check_array(arr, name, dtype="int", allow_empty=True)
    return arr.astype(np.int64, copy=False)


def _int_codes(s, su):
    """Integer labels -> (sorted unique labels, codes of s, codes of su)."""
    lo = min(s.min(initial=0), su.min(initial=0))
    hi = max(s.max(initial=0), su.max(initial=0))
    if lo >= 0 and hi < max(4 * (s.size + su.size), 1 << 16):  # O(n + N): bincount + lookup
        present = (np.bincount(s, minlength=hi + 1) + np.bincount(su, minlength=hi + 1)) > 0
        lut = np.cumsum(present) - 1
        return np.flatnonzero(present), lut[s], lut[su]
    labels, inv = np.unique(np.concatenate([s, su]), return_inverse=True)
    return labels, inv[: s.size], inv[s.size :]


def _column_extent(u, block: int = 256):
    """Per-column (min, max) of an (M, L) unsigned array (blocked: fast for short rows)."""
    M, L = u.shape
    m = (M // block) * block
    lo = np.full(L, np.iinfo(u.dtype).max, dtype=np.uint64)
    hi = np.zeros(L, dtype=np.uint64)
    if m:
        rows = u[:m].reshape(-1, block * L)
        lo = np.minimum(lo, rows.min(0).reshape(block, L).min(0))
        hi = np.maximum(hi, rows.max(0).reshape(block, L).max(0))
    if m < M:
        lo = np.minimum(lo, u[m:].min(0))
        hi = np.maximum(hi, u[m:].max(0))
    return lo, hi


def _text_codes(s, su):
    """String labels -> (sorted unique labels, codes of s, codes of su), exactly, without sorting
    the n + N strings (np.unique's string sort was ~35x slower than the integer path).

    Each fixed-width label is a row of code units (uint32 for str, uint8 for bytes). Only the
    columns that vary matter; their values are packed into one exact mixed-radix integer key
    (key < prod of the column spans < 2^63), and the keys are encoded by bincount (small key
    range) or an integer np.unique. The K distinct labels are then sorted as strings. Falls back
    to np.unique on the strings when the varying columns do not fit in 63 bits.
    """
    width = max(s.dtype.itemsize, su.dtype.itemsize)
    if width == 0:  # every label is the empty string
        return (
            np.asarray([""], dtype=s.dtype),
            np.zeros(s.size, np.int64),
            np.zeros(su.size, np.int64),
        )
    kind = s.dtype.kind
    dtype = np.dtype(f"{kind}{width // (4 if kind == 'U' else 1)}")
    unit = np.uint32 if kind == "U" else np.uint8
    parts = [np.ascontiguousarray(a, dtype=dtype) for a in (s, su)]
    rows = [a.view(unit).reshape(a.size, -1) for a in parts]
    ext = [_column_extent(r) for r in rows if r.shape[0]]
    lo = np.minimum.reduce([e[0] for e in ext])
    hi = np.maximum.reduce([e[1] for e in ext])
    varying = np.flatnonzero(hi > lo)
    radix, P = 1, np.zeros(rows[0].shape[1], dtype=np.uint64)
    for j in varying:
        P[j] = radix
        radix *= int(hi[j] - lo[j]) + 1
        if radix >= 2**63:
            labels, inv = np.unique(np.concatenate(parts), return_inverse=True)
            return labels, inv[: s.size], inv[s.size :]
    if varying.size:
        a, b = int(varying[0]), int(varying[-1]) + 1
        offset = np.uint64(int(lo[a:b] @ P[a:b]) % 2**64)
        # u @ P wraps modulo 2^64; the true key is < radix < 2^63, so the difference is exact
        keys = [(r[:, a:b] @ P[a:b] - offset).astype(np.int64) for r in rows]
    else:
        keys = [np.zeros(r.shape[0], np.int64) for r in rows]
    if radix <= max(4 * (s.size + su.size), 1 << 16):
        present = (
            np.bincount(keys[0], minlength=radix) + np.bincount(keys[1], minlength=radix)
        ) > 0
        lut = np.cumsum(present) - 1
        codes = [lut[k] for k in keys]
        K = int(present.sum())
    else:
        _, inv = np.unique(np.concatenate(keys), return_inverse=True)
        codes = [inv[: s.size], inv[s.size :]]
        K = int(inv.max()) + 1
    reps = np.empty(K, dtype=dtype)  # one label per code, taken from any row with that code
    for c, a in zip(codes, parts):
        row = np.full(K, -1)
        row[c] = np.arange(c.size)
        reps[row >= 0] = a[row[row >= 0]]
    order = np.argsort(reps, kind="stable")
    rank = np.empty(K, np.int64)
    rank[order] = np.arange(K)
    return reps[order], rank[codes[0]], rank[codes[1]]


def encode_strata(strata, strata_unlabeled, n: int, N: int):
    """Validate both label arrays and encode them jointly: (labels (K,), codes (n,), codes (N,)).

    `labels` are the sorted unique labels of the two arrays together; codes index into them.
    """
    s = check_labels(strata, "strata", n)
    su = check_labels(strata_unlabeled, "strata_unlabeled", N)
    text_s, text_u = s.dtype.kind in "US", su.dtype.kind in "US"
    if text_s != text_u or (text_s and s.dtype.kind != su.dtype.kind):
        raise TypeError(
            "strata and strata_unlabeled must hold labels of one type, got "
            f"{describe(s)} and {describe(su)}"
        )
    if text_s:
        return _text_codes(s, su)
    return _int_codes(s, su)


def resolve_strata(strata, strata_unlabeled, n: int, N: int, weights):
    """Encode labels to codes 0..K-1 over the union of labels; resolve stratum weights.

    Returns (labels (K,), codes (n,), codes_unlabeled (N,), weights (K,) summing to 1).
    `weights=None` means N_k / N from the unlabelled pool; an array is aligned with the sorted
    unique labels; a mapping gives {label: weight}. Weights are normalised to sum to 1.
    """
    labels, codes, codes_u = encode_strata(strata, strata_unlabeled, n, N)
    K = labels.shape[0]
    if weights is None:
        w = np.bincount(codes_u, minlength=K).astype(np.float64)
    elif isinstance(weights, Mapping):
        keys = {k.item() if hasattr(k, "item") else k: v for k, v in weights.items()}
        missing = [lab for lab in labels.tolist() if lab not in keys]
        if missing:
            raise ValueError(f"weights has no entry for strata {missing!r}")
        w = check_array([keys[lab] for lab in labels.tolist()], "weights", ndim=1)
    else:
        w = check_array(weights, "weights", ndim=1)
        if w.shape[0] != K:
            raise ValueError(
                f"weights has length {w.shape[0]} but there are {K} strata (sorted unique labels "
                f"of strata and strata_unlabeled: {labels.tolist()})"
            )
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be non-negative and not all zero, got {w.tolist()}")
    if weights is None:
        orphan = (w == 0) & (np.bincount(codes, minlength=K) > 0)
        if np.any(orphan):
            warnings.warn(
                f"strata {labels[orphan].tolist()} have labelled examples but no unlabelled ones, "
                "so weight N_k / N = 0: their labels are ignored (pass weights= to use them)",
                UserWarning,
                stacklevel=4,
            )
    return labels, codes, codes_u, w / w.sum()


def group_sums(codes, K: int, A):
    """Per-stratum column sums: codes (n,), A (n, d) -> (K, d)."""
    out = np.empty((K, A.shape[1]))
    for j in range(A.shape[1]):
        out[:, j] = np.bincount(codes, weights=A[:, j], minlength=K)
    return out


def group_means(codes, K: int, A, counts):
    with np.errstate(invalid="ignore", divide="ignore"):
        return group_sums(codes, K, A) / np.maximum(counts, 1)[:, None]
