"""Input checks shared by the package, built on the vendored vocabulary ``_checks``.

Wrong type -> ``TypeError``, wrong value -> ``ValueError``, both naming the argument.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_rng, describe

__all__ = [
    "as_float_array",
    "check_centers_for",
    "check_groups",
    "check_k",
    "check_rng",
    "check_users",
    "check_weights",
    "nonnegative",
]


def as_float_array(x, name: str, ndim: int | None = None) -> np.ndarray:
    """A finite, non-empty float64 array (``ndim`` dimensions when given)."""
    return check_array(x, name, ndim=ndim)


def nonnegative(arr: np.ndarray, name: str) -> np.ndarray:
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got min {arr.min()}")
    return arr


def check_weights(weights, n: int) -> np.ndarray:
    """(N,) non-negative weights normalised to sum to one (uniform if None)."""
    if weights is None:
        return np.full(n, 1.0 / n)
    w = nonnegative(check_array(weights, "weights", ndim=1, shape=(n,)), "weights")
    if w.sum() <= 0:
        raise ValueError("weights must have a positive sum, got all zeros")
    return w / w.sum()


def check_k(k, n_users: int) -> int:
    return check_int(k, "k", minimum=1, maximum=n_users)


_USER_API = ("n_users", "dim", "weights", "loss_to", "losses", "query")


def check_users(users):
    missing = [a for a in _USER_API if not hasattr(users, a)]
    if isinstance(users, type) or missing:
        why = "a class, not an instance" if isinstance(users, type) else f"missing {missing[0]!r}"
        raise TypeError(
            "users must be a QuadraticUsers, RegressionUsers or CallableUsers population "
            f"({why}), got {describe(users)}"
        )
    return users


def check_groups(groups, n_users: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (labels (G,), codes (N,) int in [0, G))."""
    if groups is None or isinstance(groups, str | bytes):
        raise TypeError(f"groups must be an (N,) array of labels, got {describe(groups)}")
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != n_users:
        raise ValueError(f"groups must have shape ({n_users},) (one label per user), got {g.shape}")
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError("groups must not contain NaN or infinite labels")
    try:
        labels, codes = np.unique(g, return_inverse=True)
    except TypeError as exc:  # labels that cannot be sorted together
        raise TypeError(f"groups must hold sortable labels of one kind ({exc})") from None
    return labels, codes.reshape(-1)


def check_centers_for(users, centers) -> np.ndarray:
    c = check_array(centers, "centers", ndim=2)
    if c.shape[1] != users.dim:
        raise ValueError(f"centers must have shape (k, {users.dim}) with k >= 1, got {c.shape}")
    return c
