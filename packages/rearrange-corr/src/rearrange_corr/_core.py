"""The rearrangement correlation r# (vectors, correlation matrices, cross matrices).

Xinbo Ai, "Adjust Pearson's r to Measure Arbitrary Monotone Dependence", NeurIPS 2024,
https://arxiv.org/abs/2205.04571 (Sec. 3: the rearrangement inequality bound and Definition of r#).

For samples x, y of length n with sample covariance s_xy,

    r#(x, y) = s_xy / |s_{x↑, y↕}|,   y↕ = y↑ if s_xy >= 0 else y↓,

where x↑ / y↑ are the increasing rearrangements (sorted copies) and y↓ the decreasing one. The
rearrangement inequality gives s_{x↑,y↓} <= s_xy <= s_{x↑,y↑}, so |r#| <= 1, with equality iff x
and y are similarly (or oppositely) ordered, i.e. related by a monotone map. Cost: two sorts and
three dot products, O(n log n). The 1/(n-1) factors cancel and are never formed.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np

from ._checks import check_same_length
from ._validation import as_data, check_nan_policy, rescaled

__all__ = ["ConstantInputWarning", "rearrangement_corr"]

# Pairs whose vectorised |r#| is at least this close to 1 are recomputed by the exact 1-d kernel,
# so that similarly ordered columns give exactly +-1 (BLAS summation order would otherwise leave
# ~1e-15 errors). This only changes *how* those entries are computed, never their definition.
_REFINE_BELOW_ONE = 1e-7


class ConstantInputWarning(RuntimeWarning):
    """An input is constant, so r# (like Pearson's r) is undefined and NaN is returned."""


def _warn_constant() -> None:
    warnings.warn(
        "an input is constant; the rearrangement correlation is undefined (NaN)",
        ConstantInputWarning,
        stacklevel=3,
    )


def _order_by_x_then_y(xc: np.ndarray, yc: np.ndarray, *, y_ascending: bool) -> np.ndarray:
    """Permutation sorting x ascending; ties in x broken by y (ascending or descending)."""
    order = np.argsort(xc)
    xs = xc[order]
    if np.any(xs[1:] == xs[:-1]):  # ties in x: break them by y so the exact check below works
        order = np.lexsort((yc if y_ascending else -yc, xc))
    return order


def _rsharp_1d(x: np.ndarray, y: np.ndarray) -> float:
    """r# of two finite (n,) float64 vectors, n >= 2. NaN if either is constant."""
    if x.min() == x.max() or y.min() == y.max():
        return np.nan
    x, y = rescaled(x), rescaled(y)  # exact powers of two; only for magnitudes beyond 2**+-500
    xc = x - x.mean()  # (n,)
    yc = y - y.mean()  # (n,)
    xc = xc / np.abs(xc).max()  # r# is scale invariant: rescale against overflow / underflow
    yc = yc / np.abs(yc).max()
    xs = np.sort(xc)  # (n,) x↑ (centred; sorting commutes with centring)
    ys = np.sort(yc)  # (n,) y↑
    num = float(xc @ yc)  # (n-1) s_xy, up to the rescaling
    den = float(xs @ ys) if num >= 0 else -float(xs @ ys[::-1])  # |(n-1) s_{x↑,y↕}|
    if den == 0.0 or abs(num) >= den * (1.0 - _REFINE_BELOW_ONE):
        # (nearly) similarly / oppositely ordered: decide exactly. Pair x↑ with y in the order of
        # x (ties in x broken by y); r# = +-1 iff that is y↑ (resp. y↓) (the paper's Theorem).
        for sign, y_target in ((1.0, ys), (-1.0, ys[::-1])):
            order = _order_by_x_then_y(xc, yc, y_ascending=sign > 0)
            y_paired = yc[order]
            if np.array_equal(y_paired, y_target):
                return sign
        num = float(xs @ yc[_order_by_x_then_y(xc, yc, y_ascending=True)])
        den = float(xs @ ys) if num >= 0 else -float(xs @ ys[::-1])
    if num == 0.0:
        return 0.0
    return float(np.clip(num / den, -1.0, 1.0))


def _col_scale(A: np.ndarray) -> np.ndarray:
    s = np.abs(A).max(axis=0)  # (p,)
    return np.where(s > 0, s, 1.0)


def _orderings(A: np.ndarray, cols: np.ndarray, registry: dict) -> dict[int, tuple]:
    """Column -> (ordering id, reversed-ordering id, has ties) for the columns `cols` of A.

    Columns without ties get the id of their sorting permutation: two such columns are similarly
    ordered iff their ids are equal (ids are found by hashing the permutation and confirmed by
    comparing it with the stored one, so a hash collision cannot merge two orderings).
    """

    def _id(order: np.ndarray) -> int:
        key = hashlib.blake2b(order.tobytes(), digest_size=16).digest()
        for gid, rep in registry.setdefault(key, []):
            if np.array_equal(rep, order):
                return gid
        gid = len(registry["ids"])  # a new ordering
        registry["ids"].append(gid)
        registry[key].append((gid, order))
        return gid

    out = {}
    for c in cols:
        col = A[:, c]
        order = np.argsort(col, kind="stable")
        if np.any(col[order[1:]] == col[order[:-1]]):
            out[c] = (None, None, True)
        else:
            out[c] = (_id(order), _id(order[::-1].copy()), False)
    return out


def _sign_with_ties(x: np.ndarray, Yg: np.ndarray) -> np.ndarray:
    """+1 / -1 / 0 per column of Yg (n, k): similarly / oppositely / not ordered with x (n,).

    Similarly ordered means (x_a - x_b)(y_a - y_b) >= 0 for all a, b: after sorting by x, the
    largest y of each group of tied x is at most the smallest y of the next group.
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    Yg = Yg[order]  # (n, k)
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # first row of each x group
    gmax = np.maximum.reduceat(Yg, starts, axis=0)  # (G, k)
    gmin = np.minimum.reduceat(Yg, starts, axis=0)
    inc = np.all(gmax[:-1] <= gmin[1:], axis=0)  # (k,)
    dec = np.all(gmin[:-1] >= gmax[1:], axis=0)
    return np.where(inc, 1.0, np.where(dec, -1.0, 0.0))


def _exact_signs(X: np.ndarray, Y: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(p, q): +1 where the flagged pair (X[:, i], Y[:, j]) is similarly ordered, -1 where it is
    oppositely ordered, else 0. Columns without ties are compared through their sorting
    permutations (one sort per column, no per-pair work); pairs involving ties are checked
    directly, vectorised over the partner columns."""
    registry: dict = {"ids": []}
    rows, cols = np.flatnonzero(pairs.any(axis=1)), np.flatnonzero(pairs.any(axis=0))
    if Y is X:  # one set of columns
        info_x = info_y = _orderings(X, np.union1d(rows, cols), registry)
    else:
        info_x, info_y = _orderings(X, rows, registry), _orderings(Y, cols, registry)
    p, q = pairs.shape
    # ordering ids (-1 / -2: placeholders for columns in no flagged pair, or with ties)
    gx = np.array([info_x[i][0] if i in info_x and not info_x[i][2] else -1 for i in range(p)])
    gy = np.array([info_y[j][0] if j in info_y and not info_y[j][2] else -2 for j in range(q)])
    ry = np.array([info_y[j][1] if j in info_y and not info_y[j][2] else -2 for j in range(q)])
    tx = np.array([i in info_x and info_x[i][2] for i in range(p)])
    ty = np.array([j in info_y and info_y[j][2] for j in range(q)])
    no_ties = pairs & ~tx[:, None] & ~ty[None, :]
    S = np.zeros(pairs.shape)
    same = gx[:, None] == gy[None, :]  # identical sorting permutations: similarly ordered
    opposite = gx[:, None] == ry[None, :]  # reversed permutations: oppositely ordered
    S[no_ties & same] = 1.0
    S[no_ties & opposite] = -1.0
    tied = pairs & ~no_ties
    # the relation is symmetric: sort by the tied member, one sort per column with ties
    by_row = tied & tx[:, None]
    for i in np.flatnonzero(by_row.any(axis=1)):
        js = np.flatnonzero(by_row[i])
        S[i, js] = _sign_with_ties(X[:, i], Y[:, js])
    by_col = tied & ~tx[:, None]  # here Y[:, j] has ties
    for j in np.flatnonzero(by_col.any(axis=0)):
        is_ = np.flatnonzero(by_col[:, j])
        S[is_, j] = _sign_with_ties(Y[:, j], X[:, is_])
    return S


def _rsharp_block(X: np.ndarray, Y: np.ndarray | None) -> np.ndarray:
    """r# between the columns of finite X (n, p) and Y (n, q), or of X with itself (p, p).

    Vectorised: the numerators are one matrix product of the centred data, the denominators two
    matrix products of the column-sorted centred data (ascending with ascending, ascending with
    descending). O(n (p+q) log n + n p q) time, no Python loop over pairs.
    """
    Xc = rescaled(X, axis=0)  # exact powers of two, only for magnitudes beyond 2**+-500
    Xc = Xc - Xc.mean(axis=0)  # (n, p)
    Xc = Xc / _col_scale(Xc)  # scale invariance: guard against overflow / underflow
    Sx = np.sort(Xc, axis=0)  # (n, p) each column x↑
    if Y is None:
        Yc, Sy = Xc, Sx
    else:
        Yc = rescaled(Y, axis=0)
        Yc = Yc - Yc.mean(axis=0)  # (n, q)
        Yc = Yc / _col_scale(Yc)
        Sy = np.sort(Yc, axis=0)  # (n, q)
    N = Xc.T @ Yc  # (p, q) (n-1) s_xy
    d_up = Sx.T @ Sy  # (p, q) (n-1) s_{x↑,y↑}  >= 0
    d_down = Sx.T @ Sy[::-1]  # (p, q) (n-1) s_{x↑,y↓}  <= 0
    den = np.where(N >= 0, d_up, -d_down)  # (p, q) |(n-1) s_{x↑,y↕}|
    with np.errstate(divide="ignore", invalid="ignore"):
        R = N / den
    R[N == 0] = 0.0
    const_x = Sx[0] == Sx[-1]  # (p,)
    const_y = Sy[0] == Sy[-1]  # (q,)
    R[const_x, :] = np.nan
    R[:, const_y] = np.nan
    np.clip(R, -1.0, 1.0, out=R)
    if Y is None:
        R = np.triu(R) + np.triu(R, 1).T  # exact symmetry
        np.fill_diagonal(R, np.where(const_x, np.nan, 1.0))
    # exact +-1 for similarly / oppositely ordered pairs (BLAS leaves ~1e-15 errors on those)
    near = np.abs(R) >= 1.0 - _REFINE_BELOW_ONE
    if Y is None:
        near &= np.triu(np.ones_like(near), 1)
    if near.any():
        S = _exact_signs(X, X if Y is None else Y, near)
        hit = S != 0
        R[hit] = S[hit]
        if Y is None:
            R.T[hit] = S[hit]
    return R


def _pair_omit(x: np.ndarray, y: np.ndarray) -> float:
    keep = ~(np.isnan(x) | np.isnan(y))
    if keep.sum() < 2:
        return np.nan
    return _rsharp_1d(x[keep], y[keep])


def _matrix(X: np.ndarray, Y: np.ndarray | None, nan_policy: str) -> np.ndarray:
    nan_x = np.isnan(X).any(axis=0)  # (p,)
    nan_y = nan_x if Y is None else np.isnan(Y).any(axis=0)  # (q,)
    if not (nan_x.any() or nan_y.any()):
        return _rsharp_block(X, Y)
    Yfull = X if Y is None else Y
    p, q = X.shape[1], Yfull.shape[1]
    R = np.full((p, q), np.nan)
    ok_x, ok_y = np.flatnonzero(~nan_x), np.flatnonzero(~nan_y)
    if ok_x.size and ok_y.size:  # columns without NaN: the vectorised path
        block = _rsharp_block(X[:, ok_x], None if Y is None else Y[:, ok_y])
        R[np.ix_(ok_x, ok_y)] = block
    if nan_policy == "omit":  # pairwise-complete observations for pairs touching a NaN column
        for i, j in zip(*np.nonzero(nan_x[:, None] | nan_y[None, :])):
            if Y is None and j < i:
                continue
            R[i, j] = _pair_omit(X[:, i], Yfull[:, j])
            if Y is None:
                R[j, i] = R[i, j]
        if Y is None:
            for i in np.flatnonzero(nan_x):  # 1, or NaN if < 2 values or constant
                R[i, i] = _pair_omit(X[:, i], X[:, i])
    return R


def rearrangement_corr(x, y=None, *, nan_policy="propagate"):
    """Rearrangement correlation r#: Pearson's r rescaled to capture any monotone relation.

    r#(x, y) = s_xy / |s_{x↑,y↕}| (Ai, NeurIPS 2024, Sec. 3), where s_{x↑,y↕} pairs the i-th
    smallest x with the i-th smallest y (if s_xy >= 0) or the i-th largest y (if s_xy < 0).
    It is exactly 1 (-1) iff x and y are similarly (oppositely) ordered, i.e. y is an increasing
    (decreasing) function of x; |r#| >= |Pearson r|; it equals Spearman's rho on untied ranks;
    it is symmetric and invariant to separate positive affine maps of x and y.

    The call mirrors ``numpy.corrcoef`` / R's ``recor``:

    - ``x`` (n,) and ``y`` (n,): a float.
    - ``x`` (n, p), ``y=None``: the (p, p) matrix over the columns of x (diagonal 1).
    - ``x`` (n, p) and ``y`` (n, q): the (p, q) cross matrix, entry (i, j) = r#(x[:, i], y[:, j]).

    Args:
        x: (n,) or (n, p) real array; columns are variables, rows observations.
        y: (n,) if x is 1-d, or (n, q) if x is 2-d, or None (only with 2-d x).
        nan_policy: what to do with NaN, as in scipy.stats: ``"propagate"`` (a pair with a NaN
            gives NaN), ``"raise"`` (ValueError), ``"omit"`` (drop the observations where either
            member of the pair is NaN; pairwise-complete for matrices).

    Returns:
        float for two vectors, else a float64 (p, p) or (p, q) array. NaN where a variable is
        constant (with a ConstantInputWarning) or, under "propagate", holds a NaN.

    Raises:
        TypeError: non-real dtype, ragged input, a non-string nan_policy. ValueError: bad
            shape, length mismatch, fewer than 2 observations, infinite values, unknown
            nan_policy, or NaN with nan_policy="raise". Messages name the argument.

    >>> rearrangement_corr([1.0, 2.0, 3.0, 4.0], [1.0, 8.0, 27.0, 64.0])  # y = x**3
    1.0
    >>> round(rearrangement_corr([4, 3, 2, 1], [5, 4, 3, 3.25]), 7)  # recor's README example
    0.9259259
    """
    check_nan_policy(nan_policy)
    x = as_data(x, "x")
    if y is None:
        if x.ndim == 1:
            raise ValueError(
                "y is required when x is 1-d, got y=None; pass a 2-d x (n, p) for a correlation "
                "matrix"
            )
        X, Y = x, None
    else:
        y = as_data(y, "y")
        if x.ndim != y.ndim:
            raise ValueError(
                f"x and y must both be 1-d or both be 2-d, got x.ndim={x.ndim}, y.ndim={y.ndim} "
                "(reshape a vector to (n, 1) to correlate it with the columns of a matrix)"
            )
        check_same_length(x=x, y=y)
        X, Y = x, y
    nan_x = bool(np.isnan(X).any())
    nan_y = Y is not None and bool(np.isnan(Y).any())
    if (nan_x or nan_y) and nan_policy == "raise":
        name = "x" if nan_x else "y"
        raise ValueError(f"{name} contains NaN (nan_policy='raise')")
    has_nan = nan_x or nan_y

    if X.ndim == 1:
        if has_nan:
            if nan_policy == "propagate":
                return float("nan")
            r = _pair_omit(X, Y)
            if np.isnan(r) and np.count_nonzero(~(np.isnan(X) | np.isnan(Y))) >= 2:
                _warn_constant()
            return r
        r = _rsharp_1d(X, Y)
        if np.isnan(r):
            _warn_constant()
        return r

    R = _matrix(X, Y, nan_policy)
    const = np.ptp(X, axis=0) == 0
    if Y is not None:
        const = np.concatenate([const, np.ptp(Y, axis=0) == 0])
    if const.any():
        _warn_constant()
    return R
