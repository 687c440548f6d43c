"""Input checks shared by the package (clear errors naming the argument)."""

from __future__ import annotations

import numbers

import numpy as np


def as_float_array(x, name: str, ndim: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} must be array-like, got {type(x).__name__}") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    arr = arr.astype(float, copy=False)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_weights(weights, n: int) -> np.ndarray:
    """(N,) non-negative weights normalised to sum to one (uniform if None)."""
    if weights is None:
        return np.full(n, 1.0 / n)
    w = as_float_array(weights, "weights", ndim=1)
    if w.shape != (n,):
        raise ValueError(f"weights must have shape ({n},), got {w.shape}")
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be non-negative with a positive sum")
    return w / w.sum()


def check_k(k, n_users: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    k = int(k)
    if not 1 <= k <= n_users:
        raise ValueError(f"k must satisfy 1 <= k <= n_users={n_users}, got {k}")
    return k


def check_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be None, an int seed or a numpy Generator, got {type(rng).__name__}")


def check_users(users):
    for attr in ("n_users", "dim", "weights", "loss_to", "losses", "query"):
        if not hasattr(users, attr):
            raise TypeError(
                "users must be a QuadraticUsers, RegressionUsers or CallableUsers population "
                f"(missing {attr!r}), got {type(users).__name__}"
            )
    return users


def check_groups(groups, n_users: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (labels (G,), codes (N,) int in [0, G))."""
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != n_users:
        raise ValueError(f"groups must have shape ({n_users},), got {g.shape}")
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError("groups contains NaN or infinite values")
    labels, codes = np.unique(g, return_inverse=True)
    return labels, codes.reshape(-1)


def check_centers_for(users, centers) -> np.ndarray:
    c = as_float_array(centers, "centers")
    if c.ndim != 2 or c.shape[1] != users.dim or c.shape[0] == 0:
        raise ValueError(f"centers must have shape (k, {users.dim}) with k >= 1, got {c.shape}")
    return c
