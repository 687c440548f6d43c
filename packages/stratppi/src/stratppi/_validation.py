"""Input checks shared by every public function: clear errors that name the argument."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

ALTERNATIVES = ("two-sided", "larger", "smaller")


def as_float_array(name: str, a, *, ndim: tuple[int, ...] = (1, 2), allow_empty: bool = False):
    """Return `a` as a float64 array after checking dtype, ndim, emptiness and finiteness."""
    if a is None:
        raise TypeError(f"{name} is required, got None")
    arr = np.asarray(a)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim not in ndim:
        raise ValueError(f"{name} must have ndim in {ndim}, got shape {arr.shape}")
    if arr.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def as_2d(name: str, a):
    """(n,) or (n, d) -> ((n, d) float64, was_1d)."""
    arr = as_float_array(name, a)
    if arr.ndim == 1:
        return arr[:, None], True
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has zero columns")
    return arr, False


def check_same_rows(**arrays) -> None:
    names = list(arrays)
    n0 = arrays[names[0]].shape[0]
    for k in names[1:]:
        if arrays[k].shape[0] != n0:
            raise ValueError(
                f"{k} has {arrays[k].shape[0]} rows but {names[0]} has {n0}; they must match"
            )


def check_same_cols(**arrays) -> None:
    names = list(arrays)
    d0 = arrays[names[0]].shape[1]
    for k in names[1:]:
        if arrays[k].shape[1] != d0:
            raise ValueError(
                f"{k} has {arrays[k].shape[1]} columns but {names[0]} has {d0}; they must match"
            )


def as_labels(name: str, a, n: int):
    """Stratum labels: 1-d, length n, integer-like or strings, no NaN."""
    if a is None:
        raise TypeError(f"{name} is required, got None")
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d (one stratum label per row), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but the data have {n} rows")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise TypeError(
                f"{name} must hold integer (or string) stratum labels; got non-integer floats"
            )
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "biuUS":
        raise TypeError(
            f"{name} must hold integer (or string) stratum labels, got dtype {arr.dtype}"
        )
    return arr


def check_alpha(alpha) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a float in (0, 1), got {alpha!r}") from None
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return a


# scipy.stats spellings accepted as aliases of ppi_py's / statsmodels' names
_ALTERNATIVE_ALIASES = {"greater": "larger", "less": "smaller"}


def check_alternative(alternative) -> str:
    """Validate `alternative`; "greater" / "less" (scipy's names) map to "larger" / "smaller"."""
    if isinstance(alternative, str):
        alternative = _ALTERNATIVE_ALIASES.get(alternative, alternative)
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"alternative must be one of {ALTERNATIVES} (or 'greater' / 'less'), "
            f"got {alternative!r}"
        )
    return alternative


def check_ddof(ddof) -> int:
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    return int(ddof)


def check_optim_mode(mode) -> str:
    if mode not in ("overall", "element"):
        raise ValueError(f"lam_optim_mode must be 'overall' or 'element', got {mode!r}")
    return mode


def resolve_strata(strata, strata_unlabeled, n: int, N: int, weights):
    """Encode labels to codes 0..K-1 over the union of labels; resolve stratum weights.

    Returns (labels (K,), codes (n,), codes_unlabeled (N,), weights (K,) summing to 1).
    `weights=None` means N_k / N from the unlabelled pool; an array is aligned with the sorted
    unique labels; a mapping gives {label: weight}. Weights are normalised to sum to 1.
    """
    s = as_labels("strata", strata, n)
    su = as_labels("strata_unlabeled", strata_unlabeled, N)
    if (
        s.dtype.kind in "iub"
        and su.dtype.kind in "iub"
        and min(s.min(initial=0), su.min(initial=0)) >= 0
        and max(s.max(initial=0), su.max(initial=0)) < 1_000_000
    ):  # fast path, O(n + N): small non-negative integer labels
        s, su = s.astype(np.int64), su.astype(np.int64)
        top = int(max(s.max(initial=0), su.max(initial=0))) + 1
        present = (np.bincount(s, minlength=top) + np.bincount(su, minlength=top)) > 0
        labels = np.flatnonzero(present)
        lut = np.cumsum(present) - 1
        codes, codes_u = lut[s], lut[su]
    else:
        try:
            labels, inv = np.unique(np.concatenate([s, su]), return_inverse=True)
        except TypeError:
            raise TypeError(
                "strata and strata_unlabeled must hold labels of one comparable type"
            ) from None
        codes, codes_u = inv[:n], inv[n:]
    K = labels.shape[0]
    if weights is None:
        w = np.bincount(codes_u, minlength=K).astype(np.float64)
    elif isinstance(weights, Mapping):
        w = np.zeros(K)
        keys = {k.item() if hasattr(k, "item") else k: v for k, v in weights.items()}
        for i, lab in enumerate(labels.tolist()):
            if lab not in keys:
                raise ValueError(f"weights has no entry for stratum {lab!r}")
            w[i] = keys[lab]
    else:
        w = as_float_array("weights", weights, ndim=(1,))
        if w.shape[0] != K:
            raise ValueError(
                f"weights has length {w.shape[0]} but there are {K} strata (sorted unique labels "
                f"of strata and strata_unlabeled: {labels.tolist()})"
            )
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
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
